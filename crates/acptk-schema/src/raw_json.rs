//! A JSON value kept exactly as received.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;

/// Any JSON value, kept as its original text and written back byte for byte (used where a
/// message carries another message's payload that this crate does not interpret, such as the
/// wrapped params of a proxy chain envelope).
///
/// Two values are equal when their texts are equal.
#[derive(Debug, Clone)]
pub struct RawJson(Box<RawValue>);

impl RawJson {
    /// Wraps raw JSON text that is already known to be valid.
    pub fn new(raw: Box<RawValue>) -> Self {
        Self(raw)
    }

    /// Parses `text` as JSON, keeping the text as it is. Fails when it is not valid JSON.
    pub fn from_text(text: impl Into<String>) -> Result<Self, serde_json::Error> {
        RawValue::from_string(text.into()).map(Self)
    }

    /// The JSON text.
    pub fn get(&self) -> &str {
        self.0.get()
    }

    /// Decodes the value as `T`.
    pub fn decode<'a, T: Deserialize<'a>>(&'a self) -> Result<T, serde_json::Error> {
        serde_json::from_str(self.0.get())
    }

    /// Takes the raw value out.
    pub fn into_raw(self) -> Box<RawValue> {
        self.0
    }
}

impl PartialEq for RawJson {
    fn eq(&self, other: &Self) -> bool {
        self.0.get() == other.0.get()
    }
}

impl From<Box<RawValue>> for RawJson {
    fn from(raw: Box<RawValue>) -> Self {
        Self(raw)
    }
}

impl Serialize for RawJson {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for RawJson {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Box::<RawValue>::deserialize(deserializer).map(Self)
    }
}

schema_impl!(
    /// Any JSON value (`{}` in JSON Schema).
    RawJson, inline, |_| { schemars::json_schema!({}) }
);
