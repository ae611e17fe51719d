//! The compiler-style text report.
//!
//! ```text
//! session.ndjson:7: error[notice-without-capability]: notice "MCP server unavailable" sent to a v1 client that did not advertise `session.notices`
//! session.ndjson: 12 messages, 1 finding: 1 error, 0 warnings, 0 info, 0 notes
//!   notice-without-capability: 1
//! ```
//!
//! A record with run headers (`acp proxy --record`) also says how many runs it held:
//! `session.ndjson: 12 messages in 2 runs, 1 finding: ...`; a trace in another tool's format
//! says how it was read: `trace.jsons: 12 messages (an ACP conductor trace), ...`.

use crate::finding::{Finding, Severity};
use crate::report::Summary;

/// The name a report shows for an input path: `<stdin>` for `-`.
pub fn display_name(path: &str) -> &str {
    if path == "-" { "<stdin>" } else { path }
}

/// `FILE:LINE: severity[rule]: reason` and a line break.
pub fn text_finding(file: &str, finding: &Finding) -> String {
    format!(
        "{file}:{}: {}[{}]: {}\n",
        finding.line,
        finding.severity(),
        finding.rule,
        finding.message
    )
}

/// The summary: a count line, then one line per rule that found something.
pub fn text_summary(file: &str, summary: &Summary) -> String {
    let plural = |n: u64, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let runs = if summary.headers > 0 {
        format!(" in {}", plural(summary.runs, "run", "runs"))
    } else {
        String::new()
    };
    let read_as = if summary.format.is_foreign() {
        format!(" ({})", summary.format.describe())
    } else {
        String::new()
    };
    let mut out = format!(
        "{file}: {}{runs}{read_as}, {}: {}, {}, {} info, {}\n",
        plural(summary.messages, "message", "messages"),
        plural(summary.total(), "finding", "findings"),
        plural(summary.by_severity(Severity::Error), "error", "errors"),
        plural(
            summary.by_severity(Severity::Warning),
            "warning",
            "warnings"
        ),
        summary.by_severity(Severity::Info),
        plural(summary.by_severity(Severity::Note), "note", "notes"),
    );
    for (rule, count) in summary.rules() {
        out.push_str(&format!("  {rule}: {count}\n"));
    }
    out
}
