//! Remote ACP (feature `remote`): an [`AgentServer`](crate::agent::AgentServer) (or any
//! other [`Service`]) served over WebSocket and Streamable HTTP on one TCP listener
//! ([`Endpoint`]; for an agent, [`RemoteServer`](crate::agent::RemoteServer)), and the client
//! end that connects to a `ws://`, `wss://`, `http://` or `https://` URL ([`connect`], used by
//! [`ClientBuilder::connect_url`](crate::client::ClientBuilder::connect_url)).
//!
//! The wire: one endpoint (`/acp` by default). WebSocket: a `GET` with `Upgrade: websocket`
//! is answered `101` with an `Acp-Connection-Id` header; every JSON-RPC message is one text
//! frame (binary frames are skipped); the client still sends `initialize` first, and closing
//! the socket ends the connection (its sessions stay in the store, so a new connection can
//! load them). Streamable HTTP: see [`http`] for the server side; the client posts every
//! message on its own, reads the connection's and each session's event stream, keeps the
//! cookies the server sets for the life of the connection and `DELETE`s the connection when
//! it closes.
//!
//! A server binds where it is told: bind it to a loopback address (`127.0.0.1`) unless it
//! must be reached from other machines, and then require a token
//! ([`ServerOptions::token`], or one per principal with [`ServerOptions::principal`]). Each
//! token names the [`Principal`](crate::agent::Principal) its connections act for; a
//! connection sees only its principal's sessions.

mod accept;
mod access;
mod client;
mod client_options;
mod codec;
mod context;
pub mod drain;
mod error;
mod forwarded;
pub mod http;
mod http_client;
mod http_conn;
mod http_room;
mod http_wire;
mod lifecycle;
mod limits;
mod listener;
mod options;
pub(crate) mod peek;
mod server;
mod service;
mod sessions;
mod slot;
mod socket;
mod sse;
mod tls;

pub use client::{RemoteReader, RemoteWriter, connect};
pub use client_options::ClientOptions;
pub use drain::{DEFAULT_DRAIN_GRACE, HEALTH_PATH};
pub use error::RemoteError;
pub use forwarded::TrustedProxy;
pub use limits::SESSION_LIMIT_CODE;
pub use listener::{LISTEN_BACKLOG, bind};
pub use options::{
    DEFAULT_BODY_TIMEOUT, DEFAULT_HEADER_TIMEOUT, DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_CONNECTIONS,
    DEFAULT_MAX_MESSAGE_BYTES, DEFAULT_MAX_PER_ADDRESS, DEFAULT_MAX_QUEUED_BYTES,
    DEFAULT_MAX_SESSIONS, DEFAULT_MAX_TOTAL_SESSIONS, DEFAULT_PATH, DEFAULT_PRINCIPAL,
    DEFAULT_STALL_TIMEOUT, DEFAULT_UNUSED_TIMEOUT, ServerOptions,
};
pub use server::Endpoint;
pub use service::{Service, ServiceHandle};

pub use tls::TlsIdentity;

pub(crate) use codec::{ClientCodec, ServerCodec};

/// The response header that names the connection a WebSocket upgrade (or an HTTP
/// `initialize`) created.
pub const CONNECTION_ID_HEADER: &str = "acp-connection-id";
