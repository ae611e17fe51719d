//! What the user of `acp client` reads: a session followed as it grows ([`follow`]), printed
//! as plain lines ([`plain`]) or JSON lines ([`json`](mod@json)) through the one-shot
//! [`output`], tool calls drawn as blocks ([`tool_block`]), agent text from Markdown
//! ([`markdown`]) and the styles of it all ([`theme`]). Pure: it formats what the driver
//! hands it and runs nothing.

pub mod follow;
pub mod json;
pub mod markdown;
pub mod output;
pub mod plain;
pub mod theme;
pub mod tool_block;
