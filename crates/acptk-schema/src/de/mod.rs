//! Decoding helpers shared by every wire type.
//!
//! ACP marks many optional fields with "a malformed value is treated as absent". The helpers here
//! implement that rule without buffering the surrounding object: only the one field value is
//! looked at, and for strings not even that is copied twice.

use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::{
    self, DeserializeOwned, Deserializer, IgnoredAny, IntoDeserializer, MapAccess, SeqAccess,
    Visitor,
};
use serde_json::Value;

mod buffered;
pub(crate) mod tagged;

use buffered::{Buffered, List, decodable_items, decodable_items_of_list};

/// `deserialize_with` for an optional field whose malformed value means "absent".
///
/// Strings, numbers and booleans are converted straight from the input; only objects and
/// arrays are read into a JSON value first (a value that fails to convert must not leave the
/// input half read). `null` and a conversion failure yield `None`.
pub(crate) fn lenient<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: DeserializeOwned,
{
    Ok(match deserializer.deserialize_any(Lenient(PhantomData))? {
        Found::Decoded(value) => Some(value),
        Found::Null | Found::Malformed => None,
    })
}

/// `deserialize_with` for an optional field of an object type whose malformed value means
/// "absent": like [`lenient`], but the object is read ahead as raw JSON text (see
/// [`buffered`]) instead of as a JSON value, which is cheaper for anything with fields.
/// Fields whose type is a string, number or boolean use [`lenient`].
pub(crate) fn lenient_object<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: DeserializeOwned,
{
    Ok(Buffered::deserialize(deserializer)?.convert())
}

/// What a lenient field held.
enum Found<T> {
    /// `null`.
    Null,
    /// A value that converted.
    Decoded(T),
    /// A value that did not.
    Malformed,
}

impl<T> Found<T> {
    fn from_result<E>(result: Result<T, E>) -> Self {
        result.map_or(Found::Malformed, Found::Decoded)
    }
}

/// Converts one field value to `T` without failing on a malformed one (see [`lenient`]).
struct Lenient<T>(PhantomData<T>);

impl<'de, T: DeserializeOwned> Visitor<'de> for Lenient<T> {
    type Value = Found<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value (a malformed one is treated as absent)")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Found::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Found::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
        Ok(Found::from_result(T::deserialize(IntoDeserializer::<
            de::value::Error,
        >::into_deserializer(
            v
        ))))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(Found::from_result(T::deserialize(IntoDeserializer::<
            de::value::Error,
        >::into_deserializer(
            v
        ))))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok(Found::from_result(T::deserialize(IntoDeserializer::<
            de::value::Error,
        >::into_deserializer(
            v
        ))))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        Ok(Found::from_result(T::deserialize(IntoDeserializer::<
            de::value::Error,
        >::into_deserializer(
            v
        ))))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Found::from_result(T::deserialize(IntoDeserializer::<
            de::value::Error,
        >::into_deserializer(
            v
        ))))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Found::from_result(T::deserialize(IntoDeserializer::<
            de::value::Error,
        >::into_deserializer(
            v
        ))))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        let value = Value::deserialize(de::value::SeqAccessDeserializer::new(seq))?;
        Ok(Found::from_result(from_tree(&value)))
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        let value = Value::deserialize(de::value::MapAccessDeserializer::new(map))?;
        Ok(Found::from_result(from_tree(&value)))
    }
}

/// Converts a JSON value tree to `T` by way of its text, with the decoder every entry point
/// uses (`serde_json::from_str`): decoding `T` from the tree itself would compile a second
/// decoder of `T`, and of every type inside it, for the tree's deserializer (issue 37: these
/// copies were a large part of the `acp` binary). The text is the tree's exact JSON: numbers
/// come back as they were (serde_json's `float_roundtrip` makes the shortest digits that name a
/// float parse back to that float), and a tree has no repeated keys.
pub(crate) fn from_tree<T: DeserializeOwned>(value: &Value) -> Result<T, serde_json::Error> {
    serde_json::from_str(&serde_json::to_string(value)?)
}

/// The message of an error of [`from_tree`] without the position in the tree's text (which
/// names no place of the input): what decoding the tree itself reported.
pub(crate) fn tree_error_message(error: &serde_json::Error) -> String {
    let message = error.to_string();
    let position = format!(" at line {} column {}", error.line(), error.column());
    match message.strip_suffix(&position) {
        Some(bare) if error.line() != 0 => bare.to_owned(),
        _ => message,
    }
}

/// `deserialize_with` for an optional field that holds any JSON value (`rawInput`, `data`,
/// ...): `null` is absent, anything else is kept as it is (read once, nothing to convert).
pub(crate) fn null_as_none<'de, D>(deserializer: D) -> Result<Option<Value>, D::Error>
where
    D: Deserializer<'de>,
{
    Ok(match Value::deserialize(deserializer)? {
        Value::Null => None,
        value => Some(value),
    })
}

/// `deserialize_with` for a field with a default value whose malformed value means "default".
pub(crate) fn lenient_or_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: DeserializeOwned + Default,
{
    Ok(lenient(deserializer)?.unwrap_or_default())
}

/// `deserialize_with` for an optional string (or string newtype) whose malformed value means
/// "absent". Strings are taken without an intermediate JSON value; other values are skipped.
pub(crate) fn lenient_string<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: From<String>,
{
    deserializer.deserialize_any(LenientString(PhantomData))
}

/// `deserialize_with` for `_meta`: an object is kept, anything else is absent.
pub(crate) fn meta<'de, D>(deserializer: D) -> Result<Option<crate::Meta>, D::Error>
where
    D: Deserializer<'de>,
{
    match Value::deserialize(deserializer)? {
        Value::Object(map) => Ok(Some(crate::Meta::from(map))),
        _ => Ok(None),
    }
}

struct LenientString<T>(PhantomData<T>);

impl<'de, T: From<String>> Visitor<'de> for LenientString<T> {
    type Value = Option<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value (a string is kept, anything else is treated as absent)")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Some(T::from(v.to_owned())))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Some(T::from(v)))
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(None)
    }
}

/// `deserialize_with` for a field where `null` means the default value.
pub(crate) fn null_as_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

/// `deserialize_with` for a list whose malformed value means "empty" and whose malformed
/// items are skipped one by one (the rest of the list is kept).
pub(crate) fn lenient_items<'de, D, T>(deserializer: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: DeserializeOwned,
{
    Ok(decodable_items(deserializer)?
        .into_items()
        .unwrap_or_default())
}

/// `deserialize_with` for an optional, nullable list whose malformed value means "absent" and
/// whose malformed items are skipped one by one: `null`, absence or a non-array give `None`;
/// an array gives `Some` with every item that decodes.
pub(crate) fn lenient_items_opt<'de, D, T>(deserializer: D) -> Result<Option<Vec<T>>, D::Error>
where
    D: Deserializer<'de>,
    T: DeserializeOwned,
{
    Ok(decodable_items(deserializer)?.into_items())
}

/// `deserialize_with` for a list that must be a list, but whose malformed items are skipped
/// one by one. (Stable v1 has no such lists; v2 and some unstable v1 types do.)
#[cfg_attr(
    not(any(
        feature = "unstable_protocol_v2",
        feature = "unstable_prompt_suggestions"
    )),
    allow(dead_code)
)]
pub(crate) fn items_skip_invalid<'de, D, T>(deserializer: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: DeserializeOwned,
{
    decodable_items_of_list(deserializer)
}

/// `deserialize_with` for a [`crate::Patch`] field whose malformed value means "absent":
/// `null` clears, a value that decodes sets, anything else leaves the field unchanged.
pub(crate) fn lenient_patch<'de, D, T>(deserializer: D) -> Result<crate::Patch<T>, D::Error>
where
    D: Deserializer<'de>,
    T: DeserializeOwned,
{
    Ok(match deserializer.deserialize_any(Lenient(PhantomData))? {
        Found::Null => crate::Patch::Clear,
        Found::Decoded(value) => crate::Patch::Set(value),
        Found::Malformed => crate::Patch::Unchanged,
    })
}

/// `deserialize_with` for a [`crate::Patch`] field that holds any JSON value: `null` clears,
/// anything else sets. (Only v2 has such fields.)
#[cfg_attr(not(feature = "unstable_protocol_v2"), allow(dead_code))]
pub(crate) fn patch_value<'de, D>(deserializer: D) -> Result<crate::Patch<Value>, D::Error>
where
    D: Deserializer<'de>,
{
    Ok(match null_as_none(deserializer)? {
        None => crate::Patch::Clear,
        Some(value) => crate::Patch::Set(value),
    })
}

/// `deserialize_with` for a [`crate::Patch`] list field marked "malformed means absent, invalid
/// items are skipped".
pub(crate) fn lenient_patch_items<'de, D, T>(
    deserializer: D,
) -> Result<crate::Patch<Vec<T>>, D::Error>
where
    D: Deserializer<'de>,
    T: DeserializeOwned,
{
    Ok(match decodable_items(deserializer)? {
        List::Null => crate::Patch::Clear,
        List::Items(items) => crate::Patch::Set(items),
        List::Other => crate::Patch::Unchanged,
    })
}

/// `deserialize_with` for a `_meta` that is a [`crate::Patch`]: `null` clears, an object sets,
/// anything else leaves it unchanged.
pub(crate) fn patch_meta<'de, D>(deserializer: D) -> Result<crate::Patch<crate::Meta>, D::Error>
where
    D: Deserializer<'de>,
{
    Ok(match Value::deserialize(deserializer)? {
        Value::Null => crate::Patch::Clear,
        Value::Object(map) => crate::Patch::Set(crate::Meta::from(map)),
        _ => crate::Patch::Unchanged,
    })
}

/// `deserialize_with` for a 1-based line number whose malformed value means "absent": `0`, a
/// negative or non-integer number and anything that is not a number all decode as `None`.
#[cfg_attr(not(feature = "unstable_protocol_v2"), allow(dead_code))]
pub(crate) fn lenient_line<'de, D>(deserializer: D) -> Result<Option<u32>, D::Error>
where
    D: Deserializer<'de>,
{
    Ok(lenient::<D, u32>(deserializer)?.filter(|line| *line >= 1))
}

/// `deserialize_with` for an optional JSON value where an explicit `null` differs from an
/// absent field: with `default`, absence gives `None` and `null` gives `Some(Value::Null)`.
#[cfg_attr(not(feature = "unstable_mcp_over_acp"), allow(dead_code))]
pub(crate) fn present<'de, D>(deserializer: D) -> Result<Option<Value>, D::Error>
where
    D: Deserializer<'de>,
{
    Value::deserialize(deserializer).map(Some)
}
