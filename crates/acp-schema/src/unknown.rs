//! The fallback kept by open tagged unions for tags this crate does not know.

use serde::ser::{Serialize, SerializeMap, Serializer};

use serde_json::{Map, Value};

/// The fields of an unknown variant: a JSON object without its tag.
pub type Fields = Map<String, Value>;

/// A variant of an open tagged union whose tag this crate does not know.
///
/// ACP lets some unions grow without negotiation (for example every v2 `SessionUpdate`). A
/// receiver keeps what it does not understand: the tag and every other field, verbatim, and
/// writes them back unchanged. Known tags never end up here, even with a malformed payload.
#[derive(Debug, Clone, PartialEq)]
pub struct UnknownVariant {
    key: &'static str,
    tag: String,
    fields: Fields,
}

impl UnknownVariant {
    /// Builds a value for the union whose tag field is named `key`. Any entry named `key` in
    /// `fields` is dropped, since the tag is written from `tag`.
    pub(crate) fn new(key: &'static str, tag: String, mut fields: Fields) -> Self {
        fields.remove(key);
        Self { key, tag, fields }
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
        self.key
    }

    /// The unknown tag value, as received.
    pub fn tag(&self) -> &str {
        &self.tag
    }

    /// Every other field of the object, as received.
    pub fn fields(&self) -> &Fields {
        &self.fields
    }

    /// Takes the tag and the fields out.
    pub fn into_parts(self) -> (String, Fields) {
        (self.tag, self.fields)
    }
}

impl Serialize for UnknownVariant {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.fields.len() + 1))?;
        map.serialize_entry(self.key, &self.tag)?;
        for (key, value) in &self.fields {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}
