//! The two WebSocket libraries' message types, mapped for [`super::socket`]: axum's on the
//! server, tungstenite's on the client.

use axum::extract::ws as server;
use tokio_tungstenite::tungstenite as client;

use super::socket::{Codec, Incoming, Violation};

/// axum's WebSocket messages (the server side).
pub(crate) struct ServerCodec;

impl Codec for ServerCodec {
    type Message = server::Message;
    type Error = axum::Error;

    fn classify(message: server::Message) -> Incoming {
        match message {
            server::Message::Text(text) => Incoming::Text(text.as_str().as_bytes().to_vec()),
            server::Message::Binary(_) => Incoming::Skip("binary"),
            server::Message::Ping(_) => Incoming::Skip("ping"),
            server::Message::Pong(_) => Incoming::Skip("pong"),
            server::Message::Close(_) => Incoming::Close,
        }
    }

    fn text(text: String) -> server::Message {
        server::Message::Text(text.into())
    }

    fn close(code: u16, reason: &str) -> server::Message {
        server::Message::Close(Some(server::CloseFrame {
            code,
            reason: reason.to_owned().into(),
        }))
    }

    fn violation(error: &axum::Error) -> Option<Violation> {
        std::error::Error::source(error)
            .and_then(|inner| inner.downcast_ref::<client::Error>())
            .and_then(ClientCodec::violation)
    }
}

/// tungstenite's WebSocket messages (the client side).
pub(crate) struct ClientCodec;

impl Codec for ClientCodec {
    type Message = client::Message;
    type Error = client::Error;

    fn classify(message: client::Message) -> Incoming {
        match message {
            client::Message::Text(text) => Incoming::Text(text.as_str().as_bytes().to_vec()),
            client::Message::Binary(_) => Incoming::Skip("binary"),
            client::Message::Ping(_) => Incoming::Skip("ping"),
            client::Message::Pong(_) => Incoming::Skip("pong"),
            client::Message::Frame(_) => Incoming::Skip("raw"),
            client::Message::Close(_) => Incoming::Close,
        }
    }

    fn text(text: String) -> client::Message {
        client::Message::Text(text.into())
    }

    fn close(code: u16, reason: &str) -> client::Message {
        client::Message::Close(Some(client::protocol::CloseFrame {
            code: code.into(),
            reason: reason.to_owned().into(),
        }))
    }

    fn violation(error: &client::Error) -> Option<Violation> {
        use client::error::{CapacityError, ProtocolError};
        match error {
            client::Error::Capacity(CapacityError::MessageTooLong { .. }) => {
                Some(Violation::TooBig)
            }
            // The peer hung up: nobody is left to tell.
            client::Error::Protocol(ProtocolError::ResetWithoutClosingHandshake) => None,
            client::Error::Protocol(_) => Some(Violation::Protocol),
            client::Error::Utf8(_) => Some(Violation::NotUtf8),
            _ => None,
        }
    }
}
