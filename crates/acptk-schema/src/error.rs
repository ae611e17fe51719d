//! The error type of this crate's fallible constructors.

/// An error from building or checking a wire value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A notice title was empty; ACP requires at least one character.
    #[error("a notice title must be a non-empty string, but an empty string was given")]
    EmptyNoticeTitle,
    /// An "unknown variant" was requested for a tag the union knows; build the known variant
    /// instead.
    #[error("`{tag}` is a known tag of this union, so it cannot be used as an unknown variant")]
    KnownTag {
        /// The tag that was given.
        tag: String,
    },
    /// An unknown variant was requested without a field that every variant of its union must
    /// have (for example the `planId` of plan contents), or with a value of the wrong type.
    #[error("an unknown variant `{tag}` must still have `{field}` of the right type")]
    FallbackField {
        /// The unknown tag that was given.
        tag: String,
        /// The required field that is missing or malformed.
        field: &'static str,
    },
    /// An idempotency key (ACP v2) outside the allowed 1 to 255 characters.
    #[error(
        "an idempotency key must be 1 to 255 characters long, but the given key has {chars} characters"
    )]
    IdempotencyKeyLength {
        /// The length of the rejected key, in characters.
        chars: usize,
    },
    /// A method name that the protocol version's method table does not list (and that is not
    /// an extension method).
    #[error("unknown method `{method}`: it is not in this protocol version's method table")]
    UnknownMethod {
        /// The method name as received.
        method: String,
    },
    /// The params (or result) of a known method did not decode as that method's type.
    #[error("invalid payload for `{method}` at `{path}`: {message}")]
    InvalidParams {
        /// The method name.
        method: String,
        /// Where in the payload decoding failed (`.` for the top level).
        path: String,
        /// What was expected and what came.
        message: String,
    },
}
