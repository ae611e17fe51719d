//! `acp agent --listen ADDR`: the example agent served to remote clients over WebSocket on
//! one TCP listener, every connection sharing the session store.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use acp_runtime::agent::{Agent, AgentServer};
use acp_runtime::transport::remote::{RemoteServer, ServerOptions, TlsIdentity};
use tokio::net::TcpListener;

/// Where to listen: `PORT` alone means the loopback address `127.0.0.1`; `HOST:PORT` (and
/// `[V6]:PORT`) are taken as given.
pub fn parse_listen(text: &str) -> Result<SocketAddr, String> {
    let text = text.trim();
    if let Ok(port) = text.parse::<u16>() {
        return Ok(SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port));
    }
    if let Some(port) = text.strip_prefix(':').and_then(|p| p.parse::<u16>().ok()) {
        return Ok(SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port));
    }
    if let Ok(address) = text.parse::<SocketAddr>() {
        return Ok(address);
    }
    if let Some((host, port)) = text.rsplit_once(':') {
        if host.eq_ignore_ascii_case("localhost") {
            if let Ok(port) = port.parse::<u16>() {
                return Ok(SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port));
            }
        }
    }
    Err(format!(
        "`{text}` is not PORT, IP:PORT or [IPV6]:PORT (for example 8123 or 0.0.0.0:8123)"
    ))
}

/// The remote options of `acp agent`.
#[derive(Debug, Clone)]
pub struct Listen {
    /// Where to listen.
    pub address: SocketAddr,
    /// The server options (token, origins, limits).
    pub options: ServerOptions,
    /// The endpoint path, for the printed URL.
    pub path: String,
    /// Whether a token is required, for the warning about open addresses.
    pub has_token: bool,
    /// The certificate and key to serve TLS with (`wss://`, `https://`).
    pub tls: Option<TlsIdentity>,
}

/// Binds, says where on standard error, and serves until Ctrl-C (or `SIGTERM`).
pub async fn serve<A: Agent>(server: AgentServer<A>, listen: Listen) -> std::io::Result<()> {
    let listener = TcpListener::bind(listen.address).await.map_err(|error| {
        std::io::Error::new(
            error.kind(),
            format!("cannot listen on {}: {error}", listen.address),
        )
    })?;
    let bound = listener.local_addr()?;
    let scheme = if listen.tls.is_some() { "wss" } else { "ws" };
    eprintln!("acp agent: listening on {scheme}://{bound}{}", listen.path);
    if bound.ip().is_loopback() {
        eprintln!(
            "acp agent: loopback only: other machines cannot connect (pass --listen 0.0.0.0:PORT to allow them)"
        );
    } else if !listen.has_token {
        eprintln!(
            "acp agent: warning: {bound} is reachable from other machines and no token is required (--token or $ACP_TOKEN)"
        );
    }
    let remote = RemoteServer::new(server, listen.options);
    match listen.tls {
        Some(identity) => {
            remote
                .serve_tls_until(listener, identity, stop_signal())
                .await
        }
        None => remote.serve_until(listener, stop_signal()).await,
    }
}

/// Resolves on Ctrl-C or `SIGTERM`.
async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut terminate) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = terminate.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
