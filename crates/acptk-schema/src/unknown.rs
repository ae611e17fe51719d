//! The fallback kept by open tagged unions for tags this crate does not know.

use std::fmt;

use serde::ser::{Serialize, SerializeMap, Serializer};

use serde_json::{Map, Value};

/// The fields of an unknown variant: a JSON object without its tag.
pub type Fields = Map<String, Value>;

/// Whether `fields` has `key` and its value decodes as `T` (a field that the fallback of some
/// open unions must still have; so far only v2 unions have such fields).
#[cfg(feature = "unstable_protocol_v2")]
pub(crate) fn field_decodes<T: serde::de::DeserializeOwned>(fields: &Fields, key: &str) -> bool {
    fields
        .get(key)
        .is_some_and(|value| T::deserialize(value).is_ok())
}

/// A variant of an open tagged union whose tag this crate does not know.
///
/// ACP lets some unions grow without negotiation (for example every v2 `SessionUpdate`). A
/// receiver keeps what it does not understand: the tag and every other field, verbatim, and
/// writes them back unchanged. Known tags never end up here, even with a malformed payload.
///
/// The value is one pointer wide (the tag and fields live on the heap), so that the fallback
/// variant does not make every value of its union larger: unknown variants are rare, and the
/// common, small variants are moved at every level of decoding.
#[derive(Clone, PartialEq)]
pub struct UnknownVariant(Box<Parts>);

/// What an [`UnknownVariant`] holds, behind its one pointer.
#[derive(Clone, PartialEq)]
struct Parts {
    key: &'static str,
    tag: String,
    fields: Fields,
}

impl UnknownVariant {
    /// Builds a value for the union whose tag field is named `key`. Any entry named `key` in
    /// `fields` is dropped, since the tag is written from `tag`.
    pub(crate) fn new(key: &'static str, tag: String, mut fields: Fields) -> Self {
        fields.remove(key);
        Self(Box::new(Parts { key, tag, fields }))
    }

    /// Builds the fallback for `tag` of the union whose tag field is `key` and whose known
    /// tags are `known`. Fails with [`crate::Error::KnownTag`] when `tag` is known, since such
    /// a value would decode as the known variant.
    pub(crate) fn checked(
        key: &'static str,
        known: &[&str],
        tag: String,
        fields: Fields,
    ) -> Result<Self, crate::Error> {
        if known.contains(&tag.as_str()) {
            return Err(crate::Error::KnownTag { tag });
        }
        Ok(Self::new(key, tag, fields))
    }

    /// The name of the tag field (for example `sessionUpdate`).
    pub fn tag_key(&self) -> &'static str {
        self.0.key
    }

    /// The unknown tag value, as received.
    pub fn tag(&self) -> &str {
        &self.0.tag
    }

    /// Every other field of the object, as received.
    pub fn fields(&self) -> &Fields {
        &self.0.fields
    }

    /// The field `key` when it is a string (used for the fields that the fallback of some open
    /// unions must have); empty when it is absent or not a string.
    pub fn str_field(&self, key: &str) -> &str {
        self.0
            .fields
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
    }

    /// Takes the tag and the fields out.
    pub fn into_parts(self) -> (String, Fields) {
        let Parts { tag, fields, .. } = *self.0;
        (tag, fields)
    }
}

/// Prints the same fields as a plain struct would (`key`, `tag`, `fields`); the box is an
/// implementation detail.
impl fmt::Debug for UnknownVariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UnknownVariant")
            .field("key", &self.0.key)
            .field("tag", &self.0.tag)
            .field("fields", &self.0.fields)
            .finish()
    }
}

impl Serialize for UnknownVariant {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let Parts { key, tag, fields } = &*self.0;
        let mut map = serializer.serialize_map(Some(fields.len() + 1))?;
        map.serialize_entry(key, tag)?;
        for (key, value) in fields {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}
