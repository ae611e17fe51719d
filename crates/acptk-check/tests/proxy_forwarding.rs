//! Property: without notices, the proxy changes nothing. Random streams in both directions
//! (valid messages, broken JSON, blank lines, CRLF, bytes that are not UTF-8, lines over the
//! limit, a last line without a line break) arrive byte-identical and in order, and every
//! line that is not blank is recorded once.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing test may panic

mod support;

use acptk_check::proxy::ProxyOptions;
use proptest::prelude::*;

/// One line of traffic, without its line break.
fn line() -> impl Strategy<Value = Vec<u8>> {
    let text = "[ -~\u{e9}\u{4e16}\u{1f600}]{0,40}";
    prop_oneof![
        4 => (0..1000i64, text).prop_map(|(id, t)| format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"session/prompt","params":{{"sessionId":"s","prompt":[{{"type":"text","text":{}}}]}}}}"#,
            serde_json::to_string(&t).unwrap()
        ).into_bytes()),
        4 => text.prop_map(|t| format!(
            r#"{{"jsonrpc":"2.0","method":"session/update","params":{{"sessionId":"s","update":{{"sessionUpdate":"agent_message_chunk","content":{{"type":"text","text":{}}}}}}}}}"#,
            serde_json::to_string(&t).unwrap()
        ).into_bytes()),
        2 => (0..1000i64).prop_map(|id| format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"stopReason":"end_turn"}}}}"#).into_bytes()),
        1 => Just(br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}"#.to_vec()),
        1 => Just(br#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}}"#.to_vec()),
        1 => Just(br#"{"jsonrpc":"2.0","id":3,"method":"session/load","params":{"sessionId":"s","cwd":"/","mcpServers":[]}}"#.to_vec()),
        1 => text.prop_map(String::into_bytes),
        1 => proptest::collection::vec(any::<u8>().prop_filter("no line break", |b| *b != b'\n'), 0..60),
        1 => Just(Vec::new()),
        1 => Just(b" \t ".to_vec()),
        1 => (300..900usize).prop_map(|n| format!(r#"{{"jsonrpc":"2.0","method":"_big","params":"{}"}}"#, "z".repeat(n)).into_bytes()),
    ]
    .prop_filter("no notices", |l| !l.windows(6).any(|w| w == b"notice"))
}

/// A stream: lines with `\n` or `\r\n`, the last one maybe without a line break.
fn stream() -> impl Strategy<Value = Vec<u8>> {
    (
        proptest::collection::vec((line(), any::<bool>()), 0..40),
        any::<bool>(),
    )
        .prop_map(|(lines, last_open)| {
            let mut out = Vec::new();
            let count = lines.len();
            for (i, (line, crlf)) in lines.into_iter().enumerate() {
                out.extend_from_slice(&line);
                if i + 1 == count && last_open && !line.is_empty() {
                    break;
                }
                out.extend_from_slice(if crlf { b"\r\n" } else { b"\n" });
            }
            out
        })
}

fn not_blank_lines(stream: &[u8]) -> usize {
    stream
        .split(|b| *b == b'\n')
        .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
        .count()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn without_notices_everything_arrives_byte_identical_and_in_order(client in stream(), agent in stream()) {
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let options = ProxyOptions::new().max_line(256).timestamps(false);
        let run = runtime.block_on(support::run_streams(client.clone(), agent.clone(), options));
        prop_assert_eq!(&run.agent_received, &client);
        prop_assert_eq!(&run.client_received, &agent);
        prop_assert!(run.findings.iter().all(|f| f.rule != acptk_check::Rule::Repair));
        let recorded = run.record.iter().filter(|b| **b == b'\n').count();
        prop_assert_eq!(recorded, not_blank_lines(&client) + not_blank_lines(&agent));
    }
}
