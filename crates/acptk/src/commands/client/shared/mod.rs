//! The pieces every layer of `acp client` uses: the [`lock`](fn@lock) of shared models, the
//! client's [`state`] directory, [`text`] made safe for a terminal, the client's own
//! [`events`] and the [`exit`] codes. Nothing here knows a UI or a session.

pub mod events;
pub mod exit;
pub mod lock;
pub mod state;
pub mod text;

pub use lock::lock;
