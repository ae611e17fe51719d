//! Arbitrary bytes as a message line, checked twice by `acptk-check`: as it came, and in the
//! canonical form the runtime writes (`{"jsonrpc":"2.0","method":"M","params":P}` with the
//! method name unescaped), whose envelope the checker's fast path matches by its bytes. The
//! two verdicts (findings and notice) must be the same: a byte matcher may decline a line but
//! never read it differently from the JSON decoder (an escaped method name included). The
//! remote listener's session limits read messages with the same parser as the connection
//! (`acptk_schema::jsonrpc::Message`), which this decodes too. Nothing may panic.
#![no_main]

use acptk_check::{Checker, Side};
use acptk_schema::jsonrpc::{Message, Notification};
use libfuzzer_sys::fuzz_target;

const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}"#;
const INIT_OK: &str = r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}}"#;

/// The rules and the notice a fresh checker (after `initialize`) finds in `line` from `side`.
fn verdict(line: &str, side: Side) -> (Vec<String>, String) {
    let mut checker = Checker::new();
    checker.observe(1, Some(Side::Client), INIT);
    checker.observe(2, Some(Side::Agent), INIT_OK);
    let observation = checker.observe(3, Some(side), line);
    let rules = observation
        .findings
        .iter()
        .map(|finding| finding.rule.id().to_owned())
        .collect();
    (rules, format!("{:?}", observation.notice))
}

fuzz_target!(|data: &[u8]| {
    let Ok(line) = std::str::from_utf8(data) else {
        return;
    };
    for side in [Side::Agent, Side::Client] {
        let as_sent = verdict(line, side);
        let Ok(Message::Notification(notification)) = line.parse::<Message>() else {
            continue;
        };
        let canonical = Notification::new(notification.method, notification.params);
        let Ok(canonical) = serde_json::to_string(&canonical) else {
            continue;
        };
        assert_eq!(
            as_sent,
            verdict(&canonical, side),
            "{line:?} and its canonical form {canonical:?} are checked differently"
        );
    }
});
