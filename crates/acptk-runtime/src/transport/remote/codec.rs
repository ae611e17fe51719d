//! The two WebSocket libraries' message types, mapped for [`super::socket`]: axum's on the
//! server, tungstenite's on the client.

use axum::extract::ws as server;
use tokio_tungstenite::tungstenite as client;

use super::socket::{Codec, Incoming, Violation};

/// The parts of a [`Codec`] both libraries spell alike: their message type, how a message
/// is classified (`$variant => $skip` adds the skipped kinds only one library has), and a
/// text message.
macro_rules! messages {
    ($lib:ident $(, $variant:ident => $skip:literal)*) => {
        type Message = $lib::Message;

        fn classify(message: $lib::Message) -> Incoming {
            match message {
                $lib::Message::Text(text) => Incoming::Text(text.as_str().as_bytes().to_vec()),
                $lib::Message::Binary(_) => Incoming::Skip("binary"),
                $lib::Message::Ping(_) => Incoming::Skip("ping"),
                $lib::Message::Pong(_) => Incoming::Skip("pong"),
                $($lib::Message::$variant(_) => Incoming::Skip($skip),)*
                $lib::Message::Close(_) => Incoming::Close,
            }
        }

        fn text(text: String) -> $lib::Message {
            $lib::Message::Text(text.into())
        }
    };
}

/// axum's WebSocket messages (the server side).
pub(crate) struct ServerCodec;

impl Codec for ServerCodec {
    type Error = axum::Error;

    messages!(server);

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
    type Error = client::Error;

    messages!(client, Frame => "raw");

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
