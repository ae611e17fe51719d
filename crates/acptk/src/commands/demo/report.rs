//! The demo's output: one labelled section per client, then a side-by-side summary.
//!
//! ```text
//! == Client A: ACP v1, advertises session.notices ==
//! What the user sees:
//!   [notice] Warning: MCP server docs unavailable - ...
//!   You: ...
//! Notice list (kept by the client, never history): 4 entries
//!   ...
//! History after reconnect (session/load replay):
//!   You: ...
//! Live after the replay:
//!   [notice] Warning: MCP server docs unavailable - ...
//! ```

use std::fmt::Write as _;

use acptk_runtime::client::transcript::Role;

use crate::commands::client::render::plain::{NOTICE_PREFIX, role_label};

/// What one client saw through the story.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ClientReport {
    /// A short name (`A`, `B`, `C`).
    pub name: String,
    /// What kind of client it is (`ACP v1, advertises session.notices`).
    pub kind: String,
    /// How it reconnected (`session/load`, `session/resume with replay`).
    pub reconnect: String,
    /// What the user saw during the first connection, as printed lines.
    pub seen: Vec<String>,
    /// The notice list at the end, as plain lines (empty without a notice center).
    pub notice_list: Vec<String>,
    /// The conversation rebuilt from the replay after the reconnect, as printed lines.
    pub history: Vec<String>,
    /// What arrived live after the replay, as printed lines.
    pub after_replay: Vec<String>,
    /// Notices received during a replay (a protocol violation; should be 0).
    pub notices_during_replay: u64,
}

impl ClientReport {
    /// How many notice lines the user saw (first connection and after the replay).
    #[must_use]
    pub fn notice_lines(&self) -> usize {
        count_notices(&self.seen) + count_notices(&self.after_replay)
    }

    /// How many agent lines of the replayed history mention one of `titles` (notice text
    /// that became conversation content). The user's own prompts do not count.
    #[must_use]
    pub fn history_mentions(&self, titles: &[&str]) -> usize {
        self.history
            .iter()
            .filter(|line| !line.starts_with(role_label(Role::User)))
            .filter(|line| titles.iter().any(|title| line.contains(title)))
            .count()
    }
}

fn count_notices(lines: &[String]) -> usize {
    lines
        .iter()
        .filter(|line| line.starts_with(NOTICE_PREFIX))
        .count()
}

/// Writes `lines` indented, or `(nothing)`.
fn block(out: &mut String, lines: &[String]) {
    if lines.is_empty() {
        out.push_str("  (nothing)\n");
    }
    for line in lines {
        let _ = writeln!(out, "  {line}");
    }
}

/// The full report: the story, one section per client, and the summary table. `titles` are
/// the notice titles of the story, to find them in the histories.
#[must_use]
pub fn render(story: &[String], clients: &[ClientReport], titles: &[&str]) -> String {
    let mut out = String::new();
    out.push_str("acp demo: one example agent, three clients, the same story\n");
    for (n, step) in story.iter().enumerate() {
        let _ = writeln!(out, "  {}. {step}", n + 1);
    }
    for client in clients {
        let _ = writeln!(out, "\n== Client {}: {} ==", client.name, client.kind);
        out.push_str("What the user sees:\n");
        block(&mut out, &client.seen);
        if client.notice_list.is_empty() {
            out.push_str("Notice list: none (this client has no notice center)\n");
        } else {
            let _ = writeln!(
                out,
                "Notice list (local to the client, never history): {} entries",
                client.notice_list.len()
            );
            block(&mut out, &client.notice_list);
        }
        let _ = writeln!(
            out,
            "History after reconnect ({} replay):",
            client.reconnect
        );
        block(&mut out, &client.history);
        out.push_str("Live after the replay:\n");
        block(&mut out, &client.after_replay);
    }
    out.push('\n');
    out.push_str(&summary(clients, titles));
    out
}

/// The side-by-side summary table.
#[must_use]
pub fn summary(clients: &[ClientReport], titles: &[&str]) -> String {
    let rows: Vec<(&str, Vec<String>)> = vec![
        (
            "notices shown as notices",
            clients
                .iter()
                .map(|c| c.notice_lines().to_string())
                .collect(),
        ),
        (
            "notice text in history",
            clients
                .iter()
                .map(|c| c.history_mentions(titles).to_string())
                .collect(),
        ),
        (
            "notices during replay",
            clients
                .iter()
                .map(|c| c.notices_during_replay.to_string())
                .collect(),
        ),
        (
            "re-sent after reconnect",
            clients
                .iter()
                .map(|c| {
                    if count_notices(&c.after_replay) > 0 {
                        "notice".to_owned()
                    } else if c.after_replay.is_empty() {
                        "nothing".to_owned()
                    } else {
                        "message".to_owned()
                    }
                })
                .collect(),
        ),
    ];
    let label_width = rows.iter().map(|(label, _)| label.len()).max().unwrap_or(0);
    let column_width = 14;
    let mut out = format!("{:<label_width$}  ", "Summary");
    for client in clients {
        let _ = write!(out, "{:<column_width$}", format!("client {}", client.name));
    }
    out.truncate(out.trim_end().len());
    out.push('\n');
    for (label, cells) in rows {
        let _ = write!(out, "{label:<label_width$}  ");
        for cell in cells {
            let _ = write!(out, "{cell:<column_width$}");
        }
        out.truncate(out.trim_end().len());
        out.push('\n');
    }
    out
}
