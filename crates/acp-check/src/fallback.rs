//! The agent-message fallback: what a v1 client that did not advertise `session.notices`
//! gets instead of a notice.
//!
//! The text is the runtime's ([`acp_runtime::Notice::fallback_text`]), so an agent built on
//! `acp-runtime` and an agent repaired by `acp proxy` say the same thing: the severity as a
//! word, the title, then the description after ` - ` (`Warning: MCP server unavailable -
//! Continuing without it.`). It is conversation content: the client keeps it in the history
//! like any agent message.

use acp_schema::jsonrpc::Notification;
use acp_schema::v1::{ContentBlock, SessionNotification, SessionUpdate};

use crate::decode::NoticeView;

/// The text of the agent message that stands for `notice`.
pub fn text(notice: &NoticeView) -> String {
    let runtime =
        acp_runtime::Notice::new(notice.severity.as_str(), notice.title.as_str()).map(|n| {
            match &notice.description {
                Some(description) => n.description(description.as_str()),
                None => n,
            }
        });
    match runtime {
        Ok(n) => n.fallback_text(),
        // A decoded notice always has a title; say something sensible all the same.
        Err(_) => notice.severity.clone(),
    }
}

/// The `session/update` line (JSON, no line break) carrying the fallback of `notice` as an
/// `agent_message_chunk` of `session`.
pub fn line(session: &str, notice: &NoticeView) -> String {
    let update = SessionUpdate::agent_message_chunk(ContentBlock::from(text(notice)));
    let params = SessionNotification::new(session, update);
    let message = Notification::new("session/update", Some(params));
    // Serialising typed values into a string cannot fail.
    serde_json::to_string(&message).unwrap_or_default()
}
