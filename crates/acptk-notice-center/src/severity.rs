//! Severity as the engine sees it, and the accessibility vocabulary that goes with it.

use std::fmt;

/// How much attention a notice asks for, independent of the protocol version it came in.
///
/// The three values ACP defines are variants; any other string the agent sent is kept in
/// [`Severity::Unknown`] (cleaned with the title rules and cut to 32 columns). An unknown
/// severity gets the neutral preset ([`crate::Policy::unknown`]) and nothing is inferred from
/// its name, whether it is an `_`-prefixed extension or a value reserved for a future ACP.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Severity {
    /// `info`: worth knowing, usually shown briefly.
    Info,
    /// `warning`: something degraded; stays until the user dismisses it.
    Warning,
    /// `error`: something failed; stays and is announced assertively. Still only advisory.
    Error,
    /// Any other severity string, cleaned for display.
    Unknown(UnknownSeverity),
}

impl Severity {
    /// Reads a wire severity string: `"info"`, `"warning"` and `"error"` (exact, lower case)
    /// map to their variants, anything else to [`Severity::Unknown`].
    ///
    /// ```
    /// use acptk_notice_center::Severity;
    ///
    /// assert_eq!(Severity::from_wire("warning"), Severity::Warning);
    /// assert_eq!(Severity::from_wire("Warning").word(), "Notice");
    /// assert_eq!(Severity::from_wire("_acme.debug").as_str(), "_acme.debug");
    /// ```
    #[must_use]
    pub fn from_wire(value: &str) -> Self {
        match value {
            "info" => Self::Info,
            "warning" => Self::Warning,
            "error" => Self::Error,
            other => Self::Unknown(UnknownSeverity(
                crate::sanitize::severity_name(other).into(),
            )),
        }
    }

    /// The word a person reads or hears for this severity: `Info`, `Warning`, `Error`, or the
    /// neutral `Notice` for every unknown severity (the agent's string is not shown, so it
    /// cannot pose as something else).
    #[must_use]
    pub fn word(&self) -> &'static str {
        match self {
            Self::Info => "Info",
            Self::Warning => "Warning",
            Self::Error => "Error",
            Self::Unknown(_) => "Notice",
        }
    }

    /// The wire string (`info`, `warning`, `error`), or the cleaned unknown value.
    #[must_use]
    pub fn as_str(&self) -> &str {
        match self {
            Self::Info => "info",
            Self::Warning => "warning",
            Self::Error => "error",
            Self::Unknown(other) => other.as_str(),
        }
    }

    /// Whether this is one of the severities ACP defines.
    #[must_use]
    pub fn is_known(&self) -> bool {
        !matches!(self, Self::Unknown(_))
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.word())
    }
}

impl From<&str> for Severity {
    fn from(value: &str) -> Self {
        Self::from_wire(value)
    }
}

/// A severity string this crate does not know, cleaned for display with the title rules (see
/// [`crate::sanitize::title`]) and cut to 32 columns, so it can differ from what was sent
/// (surrounding whitespace, for one, is gone).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct UnknownSeverity(Box<str>);

impl UnknownSeverity {
    /// The cleaned value.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether the agent marked it as an implementation extension (leading `_`).
    #[must_use]
    pub fn is_extension(&self) -> bool {
        self.0.starts_with('_')
    }
}

/// How urgently a screen reader should speak an announcement, in the terms of ARIA live
/// regions (`aria-live`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Politeness {
    /// Not announced.
    Off,
    /// Spoken when the screen reader is idle (`aria-live="polite"`, `role="status"`).
    Polite,
    /// Spoken at once, interrupting (`aria-live="assertive"`, `role="alert"`).
    Assertive,
}

impl Politeness {
    /// The `aria-live` attribute value: `off`, `polite` or `assertive`.
    #[must_use]
    pub fn aria_live(self) -> &'static str {
        match self {
            Self::Off => "off",
            Self::Polite => "polite",
            Self::Assertive => "assertive",
        }
    }
}

/// How strongly a toast should stand out visually.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Prominence {
    /// The usual look for the severity.
    Normal,
    /// Stands out: heavier border, bold text (the error preset).
    High,
}
