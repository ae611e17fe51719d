//! The crate's error type.

/// What can go wrong when changing a [`crate::NoticeCenter`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A session already has as many muted titles as the policy allows.
    #[error(
        "cannot mute another title: the session already has {limit} muted titles (the policy's limit)"
    )]
    MuteLimitReached {
        /// The policy's limit ([`crate::Policy::max_muted_titles`]).
        limit: usize,
    },
}
