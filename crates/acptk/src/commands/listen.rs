//! `--listen ADDR` and its flags, shared by `acp agent --listen` (the example agent) and
//! `acp proxy --listen` (a stdio agent behind the proxy, one process per connection): the
//! address rules, the access flags (tokens and the principals they name), the limit flags,
//! binding, and serving until a stop signal.

use std::future::Future;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;

use acptk_runtime::transport::remote::{
    DEFAULT_BODY_TIMEOUT, DEFAULT_DRAIN_GRACE, DEFAULT_HEADER_TIMEOUT, DEFAULT_IDLE_TIMEOUT,
    DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_PER_ADDRESS, DEFAULT_MAX_QUEUED_BYTES,
    DEFAULT_MAX_SESSIONS, DEFAULT_MAX_TOTAL_SESSIONS, DEFAULT_PRINCIPAL, DEFAULT_STALL_TIMEOUT,
    DEFAULT_UNUSED_TIMEOUT, Endpoint, ServerOptions, Service, TlsIdentity, TrustedProxy,
};

use super::tokens;

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
    if let Some((host, port)) = text.rsplit_once(':')
        && host.eq_ignore_ascii_case("localhost")
        && let Ok(port) = port.parse::<u16>()
    {
        return Ok(SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port));
    }
    Err(format!(
        "`{text}` is not PORT, IP:PORT or [IPV6]:PORT (for example 8123 or 0.0.0.0:8123)"
    ))
}

/// A number of seconds from 0 up (0 turns the idle and stall timeouts off; a drain of 0
/// cancels running turns at once).
fn parse_idle(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(seconds) if seconds.is_finite() && (0.0..1e9).contains(&seconds) => Ok(seconds),
        _ => Err(format!("`{text}` is not a number of seconds from 0 up")),
    }
}

/// A number of seconds above 0.
fn parse_positive(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(seconds) if seconds.is_finite() && seconds > 0.0 && seconds < 1e9 => Ok(seconds),
        _ => Err(format!("`{text}` is not a number of seconds above 0")),
    }
}

/// A number of bytes: digits, optionally followed by `K`, `M` or `G` (binary multiples,
/// `KiB`, `MiB`, `GiB` too); at least 1.
pub fn parse_bytes(text: &str) -> Result<usize, String> {
    let trimmed = text.trim();
    let digits = trimmed
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(trimmed.len());
    let (number, unit) = trimmed.split_at(digits);
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kib" => 10,
        "m" | "mib" => 20,
        "g" | "gib" => 30,
        _ => {
            return Err(format!(
                "`{text}` is not a number of bytes (like 65536, 64K or 16M)"
            ));
        }
    };
    number
        .parse::<usize>()
        .ok()
        .and_then(|n| n.checked_mul(1 << shift))
        .filter(|n| *n > 0)
        .ok_or_else(|| {
            format!("`{text}` is not a number of bytes above 0 (like 65536, 64K or 16M)")
        })
}

/// The heading of the `--listen` flags in the help of the commands that flatten them (some,
/// like `--max-queued-bytes`, bound stdio peers too).
pub const HELP_HEADING: &str = "Listening and connection limits";

/// The flags of `--listen`. The command that flattens them defines the argument group
/// `remote` (`--listen`, and for the proxy `--url` too) that `--token` needs.
#[derive(Debug, Clone, clap::Args)]
pub struct ListenArgs {
    /// Serve remote clients over WebSocket and Streamable HTTP on ADDR instead of stdio: PORT
    /// alone binds the loopback address 127.0.0.1; give IP:PORT (for example 0.0.0.0:8123) to
    /// be reachable from other machines. The URL is printed on standard error.
    #[arg(long, value_name = "ADDR", value_parser = parse_listen)]
    pub listen: Option<SocketAddr>,
    /// With --listen: require `Authorization: Bearer TOKEN`, one principal named `default`
    /// (with `acp proxy --url`: send it) (default: $ACP_TOKEN when set). Empty is an error.
    #[arg(long, value_name = "TOKEN", requires = "remote", value_parser = tokens::parse_token)]
    pub token: Option<String>,
    /// With --listen: require one of the tokens in FILE, one `NAME TOKEN` per line (`#`
    /// comments); each NAME is a principal that sees only its own sessions.
    #[arg(
        long,
        value_name = "FILE",
        requires = "listen",
        conflicts_with = "token"
    )]
    pub token_file: Option<PathBuf>,
    /// With --listen: accept browser requests with this `Origin` (repeatable; requests from
    /// other origins get 403, requests without one are not affected).
    #[arg(long = "allow-origin", value_name = "ORIGIN", requires = "listen")]
    pub allow_origins: Vec<String>,
    /// With --listen: the endpoint's path.
    #[arg(long, value_name = "PATH", default_value = "/acp")]
    pub path: String,
    /// With --listen: serve TLS (`wss://`, `https://`) with this certificate chain (PEM).
    #[arg(long, value_name = "FILE", requires_all = ["listen", "tls_key"])]
    pub tls_cert: Option<PathBuf>,
    /// With --tls-cert: the certificate's private key (PEM).
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// With --listen: at most N connections at once; more get 503.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_CONNECTIONS)]
    pub max_connections: usize,
    /// With --listen: at most N sessions open per connection; a `session/new` past it gets a
    /// JSON-RPC error naming the limit.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_SESSIONS)]
    pub max_sessions: usize,
    /// With --listen: close a connection that carried no message either way for SECONDS
    /// (0: never).
    #[arg(long, value_name = "SECONDS", value_parser = parse_idle,
          default_value_t = DEFAULT_IDLE_TIMEOUT.as_secs_f64())]
    pub idle_timeout: f64,
    /// With --listen: at most N sessions open across all connections (a session a
    /// connection left open counts for --idle-timeout after it ended).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_TOTAL_SESSIONS)]
    pub max_total_sessions: usize,
    /// At most BYTES waiting for one peer on each queue towards it (and, over Streamable
    /// HTTP, of its posted messages; `acp agent`: also of its requests being handled): a
    /// peer that reads slowly is slowed down, then disconnected after --stall-timeout
    /// (`acp agent`: over stdio too).
    #[arg(long, value_name = "BYTES", value_parser = parse_bytes,
          default_value_t = DEFAULT_MAX_QUEUED_BYTES)]
    pub max_queued_bytes: usize,
    /// Disconnect a peer that takes nothing of what is written to it for SECONDS, logged
    /// (0: never; `acp agent`: over stdio too).
    #[arg(long, value_name = "SECONDS", value_parser = parse_idle,
          default_value_t = DEFAULT_STALL_TIMEOUT.as_secs_f64())]
    pub stall_timeout: f64,
    /// With --listen: close a TCP connection that has not sent a whole request head within
    /// SECONDS (or waits that long between two requests).
    #[arg(long, value_name = "SECONDS", value_parser = parse_positive,
          default_value_t = DEFAULT_HEADER_TIMEOUT.as_secs_f64())]
    pub header_timeout: f64,
    /// With --listen: answer 408 to a request whose body takes longer than SECONDS.
    #[arg(long, value_name = "SECONDS", value_parser = parse_positive,
          default_value_t = DEFAULT_BODY_TIMEOUT.as_secs_f64())]
    pub body_timeout: f64,
    /// With --listen: close a Streamable HTTP connection that opens no event stream and
    /// posts no second message within SECONDS of its `initialize`.
    #[arg(long, value_name = "SECONDS", value_parser = parse_positive,
          default_value_t = DEFAULT_UNUSED_TIMEOUT.as_secs_f64())]
    pub unused_timeout: f64,
    /// With --listen: at most N Streamable HTTP connections of one client (one principal
    /// with tokens, else one client address); past it, the client's connection unused
    /// longest since its `initialize` makes way, and only when all are in use does a new one
    /// get 503.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_PER_ADDRESS)]
    pub max_per_address: usize,
    /// With --listen: trust the load balancer at ADDR (an IP address or a network such as
    /// 10.0.0.0/8; repeatable) to name the client's address, by a PROXY protocol v1 line
    /// (HAProxy `send-proxy`) or else `X-Forwarded-For` (HAProxy `option forwardfor`); from
    /// any other peer both are ignored.
    #[arg(long = "trusted-proxy", value_name = "ADDR", requires = "listen")]
    pub trusted_proxies: Vec<TrustedProxy>,
    /// With --listen: on SIGTERM (or SIGINT, SIGHUP), let running turns end for up to
    /// SECONDS, refusing new connections and prompts meanwhile; then cancel what still runs,
    /// close every connection and exit. `GET /health` says `draining` during that time.
    #[arg(long, value_name = "SECONDS", value_parser = parse_idle,
          default_value_t = DEFAULT_DRAIN_GRACE.as_secs_f64())]
    pub drain_seconds: f64,
}

/// What `--listen` and its flags ask for.
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
    /// The principals the tokens name (empty without tokens: one local principal).
    pub principals: Vec<String>,
    /// The certificate and key to serve TLS with (`wss://`, `https://`).
    pub tls: Option<TlsIdentity>,
}

impl ListenArgs {
    /// `--stall-timeout` (zero: never).
    pub fn stall(&self) -> Duration {
        Duration::from_secs_f64(self.stall_timeout)
    }

    /// The remote options, with `--listen`. A token file that does not read, and an empty
    /// `$ACP_TOKEN`, are [`UsageError`](tokens::UsageError)s.
    pub fn listen(&self) -> Result<Option<Listen>, Box<dyn std::error::Error + Send + Sync>> {
        let Some(address) = self.listen else {
            return Ok(None);
        };
        let tls = match (&self.tls_cert, &self.tls_key) {
            (Some(cert), Some(key)) => Some(TlsIdentity::from_pem_files(cert, key)?),
            _ => None,
        };
        let mut options = ServerOptions::new()
            .path(self.path.clone())
            .max_connections(self.max_connections)
            .max_sessions(self.max_sessions)
            .max_total_sessions(self.max_total_sessions)
            .max_queued_bytes(self.max_queued_bytes)
            .stall_timeout(self.stall())
            .idle_timeout(Duration::from_secs_f64(self.idle_timeout))
            .header_timeout(Duration::from_secs_f64(self.header_timeout))
            .body_timeout(Duration::from_secs_f64(self.body_timeout))
            .unused_timeout(Duration::from_secs_f64(self.unused_timeout))
            .max_per_address(self.max_per_address)
            .drain_grace(Duration::from_secs_f64(self.drain_seconds));
        let mut principals = Vec::new();
        if let Some(file) = &self.token_file {
            for (name, token) in tokens::read_token_file(file)? {
                if !principals.contains(&name) {
                    principals.push(name.clone());
                }
                options = options.principal(name, token);
            }
        } else if let Some(token) = tokens::token(self.token.as_ref())? {
            principals.push(DEFAULT_PRINCIPAL.to_owned());
            options = options.token(token);
        }
        for proxy in &self.trusted_proxies {
            options = options.trusted_proxy(*proxy);
        }
        for origin in &self.allow_origins {
            options = options.allow_origin(origin.clone());
        }
        let path = if self.path.starts_with('/') {
            self.path.clone()
        } else {
            format!("/{}", self.path)
        };
        Ok(Some(Listen {
            address,
            options,
            path,
            has_token: !principals.is_empty(),
            principals,
            tls,
        }))
    }
}

/// Binds, says where on standard error (as `NAME: listening on URL`), and serves `service`
/// until `shutdown` resolves.
pub async fn serve<S: Service>(
    service: S,
    listen: Listen,
    name: &str,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let listener = acptk_runtime::transport::remote::bind(listen.address).map_err(|error| {
        std::io::Error::new(
            error.kind(),
            format!("cannot listen on {}: {error}", listen.address),
        )
    })?;
    let bound = listener.local_addr()?;
    match listen.principals.as_slice() {
        [] => eprintln!("{name}: no token: every client is the local user and shares its sessions"),
        [one] => {
            eprintln!("{name}: one principal (`{one}`): clients with the token share its sessions")
        }
        many => eprintln!(
            "{name}: {} principals ({}): each sees only its own sessions",
            many.len(),
            many.join(", ")
        ),
    }
    let scheme = if listen.tls.is_some() { "wss" } else { "ws" };
    eprintln!("{name}: listening on {scheme}://{bound}{}", listen.path);
    if bound.ip().is_loopback() {
        eprintln!(
            "{name}: loopback only: other machines cannot connect (pass --listen 0.0.0.0:PORT to allow them)"
        );
    } else if !listen.has_token {
        eprintln!(
            "{name}: warning: {bound} is reachable from other machines and no token is required (--token, --token-file or $ACP_TOKEN)"
        );
    }
    // Memory freed when a client goes is given back even when nothing else happens.
    tokio::spawn(super::allocator::tick());

    let grace = listen.options.get_drain_grace();
    let announced = name.to_owned();
    let shutdown = async move {
        shutdown.await;
        eprintln!(
            "{announced}: stopping: no new connections; running work gets up to {} s, then every connection is closed",
            grace.as_secs_f64()
        );
    };
    let remote = Endpoint::new(service, listen.options);
    match listen.tls {
        Some(identity) => remote.serve_tls_until(listener, identity, shutdown).await,
        None => remote.serve_until(listener, shutdown).await,
    }
}
