//! Property: for random streams of live and replayed notices, with random pipelining by the
//! client and an agent that serves several requests at once, a notice the agent sent outside a
//! replay is never judged replayed (so `acp proxy` never removes it); and the proxy, run on the
//! same kind of traffic, removes exactly what checking its record judges replayed.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing test may panic

mod support;

use std::collections::HashMap;

use acptk_check::proxy::ProxyOptions;
use acptk_check::{Checker, Rule};
use proptest::prelude::*;
use support::model::{self, Op, Script, Truth};

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0..model::SESSIONS.len()).prop_map(Op::Prompt),
        (0..model::SESSIONS.len()).prop_map(Op::Replay),
    ]
}

fn script() -> impl Strategy<Value = Script> {
    (
        prop_oneof![Just(1u16), Just(2u16)],
        proptest::collection::vec(proptest::collection::vec(op(), 1..4), 1..6),
    )
        .prop_map(|(version, batches)| Script { version, batches })
}

/// The titles the checker judged replayed, and whether every other notice was judged.
fn judged_replayed(lines: &[(acptk_check::Side, String)]) -> (Vec<String>, usize) {
    let mut checker = Checker::new();
    let mut replayed = Vec::new();
    let mut notices = 0;
    for (n, (side, line)) in lines.iter().enumerate() {
        let obs = checker.observe(n as u64 + 1, Some(*side), line);
        if let Some(event) = obs.notice {
            notices += 1;
            let title = event.notice.expect("a valid notice").title;
            if event.in_replay {
                replayed.push(title);
            }
        }
    }
    (replayed, notices)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn a_notice_sent_outside_a_replay_is_never_judged_replayed(script in script(), seed in any::<u64>()) {
        let simulation = model::simulate(&script, seed);
        let (replayed, notices) = judged_replayed(&simulation.lines);
        prop_assert_eq!(notices, simulation.truth.in_replay.len());
        for title in &replayed {
            prop_assert!(simulation.truth.in_replay[title], "removed the live notice {}: {:#?}", title, simulation.lines);
        }
    }

    #[test]
    fn a_replay_served_alone_loses_its_notices(version in prop_oneof![Just(1u16), Just(2u16)], ops in proptest::collection::vec(op(), 1..8), seed in any::<u64>()) {
        // One request at a time, and each served to its end before the next is written: every
        // notice of a replay after its first history line is judged replayed.
        let mut rng = acptk_conformance::rng::Rng::new(seed);
        let mut truth = Truth::default();
        let (init, init_ok) = model::initialize(version);
        let mut lines = vec![(acptk_check::Side::Client, init), (acptk_check::Side::Agent, init_ok)];
        let mut expected = Vec::new();
        for (k, op) in ops.iter().enumerate() {
            lines.push((acptk_check::Side::Client, model::request(version, *op, k as u64 + 1)));
            let mut seen_history = false;
            let mut replaying = matches!(op, Op::Replay(_));
            for line in model::job(version, *op, k as u64 + 1, &mut rng, &mut truth) {
                seen_history |= line.history;
                if line.ends_replay {
                    replaying = false;
                }
                if replaying && seen_history && line.line.contains(r#""sessionUpdate":"notice""#) {
                    let title = line.line.split(r#""title":""#).nth(1).unwrap().split('"').next().unwrap().to_owned();
                    expected.push(title);
                }
                lines.push((acptk_check::Side::Agent, line.line));
            }
        }
        let (replayed, _) = judged_replayed(&lines);
        prop_assert_eq!(replayed, expected);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn the_proxy_removes_only_replayed_notices_and_agrees_with_its_record(script in script(), seed in any::<u64>()) {
        // The proxy between a pipelining client and an agent that serves one request at a
        // time (each answered all at once).
        let mut rng = acptk_conformance::rng::Rng::new(seed);
        let mut truth = Truth::default();
        let (init, init_ok) = model::initialize(script.version);
        let mut batches = vec![vec![init]];
        let mut answers: HashMap<String, Vec<String>> = HashMap::new();
        answers.insert("0".to_owned(), vec![init_ok]);
        let mut id = 1u64;
        for batch in &script.batches {
            let mut lines = Vec::new();
            for op in batch {
                lines.push(model::request(script.version, *op, id));
                let job = model::job(script.version, *op, id, &mut rng, &mut truth);
                answers.insert(id.to_string(), job.into_iter().map(|l| l.line).collect());
                id += 1;
            }
            batches.push(lines);
        }
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let run = runtime.block_on(support::run_pipelined(&batches, &answers, ProxyOptions::new()));
        let received = String::from_utf8(run.client_received.clone()).unwrap();
        // Every live notice reached the client; the removed ones were all replayed.
        let mut removed = Vec::new();
        for (title, in_replay) in &truth.in_replay {
            let delivered = received.contains(&format!(r#""title":"{title}""#));
            if !delivered {
                prop_assert!(*in_replay, "the live notice {} was removed", title);
                removed.push(title.clone());
            }
        }
        let repairs = run.findings.iter().filter(|f| f.rule == Rule::Repair).count();
        prop_assert_eq!(repairs, removed.len());
        // Checking the record judges replayed exactly what the proxy removed.
        let record = String::from_utf8(run.record.clone()).unwrap();
        let (findings, _) = acptk_check::check_bytes(record.as_bytes(), &acptk_check::CheckOptions::new());
        let offline = findings.iter().filter(|f| f.rule == Rule::NoticeInReplay).count();
        prop_assert_eq!(offline, removed.len());
        let live: Vec<(u64, Rule)> = run.findings.iter().filter(|f| f.rule != Rule::Repair).map(|f| (f.line, f.rule)).collect();
        let offline: Vec<(u64, Rule)> = findings.iter().map(|f| (f.line, f.rule)).collect();
        prop_assert_eq!(live, offline);
    }
}
