//! Arbitrary bytes as one line of an ACP stream: the JSON-RPC envelope parser, then every
//! routing decoder of both protocol versions that could apply. Nothing may panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(line) = std::str::from_utf8(data) {
        let _ = acptk_conformance::route::parse_and_route(line);
    }
});
