//! Screen-reader announcements for new entries.

use crate::entry::EntryId;
use crate::incoming::SessionKey;
use crate::severity::{Politeness, Severity};

/// What a screen reader should say about a new list entry.
///
/// The host hands `text` to its live region (or platform accessibility API) with the given
/// politeness; focus never moves. The text starts with the severity as a word, so the
/// severity is heard and not only seen as a colour:
///
/// ```text
/// Warning: MCP server unavailable. Continuing without it.
/// ```
///
/// Coalesced repeats are not announced again.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Announcement {
    /// The entry this is about.
    pub entry: EntryId,
    /// The session the entry belongs to.
    pub session: SessionKey,
    /// How urgently to speak it: assertive for errors, polite otherwise (by default).
    pub politeness: Politeness,
    /// The sentence to speak: severity word, title, description (line breaks as spaces).
    pub text: String,
}

/// Builds the spoken sentence from sanitised fields.
pub(crate) fn sentence(severity: &Severity, title: &str, description: Option<&str>) -> String {
    let mut text = String::with_capacity(
        severity.word().len() + 2 + title.len() + description.map_or(0, |d| d.len() + 2),
    );
    text.push_str(severity.word());
    text.push_str(": ");
    text.push_str(title);
    if let Some(description) = description {
        if !title.ends_with(['.', '!', '?', ':', '…']) {
            text.push('.');
        }
        text.push(' ');
        push_one_line(&mut text, description);
    }
    text
}

/// Appends `text` with every run of line breaks replaced by one space.
pub(crate) fn push_one_line(out: &mut String, text: &str) {
    let mut lines = text.split('\n').filter(|line| !line.trim().is_empty());
    if let Some(first) = lines.next() {
        out.push_str(first.trim_end());
    }
    for line in lines {
        out.push(' ');
        out.push_str(line.trim());
    }
}
