//! Turning agent-supplied notice text into plain text that is safe to show.
//!
//! A notice's title and description come from the agent and may contain anything. These
//! functions return text that can be printed to a terminal, written to a log line, or put into
//! a web view as a text node without the agent gaining any control over the display:
//!
//! * **Escape sequences are removed whole**, in their 7-bit (`ESC [`) and 8-bit (C1, `U+009B`)
//!   forms: CSI (colours, cursor movement, screen clearing), OSC (window titles, `OSC 8`
//!   hyperlinks, `OSC 52` clipboard writes), DCS, APC, PM, SOS and the short `ESC x` forms.
//!   An unterminated sequence swallows the rest of the text, as it would in a terminal.
//! * **Control characters are removed**: C0, DEL and C1. Tabs become spaces. In a title every
//!   run of whitespace, line breaks included, becomes a single space; a description keeps
//!   line breaks (`\n`, and `\u{2028}`, `\u{2029}`, NEL, VT, FF as `\n`), drops `\r`, and
//!   keeps at most one blank line in a row.
//! * **Invisible characters are removed**: every format character (general category `Cf`:
//!   bidi embeddings, overrides and isolates U+202A-U+202E and U+2066-U+2069, the marks
//!   U+200E, U+200F and U+061C, zero-width space and joiners U+200B-U+200D, word joiner
//!   U+2060, byte-order mark U+FEFF, soft hyphen, ...), the whole tag block U+E0000-U+E007F,
//!   and the Hangul filler letters. Removing the zero-width joiner splits emoji ZWJ sequences
//!   into their parts (a family emoji shows as its members): the price of a simple rule.
//! * **Marks are bounded**: a combining mark with no visible character before it is dropped
//!   (it would attach to whatever the client draws in front of the text), and at most eight
//!   zero-width characters are kept after one visible character.
//! * **Length is bounded by display width**: the text is cut at a grapheme-cluster boundary so
//!   that it fits [`TITLE_MAX_WIDTH`] or [`DESCRIPTION_MAX_WIDTH`] columns, ending in `…`
//!   when something was cut. Work is bounded too: reading stops once the budget is used up,
//!   so a megabyte of input costs no more than what fits.
//! * **Nothing is interpreted**: HTML, Markdown and anything else stay literal text.
//! * Leading and trailing whitespace is removed.
//!
//! When nothing printable is left, a title becomes [`FALLBACK_TITLE`]; a description becomes
//! [`FALLBACK_DESCRIPTION`] if it had any non-whitespace character, and the empty string if
//! it was empty or blank from the start (the engine treats an empty description as absent).
//!
//! Both functions return [`Cow::Borrowed`] exactly when the text needed no change, so clean
//! text costs no allocation.
//!
//! ```
//! use acptk_notice_center::sanitize;
//!
//! assert_eq!(sanitize::title("\x1b[31mDisk\x1b[0m\nfull"), "Disk full");
//! assert_eq!(sanitize::title("\u{202E}evil"), "evil");
//! assert_eq!(sanitize::description("line one\r\nline two"), "line one\nline two");
//! assert!(matches!(sanitize::title("All good"), std::borrow::Cow::Borrowed(_)));
//! ```

mod fit;
mod strip;

use std::borrow::Cow;

use strip::Mode;

/// Widest title kept, in terminal columns (ellipsis included).
pub const TITLE_MAX_WIDTH: usize = 120;

/// Widest description kept, in terminal columns (ellipsis included; a line break counts as
/// one column).
pub const DESCRIPTION_MAX_WIDTH: usize = 1_000;

/// The title shown when nothing printable is left of the agent's title.
pub const FALLBACK_TITLE: &str = "(untitled notice)";

/// The description shown when the agent's description had content but none of it was
/// printable.
pub const FALLBACK_DESCRIPTION: &str = "(no printable text)";

/// The character that marks a cut.
pub const ELLIPSIS: char = fit::ELLIPSIS;

/// Widest unknown severity name kept, in columns.
const SEVERITY_MAX_WIDTH: usize = 32;

/// Label for an unknown severity name with nothing printable in it.
const FALLBACK_SEVERITY: &str = "(unnamed)";

/// Makes a notice title safe to show: one line of plain text of at most
/// [`TITLE_MAX_WIDTH`] columns. See the [module documentation](self) for the rules.
///
/// ```
/// use acptk_notice_center::sanitize;
///
/// assert_eq!(sanitize::title("  MCP   server\tunavailable "), "MCP server unavailable");
/// assert_eq!(sanitize::title("\x1b]0;pwned\x07"), sanitize::FALLBACK_TITLE);
/// ```
#[must_use]
pub fn title(input: &str) -> Cow<'_, str> {
    clean(input, Mode::Title, TITLE_MAX_WIDTH, FALLBACK_TITLE)
}

/// Makes a notice description safe to show: plain text that may span lines, of at most
/// [`DESCRIPTION_MAX_WIDTH`] columns. See the [module documentation](self) for the rules.
///
/// ```
/// use acptk_notice_center::sanitize;
///
/// assert_eq!(sanitize::description("Retry\x07 later.\n\n\n\nThanks"), "Retry later.\n\nThanks");
/// assert_eq!(sanitize::description(""), "");
/// assert_eq!(sanitize::description("\x1b[2J"), sanitize::FALLBACK_DESCRIPTION);
/// ```
#[must_use]
pub fn description(input: &str) -> Cow<'_, str> {
    clean(
        input,
        Mode::Description,
        DESCRIPTION_MAX_WIDTH,
        FALLBACK_DESCRIPTION,
    )
}

/// Makes longer agent text (a message or thought of the conversation, Markdown included, or
/// a tool's output) safe to show: the rules of [`description`] without its width limit and
/// without a fallback. Line breaks and indentation stay, the first line's too (at most one
/// blank line in a row, blank lines at the start and trailing spaces of a line dropped);
/// escape sequences, control and invisible characters go. The work is linear in the length
/// of the text.
///
/// ```
/// use acptk_notice_center::sanitize;
///
/// assert_eq!(sanitize::text("# Title\n\n    code\x1b]52;c;aGk=\x07 *x*"), "# Title\n\n    code *x*");
/// assert_eq!(sanitize::text("\u{202E}evil\r\n"), "evil");
/// assert_eq!(sanitize::text("    indented"), "    indented");
/// assert_eq!(sanitize::text(""), "");
/// ```
#[must_use]
pub fn text(input: &str) -> Cow<'_, str> {
    // The sanitiser drops what comes before the first visible character; the indentation of
    // the first line is put back (as spaces).
    let body = input.trim_start_matches([' ', '\t']);
    let indent = input.len() - body.len();
    let stripped = strip::strip(body, Mode::Description, usize::MAX);
    let kept = stripped.text.trim_end();
    if kept.is_empty() {
        return Cow::Borrowed("");
    }
    if kept == body && !input[..indent].contains('\t') {
        return Cow::Borrowed(input);
    }
    let mut out = String::with_capacity(indent + kept.len());
    out.extend(std::iter::repeat_n(' ', indent));
    out.push_str(kept);
    Cow::Owned(out)
}

/// Cuts already sanitised text to at most `max_width` columns at a grapheme-cluster boundary,
/// ending in [`ELLIPSIS`] when something was cut. Renderers use it to fit a narrow space.
///
/// ```
/// use acptk_notice_center::sanitize;
///
/// assert_eq!(sanitize::fit_width("abcdef", 4), "abc…");
/// assert_eq!(sanitize::fit_width("日本語", 4), "日…");
/// assert_eq!(sanitize::fit_width("abc", 4), "abc");
/// ```
#[must_use]
pub fn fit_width(text: &str, max_width: usize) -> Cow<'_, str> {
    fit::fit(text, max_width, false)
}

/// Display width of `text` in terminal columns, measured by grapheme cluster (a line break
/// counts as one column).
#[must_use]
pub fn display_width(text: &str) -> usize {
    fit::width(text)
}

/// Cleans the name of a severity this crate does not know, for display and diagnostics.
pub(crate) fn severity_name(input: &str) -> Cow<'_, str> {
    clean(input, Mode::Title, SEVERITY_MAX_WIDTH, FALLBACK_SEVERITY)
}

fn clean<'a>(input: &'a str, mode: Mode, max_width: usize, fallback: &'static str) -> Cow<'a, str> {
    if is_plain_ascii(input, mode, max_width) {
        return Cow::Borrowed(input);
    }
    // Per-character widths can overestimate a cluster's width (ligatures), so read somewhat
    // more than the budget before stopping; the precise cut happens in `fit`.
    let stop_at = max_width.saturating_mul(2).saturating_add(16);
    let stripped = strip::strip(input, mode, stop_at);
    let fitted = match fit::fit(&stripped.text, max_width, stripped.cut) {
        Cow::Borrowed(_) => stripped.text,
        Cow::Owned(cut) => cut,
    };
    let kept = fitted.trim_end();
    if kept.is_empty() {
        if input.is_empty() && mode == Mode::Description {
            return Cow::Borrowed(input);
        }
        return Cow::Owned(match mode {
            Mode::Description if input.chars().all(char::is_whitespace) => String::new(),
            _ => fallback.to_owned(),
        });
    }
    if kept == input {
        Cow::Borrowed(input)
    } else if kept.len() == fitted.len() {
        Cow::Owned(fitted)
    } else {
        Cow::Owned(kept.to_owned())
    }
}

/// The common case, decided without allocating: printable ASCII that needs no change.
fn is_plain_ascii(input: &str, mode: Mode, max_width: usize) -> bool {
    let bytes = input.as_bytes();
    let (Some(&first), Some(&last)) = (bytes.first(), bytes.last()) else {
        return false;
    };
    if bytes.len() > max_width || first == b' ' || last == b' ' {
        return false;
    }
    match mode {
        Mode::Title => {
            let mut after_space = false;
            for &byte in bytes {
                if !(0x20..0x7F).contains(&byte) || (byte == b' ' && after_space) {
                    return false;
                }
                after_space = byte == b' ';
            }
            true
        }
        Mode::Description => bytes.iter().all(|byte| (0x20..0x7F).contains(byte)),
    }
}
