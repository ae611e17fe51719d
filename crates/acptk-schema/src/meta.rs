//! The `_meta` extension object carried by most ACP types.

use std::ops::{Deref, DerefMut};

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

/// Free-form extension metadata (the `_meta` field): a JSON object.
///
/// ACP reserves `_meta` on almost every object for implementation-specific data. A `_meta` that
/// is `null` or not an object decodes as absent, and an absent `_meta` is never written.
///
/// The map lives behind one pointer, so an absent `_meta` (`Option<Meta>`) costs a single word
/// in every decoded value: `_meta` is rare on the wire, and decoding moves values around. Use it
/// like a map (it dereferences to [`serde_json::Map`]):
///
/// ```
/// let mut meta = acptk_schema::Meta::new();
/// meta.insert("acme.dev/traceId".into(), "abc".into());
/// assert_eq!(meta["acme.dev/traceId"], "abc");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Meta(Box<Map<String, Value>>);

impl Meta {
    /// An empty object.
    pub fn new() -> Self {
        Self::default()
    }

    /// Takes the map out.
    pub fn into_map(self) -> Map<String, Value> {
        *self.0
    }
}

impl Deref for Meta {
    type Target = Map<String, Value>;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl DerefMut for Meta {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

impl From<Map<String, Value>> for Meta {
    fn from(map: Map<String, Value>) -> Self {
        Self(Box::new(map))
    }
}

impl From<Meta> for Map<String, Value> {
    fn from(meta: Meta) -> Self {
        meta.into_map()
    }
}

impl FromIterator<(String, Value)> for Meta {
    fn from_iter<I: IntoIterator<Item = (String, Value)>>(iter: I) -> Self {
        Self::from(iter.into_iter().collect::<Map<String, Value>>())
    }
}

impl Serialize for Meta {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Meta {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Map::deserialize(deserializer).map(Self::from)
    }
}

schema_impl!(Meta, inline, |generator| {
    <Map<String, Value>>::json_schema(generator)
});
