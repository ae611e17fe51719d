//! Screen-reader announcements: one per new entry, severity word first.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing test may panic

mod support;

use acptk_notice_center::{
    IncomingNotice, NoticeCenter, Overflow, Politeness, Severity, SeverityPreset,
};
use support::{plain_policy, secs};

#[test]
fn announcement_text_and_politeness_per_severity() {
    // (severity, title, description, text, politeness)
    let table: [(Severity, &str, Option<&str>, &str, Politeness); 7] = [
        (
            Severity::Info,
            "Model rerouted",
            None,
            "Info: Model rerouted",
            Politeness::Polite,
        ),
        (
            Severity::Warning,
            "MCP server unavailable",
            Some("Continuing without it."),
            "Warning: MCP server unavailable. Continuing without it.",
            Politeness::Polite,
        ),
        (
            Severity::Error,
            "Build failed!",
            Some("See the log."),
            "Error: Build failed! See the log.",
            Politeness::Assertive,
        ),
        (
            Severity::from_wire("_acme.trace"),
            "Odd",
            None,
            "Notice: Odd",
            Politeness::Polite,
        ),
        (
            Severity::from_wire("error "),
            "Not really an error",
            None,
            "Notice: Not really an error",
            Politeness::Polite,
        ),
        (
            Severity::Info,
            "Two lines",
            Some("first\n\nsecond"),
            "Info: Two lines. first second",
            Politeness::Polite,
        ),
        (
            Severity::Warning,
            "\x1b[31mSpoof\x1b[0m",
            Some("\u{202E}gnp.exe"),
            "Warning: Spoof. gnp.exe",
            Politeness::Polite,
        ),
    ];
    for (severity, title, description, text, politeness) in table {
        let mut center = NoticeCenter::new(plain_policy().build());
        let mut notice = IncomingNotice::new(severity, title);
        if let Some(description) = description {
            notice = notice.with_description(description);
        }
        let receipt = center.push("s1", notice, secs(0));
        let announcement = receipt.announcement.expect("a new entry is announced");
        assert_eq!(announcement.text, text);
        assert_eq!(announcement.politeness, politeness, "{text}");
        assert_eq!(announcement.entry, receipt.entry);
        assert_eq!(announcement.session.as_str(), "s1");
    }
}

#[test]
fn politeness_is_overridable_per_severity() {
    let policy = plain_policy()
        .error(SeverityPreset::sticky().with_politeness(Politeness::Polite))
        .info(SeverityPreset::auto_hide(secs(8)).with_politeness(Politeness::Off))
        .build();
    let mut center = NoticeCenter::new(policy);
    let error = center.push("s1", IncomingNotice::new(Severity::Error, "e"), secs(0));
    assert_eq!(error.announcement.unwrap().politeness, Politeness::Polite);
    let info = center.push("s1", IncomingNotice::new(Severity::Info, "i"), secs(0));
    assert!(info.announcement.is_none());
    assert_eq!(Politeness::Assertive.aria_live(), "assertive");
}

#[test]
fn entries_kept_out_of_toasts_by_space_are_still_announced() {
    let policy = plain_policy()
        .max_visible(1)
        .overflow(Overflow::ListOnly)
        .build();
    let mut center = NoticeCenter::new(policy);
    for title in ["a", "b", "c"] {
        let receipt = center.push("s1", IncomingNotice::new(Severity::Warning, title), secs(0));
        assert!(receipt.announcement.is_some(), "{title}");
    }
    assert_eq!(center.stats().announced, 3);
}

#[test]
fn a_severity_without_toasts_still_lands_in_the_list_and_is_announced() {
    let policy = plain_policy()
        .info(SeverityPreset::auto_hide(secs(8)).with_toast(false))
        .build();
    let mut center = NoticeCenter::new(policy);
    let receipt = center.push("s1", IncomingNotice::new(Severity::Info, "quiet"), secs(0));
    assert_eq!(
        receipt.toast,
        acptk_notice_center::ToastState::ListOnly(acptk_notice_center::ListOnlyReason::NoToast)
    );
    assert!(receipt.announcement.is_some());
    assert_eq!(center.entry_count("s1"), 1);
}
