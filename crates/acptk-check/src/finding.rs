//! Findings: what the checker reports, each under a stable rule id with a fixed severity.

use std::fmt;

/// How serious a finding is. Only [`Severity::Error`] makes `acp check` exit with status 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Severity {
    /// A protocol violation that breaks or misleads the peer.
    Error,
    /// Something a peer should not do, but that a tolerant peer survives.
    Warning,
    /// Worth knowing; not wrong today.
    Info,
    /// About the checker itself: what it assumed or changed.
    Note,
}

impl Severity {
    /// The word printed in reports: `error`, `warning`, `info` or `note`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
            Severity::Note => "note",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Declares [`Rule`] from one table: variant, stable id, severity and what it means.
macro_rules! rules {
    ($($(#[doc = $doc:expr])* $variant:ident = $id:literal, $severity:ident;)+) => {
        /// A rule of the checker. The id (`Rule::id`) is stable: scripts may match on it.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum Rule {
            $(
                $(#[doc = $doc])*
                #[doc = concat!("\n\nId `", $id, "`, severity ", stringify!($severity), ".")]
                $variant,
            )+
        }

        impl Rule {
            /// Every rule, in report order.
            pub const ALL: &'static [Rule] = &[$(Rule::$variant),+];

            /// The stable id, such as `notice-without-capability`.
            pub fn id(self) -> &'static str {
                match self {
                    $(Rule::$variant => $id,)+
                }
            }

            /// The severity of every finding of this rule.
            pub fn severity(self) -> Severity {
                match self {
                    $(Rule::$variant => Severity::$severity,)+
                }
            }

            /// The rule with this id, if any.
            pub fn from_id(id: &str) -> Option<Rule> {
                match id {
                    $($id => Some(Rule::$variant),)+
                    _ => None,
                }
            }

            /// The position of this rule in [`Rule::ALL`].
            pub(crate) fn index(self) -> usize {
                self as usize
            }
        }
    };
}

rules! {
    /// A v1 agent sent a `notice` update although the client did not advertise
    /// `clientCapabilities.session.notices`.
    NoticeWithoutCapability = "notice-without-capability", Error;
    /// A `notice` update certainly sent as part of a replay: between a v1 `session/load`
    /// request and its response, or between a v2 `session/resume` asking for a replay and the
    /// `replay_complete` update, with nothing else of that session going on and replayed
    /// history already sent (`acp proxy` removes it).
    NoticeInReplay = "notice-in-replay", Warning;
    /// A `notice` update while a replay of its session was open, when the traffic does not
    /// show for certain that the agent sent it as part of the replay (another request of the
    /// session in flight, a v2 turn still running, or no replayed history yet): it is taken as
    /// live, and `acp proxy` delivers it (or its fallback).
    NoticeReplayUncertain = "notice-replay-uncertain", Info;
    /// A `notice` update that does not decode (missing, empty or non-string title; missing or
    /// non-string severity; ...).
    MalformedNotice = "malformed-notice", Error;
    /// A notice severity that is neither known nor `_`-prefixed: a value reserved for a future
    /// ACP version.
    ReservedSeverity = "reserved-severity", Info;
    /// A v1 `tool_call` update announcing a tool call id already announced in the same
    /// session (since the connection started, or since the replay of a `session/load`
    /// began): later updates of that id can no longer tell the two apart, and a replay mixes
    /// them up.
    DuplicateToolCallId = "duplicate-tool-call-id", Error;
    /// A line that is not a JSON-RPC message, or a message that does not decode for its method.
    InvalidMessage = "invalid-message", Error;
    /// A method outside the negotiated version's method tables that is not an extension
    /// (`_`-prefixed) method, or one sent by the wrong side.
    UnknownMethod = "unknown-method", Warning;
    /// A response whose id matches no request in flight from the other side.
    UnmatchedResponse = "unmatched-response", Warning;
    /// A line longer than the line limit; it was not checked (the proxy forwards it unchanged).
    LineTooLong = "line-too-long", Warning;
    /// A bare JSON-RPC line whose sender had to be inferred or guessed.
    InferredDirection = "inferred-direction", Note;
    /// Messages decoded with an assumed protocol version (no `initialize` seen, or a version
    /// this checker does not know).
    AssumedVersion = "assumed-version", Note;
    /// What `acp proxy` changed: a notice replaced by an agent message, or removed.
    Repair = "repair", Note;
    /// Input that is in none of the formats `acp check` reads, or that mixes them; the
    /// finding names what was expected.
    UnknownInput = "unknown-input", Error;
    /// An entry of a trace that is not a message between the client and the agent (a log
    /// line, an MCP-over-ACP event, a hop between two proxies of a conductor chain, acpx's own
    /// error report): not checked. Said once per kind.
    SkippedEntry = "skipped-entry", Note;
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// One finding: a rule, the 1-based line it is about, and a one-line reason.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Finding {
    /// The line of the transcript (or the message number in the proxy's record).
    pub line: u64,
    /// The rule that found it.
    pub rule: Rule,
    /// Why, in one line.
    pub message: String,
}

impl Finding {
    /// A finding of `rule` at `line`. Control characters in `message` become spaces, so the
    /// finding always prints as one harmless line.
    pub fn new(line: u64, rule: Rule, message: impl Into<String>) -> Self {
        let mut message = message.into();
        if message.chars().any(char::is_control) {
            message = message
                .chars()
                .map(|c| if c.is_control() { ' ' } else { c })
                .collect();
        }
        Self {
            line,
            rule,
            message,
        }
    }

    /// The severity of the finding's rule.
    pub fn severity(&self) -> Severity {
        self.rule.severity()
    }
}

/// The longest piece of peer-supplied text quoted in a finding, in characters.
const QUOTE_LIMIT: usize = 60;

/// Quotes peer-supplied text for a finding: Rust string syntax (control characters escaped),
/// cut to a readable length.
pub(crate) fn quote(text: &str) -> String {
    match text.char_indices().nth(QUOTE_LIMIT) {
        Some((cut, _)) => format!("{:?}...", &text[..cut]),
        None => format!("{text:?}"),
    }
}
