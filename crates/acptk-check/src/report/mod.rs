//! Reporters: compiler-style text and one-JSON-object-per-line, both with a summary.

mod json;
mod summary;
mod text;

pub use json::{json_finding, json_summary};
pub use summary::Summary;
pub use text::{display_name, text_finding, text_summary};

/// The output format of `acp check`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Format {
    /// `FILE:LINE: severity[rule]: reason`, then a summary.
    #[default]
    Text,
    /// One JSON object per finding per line, then a summary object.
    Json,
}

impl Format {
    /// One finding, as one line (with its line break).
    pub fn finding(self, file: &str, finding: &crate::Finding) -> String {
        match self {
            Format::Text => text_finding(file, finding),
            Format::Json => json_finding(file, finding),
        }
    }

    /// The summary (with its line break).
    pub fn summary(self, file: &str, summary: &Summary) -> String {
        match self {
            Format::Text => text_summary(file, summary),
            Format::Json => json_summary(file, summary),
        }
    }
}
