//! Feeds a few notices into a `NoticeCenter` on a fake clock and prints what a client would
//! show and say: the toasts as plain-text lines, and the screen-reader announcements.
//!
//! Run with `cargo run -p acptk-notice-center --example notice_center`.

use std::time::Duration;

use acptk_notice_center::render::plain;
use acptk_notice_center::{IncomingNotice, NoticeCenter, Policy, Severity};

fn show(center: &NoticeCenter, label: &str) {
    println!("-- {label} (t = {} s)", center.now().as_secs());
    for toast in center.toasts() {
        let timer = match toast.remaining(center.now()) {
            Some(left) => format!("hides in {} s", left.as_secs()),
            None => "stays until dismissed".to_owned(),
        };
        println!("   toast  {}  [{timer}]", plain::line(toast.entry()));
    }
    for (_, entry) in center.queued() {
        println!("   queued {}", plain::line(entry));
    }
}

fn main() {
    let mut center = NoticeCenter::new(Policy::default());
    let secs = Duration::from_secs;
    let session = "sess_abc123";

    // A notice as it could arrive on the wire (v1): decoded by acptk-schema, then pushed.
    let wire = r#"{"sessionId":"sess_abc123","update":{"sessionUpdate":"notice",
        "severity":"warning","title":"MCP server unavailable","description":"Continuing without it."}}"#;
    let arrivals: Vec<(Duration, IncomingNoticeOwned)> = vec![
        (
            secs(1),
            IncomingNoticeOwned::new(
                Severity::Info,
                "Model rerouted",
                Some("Using a fallback model."),
            ),
        ),
        (
            secs(2),
            IncomingNoticeOwned::new(
                Severity::Info,
                "Model rerouted",
                Some("Using a fallback model."),
            ),
        ),
        (
            secs(3),
            IncomingNoticeOwned::new(Severity::Error, "\x1b[31mBuild failed\x1b[0m\u{202E}", None),
        ),
        (
            secs(4),
            IncomingNoticeOwned::new(
                Severity::from_wire("_acme.hint"),
                "Try the new planner",
                None,
            ),
        ),
    ];

    match serde_json::from_str::<acptk_schema::v1::SessionNotification>(wire) {
        Ok(notification) => {
            if let Some(receipt) = center.push_v1(&notification, secs(0)) {
                announce(receipt.announcement);
            }
        }
        Err(error) => eprintln!("could not decode the example notice: {error}"),
    }
    for (at, notice) in &arrivals {
        let receipt = center.push(session, notice.borrow(), *at);
        if receipt.coalesced {
            println!(
                "   (repeat folded into entry {}, now x{})",
                receipt.entry, receipt.count
            );
        }
        announce(receipt.announcement);
    }
    show(&center, "after five arrivals");

    // The pointer rests on the info toast for a while: its timer holds.
    let info = center
        .toasts()
        .find(|toast| !toast.is_sticky())
        .map(|toast| toast.entry().id());
    if let Some(info) = info {
        center.set_hovered(Some(info), secs(5));
        center.set_hovered(None, secs(20));
    }
    center.tick(secs(20));
    show(&center, "after hovering");

    center.tick(secs(30));
    show(
        &center,
        "later: info hid itself and the waiting notice took its slot",
    );

    center.dismiss_all(secs(31));
    show(&center, "after dismiss all");

    println!("-- the session's notice list (newest first)");
    for entry in center.entries(session).rev() {
        println!("   {}", plain::line(entry));
    }
    let stats = center.stats();
    println!(
        "-- {} notices received, {} entries, {} coalesced, {} announced",
        stats.received, stats.new_entries, stats.coalesced, stats.announced
    );
}

fn announce(announcement: Option<acptk_notice_center::Announcement>) {
    if let Some(a) = announcement {
        println!("   say ({}): {}", a.politeness.aria_live(), a.text);
    }
}

/// An owned notice for the example's script of arrivals.
struct IncomingNoticeOwned {
    severity: Severity,
    title: String,
    description: Option<String>,
}

impl IncomingNoticeOwned {
    fn new(severity: Severity, title: &str, description: Option<&str>) -> Self {
        Self {
            severity,
            title: title.to_owned(),
            description: description.map(str::to_owned),
        }
    }

    fn borrow(&self) -> IncomingNotice<'_> {
        let notice = IncomingNotice::new(self.severity.clone(), &self.title);
        match &self.description {
            Some(description) => notice.with_description(description),
            None => notice,
        }
    }
}
