//! Helpers of the remote server tests: a server on a loopback port, raw WebSocket and
//! HTTP/1.1 clients that can send anything.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Duration;

use acptk_runtime::agent::RemoteServer;
use acptk_runtime::agent::{Agent, AgentServer};
use acptk_runtime::client::transcript::Role;
use acptk_runtime::transport::remote::{
    ClientOptions, RemoteReader, RemoteWriter, ServerOptions, connect,
};
use acptk_runtime::transport::{Frame, MessageReader, MessageWriter};
use acptk_runtime::{Notice, NoticeDelivery, ProtocolVersion};
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio_tungstenite::tungstenite::Message;

use crate::common::{TestAgent, client, texts};

pub type Raw =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Serves `server` on a fresh loopback port: its `host:port` and a handle on the server.
pub async fn serve<A: Agent>(
    server: AgentServer<A>,
    options: ServerOptions,
) -> (String, RemoteServer<A>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap().to_string();
    let remote = RemoteServer::new(server, options);
    tokio::spawn(remote.clone().serve(listener));
    (address, remote)
}

/// As [`serve`], with the URL of the server's endpoint for `scheme` (`http`, `ws`).
pub async fn serve_url<A: Agent>(
    scheme: &str,
    server: AgentServer<A>,
    options: ServerOptions,
) -> (String, RemoteServer<A>) {
    let (address, remote) = serve(server, options).await;
    (format!("{scheme}://{address}/acp"), remote)
}

pub async fn socket(address: &str) -> Raw {
    let (socket, _) = tokio_tungstenite::connect_async(format!("ws://{address}/acp"))
        .await
        .unwrap();
    socket
}

/// The next frame: a JSON text frame, or the close frame (`Err` with its code and reason).
pub async fn next(socket: &mut Raw) -> Result<Value, Option<(u16, String)>> {
    let wait = tokio::time::timeout(Duration::from_secs(10), async {
        while let Some(message) = socket.next().await {
            match message {
                Ok(Message::Text(text)) => return Ok(serde_json::from_str(&text).unwrap()),
                Ok(Message::Close(frame)) => {
                    return Err(frame.map(|f| (u16::from(f.code), f.reason.to_string())));
                }
                Err(_) => return Err(None),
                Ok(_) => {}
            }
        }
        Err(None)
    });
    wait.await.expect("a frame within 10 s")
}

pub async fn send(socket: &mut Raw, message: Value) {
    socket
        .send(Message::text(message.to_string()))
        .await
        .unwrap();
}

pub fn initialize() -> Value {
    initialize_as(0)
}

/// A v1 `initialize` request with the id `id`.
pub fn initialize_as(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "initialize",
           "params": {"protocolVersion": 1, "clientCapabilities": {}}})
}

pub fn new_session(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "session/new",
           "params": {"cwd": "/tmp", "mcpServers": []}})
}

/// Waits (up to 10 s) until `remote` has no connection open.
pub async fn all_closed<A: Agent>(remote: &RemoteServer<A>) {
    tokio::time::timeout(Duration::from_secs(10), async {
        while remote.open_connections() > 0 {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("the connection slot is given back");
}

/// The text of one HTTP/1.1 request for `path` on `address` with `headers` and `body`,
/// asking the server to close the connection after its answer.
pub fn http_request(
    address: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> String {
    let mut text = format!("{method} {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n");
    for (name, value) in headers {
        text.push_str(&format!("{name}: {value}\r\n"));
    }
    text.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    text
}

/// One HTTP/1.1 request; the status and the `Acp-Connection-Id` of the answer.
pub async fn post(address: &str, headers: &[(&str, &str)], body: &str) -> (u16, Option<String>) {
    let mut all = vec![("Content-Type", "application/json")];
    all.extend_from_slice(headers);
    let text = http_request(address, "POST", "/acp", &all, body);
    status_and_id(&exchange(address, &text).await)
}

/// Sends `text` (a whole HTTP/1.1 request) on a new connection to `address` and reads the
/// answer to its end (within 10 s).
pub async fn exchange(address: &str, text: &str) -> Vec<u8> {
    let stream = TcpStream::connect(address).await.unwrap();
    let (raw, read) = exchange_on(stream, text).await;
    read.unwrap();
    raw
}

/// Sends `text` on `stream` and reads the answer to its end (within 10 s): what was read,
/// and how the reading ended.
pub async fn exchange_on(mut stream: TcpStream, text: &str) -> (Vec<u8>, std::io::Result<usize>) {
    stream.write_all(text.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut raw))
        .await
        .expect("an answer within 10 s");
    (raw, read)
}

/// A raw HTTP/1.1 answer as its status (0 when it has none), its head and its body.
pub fn answer_parts(raw: &[u8]) -> (u16, String, String) {
    let raw = String::from_utf8_lossy(raw);
    let (head, body) = raw.split_once("\r\n\r\n").unwrap_or((&raw, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or(0);
    (status, head.to_owned(), body.to_owned())
}

/// The status of a raw HTTP/1.1 answer and its `Acp-Connection-Id`, if any.
pub fn status_and_id(raw: &[u8]) -> (u16, Option<String>) {
    let raw = String::from_utf8_lossy(raw);
    let status = raw
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or(0);
    let id = raw.lines().find_map(|line| {
        let (key, value) = line.split_once(':')?;
        key.trim()
            .eq_ignore_ascii_case("acp-connection-id")
            .then(|| value.trim().to_owned())
    });
    (status, id)
}

/// A client on the runtime's own transports (`ws://` or `http://`) that sends any text as a
/// message.
pub struct Peer {
    reader: RemoteReader,
    writer: RemoteWriter,
}

impl Peer {
    /// Connects to `url` and sends `initialize`.
    pub async fn connect(url: &str) -> Peer {
        let (reader, writer) = connect(url, &ClientOptions::new()).await.unwrap();
        let mut peer = Peer { reader, writer };
        let answer = peer.call(&initialize().to_string(), 0).await;
        assert!(answer["result"].is_object(), "{answer}");
        peer
    }

    /// Sends `text` as one message.
    pub async fn send_raw(&mut self, text: &str) {
        self.writer.write(text.as_bytes()).await.unwrap();
        self.writer.flush().await.unwrap();
    }

    /// Reads until the answer with `id` (alone or in an array), within 10 s.
    pub async fn answer(&mut self, id: u64) -> Value {
        let wait = async {
            loop {
                let message = match self.reader.read().await.unwrap() {
                    Frame::Message(message) => serde_json::from_slice::<Value>(&message).unwrap(),
                    other => panic!("no answer to {id}: {other:?}"),
                };
                let found = match &message {
                    Value::Array(items) => items.iter().find(|item| item["id"] == id).cloned(),
                    one if one["id"] == id && one.get("method").is_none() => Some(one.clone()),
                    _ => None,
                };
                if let Some(found) = found {
                    return found;
                }
            }
        };
        tokio::time::timeout(Duration::from_secs(10), wait)
            .await
            .expect("an answer within 10 s")
    }

    /// Sends `text` and reads the answer with `id`.
    pub async fn call(&mut self, text: &str, id: u64) -> Value {
        self.send_raw(text).await;
        self.answer(id).await
    }

    /// Opens a session with `session/new` (id `id`); its id.
    pub async fn new_session(&mut self, id: u64) -> String {
        let answer = self.call(&new_session(id).to_string(), id).await;
        answer["result"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no session: {answer}"))
            .to_owned()
    }

    /// Ends the connection.
    pub async fn close(mut self) {
        let _ = self.writer.close().await;
    }
}

/// A client of each version over `scheme` (`http`, `ws`): a notice is sent or falls back by
/// the rules of the client's version, a second turn runs on the same connection, closing the
/// client lets the server go of the connection, and a new connection loads (v1) or resumes
/// (v2) the session with its history, without the notice, and takes turns.
pub async fn notices_and_a_reconnect(scheme: &str) {
    let notice = Notice::warning("disk almost full");
    for (version, notices, expected) in [
        (ProtocolVersion::V1, true, NoticeDelivery::Sent),
        (ProtocolVersion::V1, false, NoticeDelivery::FellBack),
        (ProtocolVersion::V2, true, NoticeDelivery::Sent),
    ] {
        let (agent, mut opened) = TestAgent::new();
        let (url, remote) = serve_url(scheme, AgentServer::new(agent), ServerOptions::new()).await;
        let first = client(version, notices)
            .connect_url(&url, &ClientOptions::new())
            .await
            .unwrap();
        assert_eq!(first.protocol_version(), version);
        assert_eq!(remote.open_connections(), 1);
        let id = first.new_session("/tmp", &[]).await.unwrap();
        let session = opened.recv().await.unwrap();
        assert_eq!(session.notice(&notice).await.unwrap(), expected);
        first.prompt(&id, "hi").await.unwrap();
        let shown = first.with_notice_center(|center| center.entry_count(&id));
        let replies = texts(&first, &id, Role::Agent);
        if expected == NoticeDelivery::Sent {
            assert_eq!(shown, 1, "{version:?}");
            assert_eq!(replies, ["echo: hi"]);
        } else {
            assert_eq!(shown, 0);
            assert_eq!(replies, [notice.fallback_text(), "echo: hi".to_owned()]);
        }
        // A second turn on the same session stream.
        first.prompt(&id, "again").await.unwrap();
        assert_eq!(texts(&first, &id, Role::Agent).len(), replies.len() + 1);
        first.close().await;
        // Closing (HTTP: a DELETE; WebSocket: a close frame) lets the server go of the connection.
        all_closed(&remote).await;

        // A new connection loads (v1) or resumes (v2) the session with its history,
        // and the replay holds no notice.
        let second = client(version, notices)
            .connect_url(&url, &ClientOptions::new())
            .await
            .unwrap();
        second.load_session(&id, "/tmp", &[]).await.unwrap();
        let replayed = texts(&second, &id, Role::User);
        assert_eq!(replayed, ["hi", "again"], "{version:?}");
        assert_eq!(
            second.with_notice_center(|center| center.entry_count(&id)),
            0
        );
        // The loaded session takes turns on the new connection.
        second.prompt(&id, "third").await.unwrap();
        assert_eq!(
            texts(&second, &id, Role::Agent).last().map(String::as_str),
            Some("echo: third")
        );
        second.close().await;
        all_closed(&remote).await;
    }
}

/// The HTTP status of an error that says the endpoint was unreachable (`Some(None)`: no
/// status); `None` for any other error.
pub fn unreachable_status(error: &acptk_runtime::Error) -> Option<Option<u16>> {
    match error {
        acptk_runtime::Error::Remote(
            acptk_runtime::transport::remote::RemoteError::Unreachable { status, .. },
        ) => Some(*status),
        _ => None,
    }
}
