//! The close codes of the server's WebSocket (feature `remote`), per RFC 6455 section 7.4.1:
//! 1002 for a protocol violation, 1007 for a text frame that is not UTF-8, 1009 for a
//! message over the limit, each with a reason, sent by a raw client that writes frames
//! byte by byte.
#![cfg(feature = "remote")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
mod remote_support;

use std::time::Duration;

use acptk_runtime::agent::AgentServer;
use acptk_runtime::transport::remote::ServerOptions;
use common::TestAgent;
use remote_support::serve;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A WebSocket upgraded by hand: what follows is raw frames.
async fn upgraded(address: &str) -> TcpStream {
    let mut stream = TcpStream::connect(address).await.unwrap();
    let request = format!(
        "GET /acp HTTP/1.1\r\nHost: {address}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut head = Vec::new();
    while !head.ends_with(b"\r\n\r\n") {
        let mut byte = [0u8; 1];
        stream.read_exact(&mut byte).await.unwrap();
        head.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&head);
    assert!(head.starts_with("HTTP/1.1 101"), "{head}");
    stream
}

/// A client frame: `first` is the FIN/RSV/opcode byte; masked unless `unmasked`.
fn frame(first: u8, payload: &[u8], unmasked: bool) -> Vec<u8> {
    let mut bytes = vec![first];
    let mask_bit = if unmasked { 0 } else { 0x80 };
    match payload.len() {
        len @ 0..=125 => bytes.push(mask_bit | len as u8),
        len => {
            bytes.push(mask_bit | 126);
            bytes.extend_from_slice(&(len as u16).to_be_bytes());
        }
    }
    if unmasked {
        bytes.extend_from_slice(payload);
    } else {
        let key = [0x12, 0x34, 0x56, 0x78];
        bytes.extend_from_slice(&key);
        bytes.extend(payload.iter().enumerate().map(|(i, b)| b ^ key[i % 4]));
    }
    bytes
}

/// Reads server frames until a close frame: its code and reason.
async fn close_frame(stream: &mut TcpStream) -> (u16, String) {
    let read = async {
        loop {
            let mut head = [0u8; 2];
            stream.read_exact(&mut head).await.unwrap();
            let mut len = usize::from(head[1] & 0x7f);
            if len == 126 {
                let mut ext = [0u8; 2];
                stream.read_exact(&mut ext).await.unwrap();
                len = usize::from(u16::from_be_bytes(ext));
            }
            let mut payload = vec![0u8; len];
            stream.read_exact(&mut payload).await.unwrap();
            if head[0] & 0x0f == 0x8 {
                let code = u16::from_be_bytes([payload[0], payload[1]]);
                return (code, String::from_utf8_lossy(&payload[2..]).into_owned());
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(10), read)
        .await
        .expect("a close frame within 10 s")
}

#[tokio::test]
async fn violations_close_with_their_rfc_6455_codes() {
    let (agent, _opened) = TestAgent::new();
    let options = ServerOptions::new().max_message_bytes(1024);
    let (address, _remote) = serve(AgentServer::new(agent), options).await;
    let text = br#"{"jsonrpc":"2.0","method":"_x"}"#;
    let cases: [(&str, Vec<u8>, u16, &str); 5] = [
        ("a reserved bit", frame(0xC1, text, false), 1002, "protocol"),
        (
            "an unmasked frame",
            frame(0x81, text, true),
            1002,
            "protocol",
        ),
        (
            "a fragmented ping",
            frame(0x09, b"", false),
            1002,
            "protocol",
        ),
        (
            "text that is not UTF-8",
            frame(0x81, &[0x7b, 0xff, 0xfe], false),
            1007,
            "UTF-8",
        ),
        (
            "a message over 1024 bytes",
            frame(0x81, &[b' '; 2000], false),
            1009,
            "1024",
        ),
    ];
    for (what, bytes, code, reason) in cases {
        let mut stream = upgraded(&address).await;
        stream.write_all(&bytes).await.unwrap();
        let (got, said) = close_frame(&mut stream).await;
        assert_eq!(got, code, "{what}: {said}");
        assert!(said.contains(reason), "{what}: {said}");
    }
    // A client that closes normally gets 1000.
    let mut stream = upgraded(&address).await;
    stream
        .write_all(&frame(0x88, &1000u16.to_be_bytes(), false))
        .await
        .unwrap();
    assert_eq!(close_frame(&mut stream).await.0, 1000);
}
