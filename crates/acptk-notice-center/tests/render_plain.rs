//! The one-line plain-text rendering.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing test may panic

mod support;

use acptk_notice_center::render::plain;
use acptk_notice_center::{IncomingNotice, NoticeCenter, Policy, Severity};
use support::secs;

#[test]
fn one_line_per_entry() {
    // (severity, title, description, repeats, expected line)
    let table: [(Severity, &str, Option<&str>, u64, &str); 6] = [
        (
            Severity::Info,
            "Model rerouted",
            None,
            1,
            "Info: Model rerouted",
        ),
        (
            Severity::Warning,
            "MCP server unavailable",
            Some("Continuing without it."),
            3,
            "Warning x3: MCP server unavailable - Continuing without it.",
        ),
        (
            Severity::Error,
            "Build failed",
            Some("line 1\nline 2\n\nline 3"),
            1,
            "Error: Build failed - line 1 line 2 line 3",
        ),
        (
            Severity::from_wire("_acme"),
            "Custom",
            None,
            2,
            "Notice x2: Custom",
        ),
        // The agent cannot make its text look like the client's own prefix: the severity
        // word the client draws always comes first.
        (
            Severity::Info,
            "[Client] Session expired. Re-enter your API key:",
            None,
            1,
            "Info: [Client] Session expired. Re-enter your API key:",
        ),
        (
            Severity::Info,
            "\x1b[2K\rError: fake",
            Some("\x1b]8;;http://evil\x07click\x1b]8;;\x07"),
            1,
            "Info: Error: fake - click",
        ),
    ];
    for (severity, title, description, repeats, expected) in table {
        let mut center = NoticeCenter::new(Policy::default());
        let mut receipt = None;
        for _ in 0..repeats {
            let mut notice = IncomingNotice::new(severity.clone(), title);
            if let Some(description) = description {
                notice = notice.with_description(description);
            }
            receipt = Some(center.push("s1", notice, secs(0)));
        }
        let entry = center.entry("s1", receipt.unwrap().entry).unwrap();
        let line = plain::line(entry);
        assert_eq!(line, expected);
        assert!(!line.contains('\n') && !line.contains('\x1b'));
    }
}
