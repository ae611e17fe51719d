//! Auto-hide, pause and resume, sticky severities, multiplier and never-auto-hide, driven by a
//! fake clock.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing test may panic

mod support;

use std::time::Duration;

use acptk_notice_center::{NoticeCenter, Policy, Severity, SeverityPreset, ToastState};
use support::{ms, plain_policy, push, secs, visible};

#[test]
fn info_hides_after_eight_seconds_and_stays_in_the_list() {
    let mut center = NoticeCenter::new(plain_policy().build());
    let receipt = push(&mut center, Severity::Info, "Model rerouted", secs(0));
    assert_eq!(receipt.toast, ToastState::Visible);
    assert_eq!(center.next_deadline(), Some(secs(8)));

    assert_eq!(center.tick(ms(7_999)), 0);
    assert_eq!(visible(&center), ["Model rerouted"]);
    assert_eq!(center.tick(secs(8)), 1);
    assert!(visible(&center).is_empty());
    let entry = center.entry("s1", receipt.entry).unwrap();
    assert_eq!(entry.toast(), ToastState::Expired);
    assert_eq!(center.entry_count("s1"), 1);
    assert_eq!(center.next_deadline(), None);
}

#[test]
fn sticky_severities_never_expire() {
    // (severity, sticky by default)
    let table = [
        (Severity::Info, false),
        (Severity::Warning, true),
        (Severity::Error, true),
        (Severity::from_wire("_acme.debug"), false),
        (Severity::from_wire("critical"), false),
    ];
    for (severity, sticky) in table {
        let mut center = NoticeCenter::new(plain_policy().build());
        push(&mut center, severity.clone(), "x", secs(0));
        center.tick(secs(3_600));
        assert_eq!(center.visible_count() == 1, sticky, "{severity:?}");
        let toast_sticky = center.toasts().next().is_some_and(|t| t.is_sticky());
        assert_eq!(toast_sticky, sticky, "{severity:?}");
    }
}

#[test]
fn unknown_severity_gets_the_default_timing_and_neutral_word() {
    let mut center = NoticeCenter::new(plain_policy().build());
    let receipt = push(
        &mut center,
        Severity::from_wire("_vendor.fatal"),
        "Odd",
        secs(0),
    );
    assert_eq!(center.next_deadline(), Some(secs(8)));
    let announcement = receipt.announcement.unwrap();
    assert_eq!(announcement.text, "Notice: Odd");
    assert_eq!(
        announcement.politeness,
        acptk_notice_center::Politeness::Polite
    );
}

#[test]
fn hover_pauses_and_resume_keeps_the_time_left() {
    let mut center = NoticeCenter::new(plain_policy().build());
    let id = push(&mut center, Severity::Info, "a", secs(0)).entry;
    center.set_hovered(Some(id), secs(3));
    assert!(center.toasts().next().unwrap().is_paused());
    assert_eq!(center.next_deadline(), None);
    // Time passes while hovered: nothing happens.
    center.tick(secs(100));
    assert_eq!(visible(&center), ["a"]);
    assert_eq!(
        center.toasts().next().unwrap().remaining(secs(100)),
        Some(secs(5))
    );
    // Pointer leaves: 5 s left from now.
    center.set_hovered(None, secs(100));
    assert_eq!(center.next_deadline(), Some(secs(105)));
    center.tick(ms(104_999));
    assert_eq!(visible(&center), ["a"]);
    center.tick(secs(105));
    assert!(visible(&center).is_empty());
}

#[test]
fn hover_only_pauses_the_hovered_toast() {
    let mut center = NoticeCenter::new(plain_policy().build());
    let a = push(&mut center, Severity::Info, "a", secs(0)).entry;
    push(&mut center, Severity::Info, "b", secs(0));
    center.set_hovered(Some(a), secs(1));
    center.tick(secs(8));
    assert_eq!(visible(&center), ["a"]);
}

#[test]
fn keyboard_focus_pauses() {
    let mut center = NoticeCenter::new(plain_policy().build());
    let id = push(&mut center, Severity::Info, "a", secs(0)).entry;
    center.set_focused(Some(id), secs(2));
    center.tick(secs(60));
    assert_eq!(visible(&center), ["a"]);
    center.set_focused(None, secs(60));
    assert_eq!(center.next_deadline(), Some(secs(66)));
}

#[test]
fn unfocused_window_pauses_every_timer() {
    let mut center = NoticeCenter::new(plain_policy().build());
    push(&mut center, Severity::Info, "a", secs(0));
    center.set_window_focused(false, secs(1));
    assert!(!center.window_focused());
    // A toast that arrives while the window is unfocused does not start its timer either.
    push(&mut center, Severity::Info, "b", secs(2));
    center.tick(secs(1_000));
    assert_eq!(visible(&center), ["a", "b"]);
    center.set_window_focused(true, secs(1_000));
    // a: 7 s left; b: 8 s left.
    center.tick(secs(1_007));
    assert_eq!(visible(&center), ["b"]);
    center.tick(secs(1_008));
    assert!(visible(&center).is_empty());
}

#[test]
fn pause_and_focus_overlap() {
    let mut center = NoticeCenter::new(plain_policy().build());
    let id = push(&mut center, Severity::Info, "a", secs(0)).entry;
    center.set_hovered(Some(id), secs(1));
    center.set_window_focused(false, secs(2));
    center.set_hovered(None, secs(3));
    // Still paused: the window has no focus.
    center.tick(secs(50));
    assert_eq!(visible(&center), ["a"]);
    center.set_window_focused(true, secs(50));
    assert_eq!(center.next_deadline(), Some(secs(57)));
}

#[test]
fn duration_multiplier_scales_and_is_clamped() {
    // (requested factor, expected info time in ms)
    let table = [
        (2.0, 16_000),
        (10.0, 80_000),
        (50.0, 80_000),
        (0.1, 4_000),
        (f64::NAN, 8_000),
        (f64::INFINITY, 80_000),
        (1.5, 12_000),
    ];
    for (factor, expected) in table {
        let mut center = NoticeCenter::new(plain_policy().duration_multiplier(factor).build());
        push(&mut center, Severity::Info, "a", secs(0));
        assert_eq!(
            center.next_deadline(),
            Some(ms(expected)),
            "factor {factor}"
        );
    }
}

#[test]
fn multiplier_changed_at_runtime_retimes_visible_toasts() {
    let mut center = NoticeCenter::new(plain_policy().build());
    push(&mut center, Severity::Info, "a", secs(0));
    center.set_duration_multiplier(3.0, secs(4));
    assert_eq!(center.next_deadline(), Some(secs(28)));
    assert_eq!(center.policy().duration_multiplier(), 3.0);
}

#[test]
fn never_auto_hide_keeps_everything_until_dismissed() {
    let mut center = NoticeCenter::new(plain_policy().never_auto_hide(true).build());
    let id = push(&mut center, Severity::Info, "a", secs(0)).entry;
    center.tick(secs(86_400));
    assert_eq!(visible(&center), ["a"]);
    assert!(center.dismiss(id, secs(86_400)));
    assert!(visible(&center).is_empty());
}

#[test]
fn never_auto_hide_toggled_at_runtime() {
    let mut center = NoticeCenter::new(plain_policy().build());
    push(&mut center, Severity::Info, "a", secs(0));
    center.set_never_auto_hide(true, secs(5));
    assert_eq!(center.next_deadline(), None);
    center.tick(secs(500));
    assert_eq!(visible(&center), ["a"]);
    center.set_never_auto_hide(false, secs(500));
    assert_eq!(center.next_deadline(), Some(secs(508)));
}

#[test]
fn presets_are_overridable() {
    let policy = plain_policy()
        .info(SeverityPreset::sticky())
        .warning(SeverityPreset::auto_hide(secs(2)))
        .error(SeverityPreset::auto_hide(secs(30)))
        .unknown(SeverityPreset::auto_hide(secs(1)))
        .build();
    let table = [
        (Severity::Info, None),
        (Severity::Warning, Some(secs(2))),
        (Severity::Error, Some(secs(30))),
        (Severity::from_wire("other"), Some(secs(1))),
    ];
    for (severity, expected) in table {
        assert_eq!(policy.hide_after(&severity), expected, "{severity:?}");
        let mut center = NoticeCenter::new(policy.clone());
        push(&mut center, severity.clone(), "x", secs(0));
        assert_eq!(center.next_deadline(), expected, "{severity:?}");
    }
}

#[test]
fn clock_going_backwards_is_treated_as_no_time() {
    let mut center = NoticeCenter::new(plain_policy().build());
    push(&mut center, Severity::Info, "a", secs(10));
    center.tick(secs(5));
    assert_eq!(center.now(), secs(10));
    assert_eq!(center.next_deadline(), Some(secs(18)));
    let late = push(&mut center, Severity::Info, "b", secs(1));
    assert_eq!(
        center.entry("s1", late.entry).unwrap().first_seen(),
        secs(10)
    );
}

#[test]
fn expiry_happens_at_the_deadline_even_when_ticked_late() {
    let policy = plain_policy().max_visible(1).build();
    let mut center = NoticeCenter::new(policy);
    push(&mut center, Severity::Info, "a", secs(0));
    push(&mut center, Severity::Info, "b", secs(1));
    // One late tick: a expired at 8 s, b took the slot at 8 s and expires at 16 s.
    center.tick(secs(12));
    assert_eq!(visible(&center), ["b"]);
    let toast = center.toasts().next().unwrap();
    assert_eq!(toast.shown_at(), secs(8));
    assert_eq!(center.next_deadline(), Some(secs(16)));
    center.tick(Duration::from_secs(100));
    assert!(visible(&center).is_empty());
    assert_eq!(center.stats().expired, 2);
}

#[test]
fn default_policy_matches_the_documented_presets() {
    let policy = Policy::default();
    assert_eq!(policy.hide_after(&Severity::Info), Some(secs(8)));
    assert_eq!(policy.hide_after(&Severity::Warning), None);
    assert_eq!(policy.hide_after(&Severity::Error), None);
    assert_eq!(policy.hide_after(&Severity::from_wire("x")), Some(secs(8)));
    assert_eq!(policy.max_visible(), 3);
    assert_eq!(policy.list_capacity(), 200);
    assert_eq!(
        policy.error().prominence(),
        acptk_notice_center::Prominence::High
    );
    assert_eq!(
        policy.info().prominence(),
        acptk_notice_center::Prominence::Normal
    );
    assert_eq!(
        policy.unknown().prominence(),
        acptk_notice_center::Prominence::Normal
    );
}
