//! Three-state fields of "patch" updates: leave unchanged, clear, or set.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A field of an update that changes an existing object (a tool call, a session's info, a
/// subagent, ...), where leaving a field out and sending `null` mean different things.
///
/// * absent from the JSON: [`Patch::Unchanged`], keep what the receiver has;
/// * `null`: [`Patch::Clear`], remove the value;
/// * a value: [`Patch::Set`], replace it.
///
/// `Unchanged` is never written; `Clear` is written as `null`.
///
/// ```
/// use acptk_schema::Patch;
///
/// let mut title: Option<String> = Some("Old".into());
/// Patch::Set("New".to_string()).apply_to(&mut title);
/// assert_eq!(title.as_deref(), Some("New"));
/// Patch::<String>::Unchanged.apply_to(&mut title);
/// assert_eq!(title.as_deref(), Some("New"));
/// Patch::<String>::Clear.apply_to(&mut title);
/// assert_eq!(title, None);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub enum Patch<T> {
    /// The field was absent: keep the current value.
    #[default]
    Unchanged,
    /// The field was `null`: remove the current value.
    Clear,
    /// The field had a value: replace the current value with it.
    Set(T),
}

impl<T> Patch<T> {
    /// Whether the field was absent (used to skip it when encoding).
    pub fn is_unchanged(&self) -> bool {
        matches!(self, Patch::Unchanged)
    }

    /// The new value, if one was set.
    pub fn as_set(&self) -> Option<&T> {
        match self {
            Patch::Set(value) => Some(value),
            _ => None,
        }
    }

    /// Applies the patch to the current value of the field.
    pub fn apply_to(self, current: &mut Option<T>) {
        match self {
            Patch::Unchanged => {}
            Patch::Clear => *current = None,
            Patch::Set(value) => *current = Some(value),
        }
    }

    /// `None` when unchanged, `Some(None)` when cleared, `Some(Some(value))` when set.
    pub fn into_change(self) -> Option<Option<T>> {
        match self {
            Patch::Unchanged => None,
            Patch::Clear => Some(None),
            Patch::Set(value) => Some(Some(value)),
        }
    }
}

impl<T> From<T> for Patch<T> {
    fn from(value: T) -> Self {
        Patch::Set(value)
    }
}

impl<T: Serialize> Serialize for Patch<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            // Skipped by `skip_serializing_if`; written as null if a caller forgets to skip.
            Patch::Unchanged | Patch::Clear => serializer.serialize_none(),
            Patch::Set(value) => serializer.serialize_some(value),
        }
    }
}

/// Decodes `null` as [`Patch::Clear`] and a value as [`Patch::Set`]; absence needs
/// `#[serde(default)]` on the field.
impl<'de, T: Deserialize<'de>> Deserialize<'de> for Patch<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(match Option::<T>::deserialize(deserializer)? {
            Some(value) => Patch::Set(value),
            None => Patch::Clear,
        })
    }
}

#[cfg(feature = "schemars")]
impl<T: schemars::JsonSchema> schemars::JsonSchema for Patch<T> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        <Option<T>>::schema_name()
    }
    fn inline_schema() -> bool {
        true
    }
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        <Option<T>>::json_schema(generator)
    }
}
