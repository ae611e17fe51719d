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
    /// A recorded run could not be written (`--record DIR`).
    #[error("cannot write {path}: {source}")]
    Record {
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        source: std::io::Error,
    },
}
