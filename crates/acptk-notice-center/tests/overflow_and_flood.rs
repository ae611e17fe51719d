//! The visible-toast limit, the overflow queue and the flood guard.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing test may panic

mod support;

use acptk_notice_center::{
    FloodGuard, ListOnlyReason, NoticeCenter, Overflow, Policy, Severity, ToastState,
};
use support::{ms, plain_policy, push, queued, secs, visible};

#[test]
fn at_most_three_visible_by_default_and_the_rest_wait() {
    let mut center = NoticeCenter::new(plain_policy().build());
    let states: Vec<ToastState> = ["a", "b", "c", "d", "e"]
        .iter()
        .enumerate()
        .map(|(at, title)| push(&mut center, Severity::Warning, title, secs(at as u64)).toast)
        .collect();
    assert_eq!(
        states,
        [
            ToastState::Visible,
            ToastState::Visible,
            ToastState::Visible,
            ToastState::Queued,
            ToastState::Queued
        ]
    );
    assert_eq!(visible(&center), ["a", "b", "c"]);
    assert_eq!(queued(&center), ["d", "e"]);
    assert_eq!(center.entry_count("s1"), 5);
}

#[test]
fn a_freed_slot_goes_to_the_first_waiting_toast() {
    let mut center = NoticeCenter::new(plain_policy().build());
    let first = push(&mut center, Severity::Warning, "a", secs(0)).entry;
    for title in ["b", "c", "d", "e"] {
        push(&mut center, Severity::Warning, title, secs(0));
    }
    assert!(center.dismiss(first, secs(5)));
    assert_eq!(visible(&center), ["b", "c", "d"]);
    assert_eq!(queued(&center), ["e"]);
    let promoted = center.toasts().last().unwrap();
    assert_eq!(promoted.shown_at(), secs(5));
}

#[test]
fn a_promoted_info_toast_gets_its_full_time_from_when_it_shows() {
    let mut center = NoticeCenter::new(plain_policy().max_visible(1).build());
    let a = push(&mut center, Severity::Warning, "a", secs(0)).entry;
    push(&mut center, Severity::Info, "b", secs(1));
    center.dismiss(a, secs(30));
    assert_eq!(center.next_deadline(), Some(secs(38)));
}

#[test]
fn overflow_list_only() {
    let policy = plain_policy()
        .overflow(Overflow::ListOnly)
        .max_visible(2)
        .build();
    let mut center = NoticeCenter::new(policy);
    push(&mut center, Severity::Warning, "a", secs(0));
    push(&mut center, Severity::Warning, "b", secs(0));
    let third = push(&mut center, Severity::Warning, "c", secs(0));
    assert_eq!(third.toast, ToastState::ListOnly(ListOnlyReason::Overflow));
    // Overflow is a visual limit only: screen-reader users still hear it.
    assert!(third.announcement.is_some());
    assert_eq!(center.queued_count(), 0);
    assert_eq!(center.entry_count("s1"), 3);
}

#[test]
fn the_queue_is_bounded() {
    let policy = plain_policy().max_visible(1).max_queued(2).build();
    let mut center = NoticeCenter::new(policy);
    let states: Vec<ToastState> = (0..5)
        .map(|n| push(&mut center, Severity::Warning, &format!("n{n}"), secs(0)).toast)
        .collect();
    assert_eq!(
        states,
        [
            ToastState::Visible,
            ToastState::Queued,
            ToastState::Queued,
            ToastState::ListOnly(ListOnlyReason::Overflow),
            ToastState::ListOnly(ListOnlyReason::Overflow),
        ]
    );
}

#[test]
fn flood_guard_sends_the_fourth_within_800ms_to_the_list() {
    let policy = Policy::builder()
        .coalesce_window(None)
        .max_visible(10)
        .build();
    let mut center = NoticeCenter::new(policy);
    // (arrival in ms, expected state)
    let table = [
        (0, ToastState::Visible),
        (100, ToastState::Visible),
        (200, ToastState::Visible),
        (300, ToastState::ListOnly(ListOnlyReason::FloodGuard)),
        (700, ToastState::ListOnly(ListOnlyReason::FloodGuard)),
        // Held notices count too, so a sustained burst stays held: the latest three
        // would-be toasts are at 300, 700 and 950 ms when the next one arrives.
        (950, ToastState::ListOnly(ListOnlyReason::FloodGuard)),
        (1_050, ToastState::ListOnly(ListOnlyReason::FloodGuard)),
        // At 1,600 ms only 950 and 1,050 are within 800 ms: room again.
        (1_600, ToastState::Visible),
    ];
    for (n, (at, expected)) in table.into_iter().enumerate() {
        let receipt = push(&mut center, Severity::Info, &format!("n{n}"), ms(at));
        assert_eq!(receipt.toast, expected, "notice {n} at {at} ms");
        let silenced = expected == ToastState::ListOnly(ListOnlyReason::FloodGuard);
        assert_eq!(receipt.announcement.is_none(), silenced, "notice {n}");
    }
    assert_eq!(center.stats().flood_held, 4);
    assert_eq!(center.entry_count("s1"), 8);
}

#[test]
fn a_spaced_stream_is_never_held() {
    let policy = Policy::builder()
        .coalesce_window(None)
        .max_visible(32)
        .build();
    let mut center = NoticeCenter::new(policy);
    for n in 0..20 {
        let receipt = push(&mut center, Severity::Info, &format!("n{n}"), ms(n * 300));
        assert_ne!(
            receipt.toast,
            ToastState::ListOnly(ListOnlyReason::FloodGuard),
            "notice {n}"
        );
    }
}

#[test]
fn flood_guard_is_configurable_and_can_be_off() {
    let policy = Policy::builder()
        .coalesce_window(None)
        .max_visible(32)
        .flood_guard(Some(FloodGuard::new(1, secs(1))))
        .build();
    let mut center = NoticeCenter::new(policy);
    assert_eq!(
        push(&mut center, Severity::Info, "a", ms(0)).toast,
        ToastState::Visible
    );
    assert_eq!(
        push(&mut center, Severity::Info, "b", ms(10)).toast,
        ToastState::ListOnly(ListOnlyReason::FloodGuard)
    );

    let mut center = NoticeCenter::new(plain_policy().max_visible(32).build());
    for n in 0..20 {
        assert_eq!(
            push(&mut center, Severity::Info, &format!("n{n}"), ms(0)).toast,
            ToastState::Visible
        );
    }
}

#[test]
fn max_visible_is_clamped() {
    assert_eq!(Policy::builder().max_visible(0).build().max_visible(), 1);
    assert_eq!(
        Policy::builder().max_visible(1_000).build().max_visible(),
        32
    );
    assert_eq!(
        Policy::builder().list_capacity(0).build().list_capacity(),
        1
    );
}

#[test]
fn list_capacity_evicts_the_oldest_and_its_toast() {
    let policy = plain_policy().list_capacity(3).max_visible(2).build();
    let mut center = NoticeCenter::new(policy);
    for (n, title) in ["a", "b", "c", "d"].iter().enumerate() {
        push(&mut center, Severity::Warning, title, secs(n as u64));
    }
    // a was visible and evicted with its entry: c (queued) took its slot.
    let titles: Vec<&str> = center.entries("s1").map(|entry| entry.title()).collect();
    assert_eq!(titles, ["b", "c", "d"]);
    assert_eq!(visible(&center), ["b", "c"]);
    assert_eq!(queued(&center), ["d"]);
    assert_eq!(center.stats().evicted, 1);
}
