//! TLS (rustls with the ring provider): the server's certificate and key (its acceptor
//! serves the endpoint with ALPN `h2` and `http/1.1`, WebSocket upgrades included; the accept
//! loop is [`super::accept`]), and extra trust roots for clients.

use std::io;
use std::path::Path;
use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::TlsAcceptor;

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

impl TlsIdentity {
    /// The acceptor of TLS connections with this identity.
    pub(crate) fn acceptor(&self) -> TlsAcceptor {
        TlsAcceptor::from(Arc::clone(&self.config))
    }
}
