//! The pieces every layer of `acp client` uses: the [`lock`](fn@lock) of shared models, the
//! client's [`state`] directory, [`text`] made safe for a terminal, the client's own
//! [`events`], the [`exit`] codes and the output [`format`](mod@format) the user chose.
//! Nothing here knows a UI or a session.

pub mod events;
pub mod exit;
pub mod format;
pub mod lock;
pub mod state;
pub mod text;

pub use lock::lock;
