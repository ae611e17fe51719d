//! The remote server over TLS (feature `remote`): `wss://` with a certificate the client
//! trusts, refused without that trust, the same listener serving HTTPS (HTTP/1.1 chosen by
//! ALPN), and bad certificate files reported clearly.
#![cfg(feature = "remote")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use acptk_runtime::Error;
use acptk_runtime::agent::AgentServer;
use acptk_runtime::agent::RemoteServer;
use acptk_runtime::transport::remote::{ClientOptions, ServerOptions, TlsIdentity};
use common::{TestAgent, client};
use rustls::pki_types::pem::PemObject;
use tokio::net::TcpListener;

/// A self-signed certificate for `localhost`: (certificate PEM, key PEM).
fn certificate() -> (String, String) {
    let certified = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).unwrap();
    (certified.cert.pem(), certified.key_pair.serialize_pem())
}

async fn serve_tls(cert: &str, key: &str) -> u16 {
    let (agent, _opened) = TestAgent::new();
    let identity = TlsIdentity::from_pem(cert.as_bytes(), key.as_bytes()).unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let server = RemoteServer::new(AgentServer::new(agent), ServerOptions::new());
    tokio::spawn(server.serve_tls_until(listener, identity, std::future::pending()));
    port
}

#[tokio::test]
async fn wss_with_a_trusted_certificate() {
    let (cert, key) = certificate();
    let port = serve_tls(&cert, &key).await;
    let url = format!("wss://localhost:{port}/acp");
    let options = ClientOptions::new().trust_pem(cert.as_bytes()).unwrap();
    let client = client(acptk_runtime::ProtocolVersion::V1, true)
        .connect_url(&url, &options)
        .await
        .unwrap();
    let session = client.new_session("/tmp", &[]).await.unwrap();
    client.prompt(&session, "hi").await.unwrap();

    // Without the trust (the Mozilla roots do not know it): refused.
    let error = client_error(&url, &ClientOptions::new()).await;
    assert!(error.to_lowercase().contains("certificate"), "{error}");
    // Plain ws:// to the TLS port: no WebSocket there.
    let error = client_error(&format!("ws://localhost:{port}/acp"), &options).await;
    assert!(error.starts_with("cannot connect to ws://"), "{error}");
}

#[tokio::test]
async fn https_on_the_same_listener() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let (cert, key) = certificate();
    let port = serve_tls(&cert, &key).await;
    let mut roots = rustls::RootCertStore::empty();
    for der in rustls::pki_types::CertificateDer::pem_slice_iter(cert.as_bytes()) {
        roots.add(der.unwrap()).unwrap();
    }
    let mut config = rustls::ClientConfig::builder()
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    let connector = tokio_rustls::TlsConnector::from(std::sync::Arc::new(config));
    let tcp = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    let name = rustls::pki_types::ServerName::try_from("localhost").unwrap();
    let mut tls = connector.connect(name, tcp).await.unwrap();
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}"#;
    let request = format!(
        "POST /acp HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    tls.write_all(request.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    let _ = tls.read_to_end(&mut answer).await;
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(
        answer.to_lowercase().contains("acp-connection-id:"),
        "{answer}"
    );
}

async fn client_error(url: &str, options: &ClientOptions) -> String {
    match client(acptk_runtime::ProtocolVersion::V1, true)
        .connect_url(url, options)
        .await
    {
        Err(error @ Error::Remote(_)) => error.to_string(),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn bad_certificate_files_are_reported() {
    let (cert, key) = certificate();
    let error = TlsIdentity::from_pem(b"", key.as_bytes()).unwrap_err();
    assert!(error.to_string().contains("no certificate"), "{error}");
    let error = TlsIdentity::from_pem(cert.as_bytes(), b"not a key").unwrap_err();
    assert!(error.to_string().contains("private key"), "{error}");
    let (_, other_key) = certificate();
    let error = TlsIdentity::from_pem(cert.as_bytes(), other_key.as_bytes()).unwrap_err();
    assert!(error.to_string().contains("do not fit"), "{error}");
    let missing = std::path::Path::new("/nonexistent/cert.pem");
    let error = TlsIdentity::from_pem_files(missing, missing).unwrap_err();
    assert!(
        error.to_string().contains("/nonexistent/cert.pem"),
        "{error}"
    );
    assert!(ClientOptions::new().trust_pem(b"nothing").is_err());
}
