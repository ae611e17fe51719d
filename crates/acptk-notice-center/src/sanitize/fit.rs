//! Second sanitising pass: measure display width by grapheme cluster and cut with an ellipsis.

use std::borrow::Cow;

use unicode_segmentation::UnicodeSegmentation;
use unicode_width::UnicodeWidthStr;

/// The character appended where text was cut.
pub(crate) const ELLIPSIS: char = '\u{2026}';

/// Display width of one grapheme cluster; a line break counts as one column so that a
/// description made of thousands of empty lines still runs out of budget.
fn cluster_width(cluster: &str) -> usize {
    if cluster == "\n" { 1 } else { cluster.width() }
}

/// Display width of `text` in terminal columns, measured cluster by cluster.
pub(crate) fn width(text: &str) -> usize {
    text.graphemes(true).map(cluster_width).sum()
}

/// Cuts `text` so that it fits in `max_width` columns, never inside a grapheme cluster.
///
/// When the text is too wide, or when `force_ellipsis` says the text is already a cut-off
/// prefix of something longer, the result is the longest prefix (trailing whitespace removed)
/// that leaves one column for the ellipsis, followed by the ellipsis. Otherwise the text is
/// returned unchanged. Stops reading as soon as the budget is exceeded.
pub(crate) fn fit(text: &str, max_width: usize, force_ellipsis: bool) -> Cow<'_, str> {
    let mut used = 0usize;
    // End of the longest prefix that still leaves room for the ellipsis.
    let mut keep = 0usize;
    let mut overflow = false;
    for (start, cluster) in text.grapheme_indices(true) {
        let width = cluster_width(cluster);
        used = used.saturating_add(width);
        if used > max_width {
            overflow = true;
            break;
        }
        if used < max_width {
            keep = start + cluster.len();
        }
    }
    if !overflow && !force_ellipsis {
        return Cow::Borrowed(text);
    }
    let prefix = text[..keep].trim_end();
    let mut out = String::with_capacity(prefix.len() + ELLIPSIS.len_utf8());
    out.push_str(prefix);
    out.push(ELLIPSIS);
    Cow::Owned(out)
}
