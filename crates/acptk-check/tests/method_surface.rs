//! The whole method surface: every method of the schema's method tables (with every feature
//! acptk-check turns on) is known to the checker, from the side that sends it, in both versions;
//! only a method no table has is an `unknown-method`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing test may panic

use acptk_check::{Checker, Rule, Side};

const INIT_V1: &str =
    r#"{"jsonrpc":"2.0","id":"i","method":"initialize","params":{"protocolVersion":1}}"#;
const INIT_V1_OK: &str = r#"{"jsonrpc":"2.0","id":"i","result":{"protocolVersion":1}}"#;
const INIT_V2: &str = r#"{"jsonrpc":"2.0","id":"i","method":"initialize","params":{"protocolVersion":2,"info":{"name":"c","version":"1"}}}"#;
const INIT_V2_OK: &str = r#"{"jsonrpc":"2.0","id":"i","result":{"protocolVersion":2,"info":{"name":"a","version":"1"}}}"#;

/// (version, sender, is a request, methods)
fn tables() -> Vec<(u16, Side, bool, &'static [&'static str])> {
    use acptk_schema::{v1, v2};
    vec![
        (1, Side::Client, true, v1::ClientRequest::METHODS),
        (1, Side::Client, false, v1::ClientNotification::METHODS),
        (1, Side::Agent, true, v1::AgentRequest::METHODS),
        (1, Side::Agent, false, v1::AgentNotification::METHODS),
        (2, Side::Client, true, v2::ClientRequest::METHODS),
        (2, Side::Client, false, v2::ClientNotification::METHODS),
        (2, Side::Agent, true, v2::AgentRequest::METHODS),
        (2, Side::Agent, false, v2::AgentNotification::METHODS),
    ]
}

fn checker(version: u16) -> Checker {
    let mut checker = Checker::new();
    let (init, ok) = if version == 2 {
        (INIT_V2, INIT_V2_OK)
    } else {
        (INIT_V1, INIT_V1_OK)
    };
    checker.observe(1, Some(Side::Client), init);
    checker.observe(2, Some(Side::Agent), ok);
    checker
}

#[test]
fn every_method_of_the_tables_is_known_from_its_sender() {
    let mut checked = 0;
    for (version, sender, request, methods) in tables() {
        let mut checker = checker(version);
        for (k, method) in methods.iter().enumerate() {
            let line = if request {
                format!(r#"{{"jsonrpc":"2.0","id":{k},"method":"{method}","params":{{}}}}"#)
            } else {
                format!(r#"{{"jsonrpc":"2.0","method":"{method}","params":{{}}}}"#)
            };
            let obs = checker.observe(3 + k as u64, Some(sender), &line);
            assert!(
                obs.findings.iter().all(|f| f.rule != Rule::UnknownMethod),
                "v{version} {sender} {method}: {:?}",
                obs.findings
            );
            // From the other side it is the wrong sender.
            let obs = checker.observe(3 + k as u64, Some(sender.peer()), &line);
            assert!(
                obs.findings
                    .iter()
                    .any(|f| matches!(f.rule, Rule::UnknownMethod | Rule::InvalidMessage)),
                "v{version} {} {method}: {:?}",
                sender.peer(),
                obs.findings
            );
            checked += 1;
        }
    }
    assert!(checked > 30, "{checked}");
}

#[test]
fn a_method_no_table_has_is_unknown_and_an_extension_is_not() {
    for version in [1, 2] {
        let mut checker = checker(version);
        let obs = checker.observe(
            3,
            Some(Side::Client),
            r#"{"jsonrpc":"2.0","id":9,"method":"session/teleport","params":{}}"#,
        );
        assert_eq!(obs.findings[0].rule, Rule::UnknownMethod);
        let obs = checker.observe(
            4,
            Some(Side::Client),
            r#"{"jsonrpc":"2.0","id":10,"method":"_acme/teleport","params":{}}"#,
        );
        assert!(obs.findings.is_empty(), "{:?}", obs.findings);
    }
}
