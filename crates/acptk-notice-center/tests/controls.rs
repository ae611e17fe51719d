//! Do-not-disturb, muting, dismissal, clearing and removing sessions, the session limit.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing test may panic

mod support;

use acptk_notice_center::{Error, ListOnlyReason, NoticeCenter, Policy, Severity, ToastState};
use support::{plain_policy, push, push_to, queued, secs, visible};

#[test]
fn do_not_disturb_lets_only_errors_toast() {
    let mut center = NoticeCenter::new(plain_policy().do_not_disturb(true).build());
    // (severity, expected state, announced)
    let table = [
        (
            Severity::Info,
            ToastState::ListOnly(ListOnlyReason::DoNotDisturb),
            false,
        ),
        (
            Severity::Warning,
            ToastState::ListOnly(ListOnlyReason::DoNotDisturb),
            false,
        ),
        (
            Severity::from_wire("_x"),
            ToastState::ListOnly(ListOnlyReason::DoNotDisturb),
            false,
        ),
        (Severity::Error, ToastState::Visible, true),
    ];
    for (severity, expected, announced) in table {
        let receipt = push(&mut center, severity.clone(), severity.as_str(), secs(0));
        assert_eq!(receipt.toast, expected, "{severity:?}");
        assert_eq!(receipt.announcement.is_some(), announced, "{severity:?}");
    }
    assert_eq!(center.entry_count("s1"), 4);
}

#[test]
fn turning_do_not_disturb_on_flushes_waiting_non_errors_and_keeps_visible_ones() {
    let mut center = NoticeCenter::new(plain_policy().max_visible(1).build());
    push(&mut center, Severity::Info, "visible", secs(0));
    push(&mut center, Severity::Warning, "waiting warning", secs(0));
    push(&mut center, Severity::Error, "waiting error", secs(0));
    center.set_do_not_disturb(true, secs(1));
    assert!(center.policy().do_not_disturb());
    assert_eq!(visible(&center), ["visible"]);
    assert_eq!(queued(&center), ["waiting error"]);
    let warning = center
        .entries("s1")
        .find(|e| e.title() == "waiting warning")
        .unwrap();
    assert_eq!(
        warning.toast(),
        ToastState::ListOnly(ListOnlyReason::DoNotDisturb)
    );
    center.set_do_not_disturb(false, secs(2));
    assert_eq!(
        push(&mut center, Severity::Info, "later", secs(3)).toast,
        ToastState::Queued
    );
}

#[test]
fn a_muted_title_goes_to_the_list_silently_in_that_session_only() {
    let mut center = NoticeCenter::new(plain_policy().build());
    center.mute_title("s1", "Indexing", secs(0)).unwrap();
    let muted = push_to(&mut center, "s1", Severity::Info, "Indexing", secs(1));
    assert_eq!(muted.toast, ToastState::ListOnly(ListOnlyReason::Muted));
    assert!(muted.announcement.is_none());
    let elsewhere = push_to(&mut center, "s2", Severity::Info, "Indexing", secs(1));
    assert_eq!(elsewhere.toast, ToastState::Visible);
    // Compared after sanitising, so escape sequences do not get around a mute.
    let sneaky = push_to(
        &mut center,
        "s1",
        Severity::Error,
        "\x1b[1mIndexing\x1b[0m",
        secs(2),
    );
    assert_eq!(sneaky.toast, ToastState::ListOnly(ListOnlyReason::Muted));
    assert_eq!(center.muted_titles("s1").collect::<Vec<_>>(), ["Indexing"]);
}

#[test]
fn muting_takes_down_current_toasts_with_that_title() {
    let mut center = NoticeCenter::new(plain_policy().max_visible(1).build());
    let first = push(&mut center, Severity::Warning, "Noisy", secs(0));
    push(&mut center, Severity::Warning, "Noisy", secs(0));
    push(&mut center, Severity::Warning, "Quiet", secs(0));
    center.mute_title("s1", "Noisy", secs(1)).unwrap();
    assert_eq!(visible(&center), ["Quiet"]);
    assert!(queued(&center).is_empty());
    let entry = center.entry("s1", first.entry).unwrap();
    assert_eq!(entry.toast(), ToastState::ListOnly(ListOnlyReason::Muted));
}

#[test]
fn unmute_restores_toasts() {
    let mut center = NoticeCenter::new(plain_policy().build());
    center.mute_title("s1", "x", secs(0)).unwrap();
    assert!(center.unmute_title("s1", "x", secs(0)));
    assert!(!center.unmute_title("s1", "x", secs(0)));
    assert_eq!(
        push(&mut center, Severity::Info, "x", secs(1)).toast,
        ToastState::Visible
    );
}

#[test]
fn muted_titles_are_capped() {
    let mut center = NoticeCenter::new(plain_policy().max_muted_titles(2).build());
    center.mute_title("s1", "a", secs(0)).unwrap();
    center.mute_title("s1", "b", secs(0)).unwrap();
    // Muting an already muted title is fine.
    center.mute_title("s1", "a", secs(0)).unwrap();
    assert_eq!(
        center.mute_title("s1", "c", secs(0)),
        Err(Error::MuteLimitReached { limit: 2 })
    );
    assert_eq!(
        Error::MuteLimitReached { limit: 2 }.to_string(),
        "cannot mute another title: the session already has 2 muted titles (the policy's limit)"
    );
}

#[test]
fn dismiss_one_visible_or_queued() {
    let mut center = NoticeCenter::new(plain_policy().max_visible(1).build());
    let a = push(&mut center, Severity::Error, "a", secs(0)).entry;
    let b = push(&mut center, Severity::Error, "b", secs(0)).entry;
    let c = push(&mut center, Severity::Error, "c", secs(0)).entry;
    assert!(center.dismiss(b, secs(1)));
    assert_eq!(queued(&center), ["c"]);
    assert!(center.dismiss(a, secs(2)));
    assert_eq!(visible(&center), ["c"]);
    assert!(!center.dismiss(a, secs(3)));
    assert!(center.dismiss(c, secs(3)));
    let states: Vec<ToastState> = center.entries("s1").map(|e| e.toast()).collect();
    assert_eq!(states, [ToastState::Dismissed; 3]);
    // Dismissal is local: the entries stay in the list.
    assert_eq!(center.entry_count("s1"), 3);
    assert_eq!(center.stats().dismissed, 3);
}

#[test]
fn dismiss_all_takes_down_visible_and_queued() {
    let mut center = NoticeCenter::new(plain_policy().build());
    for title in ["a", "b", "c", "d", "e"] {
        push(&mut center, Severity::Warning, title, secs(0));
    }
    assert_eq!(center.dismiss_all(secs(1)), 5);
    assert!(visible(&center).is_empty() && queued(&center).is_empty());
    assert_eq!(center.entry_count("s1"), 5);
    assert_eq!(
        push(&mut center, Severity::Warning, "f", secs(2)).toast,
        ToastState::Visible
    );
}

#[test]
fn clear_session_empties_its_list_and_frees_slots() {
    let mut center = NoticeCenter::new(plain_policy().max_visible(2).build());
    push_to(&mut center, "s1", Severity::Warning, "one", secs(0));
    push_to(&mut center, "s1", Severity::Warning, "two", secs(0));
    push_to(&mut center, "s2", Severity::Warning, "other", secs(0));
    center.mute_title("s1", "muted", secs(0)).unwrap();
    assert_eq!(center.clear_session("s1", secs(1)), 2);
    assert_eq!(center.entry_count("s1"), 0);
    assert_eq!(visible(&center), ["other"]);
    // Mutes survive a clear, not a removal.
    assert_eq!(center.muted_titles("s1").count(), 1);
    assert!(center.remove_session("s1", secs(2)));
    assert!(!center.remove_session("s1", secs(2)));
    assert_eq!(center.muted_titles("s1").count(), 0);
    assert_eq!(
        center.sessions().map(|s| s.as_str()).collect::<Vec<_>>(),
        ["s2"]
    );
    assert_eq!(center.stats().cleared, 2);
    assert_eq!(center.clear_session("unknown", secs(3)), 0);
}

#[test]
fn the_least_recently_active_session_is_dropped_beyond_the_limit() {
    let mut center = NoticeCenter::new(plain_policy().max_sessions(2).build());
    push_to(&mut center, "a", Severity::Warning, "x", secs(0));
    push_to(&mut center, "b", Severity::Warning, "x", secs(1));
    push_to(&mut center, "a", Severity::Warning, "y", secs(2));
    push_to(&mut center, "c", Severity::Warning, "x", secs(3));
    assert_eq!(
        center.sessions().map(|s| s.as_str()).collect::<Vec<_>>(),
        ["a", "c"]
    );
    assert_eq!(center.stats().sessions_dropped, 1);
    assert_eq!(center.stats().evicted, 1);
    assert_eq!(center.visible_count(), 3);
}

#[test]
fn sessions_are_listed_in_order() {
    let mut center = NoticeCenter::new(Policy::default());
    for session in ["zeta", "alpha", "mid"] {
        push_to(&mut center, session, Severity::Info, "x", secs(0));
    }
    let sessions: Vec<&str> = center.sessions().map(|s| s.as_str()).collect();
    assert_eq!(sessions, ["alpha", "mid", "zeta"]);
}
