//! The name of each trace format `acp check` reads ([`InputFormat`]). It sits below both the
//! readers in [`crate::input`], which detect and parse the formats, and the reports in
//! [`crate::report`], which say which format was read: neither needs the other for it.

use std::fmt;
use std::str::FromStr;

/// A format `acp check` reads.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum InputFormat {
    /// Tell from the start of the input.
    #[default]
    Auto,
    /// Our transcript (entries with `from`; bare JSON-RPC lines are accepted too).
    Transcript,
    /// Bare JSON-RPC messages, one per line.
    JsonRpc,
    /// The ACP conductor's trace events, one per line (`.jsons`).
    Conductor,
    /// The JSON array Zed's ACP log view copies.
    Zed,
    /// `acpx --format json` output.
    Acpx,
}

impl InputFormat {
    /// Every format, in the order `--input-format` lists them.
    pub const ALL: &'static [InputFormat] = &[
        InputFormat::Auto,
        InputFormat::Transcript,
        InputFormat::JsonRpc,
        InputFormat::Conductor,
        InputFormat::Zed,
        InputFormat::Acpx,
    ];

    /// The name `--input-format` takes.
    pub fn as_str(self) -> &'static str {
        match self {
            InputFormat::Auto => "auto",
            InputFormat::Transcript => "transcript",
            InputFormat::JsonRpc => "jsonrpc",
            InputFormat::Conductor => "conductor",
            InputFormat::Zed => "zed",
            InputFormat::Acpx => "acpx",
        }
    }

    /// What the format is, in words.
    pub fn describe(self) -> &'static str {
        match self {
            InputFormat::Auto => "any of the formats below",
            InputFormat::Transcript => "an acp transcript",
            InputFormat::JsonRpc => "bare JSON-RPC lines",
            InputFormat::Conductor => "an ACP conductor trace",
            InputFormat::Zed => "a Zed ACP log copy",
            InputFormat::Acpx => "acpx JSON output",
        }
    }

    /// Whether the format is someone else's (the report then says how it was read).
    pub fn is_foreign(self) -> bool {
        matches!(
            self,
            InputFormat::Conductor | InputFormat::Zed | InputFormat::Acpx
        )
    }
}

impl fmt::Display for InputFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for InputFormat {
    type Err = String;

    fn from_str(name: &str) -> Result<Self, String> {
        InputFormat::ALL
            .iter()
            .copied()
            .find(|f| f.as_str() == name)
            .ok_or_else(|| {
                let names: Vec<&str> = InputFormat::ALL.iter().map(|f| f.as_str()).collect();
                format!(
                    "unknown input format `{name}` (expected one of: {})",
                    names.join(", ")
                )
            })
    }
}
