//! One-line plain-text rendering, for logs, status lines and simple terminals.
//!
//! The line starts with the severity word drawn by the client, then the count when the entry
//! stands for several notices, then the agent's title and description:
//!
//! ```text
//! Warning x3: MCP server unavailable - Continuing without it.
//! ```
//!
//! The agent's text was sanitised when it arrived, so the line holds no control characters;
//! line breaks in the description become spaces.

use crate::announce::{push_one_line, sentence};
use crate::entry::Entry;

/// Renders an entry as one line of plain text.
///
/// ```
/// use std::time::Duration;
/// use acptk_notice_center::{render::plain, IncomingNotice, NoticeCenter, Severity};
///
/// let mut center = NoticeCenter::default();
/// let notice = IncomingNotice::new(Severity::Error, "Build failed").with_description("See log.");
/// let receipt = center.push("s1", notice, Duration::ZERO);
/// let entry = center.entry("s1", receipt.entry).unwrap();
/// assert_eq!(plain::line(entry), "Error: Build failed - See log.");
/// ```
#[must_use]
pub fn line(entry: &Entry) -> String {
    let mut out = label(entry);
    out.reserve(2 + entry.title().len() + entry.description().map_or(0, |d| d.len() + 3));
    out.push_str(": ");
    out.push_str(entry.title());
    if let Some(description) = entry.description() {
        out.push_str(" - ");
        push_one_line(&mut out, description);
    }
    out
}

/// The client-drawn part of a line: the severity word, then ` xN` when the entry stands for
/// several notices (`Warning x3`).
#[must_use]
pub fn label(entry: &Entry) -> String {
    let word = entry.severity().word();
    if entry.count() > 1 {
        format!("{word} x{}", entry.count())
    } else {
        word.to_owned()
    }
}

/// The sentence a screen reader is given for an entry: the severity word, the title, then the
/// description as one line (the text of the [`Announcement`](crate::Announcement) made when
/// the entry arrived). Line-oriented clients print it as the entry's line.
///
/// ```
/// use std::time::Duration;
/// use acptk_notice_center::{render::plain, IncomingNotice, NoticeCenter, Severity};
///
/// let mut center = NoticeCenter::default();
/// let notice = IncomingNotice::new(Severity::Warning, "Disk full").with_description("95%\nused");
/// let receipt = center.push("s1", notice, Duration::ZERO);
/// let entry = center.entry("s1", receipt.entry).unwrap();
/// assert_eq!(plain::announcement(entry), "Warning: Disk full. 95% used");
/// assert_eq!(plain::announcement(entry), receipt.announcement.unwrap().text);
/// ```
#[must_use]
pub fn announcement(entry: &Entry) -> String {
    sentence(entry.severity(), entry.title(), entry.description())
}
