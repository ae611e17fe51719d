//! Why a turn ended, in one type for both versions.

use acptk_schema::{v1, v2};

/// Why a turn ended.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum StopReason {
    /// The turn ended normally.
    EndTurn,
    /// The model reached its token limit.
    MaxTokens,
    /// The turn reached the limit of model requests.
    MaxTurnRequests,
    /// The model declined to continue.
    Refusal,
    /// The client cancelled the turn.
    Cancelled,
    /// A stop reason this runtime does not know (a newer protocol's), by its wire name. A
    /// client sees it when a v2 agent sends one. An agent returning it reaches a v2 client
    /// as written; a v1 client gets `end_turn`, since v1's list of stop reasons is closed.
    Other(String),
}

impl StopReason {
    /// The stop reason for a wire name: a known one, else [`StopReason::Other`].
    pub fn from_wire(name: &str) -> StopReason {
        match name {
            "end_turn" => StopReason::EndTurn,
            "max_tokens" => StopReason::MaxTokens,
            "max_turn_requests" => StopReason::MaxTurnRequests,
            "refusal" => StopReason::Refusal,
            "cancelled" => StopReason::Cancelled,
            other => StopReason::Other(other.to_owned()),
        }
    }

    /// The wire name (`end_turn`, ...).
    pub fn as_str(&self) -> &str {
        match self {
            StopReason::EndTurn => "end_turn",
            StopReason::MaxTokens => "max_tokens",
            StopReason::MaxTurnRequests => "max_turn_requests",
            StopReason::Refusal => "refusal",
            StopReason::Cancelled => "cancelled",
            StopReason::Other(name) => name,
        }
    }

    pub(crate) fn to_v1(&self) -> v1::StopReason {
        match self {
            StopReason::MaxTokens => v1::StopReason::MaxTokens,
            StopReason::MaxTurnRequests => v1::StopReason::MaxTurnRequests,
            StopReason::Refusal => v1::StopReason::Refusal,
            StopReason::Cancelled => v1::StopReason::Cancelled,
            StopReason::EndTurn | StopReason::Other(_) => v1::StopReason::EndTurn,
        }
    }

    pub(crate) fn to_v2(&self) -> v2::IdleStopReason {
        match self {
            StopReason::EndTurn => v2::IdleStopReason::EndTurn,
            StopReason::MaxTokens => v2::IdleStopReason::MaxTokens,
            StopReason::MaxTurnRequests => v2::IdleStopReason::MaxTurnRequests,
            StopReason::Refusal => v2::IdleStopReason::Refusal,
            StopReason::Cancelled => v2::IdleStopReason::Cancelled,
            StopReason::Other(name) => match StopReason::from_wire(name) {
                StopReason::Other(name) => {
                    v2::IdleStopReason::unknown(name, Default::default())
                        // `error` is known to the schema but is not a plain stop reason here.
                        .unwrap_or(v2::IdleStopReason::EndTurn)
                }
                known => known.to_v2(),
            },
        }
    }
}

impl std::fmt::Display for StopReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
