//! TLS (rustls with the ring provider): the server's certificate and key, the accept loop
//! that serves the endpoint over TLS (ALPN `h2` and `http/1.1`, WebSocket upgrades
//! included), and extra trust roots for clients.

use std::future::Future;
use std::io;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use hyper_util::service::TowerToHyperService;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;

use crate::log::{Level, Logger};

/// How long a client may take for the TLS handshake.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// A server certificate chain and its private key, ready to serve TLS.
#[derive(Clone)]
pub struct TlsIdentity {
    config: Arc<rustls::ServerConfig>,
}

impl std::fmt::Debug for TlsIdentity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TlsIdentity").finish_non_exhaustive()
    }
}

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message)
}

impl TlsIdentity {
    /// From PEM text: the certificate chain (leaf first) and the private key (PKCS#8,
    /// PKCS#1 or SEC1).
    pub fn from_pem(certificates: &[u8], key: &[u8]) -> io::Result<Self> {
        let chain = CertificateDer::pem_slice_iter(certificates)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|error| invalid(format!("cannot read the certificates: {error}")))?;
        if chain.is_empty() {
            return Err(invalid("no certificate in the PEM text".to_owned()));
        }
        let key = PrivateKeyDer::from_pem_slice(key)
            .map_err(|error| invalid(format!("cannot read the private key: {error}")))?;
        let mut config = rustls::ServerConfig::builder()
            .with_no_client_auth()
            .with_single_cert(chain, key)
            .map_err(|error| invalid(format!("the certificate and key do not fit: {error}")))?;
        config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
        Ok(Self {
            config: Arc::new(config),
        })
    }

    /// From PEM files (see [`Self::from_pem`]); errors name the file.
    pub fn from_pem_files(certificates: &Path, key: &Path) -> io::Result<Self> {
        let read = |path: &Path| {
            std::fs::read(path).map_err(|error| {
                io::Error::new(
                    error.kind(),
                    format!("cannot read {}: {error}", path.display()),
                )
            })
        };
        Self::from_pem(&read(certificates)?, &read(key)?)
    }
}

/// Certificates from PEM text, for a client to trust.
pub(crate) fn certificates(pem: &[u8]) -> io::Result<Vec<CertificateDer<'static>>> {
    let certificates = CertificateDer::pem_slice_iter(pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|error| invalid(format!("cannot read the certificates: {error}")))?;
    if certificates.is_empty() {
        return Err(invalid("no certificate in the PEM text".to_owned()));
    }
    Ok(certificates)
}

/// A client configuration that trusts exactly `roots`.
pub(crate) fn client_config(
    roots: &[CertificateDer<'static>],
) -> Result<Arc<rustls::ClientConfig>, String> {
    let mut store = rustls::RootCertStore::empty();
    for root in roots {
        store
            .add(root.clone())
            .map_err(|error| format!("cannot trust a certificate: {error}"))?;
    }
    Ok(Arc::new(
        rustls::ClientConfig::builder()
            .with_root_certificates(store)
            .with_no_client_auth(),
    ))
}

/// Serves `router` over TLS on `listener` until `shutdown` resolves.
pub(crate) async fn serve(
    router: Router,
    listener: TcpListener,
    identity: TlsIdentity,
    shutdown: impl Future<Output = ()> + Send + 'static,
    logger: Logger,
) -> io::Result<()> {
    let acceptor = TlsAcceptor::from(identity.config);
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = &mut shutdown => return Ok(()),
        };
        let (tcp, peer) = match accepted {
            Ok(pair) => pair,
            Err(error) => {
                // Out of descriptors and the like: wait a little rather than spin.
                logger.log(
                    Level::Warn,
                    format!("accepting a connection failed: {error}"),
                );
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let acceptor = acceptor.clone();
        let router = router.clone();
        let logger = logger.clone();
        tokio::spawn(async move {
            let tls = match tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(tcp)).await {
                Ok(Ok(tls)) => tls,
                Ok(Err(error)) => {
                    logger.log(
                        Level::Debug,
                        format!("TLS handshake with {peer} failed: {error}"),
                    );
                    return;
                }
                Err(_) => return,
            };
            let service = TowerToHyperService::new(router);
            let _ = auto::Builder::new(TokioExecutor::new())
                .serve_connection_with_upgrades(TokioIo::new(tls), service)
                .await;
        });
    }
}
