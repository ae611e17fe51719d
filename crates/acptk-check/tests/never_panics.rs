//! No input makes the checker panic: arbitrary bytes, and lines assembled from pieces of real
//! messages (which reach much deeper than random bytes do).
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing test may panic

use acptk_check::input::InputFormat;
use acptk_check::{CheckOptions, check_bytes};
use proptest::prelude::*;

const PIECES: &[&str] = &[
    r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"session":{"notices":{}}}}}"#,
    r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":2,"info":{"name":"c","version":"1"}}}"#,
    r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}}"#,
    r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":2,"info":{"name":"a","version":"1"}}}"#,
    r#"{"jsonrpc":"2.0","id":1,"method":"session/load","params":{"sessionId":"s","cwd":"/","mcpServers":[]}}"#,
    r#"{"jsonrpc":"2.0","id":1,"method":"session/resume","params":{"sessionId":"s","cwd":"/","replayFrom":{"type":"start"}}}"#,
    r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
    r#"{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"no"}}"#,
    r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"notice","severity":"info","title":"T"}}}"#,
    r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"notice","severity":7}}}"#,
    r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"replay_complete"}}}"#,
    r#"{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":1}}"#,
    r#"{"jsonrpc":"2.0","method":"_x","params":null}"#,
    r#"{"from":"agent","message":"#,
    r#"{"from":"client","message":"#,
    r#"{"from":"agent","line":"x"}"#,
    r#"{"from":"agent","too_long":5}"#,
    r#"{"header":{"proxy":"acp proxy","version":"0.1.0","time":"t","agent":["a"]}}"#,
    r#"{"type":"request","ts":0.1,"protocol":"acp","from":"Proxy(0)","to":"Agent","id":0,"method":"session/load","params":{"sessionId":"s","cwd":"/","mcpServers":[]}}"#,
    r#"{"type":"response","ts":0.2,"from":"Agent","to":"Proxy(0)","id":0,"is_error":false,"payload":{}}"#,
    r#"{"type":"notification","ts":0.3,"protocol":"mcp","from":"Agent","to":"Client","method":"x","params":null}"#,
    r#"{"type":"trace","ts":0.4,"component":"agent","level":"info","message":"m"}"#,
    "[",
    "]",
    ",",
    r#"{"_direction":"incoming","_type":"notification","id":null,"method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"notice","severity":"info","title":"T"}}}"#,
    r#"{"_direction":"outgoing","_type":"response","id":3,"method":"m","params":{"code":1,"message":"no"}}"#,
    r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"m","data":{"acpxCode":"RUNTIME"}}}"#,
    "}",
    "\n",
    "\u{0}",
    "\"notice\"",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn arbitrary_bytes_never_panic(input in proptest::collection::vec(any::<u8>(), 0..2048)) {
        let (findings, summary) = check_bytes(&input, &CheckOptions::new().max_line(512));
        prop_assert_eq!(summary.total(), findings.len() as u64);
    }

    #[test]
    fn assembled_lines_never_panic(picks in proptest::collection::vec((0..PIECES.len(), 0..4usize), 0..60)) {
        let mut input = String::new();
        for (piece, cut) in picks {
            let text = PIECES[piece];
            // Sometimes only a prefix of the piece, to make truncated JSON.
            let end = if cut == 0 { text.len() / 2 } else { text.len() };
            let end = (0..=end).rev().find(|i| text.is_char_boundary(*i)).unwrap_or(0);
            input.push_str(&text[..end]);
            if cut != 3 {
                input.push('\n');
            }
        }
        for format in InputFormat::ALL {
            let options = CheckOptions::new().format(*format);
            let (findings, summary) = check_bytes(input.as_bytes(), &options);
            prop_assert_eq!(summary.total(), findings.len() as u64);
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic_in_any_format(input in proptest::collection::vec(any::<u8>(), 0..512)) {
        for format in InputFormat::ALL {
            let options = CheckOptions::new().format(*format).max_line(256);
            let (findings, summary) = check_bytes(&input, &options);
            prop_assert_eq!(summary.total(), findings.len() as u64);
        }
    }
}
