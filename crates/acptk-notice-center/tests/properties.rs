//! Property tests: random sequences of notices, host events and user commands.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing test may panic

use std::time::Duration;

use acptk_notice_center::{
    EntryId, FloodGuard, IncomingNotice, NoticeCenter, Overflow, Policy, Severity, ToastState,
};
use proptest::prelude::*;

const SESSIONS: [&str; 3] = ["s1", "s2", "s3"];
const TITLES: [&str; 5] = [
    "Disk full",
    "Offline",
    "\x1b[31mRed\x1b[0m",
    "Rate limited",
    "\u{202E}x",
];

#[derive(Debug, Clone)]
enum Op {
    Push {
        session: usize,
        severity: u8,
        title: usize,
        description: Option<u8>,
        after_ms: u64,
    },
    Tick {
        after_ms: u64,
    },
    Dismiss {
        pick: usize,
    },
    DismissAll,
    Clear {
        session: usize,
    },
    Remove {
        session: usize,
    },
    Mute {
        session: usize,
        title: usize,
    },
    Unmute {
        session: usize,
        title: usize,
    },
    Hover {
        pick: Option<usize>,
    },
    Focus {
        pick: Option<usize>,
    },
    Window {
        focused: bool,
    },
    DoNotDisturb {
        on: bool,
    },
    NeverAutoHide {
        on: bool,
    },
    Multiplier {
        factor: f64,
    },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        10 => (0..3usize, 0..5u8, 0..5usize, proptest::option::of(0..3u8), 0..3_000u64)
            .prop_map(|(session, severity, title, description, after_ms)| Op::Push {
                session, severity, title, description, after_ms
            }),
        3 => (0..20_000u64).prop_map(|after_ms| Op::Tick { after_ms }),
        2 => (0..8usize).prop_map(|pick| Op::Dismiss { pick }),
        1 => Just(Op::DismissAll),
        1 => (0..3usize).prop_map(|session| Op::Clear { session }),
        1 => (0..3usize).prop_map(|session| Op::Remove { session }),
        1 => (0..3usize, 0..5usize).prop_map(|(session, title)| Op::Mute { session, title }),
        1 => (0..3usize, 0..5usize).prop_map(|(session, title)| Op::Unmute { session, title }),
        1 => proptest::option::of(0..8usize).prop_map(|pick| Op::Hover { pick }),
        1 => proptest::option::of(0..8usize).prop_map(|pick| Op::Focus { pick }),
        1 => any::<bool>().prop_map(|focused| Op::Window { focused }),
        1 => any::<bool>().prop_map(|on| Op::DoNotDisturb { on }),
        1 => any::<bool>().prop_map(|on| Op::NeverAutoHide { on }),
        1 => (-5.0..50.0f64).prop_map(|factor| Op::Multiplier { factor }),
    ]
}

fn policy() -> impl Strategy<Value = Policy> {
    (
        1..5usize,
        0..4usize,
        1..8usize,
        any::<bool>(),
        any::<bool>(),
        1..4usize,
        1..3usize,
    )
        .prop_map(
            |(visible, queued, capacity, list_only, coalesce, burst, sessions)| {
                Policy::builder()
                    .max_visible(visible)
                    .max_queued(queued)
                    .list_capacity(capacity)
                    .overflow(if list_only {
                        Overflow::ListOnly
                    } else {
                        Overflow::Queue
                    })
                    .coalesce_window(coalesce.then_some(Duration::from_secs(5)))
                    .flood_guard(Some(FloodGuard::new(burst, Duration::from_millis(800))))
                    .max_sessions(sessions)
                    .max_muted_titles(2)
                    .build()
            },
        )
}

/// Some entry id to aim a command at: a visible toast, a queued one, or a made-up id.
fn pick(center: &NoticeCenter, pick: usize) -> EntryId {
    let ids: Vec<EntryId> = center
        .toasts()
        .map(|toast| toast.entry().id())
        .chain(center.queued().map(|(_, entry)| entry.id()))
        .collect();
    ids.get(pick).copied().unwrap_or_else(|| {
        // An id that was never handed out (or was evicted).
        center
            .sessions()
            .flat_map(|session| center.entries(session.as_str()))
            .map(|entry| entry.id())
            .next()
            .unwrap_or(ids.first().copied().unwrap_or_else(|| {
                let mut other = NoticeCenter::default();
                other
                    .push(
                        "x",
                        IncomingNotice::new(Severity::Info, "x"),
                        Duration::ZERO,
                    )
                    .entry
            }))
    })
}

fn apply(center: &mut NoticeCenter, op: &Op, now: &mut Duration) {
    match *op {
        Op::Push {
            session,
            severity,
            title,
            description,
            after_ms,
        } => {
            *now += Duration::from_millis(after_ms);
            let severity = match severity {
                0 => Severity::Info,
                1 => Severity::Warning,
                2 => Severity::Error,
                3 => Severity::from_wire("_ext"),
                _ => Severity::from_wire("future"),
            };
            let descriptions = ["details", "\x1b]8;;x\x07link", ""];
            let mut notice = IncomingNotice::new(severity, TITLES[title]);
            if let Some(d) = description {
                notice = notice.with_description(descriptions[usize::from(d)]);
            }
            let receipt = center.push(SESSIONS[session], notice, *now);
            assert!(receipt.count >= 1);
            if receipt.coalesced {
                assert!(
                    receipt.announcement.is_none(),
                    "a repeat is never announced"
                );
            }
        }
        Op::Tick { after_ms } => {
            *now += Duration::from_millis(after_ms);
            center.tick(*now);
        }
        Op::Dismiss { pick: p } => {
            let id = pick(center, p);
            center.dismiss(id, *now);
        }
        Op::DismissAll => {
            center.dismiss_all(*now);
        }
        Op::Clear { session } => {
            center.clear_session(SESSIONS[session], *now);
        }
        Op::Remove { session } => {
            center.remove_session(SESSIONS[session], *now);
        }
        Op::Mute { session, title } => {
            let _ = center.mute_title(SESSIONS[session], TITLES[title], *now);
        }
        Op::Unmute { session, title } => {
            center.unmute_title(SESSIONS[session], TITLES[title], *now);
        }
        Op::Hover { pick: p } => {
            let id = p.map(|p| pick(center, p));
            center.set_hovered(id, *now);
        }
        Op::Focus { pick: p } => {
            let id = p.map(|p| pick(center, p));
            center.set_focused(id, *now);
        }
        Op::Window { focused } => center.set_window_focused(focused, *now),
        Op::DoNotDisturb { on } => center.set_do_not_disturb(on, *now),
        Op::NeverAutoHide { on } => center.set_never_auto_hide(on, *now),
        Op::Multiplier { factor } => center.set_duration_multiplier(factor, *now),
    }
}

fn check_invariants(center: &NoticeCenter) {
    let policy = center.policy();
    assert!(center.visible_count() <= policy.max_visible());
    assert_eq!(
        center.toasts().count(),
        center.visible_count(),
        "every toast has its entry"
    );
    assert!(center.queued_count() <= policy.max_queued());
    assert_eq!(
        center.queued().count(),
        center.queued_count(),
        "every queued toast has its entry"
    );
    if center.queued_count() > 0 {
        assert_eq!(
            center.visible_count(),
            policy.max_visible(),
            "nothing waits while a slot is free"
        );
    }
    assert!(center.sessions().count() <= policy.max_sessions());

    let mut live = 0;
    let mut visible_states = 0;
    let mut queued_states = 0;
    for session in center.sessions() {
        let entries: Vec<_> = center.entries(session.as_str()).collect();
        assert!(entries.len() <= policy.list_capacity());
        assert!(entries.windows(2).all(|pair| pair[0].id() < pair[1].id()));
        for entry in entries {
            assert!(entry.count() >= 1);
            assert!(!entry.title().is_empty());
            live += entry.count();
            match entry.toast() {
                ToastState::Visible => visible_states += 1,
                ToastState::Queued => queued_states += 1,
                _ => {}
            }
        }
        assert!(center.muted_titles(session.as_str()).count() <= policy.max_muted_titles());
    }
    assert_eq!(
        visible_states,
        center.visible_count(),
        "entry states match the board"
    );
    assert_eq!(
        queued_states,
        center.queued_count(),
        "entry states match the queue"
    );
    for toast in center.toasts() {
        assert_eq!(toast.entry().toast(), ToastState::Visible);
        if let Some(deadline) = toast.deadline() {
            assert!(deadline > center.now(), "an overdue toast is still visible");
        }
    }

    let stats = center.stats();
    assert_eq!(live, center.live_notices());
    assert_eq!(
        stats.received,
        live + stats.evicted + stats.cleared,
        "counts are conserved"
    );
    assert_eq!(stats.received, stats.new_entries + stats.coalesced);
}

proptest! {
    // 256 cases by default; set PROPTEST_CASES to run more.
    #[test]
    fn invariants_hold_for_any_sequence(
        policy in policy(),
        ops in proptest::collection::vec(op(), 0..120),
    ) {
        let mut center = NoticeCenter::new(policy);
        let mut now = Duration::ZERO;
        for op in &ops {
            apply(&mut center, op, &mut now);
            check_invariants(&center);
        }
    }

    #[test]
    fn the_default_policy_never_shows_more_than_three(
        ops in proptest::collection::vec(op(), 0..200),
    ) {
        let mut center = NoticeCenter::default();
        let mut now = Duration::ZERO;
        for op in &ops {
            apply(&mut center, op, &mut now);
            prop_assert!(center.visible_count() <= 3);
            prop_assert!(center.sessions().all(|s| center.entry_count(s.as_str()) <= 200));
        }
    }

    #[test]
    fn arbitrary_text_never_panics_the_engine(
        title in any::<String>(),
        description in proptest::option::of(any::<String>()),
        severity in any::<String>(),
        session in any::<String>(),
    ) {
        let mut center = NoticeCenter::default();
        let mut notice = IncomingNotice::new(Severity::from_wire(&severity), &title);
        if let Some(description) = &description {
            notice = notice.with_description(description);
        }
        let receipt = center.push(&session, notice, Duration::ZERO);
        let entry = center.entry(&session, receipt.entry).unwrap();
        prop_assert!(!entry.title().is_empty());
        prop_assert!(entry.severity().as_str().chars().all(|c| !c.is_control()));
    }
}
