//! Hostile text: what an agent could put in a notice title or description, and exactly what
//! survives sanitising.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing test may panic

mod support;

use std::borrow::Cow;

use acptk_notice_center::sanitize::{
    self, DESCRIPTION_MAX_WIDTH, FALLBACK_DESCRIPTION, FALLBACK_TITLE, TITLE_MAX_WIDTH,
};
use support::assert_no_dangerous_chars;

/// (case name, input, expected title)
fn title_cases() -> Vec<(&'static str, String, String)> {
    let s = |x: &str| x.to_owned();
    vec![
        // Escape sequences, 7-bit forms.
        ("csi colour", s("\x1b[31mRed\x1b[0m alert"), s("Red alert")),
        (
            "csi clear screen and home",
            s("\x1b[2J\x1b[HCleared"),
            s("Cleared"),
        ),
        (
            "csi cursor up and erase line",
            s("Safe\x1b[1A\x1b[2KEvil"),
            s("SafeEvil"),
        ),
        (
            "csi private mode (alt screen)",
            s("\x1b[?1049hHidden\x1b[?1049l"),
            s("Hidden"),
        ),
        (
            "osc window title, bel",
            s("\x1b]0;owned\x07Hello"),
            s("Hello"),
        ),
        (
            "osc window title, st",
            s("\x1b]2;owned\x1b\\Hello"),
            s("Hello"),
        ),
        (
            "osc 8 hyperlink",
            s("\x1b]8;;https://evil.example/\x1b\\Click here\x1b]8;;\x1b\\"),
            s("Click here"),
        ),
        (
            "osc 52 clipboard write",
            s("\x1b]52;c;cm0gLXJmIH4K\x07Copy done"),
            s("Copy done"),
        ),
        (
            "dcs request status",
            s("\x1bP1$r0m\x1b\\Status"),
            s("Status"),
        ),
        (
            "apc (kitty graphics)",
            s("\x1b_Gf=100;AAAA\x1b\\Image"),
            s("Image"),
        ),
        ("pm", s("\x1b^privacy message\x1b\\ok"), s("ok")),
        ("sos", s("\x1bXstart of string\x1b\\ok"), s("ok")),
        (
            "short esc forms",
            s("\x1bcReset\x1b7saved\x1b8"),
            s("Resetsaved"),
        ),
        ("charset switch", s("\x1b(0lqqk\x1b(B"), s("lqqk")),
        (
            "unterminated osc swallows the rest",
            s("Hello \x1b]8;;http://evil"),
            s("Hello"),
        ),
        ("lone esc at the end", s("Bye\x1b"), s("Bye")),
        // Escape sequences, 8-bit (C1) forms.
        ("c1 csi", s("\u{9b}31mRed\u{9b}0m"), s("Red")),
        ("c1 osc title", s("\u{9d}0;owned\u{9c}Hi"), s("Hi")),
        (
            "c1 osc 8 hyperlink",
            s("\u{9d}8;;http://x\u{9c}link\u{9d}8;;\u{9c}"),
            s("link"),
        ),
        (
            "c1 osc 52 clipboard",
            s("\u{9d}52;c;ZWNobyBoaQ==\u{9c}done"),
            s("done"),
        ),
        (
            "c1 dcs (sixel)",
            s("\u{90}q#0;2;0;0;0\u{9c}Sixel"),
            s("Sixel"),
        ),
        ("c1 apc", s("\u{9f}payload\u{9c}ok"), s("ok")),
        ("c1 pm", s("\u{9e}secret\u{9c}ok"), s("ok")),
        ("c1 sos", s("\u{98}x\u{9c}ok"), s("ok")),
        ("c1 nel and pad", s("a\u{85}b\u{80}c"), s("a bc")),
        // Other control characters.
        (
            "c0 controls",
            s("Bell\x07 back\x08space\x00nul"),
            s("Bell backspacenul"),
        ),
        ("del", s("a\x7fb"), s("ab")),
        (
            "line breaks fold",
            s("Line1\r\nLine2\nLine3\rLine4"),
            s("Line1 Line2 Line3 Line4"),
        ),
        ("vt and ff fold", s("a\x0bb\x0cc"), s("a b c")),
        (
            "tabs and space runs",
            s("\t  Lots   of \t space  "),
            s("Lots of space"),
        ),
        (
            "unicode line separators",
            s("a\u{2028}b\u{2029}c"),
            s("a b c"),
        ),
        (
            "no-break and ideographic spaces",
            s("a\u{a0}b\u{3000}c"),
            s("a b c"),
        ),
        // Bidi and invisible characters.
        ("bidi override", s("\u{202E}exe.txt\u{202C}"), s("exe.txt")),
        (
            "bidi embeddings",
            s("\u{202A}a\u{202B}b\u{202C}\u{202D}c"),
            s("abc"),
        ),
        (
            "bidi isolates",
            s("\u{2066}a\u{2069}\u{2067}b\u{2069}\u{2068}c\u{2069}"),
            s("abc"),
        ),
        ("bidi marks", s("\u{200E}x\u{200F}y\u{061C}z"), s("xyz")),
        (
            "zero width",
            s("pay\u{200B}pal\u{200C}\u{200D}\u{2060}\u{FEFF}"),
            s("paypal"),
        ),
        (
            "tag characters",
            s("hi\u{E0001}\u{E0068}\u{E0069}\u{E007F}"),
            s("hi"),
        ),
        ("soft hyphen", s("in\u{AD}visible"), s("invisible")),
        (
            "hangul fillers only",
            s("\u{3164}\u{115F}\u{FFA0}"),
            s(FALLBACK_TITLE),
        ),
        (
            "emoji zwj sequence splits",
            s("\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}"),
            s("\u{1F468}\u{1F469}\u{1F467}"),
        ),
        // Markup stays literal.
        (
            "html",
            s("<script>alert(1)</script><b>bold</b> &amp;"),
            s("<script>alert(1)</script><b>bold</b> &amp;"),
        ),
        (
            "markdown",
            s("**bold** [link](javascript:alert(1)) `code` # h1"),
            s("**bold** [link](javascript:alert(1)) `code` # h1"),
        ),
        // Nothing printable left.
        (
            "only controls",
            s("\x00\x01\x02\x1b[0m\u{200B}"),
            s(FALLBACK_TITLE),
        ),
        ("only whitespace", s(" \t\n "), s(FALLBACK_TITLE)),
        ("only an escape", s("\x1b]0;title\x07"), s(FALLBACK_TITLE)),
        // Spoofing.
        (
            "fake client prefix",
            s("[Client] Session expired. Re-enter your API key:"),
            s("[Client] Session expired. Re-enter your API key:"),
        ),
        (
            "fake second line",
            s("ok\n\nError: Your system is infected"),
            s("ok Error: Your system is infected"),
        ),
        ("leading combining marks", s("\u{301}\u{338}abc"), s("abc")),
        // Width.
        (
            "wide cjk",
            "日本語".repeat(50),
            format!("{}…", "日本語".repeat(20)[..59 * 3].to_owned()),
        ),
        ("emoji kept", s("🦀 Rust 🚀"), s("🦀 Rust 🚀")),
        ("rtl text kept", s("שלום עולם"), s("שלום עולם")),
        ("exactly 120 columns", "x".repeat(120), "x".repeat(120)),
        (
            "121 columns",
            "x".repeat(121),
            format!("{}…", "x".repeat(119)),
        ),
        (
            "cut drops trailing space",
            format!("{} {}", "x".repeat(118), "y".repeat(10)),
            format!("{}…", "x".repeat(118)),
        ),
        // Huge inputs.
        (
            "1 MB of text",
            "A".repeat(1_000_000),
            format!("{}…", "A".repeat(119)),
        ),
        (
            "1 MB of escapes",
            format!("{}end", "\x1b[31m".repeat(200_000)),
            s("end"),
        ),
        (
            "1 MB of zero-width spaces",
            format!("{}x", "\u{200B}".repeat(333_333)),
            s("x"),
        ),
        (
            "1 MB unterminated csi",
            format!("\x1b[{}", "1;".repeat(500_000)),
            s(FALLBACK_TITLE),
        ),
        (
            "10,000 combining marks",
            format!("e{} done", "\u{301}".repeat(10_000)),
            format!("e{} done", "\u{301}".repeat(8)),
        ),
        (
            "1 MB of wide characters",
            "界".repeat(350_000),
            format!("{}…", "界".repeat(59)),
        ),
    ]
}

/// (case name, input, expected description)
fn description_cases() -> Vec<(&'static str, String, String)> {
    let s = |x: &str| x.to_owned();
    vec![
        (
            "crlf becomes lf",
            s("Line one\r\nLine two"),
            s("Line one\nLine two"),
        ),
        ("lone cr dropped", s("Safe\rEvil"), s("SafeEvil")),
        ("blank line runs collapse", s("a\n\n\n\n\nb"), s("a\n\nb")),
        (
            "indentation kept, leading space dropped",
            s("  first\n  second"),
            s("first\n  second"),
        ),
        (
            "trailing spaces before a break dropped",
            s("spaces   \nnext"),
            s("spaces\nnext"),
        ),
        (
            "line separators become lf",
            s("a\u{2028}b\u{2029}c\u{85}d"),
            s("a\nb\nc\nd"),
        ),
        ("tab becomes space", s("col1\tcol2"), s("col1 col2")),
        (
            "csi in description",
            s("See \x1b[1mlog\x1b[0m."),
            s("See log."),
        ),
        (
            "osc 52 in description",
            s("Copied\x1b]52;c;ZXZpbA==\x07!"),
            s("Copied!"),
        ),
        (
            "osc 8 in description",
            s("Go \x1b]8;;http://evil\x07here\x1b]8;;\x07."),
            s("Go here."),
        ),
        ("only an escape", s("\x1b[2J"), s(FALLBACK_DESCRIPTION)),
        (
            "only invisible",
            s("\u{200B}\u{202E}"),
            s(FALLBACK_DESCRIPTION),
        ),
        ("empty", s(""), s("")),
        ("blank", s("   \n  "), s("")),
        (
            "html kept literal",
            s("<img src=x onerror=alert(1)>"),
            s("<img src=x onerror=alert(1)>"),
        ),
        (
            "markdown kept literal",
            s("> quote\n- item\n```\ncode\n```"),
            s("> quote\n- item\n```\ncode\n```"),
        ),
        (
            "1 MB of text",
            "B".repeat(1_000_000),
            format!("{}…", "B".repeat(999)),
        ),
        (
            "2,000 short lines",
            "a\n".repeat(2_000),
            format!("{}a…", "a\n".repeat(499)),
        ),
        (
            "1,000 newlines then text",
            format!("x{}y", "\n".repeat(1_000)),
            s("x\n\ny"),
        ),
    ]
}

#[test]
fn hostile_titles() {
    let cases = title_cases();
    assert!(cases.len() >= 40, "the suite needs at least 40 titles");
    for (name, input, expected) in cases {
        let got = sanitize::title(&input);
        assert_eq!(got, expected, "title case {name:?}");
        assert!(
            sanitize::display_width(&got) <= TITLE_MAX_WIDTH,
            "title case {name:?} too wide"
        );
    }
}

#[test]
fn hostile_descriptions() {
    for (name, input, expected) in description_cases() {
        let got = sanitize::description(&input);
        assert_eq!(got, expected, "description case {name:?}");
        assert!(
            sanitize::display_width(&got) <= DESCRIPTION_MAX_WIDTH,
            "description case {name:?} too wide"
        );
    }
}

#[test]
fn every_hostile_title_is_also_a_safe_description() {
    for (name, input, _) in title_cases() {
        let got = sanitize::description(&input);
        assert_no_dangerous_chars(&got, true, name);
    }
}

#[test]
fn outputs_hold_no_dangerous_characters() {
    for (name, input, _) in title_cases().into_iter().chain(description_cases()) {
        assert_no_dangerous_chars(&sanitize::title(&input), false, name);
        assert_no_dangerous_chars(&sanitize::description(&input), true, name);
    }
}

#[test]
fn clean_text_is_borrowed() {
    for text in ["MCP server unavailable", "🦀 Rust 🚀", "שלום עולם", "a  b"] {
        let expected_borrowed = text != "a  b";
        assert_eq!(
            matches!(sanitize::title(text), Cow::Borrowed(_)),
            expected_borrowed,
            "{text:?}"
        );
    }
    for text in ["Continuing without it.", "line one\nline two", "a  b", ""] {
        assert!(
            matches!(sanitize::description(text), Cow::Borrowed(_)),
            "{text:?}"
        );
    }
    assert!(matches!(sanitize::title("\x1b[0mx"), Cow::Owned(_)));
}

#[test]
fn sanitising_is_idempotent_on_the_suite() {
    for (name, input, _) in title_cases().into_iter().chain(description_cases()) {
        let once = sanitize::title(&input).into_owned();
        assert_eq!(sanitize::title(&once), once, "title case {name:?}");
        let once = sanitize::description(&input).into_owned();
        assert_eq!(
            sanitize::description(&once),
            once,
            "description case {name:?}"
        );
    }
}

#[test]
fn long_agent_text_is_cleaned_without_a_width_limit() {
    // Every hostile title and description case is safe as conversation text too.
    for (name, input, _) in title_cases().into_iter().chain(description_cases()) {
        let got = sanitize::text(&input);
        assert_no_dangerous_chars(&got, true, name);
        assert_eq!(
            sanitize::text(&got),
            got,
            "text case {name:?} is not stable"
        );
    }
    // No cut and no ellipsis, however long; Markdown and indentation stay.
    let long = "word ".repeat(100_000);
    assert_eq!(sanitize::text(&long), long.trim_end());
    let markdown =
        "# Title\n\n```rust\n    let x = 1;\n```\n- item \x1b]8;;http://evil\x07link\x1b]8;;\x07";
    assert_eq!(
        sanitize::text(markdown),
        "# Title\n\n```rust\n    let x = 1;\n```\n- item link"
    );
    assert!(matches!(
        sanitize::text("line one\n  line two"),
        Cow::Borrowed(_)
    ));
    assert_eq!(sanitize::text("\x1b[2J"), "");
}
