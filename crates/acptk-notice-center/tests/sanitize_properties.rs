//! Property tests for the sanitiser: no panics, bounded width, no dangerous characters, and
//! sanitising twice changes nothing.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing test may panic

mod support;

use std::borrow::Cow;

use acptk_notice_center::sanitize::{self, DESCRIPTION_MAX_WIDTH, TITLE_MAX_WIDTH};
use proptest::prelude::*;
use support::assert_no_dangerous_chars;

/// Text built from the pieces attackers use, so that escapes and marks meet each other in
/// every order.
fn hostile_text() -> impl Strategy<Value = String> {
    let pieces = prop_oneof![
        Just("\x1b".to_owned()),
        Just("[".to_owned()),
        Just("]".to_owned()),
        Just("\x07".to_owned()),
        Just("\\".to_owned()),
        Just("\u{9b}".to_owned()),
        Just("\u{9c}".to_owned()),
        Just("\u{9d}".to_owned()),
        Just("\u{90}".to_owned()),
        Just("\u{85}".to_owned()),
        Just("\r\n".to_owned()),
        Just("\n".to_owned()),
        Just("\t".to_owned()),
        Just(" ".to_owned()),
        Just("\u{202E}".to_owned()),
        Just("\u{200D}".to_owned()),
        Just("\u{301}".to_owned()),
        Just("\u{FE0F}".to_owned()),
        Just("\u{E0041}".to_owned()),
        Just("日".to_owned()),
        Just("🦀".to_owned()),
        Just("\u{1F1EB}".to_owned()),
        Just("ل".to_owned()),
        Just("ا".to_owned()),
        Just("a".to_owned()),
        Just("31m".to_owned()),
        Just(";".to_owned()),
        any::<char>().prop_map(String::from),
    ];
    proptest::collection::vec(pieces, 0..200).prop_map(|parts| parts.concat())
}

proptest! {
    // 256 cases by default; set PROPTEST_CASES to run more.
    #[test]
    fn titles_are_safe_bounded_and_stable(input in prop_oneof![hostile_text(), any::<String>()]) {
        let once = sanitize::title(&input);
        prop_assert!(!once.is_empty());
        prop_assert!(sanitize::display_width(&once) <= TITLE_MAX_WIDTH);
        prop_assert!(!once.contains('\n'));
        assert_no_dangerous_chars(&once, false, "title");
        prop_assert_eq!(sanitize::title(&once), once.clone());
        // Borrowed exactly when nothing changed.
        prop_assert_eq!(matches!(once, Cow::Borrowed(_)), *once == *input);
    }

    #[test]
    fn descriptions_are_safe_bounded_and_stable(input in prop_oneof![hostile_text(), any::<String>()]) {
        let once = sanitize::description(&input);
        prop_assert!(sanitize::display_width(&once) <= DESCRIPTION_MAX_WIDTH);
        prop_assert!(!once.contains("\n\n\n"));
        assert_no_dangerous_chars(&once, true, "description");
        prop_assert_eq!(sanitize::description(&once), once.clone());
        prop_assert_eq!(matches!(once, Cow::Borrowed(_)), *once == *input);
    }

    #[test]
    fn fit_width_respects_the_budget(input in hostile_text(), width in 1..40usize) {
        let clean = sanitize::title(&input);
        let fitted = sanitize::fit_width(&clean, width);
        prop_assert!(sanitize::display_width(&fitted) <= width);
    }
}
