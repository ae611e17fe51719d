//! Identical notices within the window become one entry with a count.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing test may panic

mod support;

use acptk_notice_center::{IncomingNotice, NoticeCenter, Policy, Severity, ToastState};
use support::{ms, plain_policy, push, secs, visible};

fn coalescing_policy() -> Policy {
    plain_policy().coalesce_window(Some(secs(10))).build()
}

#[test]
fn identical_notices_coalesce_with_a_count_and_no_second_announcement() {
    let mut center = NoticeCenter::new(coalescing_policy());
    let first = push(&mut center, Severity::Warning, "Rate limited", secs(0));
    assert!(first.announcement.is_some());
    let second = push(&mut center, Severity::Warning, "Rate limited", secs(3));
    let third = push(&mut center, Severity::Warning, "Rate limited", secs(6));
    assert!(second.coalesced && third.coalesced);
    assert_eq!(third.entry, first.entry);
    assert_eq!(third.count, 3);
    assert!(second.announcement.is_none() && third.announcement.is_none());
    assert_eq!(center.entry_count("s1"), 1);
    assert_eq!(visible(&center), ["Rate limited"]);
    let entry = center.entry("s1", first.entry).unwrap();
    assert_eq!((entry.first_seen(), entry.last_seen()), (secs(0), secs(6)));
    assert_eq!(center.stats().coalesced, 2);
}

#[test]
fn the_timer_restarts_on_each_repeat() {
    let mut center = NoticeCenter::new(coalescing_policy());
    push(&mut center, Severity::Info, "Retrying", secs(0));
    push(&mut center, Severity::Info, "Retrying", secs(5));
    assert_eq!(center.next_deadline(), Some(secs(13)));
    center.tick(secs(12));
    assert_eq!(visible(&center), ["Retrying"]);
}

#[test]
fn the_window_slides_from_the_latest_repeat() {
    let mut center = NoticeCenter::new(coalescing_policy());
    // (arrival in s, coalesced?)
    let table = [(0, false), (9, true), (18, true), (28, true), (39, false)];
    for (at, coalesced) in table {
        let receipt = push(&mut center, Severity::Warning, "Flaky", secs(at));
        assert_eq!(receipt.coalesced, coalesced, "at {at} s");
    }
    assert_eq!(center.entry_count("s1"), 2);
}

#[test]
fn what_counts_as_identical() {
    // (second notice, coalesces with `warning "Disk" / "almost full"`)
    let table: [(Severity, &str, Option<&str>, bool); 6] = [
        (Severity::Warning, "Disk", Some("almost full"), true),
        (Severity::Error, "Disk", Some("almost full"), false),
        (Severity::Warning, "disk", Some("almost full"), false),
        (Severity::Warning, "Disk", None, false),
        (Severity::Warning, "Disk", Some("almost  full!"), false),
        // Same after sanitising: the escape sequence and extra spaces are gone.
        (
            Severity::Warning,
            "\x1b[1mDisk\x1b[0m  ",
            Some("almost full\u{200B}"),
            true,
        ),
    ];
    for (severity, title, description, expected) in table {
        let mut center = NoticeCenter::new(coalescing_policy());
        center.push(
            "s1",
            IncomingNotice::new(Severity::Warning, "Disk").with_description("almost full"),
            secs(0),
        );
        let mut notice = IncomingNotice::new(severity.clone(), title);
        if let Some(description) = description {
            notice = notice.with_description(description);
        }
        let receipt = center.push("s1", notice, secs(1));
        assert_eq!(
            receipt.coalesced, expected,
            "{severity:?} {title:?} {description:?}"
        );
    }
}

#[test]
fn sessions_do_not_coalesce_with_each_other() {
    let mut center = NoticeCenter::new(coalescing_policy());
    support::push_to(&mut center, "s1", Severity::Info, "Same", secs(0));
    let other = support::push_to(&mut center, "s2", Severity::Info, "Same", secs(1));
    assert!(!other.coalesced);
}

#[test]
fn a_hidden_entry_counts_repeats_without_showing_again() {
    let mut center = NoticeCenter::new(coalescing_policy());
    let first = push(&mut center, Severity::Warning, "Offline", secs(0));
    center.dismiss(first.entry, secs(1));
    let again = push(&mut center, Severity::Warning, "Offline", secs(2));
    assert!(again.coalesced);
    assert_eq!(again.toast, ToastState::Dismissed);
    assert!(visible(&center).is_empty());
}

#[test]
fn a_queued_entry_stays_queued_when_repeated() {
    let mut center = NoticeCenter::new(
        plain_policy()
            .coalesce_window(Some(secs(10)))
            .max_visible(1)
            .build(),
    );
    push(&mut center, Severity::Warning, "a", ms(0));
    push(&mut center, Severity::Warning, "b", ms(1));
    let again = push(&mut center, Severity::Warning, "b", ms(2));
    assert_eq!((again.toast, again.count), (ToastState::Queued, 2));
    assert_eq!(center.queued_count(), 1);
}

#[test]
fn coalescing_can_be_turned_off() {
    let mut center = NoticeCenter::new(plain_policy().build());
    push(&mut center, Severity::Info, "x", secs(0));
    let second = push(&mut center, Severity::Info, "x", secs(0));
    assert!(!second.coalesced);
    assert_eq!(center.entry_count("s1"), 2);
}

#[test]
fn the_default_window_is_ten_seconds() {
    let mut center = NoticeCenter::new(Policy::default());
    push(&mut center, Severity::Info, "x", secs(0));
    assert!(push(&mut center, Severity::Info, "x", secs(10)).coalesced);
    assert!(!push(&mut center, Severity::Info, "x", ms(20_001)).coalesced);
}
