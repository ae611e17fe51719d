//! The payload of an open enum's `Other` variant.

/// A string value that an open enum does not know, kept exactly as received.
///
/// It cannot be built directly: convert a string into the enum (`From<&str>`), which yields a
/// known variant when the string is known and an `OtherValue` only when it is not.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OtherValue(Box<str>);

impl OtherValue {
    pub(crate) fn new(value: Box<str>) -> Self {
        Self(value)
    }

    /// The value as received.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether the value is an implementation extension (starts with `_`).
    pub fn is_extension(&self) -> bool {
        self.0.starts_with('_')
    }
}
