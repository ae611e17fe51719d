//! The errors of a conformance run (not the agent's failures: those are [`Outcome`]s).
//!
//! [`Outcome`]: crate::Outcome

/// Why a run could not go on.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConformError {
    /// The agent command could not be started.
    #[error("{0}")]
    Spawn(std::io::Error),
    /// The remote agent could not be reached (the message names the URL and why: the
    /// server's status, 401 when the token was refused).
    #[error("{0}")]
    Connect(String),
}
