//! Line diffs of two texts, as hunks: the one place the toolkit computes a diff.
//!
//! [`line_hunks`] splits both texts into lines (each keeps its line ending: `\n`, `\r\n` or a
//! lone `\r`; a last line may have none), diffs them (Myers) and groups the changes into hunks
//! with some lines of context around them. The agent side writes a v2 tool call's `git_patch`
//! from these hunks; a client draws a v1 diff's old and new text from them.
//!
//! ```
//! use acptk_runtime::diff::{line_hunks, LineTag};
//!
//! let hunks = line_hunks("a\nb\nc\n", "a\nB\nc\n", 1);
//! assert_eq!(hunks.len(), 1);
//! let hunk = &hunks[0];
//! // Old lines 0..3 become new lines 0..3 (counted from 0).
//! assert_eq!((hunk.old_start, hunk.old_len, hunk.new_start, hunk.new_len), (0, 3, 0, 3));
//! let lines: Vec<String> = hunk
//!     .lines
//!     .iter()
//!     .map(|line| format!("{}{}", line.tag.sign(), line.text))
//!     .collect();
//! assert_eq!(lines, [" a\n", "-b\n", "+B\n", " c\n"]);
//! assert_eq!(hunk.lines[1].tag, LineTag::Delete);
//! ```

use std::fmt::Write as _;

use similar::DiffableStr as _;

/// What happened to a line: kept, inserted (only in the new text) or deleted (only in the
/// old text).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LineTag {
    /// In both texts (context).
    Equal,
    /// Only in the new text.
    Insert,
    /// Only in the old text.
    Delete,
}

impl LineTag {
    /// The line's sign in a unified diff: `' '`, `'+'` or `'-'`.
    #[must_use]
    pub fn sign(self) -> char {
        match self {
            Self::Equal => ' ',
            Self::Insert => '+',
            Self::Delete => '-',
        }
    }
}

/// One line of a hunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct DiffLine<'a> {
    /// Kept, inserted or deleted.
    pub tag: LineTag,
    /// The line as the text has it, with its line ending (`\n`, `\r\n` or `\r`); the last
    /// line of a text that does not end in a line break has none.
    pub text: &'a str,
}

/// A run of changed lines with the context around them.
///
/// Lines are counted from 0: the hunk covers old lines `old_start..old_start + old_len` and
/// new lines `new_start..new_start + new_len`. A side the hunk has no line of (an insert into
/// an empty text, say) has length 0 and starts where its lines would be.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Hunk<'a> {
    /// The first old line the hunk covers (from 0).
    pub old_start: usize,
    /// How many old lines it covers (context and deletions).
    pub old_len: usize,
    /// The first new line the hunk covers (from 0).
    pub new_start: usize,
    /// How many new lines it covers (context and insertions).
    pub new_len: usize,
    /// The lines in order: context, deletions and insertions as they interleave.
    pub lines: Vec<DiffLine<'a>>,
}

/// The hunks of a line diff from `old` to `new`, each with up to `context` unchanged lines
/// before and after its changes (changes closer than twice that share a hunk). No hunk when
/// the texts are equal.
#[must_use]
pub fn line_hunks<'a>(old: &'a str, new: &'a str, context: usize) -> Vec<Hunk<'a>> {
    let old_lines = old.tokenize_lines();
    let new_lines = new.tokenize_lines();
    let mut hunks = Vec::new();
    for group in similar::group_diff_ops(line_ops(&old_lines, &new_lines), context) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else {
            continue;
        };
        let (old_start, new_start) = (first.old_range().start, first.new_range().start);
        let mut lines = Vec::new();
        for op in &group {
            let (tag, old_range, new_range) = op.as_tag_tuple();
            let line = |tag| move |text: &&'a str| DiffLine { tag, text };
            let olds = old_lines.get(old_range).unwrap_or_default().iter();
            let news = new_lines.get(new_range).unwrap_or_default().iter();
            match tag {
                similar::DiffTag::Equal => lines.extend(olds.map(line(LineTag::Equal))),
                similar::DiffTag::Delete => lines.extend(olds.map(line(LineTag::Delete))),
                similar::DiffTag::Insert => lines.extend(news.map(line(LineTag::Insert))),
                similar::DiffTag::Replace => {
                    lines.extend(olds.map(line(LineTag::Delete)));
                    lines.extend(news.map(line(LineTag::Insert)));
                }
            }
        }
        hunks.push(Hunk {
            old_start,
            old_len: last.old_range().end.saturating_sub(old_start),
            new_start,
            new_len: last.new_range().end.saturating_sub(new_start),
            lines,
        });
    }
    hunks
}

/// The operations of a Myers diff of two lists of lines, compacted and with replacements
/// merged: what `similar::TextDiff::from_lines` computes with its default configuration.
///
/// Lines are first numbered (equal lines get the same number), so that Myers runs on one
/// type of item and the diff code is compiled once; `TextDiff` compiles every algorithm it
/// can choose at run time, for each kind of item it may diff, most of which a line diff never
/// runs (0.3 MB of the `acp` binary). The numbering keeps which lines are equal, so the
/// operations are the same (the tests compare the unified diffs with `TextDiff`'s).
fn line_ops(old: &[&str], new: &[&str]) -> Vec<similar::DiffOp> {
    use similar::algorithms::{Capture, Compact, IdentifyDistinct, Replace, myers};

    let numbered = IdentifyDistinct::<u32>::new(old, 0..old.len(), new, 0..new.len());
    let (old, new) = (numbered.old_lookup(), numbered.new_lookup());
    let mut hook = Compact::new(Replace::new(Capture::new()), old, new);
    match myers::diff(
        &mut hook,
        old,
        numbered.old_range(),
        new,
        numbered.new_range(),
    ) {
        Ok(()) => {}
        Err(never) => match never {},
    }
    hook.into_inner().into_inner().into_ops()
}

/// `old` to `new` as a unified diff (`--- from`, `+++ to`, then `@@` hunks with `context`
/// lines around changes, and `\ No newline at end of file` after a last line without one):
/// what `git diff` prints after its `diff --git` and mode lines. Empty when the texts are
/// equal.
pub(crate) fn unified(old: &str, new: &str, context: usize, from: &str, to: &str) -> String {
    let mut out = String::new();
    for (index, hunk) in line_hunks(old, new, context).iter().enumerate() {
        if index == 0 {
            let _ = writeln!(out, "--- {from}\n+++ {to}");
        }
        if hunk.lines.is_empty() {
            continue;
        }
        let _ = writeln!(
            out,
            "@@ -{} +{} @@",
            UnifiedRange(hunk.old_start, hunk.old_len),
            UnifiedRange(hunk.new_start, hunk.new_len)
        );
        for line in &hunk.lines {
            out.push(line.tag.sign());
            out.push_str(line.text);
            if !line.text.ends_with(['\r', '\n']) {
                out.push_str("\n\\ No newline at end of file\n");
            }
        }
    }
    out
}

/// A hunk's side in a unified header: `start,len` from 1, only `start` for one line, and for
/// no line the line before the (empty) range.
struct UnifiedRange(usize, usize);

impl std::fmt::Display for UnifiedRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Self(start, len) = *self;
        match len {
            1 => write!(f, "{}", start + 1),
            0 => write!(f, "{start},0"),
            _ => write!(f, "{},{len}", start + 1),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a failing test may panic
mod tests {
    use super::*;

    /// What `similar`'s own unified diff printed (the runtime's `git_patch` before it used
    /// [`line_hunks`]).
    fn by_similar(old: &str, new: &str, context: usize) -> String {
        similar::TextDiff::from_lines(old, new)
            .unified_diff()
            .context_radius(context)
            .header("a/f", "b/f")
            .to_string()
    }

    #[test]
    fn the_unified_diff_is_the_one_similar_printed() {
        let many: String = (1..=20).map(|n| format!("{n}\n")).collect();
        let cases: &[(&str, &str)] = &[
            ("", ""),
            ("same\n", "same\n"),
            ("", "new file\nsecond\n"),
            ("", "one line"),
            ("gone\n", ""),
            ("a\nb\n", "a\nb"),
            ("a\nb", "a\nb\n"),
            ("a\nb", "a\nc"),
            ("a\r\nb\r\n", "a\r\nB\r\n"),
            ("a\rb\r", "a\rc\r"),
            (&many, &many.replace("2\n", "two\n").replace("19\n", "")),
        ];
        for (old, new) in cases {
            for context in [0, 1, 3] {
                assert_eq!(
                    unified(old, new, context, "a/f", "b/f"),
                    by_similar(old, new, context),
                    "{old:?} -> {new:?}, context {context}"
                );
            }
        }
    }

    #[test]
    fn no_newline_and_new_files_read_as_git_prints_them() {
        assert_eq!(
            unified("", "hi", 3, "/dev/null", "b/f"),
            "--- /dev/null\n+++ b/f\n@@ -0,0 +1 @@\n+hi\n\\ No newline at end of file\n"
        );
        assert_eq!(
            unified("a\n", "a\nb\nc\n", 3, "a/f", "b/f"),
            "--- a/f\n+++ b/f\n@@ -1 +1,3 @@\n a\n+b\n+c\n"
        );
    }

    /// Pseudo-random texts of a few short lines (a fixed xorshift, so every run sees the same
    /// ones), with and without a last newline, `\r\n` and lone `\r`.
    #[test]
    fn random_texts_diff_as_similar_printed() {
        let pieces = ["a\n", "b\n", "c\n", "a", "b\r\n", "\n", "c\r", "d\n"];
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move |below: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            usize::try_from(state % below as u64).unwrap()
        };
        for _ in 0..500 {
            let mut text = || -> String {
                let count = next(12);
                (0..count).map(|_| pieces[next(pieces.len())]).collect()
            };
            let (old, new) = (text(), text());
            let context = next(4);
            assert_eq!(
                unified(&old, &new, context, "a/f", "b/f"),
                by_similar(&old, &new, context),
                "{old:?} -> {new:?}, context {context}"
            );
        }
    }

    /// Texts of over 100 lines, where `TextDiff` takes other paths (it trims the common ends
    /// and numbers the lines first): edits of a file, and unrelated texts of few distinct
    /// lines.
    #[test]
    fn long_texts_diff_as_similar_diffs_them() {
        let mut state: u64 = 0x2545_F491_4F6C_DD1D;
        let mut next = move |below: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            usize::try_from(state % below as u64).unwrap()
        };
        for round in 0..60 {
            let count = 101 + next(300);
            let base: Vec<String> = (0..count).map(|_| format!("l{}\n", next(40))).collect();
            let mut edited = base.clone();
            for _ in 0..1 + next(8) {
                let at = next(edited.len() + 1);
                match next(3) {
                    0 => edited.insert(at, format!("new{}\n", next(5))),
                    1 if at < edited.len() => {
                        edited.remove(at);
                    }
                    _ if at < edited.len() => edited[at] = format!("changed{}\n", next(5)),
                    _ => edited.push("tail".to_owned()),
                }
            }
            let other: Vec<String> = (0..count).map(|_| format!("l{}\n", next(6))).collect();
            let new = if round % 3 == 0 { other } else { edited };
            let (old, new) = (base.concat(), new.concat());
            let context = next(4);
            assert_eq!(
                unified(&old, &new, context, "a/f", "b/f"),
                by_similar(&old, &new, context),
                "round {round}, context {context}"
            );
        }
    }

    #[test]
    fn hunks_count_lines_from_zero_and_keep_line_endings() {
        let hunks = line_hunks("x\ny\n", "x\ny\nz", 0);
        assert_eq!(
            hunks,
            [Hunk {
                old_start: 2,
                old_len: 0,
                new_start: 2,
                new_len: 1,
                lines: vec![DiffLine {
                    tag: LineTag::Insert,
                    text: "z"
                }],
            }]
        );
        assert!(line_hunks("x\n", "x\n", 3).is_empty());
    }
}
