//! The `/notice SEVERITY TITLE [-- DESCRIPTION]` prompt command.

/// A parsed `/notice` command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoticeCommand {
    /// The severity, verbatim (any string, including unknown and `_`-prefixed ones).
    pub severity: String,
    /// The title: the rest of the line up to ` -- `, trimmed.
    pub title: String,
    /// The text after ` -- `, trimmed; `None` when there is no ` -- ` or nothing after it.
    pub description: Option<String>,
}

/// The usage line shown when the command is malformed.
pub const USAGE: &str = "/notice SEVERITY TITLE [-- DESCRIPTION]";

/// Parses the first line of a prompt as a `/notice` command.
///
/// Returns `None` when the prompt is not a `/notice` command, `Some(Err(message))` when it is
/// one without a severity or a title, and `Some(Ok(command))` otherwise.
pub fn parse_notice_command(prompt: &str) -> Option<Result<NoticeCommand, String>> {
    let line = prompt.lines().next().unwrap_or_default().trim();
    let rest = line.strip_prefix("/notice")?;
    if !(rest.is_empty() || rest.starts_with(char::is_whitespace)) {
        return None;
    }
    let rest = rest.trim_start();
    let (severity, rest) = match rest.split_once(char::is_whitespace) {
        Some((severity, rest)) => (severity, rest.trim_start()),
        None => (rest, ""),
    };
    if severity.is_empty() {
        return Some(Err(format!(
            "The /notice command needs a severity and a title: {USAGE}"
        )));
    }
    let padded = format!(" {rest} ");
    let (title, description) = match padded.split_once(" -- ") {
        Some((title, description)) => (title.trim(), Some(description.trim())),
        None => (padded.trim(), None),
    };
    if title.is_empty() {
        return Some(Err(format!(
            "The /notice command needs a non-empty title: {USAGE}"
        )));
    }
    Some(Ok(NoticeCommand {
        severity: severity.to_owned(),
        title: title.to_owned(),
        description: description
            .filter(|description| !description.is_empty())
            .map(str::to_owned),
    }))
}
