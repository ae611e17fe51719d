//! Decoding of internally tagged unions (`{"<tag>": "<name>", ...payload}`).
//!
//! The tag is read first. When it is the first key of the object, which is how every known ACP
//! implementation writes it, the payload is decoded straight from the remaining entries without
//! buffering. Otherwise the object is buffered once, the tag taken out, and the payload decoded
//! from the buffer.

use std::borrow::Cow;
use std::fmt;

use serde::de::value::MapAccessDeserializer;
use serde::de::{self, DeserializeOwned, DeserializeSeed, MapAccess, Visitor};
use serde_json::{Map, Value};

/// The rest of a tagged object once its tag has been read.
pub(crate) enum Payload<A> {
    /// The tag came first: the payload entries are still in the input.
    Stream(A),
    /// The tag came later: the payload entries were buffered (tag removed). Boxed, so that
    /// the usual result (tag first) stays small: it is returned through every union's decoder.
    Buffered(Box<Map<String, Value>>),
}

impl<'de, A: MapAccess<'de>> Payload<A> {
    /// Decodes the payload as `T`. A buffered payload is decoded from its text (see
    /// [`super::from_tree`]), not from the tree, so that `T` has no decoder for trees.
    #[inline(always)]
    pub(crate) fn decode<T: DeserializeOwned>(self) -> Result<T, A::Error> {
        match self {
            Payload::Stream(map) => T::deserialize(MapAccessDeserializer::new(map)),
            Payload::Buffered(fields) => decode_buffered(&Value::Object(*fields)),
        }
    }

    /// Collects the payload as raw JSON entries (for unknown tags of open unions).
    pub(crate) fn into_fields(self) -> Result<Map<String, Value>, A::Error> {
        match self {
            Payload::Stream(mut map) => {
                let mut fields = Map::new();
                while let Some((key, value)) = map.next_entry::<String, Value>()? {
                    fields.insert(key, value);
                }
                Ok(fields)
            }
            Payload::Buffered(fields) => Ok(*fields),
        }
    }

    /// Reads the members not read yet and drops them. A closed union reports an unknown tag
    /// only once its whole object is read, so that the error's position, and the path a decode
    /// error names (`method/json_path.rs`), is the object's, not its tag member's: the path
    /// serde_path_to_error named, and that of the open unions, which read the rest as fields.
    pub(crate) fn skip_rest(self) -> Result<(), A::Error> {
        if let Payload::Stream(mut map) = self {
            while map
                .next_entry::<de::IgnoredAny, de::IgnoredAny>()?
                .is_some()
            {}
        }
        Ok(())
    }
}

/// [`Payload::decode`] of a buffered payload, out of line (rare: the tag came later).
#[inline(never)]
fn decode_buffered<T: DeserializeOwned, E: de::Error>(fields: &Value) -> Result<T, E> {
    super::from_tree(fields).map_err(|error| E::custom(super::tree_error_message(&error)))
}

/// Reads the tag named `key` from a map and returns it with the remaining payload.
///
/// Inlined into each union's decoder: returned through memory, the tag and payload cost a
/// store-forwarding stall per union level (seen in `perf annotate` of the v1 decode bench).
#[inline(always)]
pub(crate) fn read_tag<'de, A: MapAccess<'de>>(
    map: A,
    key: &'static str,
) -> Result<(Cow<'de, str>, Payload<A>), A::Error> {
    match read_optional_tag(map, key)? {
        (Some(tag), payload) => Ok((tag, payload)),
        (None, _) => Err(de::Error::missing_field(key)),
    }
}

/// An optional tag and the payload after it.
type OptionalTag<'de, A> = (Option<Cow<'de, str>>, Payload<A>);

/// Like [`read_tag`], for unions with a default variant: a missing tag gives `None` and the
/// whole object as the payload. A tag that is present but not a string is still an error.
#[inline(always)]
pub(crate) fn read_optional_tag<'de, A: MapAccess<'de>>(
    mut map: A,
    key: &'static str,
) -> Result<OptionalTag<'de, A>, A::Error> {
    match map.next_key_seed(KeySeed(key))? {
        None => Ok((None, Payload::Buffered(Box::default()))),
        Some(Key::Tag) => {
            let tag = map.next_value_seed(TagSeed(key))?;
            Ok((Some(tag), Payload::Stream(map)))
        }
        Some(Key::Other(first)) => tag_after(map, key, first),
    }
}

/// [`read_optional_tag`] when the object does not start with the tag: buffers the entries and
/// takes the tag out. Rare (every known implementation writes the tag first), so kept out of
/// line.
#[cold]
#[inline(never)]
fn tag_after<'de, A: MapAccess<'de>>(
    mut map: A,
    key: &'static str,
    first: String,
) -> Result<OptionalTag<'de, A>, A::Error> {
    let mut fields = Box::new(Map::new());
    fields.insert(first, map.next_value::<Value>()?);
    while let Some((name, value)) = map.next_entry::<String, Value>()? {
        fields.insert(name, value);
    }
    match fields.remove(key) {
        Some(Value::String(tag)) => Ok((Some(Cow::Owned(tag)), Payload::Buffered(fields))),
        Some(other) => Err(de::Error::custom(format_args!(
            "expected `{key}` to be a string naming the variant, found {}",
            json_kind(&other)
        ))),
        None => Ok((None, Payload::Buffered(fields))),
    }
}

/// A short description of a JSON value's kind, for error messages.
pub(crate) fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// An object key read by [`KeySeed`]: the one it looks for, or any other (owned).
pub(crate) enum Key {
    Tag,
    Other(String),
}

/// Reads an object key and tells whether it is the given one, without copying it when it is.
pub(crate) struct KeySeed(pub(crate) &'static str);

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Key;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Key, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Key;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object key")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Key, E> {
        Ok(if v == self.0 {
            Key::Tag
        } else {
            Key::Other(v.to_owned())
        })
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Key, E> {
        Ok(if v == self.0 { Key::Tag } else { Key::Other(v) })
    }
}

struct TagSeed(&'static str);

impl<'de> DeserializeSeed<'de> for TagSeed {
    type Value = Cow<'de, str>;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for TagSeed {
    type Value = Cow<'de, str>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` to be a string naming the variant", self.0)
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v.to_owned()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v))
    }
}
