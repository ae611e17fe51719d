//! What a tool call's diff changed, in a few numbers: the file, and how many lines were added
//! and removed. Kept in the transcript instead of the texts themselves, so that a client can
//! say `src/main.rs +3 -1` without holding every version of every file.

use acptk_schema::{v1, v2};

/// The most lines on either side of a changed region that are compared line by line; larger
/// regions are counted as wholly removed and added (an upper bound, said as such by
/// [`DiffSummary::exact`]).
const MAX_COMPARED_LINES: usize = 2000;

/// One file a tool call changed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct DiffSummary {
    /// The file (as the agent named it).
    pub path: String,
    /// The lines added, when known.
    pub added: Option<usize>,
    /// The lines removed, when known.
    pub removed: Option<usize>,
    /// Whether the counts are exact (a very large change is counted as a whole replacement).
    pub exact: bool,
}

impl DiffSummary {
    /// A change to `path` with unknown line counts.
    pub fn new(path: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            added: None,
            removed: None,
            exact: true,
        }
    }

    /// The summary of a change from `old` (absent for a new file) to `new`.
    pub fn of_texts(path: impl Into<String>, old: Option<&str>, new: &str) -> Self {
        let old: Vec<&str> = old.map_or_else(Vec::new, |old| old.lines().collect());
        let new: Vec<&str> = new.lines().collect();
        let (added, removed, exact) = count_changes(&old, &new);
        Self {
            path: path.into(),
            added: Some(added),
            removed: Some(removed),
            exact,
        }
    }
}

/// Lines added and removed between `old` and `new`, and whether the count is exact: the
/// common start and end are skipped, and what is left is compared by longest common
/// subsequence when it is small enough.
fn count_changes(old: &[&str], new: &[&str]) -> (usize, usize, bool) {
    let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let (old, new) = (&old[prefix..], &new[prefix..]);
    let suffix = old
        .iter()
        .rev()
        .zip(new.iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let (old, new) = (&old[..old.len() - suffix], &new[..new.len() - suffix]);
    if old.is_empty() || new.is_empty() {
        return (new.len(), old.len(), true);
    }
    if old.len() > MAX_COMPARED_LINES || new.len() > MAX_COMPARED_LINES {
        return (new.len(), old.len(), false);
    }
    // One row of the longest-common-subsequence table at a time.
    let mut previous = vec![0u32; new.len() + 1];
    let mut current = vec![0u32; new.len() + 1];
    for line in old {
        for (j, other) in new.iter().enumerate() {
            current[j + 1] = if line == other {
                previous[j] + 1
            } else {
                previous[j + 1].max(current[j])
            };
        }
        std::mem::swap(&mut previous, &mut current);
    }
    let common = previous[new.len()] as usize;
    (new.len() - common, old.len() - common, true)
}

/// The summary of a v1 diff.
pub(crate) fn v1_diff(diff: &v1::Diff) -> DiffSummary {
    DiffSummary::of_texts(&diff.path, diff.old_text.as_deref(), &diff.new_text)
}

/// The summaries of a v2 diff: one per changed path, with line counts from the git patch
/// when the agent sent one.
pub(crate) fn v2_diff(diff: &v2::Diff) -> Vec<DiffSummary> {
    let counts = diff
        .patch
        .as_ref()
        .map(|patch| patch_counts(&patch.text))
        .unwrap_or_default();
    diff.changes
        .iter()
        .filter_map(|change| {
            let path = match &change.operation {
                v2::DiffOperation::Add(change)
                | v2::DiffOperation::Delete(change)
                | v2::DiffOperation::Modify(change) => change.path.to_string(),
                v2::DiffOperation::Move(change) | v2::DiffOperation::Copy(change) => {
                    change.path.to_string()
                }
                _ => return None,
            };
            let mut summary = DiffSummary::new(path);
            if let Some((_, added, removed)) = counts
                .iter()
                .find(|(file, ..)| summary.path.ends_with(file.as_str()))
            {
                summary.added = Some(*added);
                summary.removed = Some(*removed);
            }
            Some(summary)
        })
        .collect()
}

/// Per file of a git patch (`+++ b/PATH`): the path and the lines added and removed.
fn patch_counts(patch: &str) -> Vec<(String, usize, usize)> {
    let mut files: Vec<(String, usize, usize)> = Vec::new();
    for line in patch.lines() {
        if let Some(path) = line.strip_prefix("+++ ") {
            let path = path.strip_prefix("b/").unwrap_or(path);
            files.push((path.to_owned(), 0, 0));
        } else if line.starts_with("--- ") {
            continue;
        } else if let Some(file) = files.last_mut() {
            if line.starts_with('+') {
                file.1 += 1;
            } else if line.starts_with('-') {
                file.2 += 1;
            }
        }
    }
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_follow_the_changed_lines() {
        let cases: [(Option<&str>, &str, (usize, usize)); 5] = [
            (None, "a\nb\n", (2, 0)),
            (Some("a\nb\nc\n"), "a\nB\nc\n", (1, 1)),
            (Some("a\nb\nc\n"), "a\nc\n", (0, 1)),
            (Some("a\nb\nc\nd\n"), "x\nb\ny\nd\nz\n", (3, 2)),
            (Some("same\n"), "same\n", (0, 0)),
        ];
        for (old, new, (added, removed)) in cases {
            let summary = DiffSummary::of_texts("f", old, new);
            assert_eq!(
                (summary.added, summary.removed),
                (Some(added), Some(removed)),
                "{old:?} -> {new:?}"
            );
            assert!(summary.exact);
        }
    }

    #[test]
    fn a_git_patch_is_counted_per_file() {
        let patch = "--- a/src/x.rs\n+++ b/src/x.rs\n@@ -1,2 +1,2 @@\n-old\n+new\n+more\n ctx\n";
        assert_eq!(patch_counts(patch), vec![("src/x.rs".to_owned(), 2, 1)]);
    }
}
