//! Helpers shared by the scenario tests: a fake clock and short ways to push notices.
#![allow(dead_code)]

use std::time::Duration;

use acptk_notice_center::{IncomingNotice, NoticeCenter, Policy, Receipt, Severity};

/// Milliseconds on the fake clock.
pub fn ms(value: u64) -> Duration {
    Duration::from_millis(value)
}

/// Seconds on the fake clock.
pub fn secs(value: u64) -> Duration {
    Duration::from_secs(value)
}

/// A policy without flood guard or coalescing, so a test sees only the rule it is about.
pub fn plain_policy() -> acptk_notice_center::PolicyBuilder {
    Policy::builder().flood_guard(None).coalesce_window(None)
}

pub fn push(center: &mut NoticeCenter, severity: Severity, title: &str, now: Duration) -> Receipt {
    center.push("s1", IncomingNotice::new(severity, title), now)
}

pub fn push_to(
    center: &mut NoticeCenter,
    session: &str,
    severity: Severity,
    title: &str,
    now: Duration,
) -> Receipt {
    center.push(session, IncomingNotice::new(severity, title), now)
}

/// Titles of the visible toasts, in order.
pub fn visible(center: &NoticeCenter) -> Vec<String> {
    center
        .toasts()
        .map(|toast| toast.entry().title().to_owned())
        .collect()
}

/// Titles of the waiting toasts, in order.
pub fn queued(center: &NoticeCenter) -> Vec<String> {
    center
        .queued()
        .map(|(_, entry)| entry.title().to_owned())
        .collect()
}

/// Panics if `text` holds a control character (other than `\n` when `newlines` allows it),
/// a bidi control, a zero-width character or a tag character.
pub fn assert_no_dangerous_chars(text: &str, newlines: bool, context: &str) {
    for c in text.chars() {
        let control = c.is_control() && !(newlines && c == '\n');
        let invisible = matches!(
            c,
            '\u{202A}'..='\u{202E}'
                | '\u{2066}'..='\u{2069}'
                | '\u{200B}'..='\u{200F}'
                | '\u{061C}'
                | '\u{2060}'
                | '\u{FEFF}'
                | '\u{E0000}'..='\u{E007F}'
        );
        assert!(
            !control && !invisible,
            "{context}: {c:?} survived in {text:?}"
        );
    }
}
