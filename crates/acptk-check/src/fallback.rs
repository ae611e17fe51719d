//! The agent-message fallback: what a v1 client that did not advertise `session.notices`
//! gets instead of a notice.
//!
//! The wording is the runtime's ([`acptk_runtime::Notice::fallback_text`]), so an agent built on
//! `acptk-runtime` and an agent repaired by `acp proxy` say the same thing: the severity as a
//! word, the title, then the description after ` - ` (`Warning: MCP server unavailable -
//! Continuing without it.`). Three things make the repaired message safe and readable:
//!
//! * **Sanitised text.** The severity, title and description go through
//!   [`acptk_notice_center::sanitize`] first: no escape sequence, control, bidi or invisible
//!   character reaches the conversation, where the client no longer treats the text as a
//!   notice's.
//! * **Its own message.** Each repaired notice is an `agent_message_chunk` with a `messageId`
//!   of its own, so a client that follows message ids shows it apart from the agent's reply.
//! * **A visible separation.** The text starts and ends with a blank line, so a client that
//!   ignores message ids and appends every chunk to the current message still shows it as a
//!   paragraph of its own rather than run on with the text around it.
//!
//! The message is conversation content: the client keeps it in the history like any agent
//! message.

use acptk_notice_center::sanitize;
use acptk_schema::jsonrpc::Notification;
use acptk_schema::v1::{ContentBlock, ContentChunk, SessionNotification, SessionUpdate};

use crate::decode::NoticeView;

/// What separates a fallback message from the text around it.
pub const SEPARATION: &str = "\n\n";

/// The text of the agent message that stands for `notice`: sanitised, in the runtime's words,
/// without the separation.
pub fn text(notice: &NoticeView) -> String {
    let severity = sanitize::title(&notice.severity);
    let title = sanitize::title(&notice.title);
    let description = notice
        .description
        .as_deref()
        .map(sanitize::description)
        .filter(|d| !d.is_empty());
    // The sanitised title is never empty (the runtime would name the severity otherwise).
    let notice = acptk_runtime::Notice::new(severity.as_ref(), title.as_ref());
    match &description {
        Some(description) => notice.description(description.as_ref()),
        None => notice,
    }
    .fallback_text()
}

/// The `session/update` line (JSON, no line break) carrying the fallback of `notice` to
/// `session` as an `agent_message_chunk` of its own message, `message_id`.
pub fn line(session: &str, notice: &NoticeView, message_id: &str) -> String {
    let content = ContentBlock::from(format!("{SEPARATION}{}{SEPARATION}", text(notice)));
    let chunk = ContentChunk::new(content).message_id(message_id);
    let params = SessionNotification::new(session, SessionUpdate::AgentMessageChunk(chunk));
    let message = Notification::new("session/update", Some(params));
    // Serialising typed values into a string cannot fail.
    serde_json::to_string(&message).unwrap_or_default()
}
