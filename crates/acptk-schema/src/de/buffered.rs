//! One JSON value read ahead, so that converting it to a type may fail without leaving the
//! input half read: what lenient lists need for each item, and lenient fields for objects.
//!
//! A `serde_json::Value` tree would do, but building one allocates for every string, array
//! and object, and hashes every key. Instead [`Buffered`] asks the deserializer for the
//! value's raw JSON text: `serde_json` hands it over as a slice of the input (no copy when it
//! reads from a string or bytes), and the item is then parsed from that text into its type.
//! Deserializers that have no raw text (serde's buffer behind `#[serde(flatten)]` and untagged
//! unions, and any other) give the value as a tree instead, so every input still decodes, and
//! to the same result: the tree is written back to text and decoded from that (see
//! [`super::from_tree`]), so that a type has one decoder, not one per deserializer.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, DeserializeOwned, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use super::tagged::{Key, KeySeed};

/// The name under which `serde_json` offers a value's raw text (the name its `RawValue`
/// deserializes with). A deserializer that does not know it treats the request as an ordinary
/// newtype, and [`Buffered`] then takes a tree: if the name ever changed, decoding would stay
/// correct and only lose speed (the test `serde_json_hands_over_raw_text` would say so).
const RAW_VALUE: &str = "$serde_json::private::RawValue";

/// A JSON value read ahead: its raw text when the deserializer has it, a tree otherwise.
#[derive(Debug)]
pub(crate) enum Buffered<'de> {
    /// The raw JSON text, borrowed from the input or copied out of it.
    Text(Cow<'de, str>),
    /// The value as a tree.
    Tree(Value),
}

impl Buffered<'_> {
    /// Converts the value to `T`; `None` when it does not convert.
    pub(crate) fn convert<T: DeserializeOwned>(self) -> Option<T> {
        match self {
            Buffered::Text(text) => serde_json::from_str(&text).ok(),
            Buffered::Tree(value) => super::from_tree(&value).ok(),
        }
    }
}

impl<'de> Deserialize<'de> for Buffered<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_newtype_struct(RAW_VALUE, BufferedVisitor)
    }
}

/// Takes the raw text `serde_json` offers as a one-entry map, or any value as a tree from a
/// deserializer that answers the request some other way.
struct BufferedVisitor;

impl<'de> Visitor<'de> for BufferedVisitor {
    type Value = Buffered<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        Value::deserialize(d).map(Buffered::Tree)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let first = match map.next_key_seed(KeySeed(RAW_VALUE))? {
            None => return Ok(Buffered::Tree(Value::Object(Map::new()))),
            Some(Key::Tag) => {
                return map
                    .next_value::<RawText<'de>>()
                    .map(|raw| Buffered::Text(raw.0));
            }
            Some(Key::Other(key)) => key,
        };
        // A deserializer that read the request as "anything" and found an object.
        let mut object = Map::new();
        object.insert(first, map.next_value()?);
        while let Some((key, value)) = map.next_entry::<String, Value>()? {
            object.insert(key, value);
        }
        Ok(Buffered::Tree(Value::Object(object)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        Value::deserialize(de::value::SeqAccessDeserializer::new(seq)).map(Buffered::Tree)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
        Ok(Buffered::Tree(Value::Bool(v)))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(Buffered::Tree(Value::from(v)))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok(Buffered::Tree(Value::from(v)))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        Ok(Buffered::Tree(Value::from(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Buffered::Tree(Value::String(v.to_owned())))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Buffered::Tree(Value::String(v)))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Buffered::Tree(Value::Null))
    }
    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Buffered::Tree(Value::Null))
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        Value::deserialize(d).map(Buffered::Tree)
    }
}

/// The raw text itself: borrowed when the input outlives the decoding, copied otherwise.
struct RawText<'de>(Cow<'de, str>);

impl<'de> Deserialize<'de> for RawText<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawText<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("raw JSON text")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(RawText(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(RawText(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(RawText(Cow::Owned(v)))
            }
        }
        deserializer.deserialize_str(V)
    }
}

/// What a lenient list field held.
#[derive(Debug, PartialEq)]
pub(crate) enum List<T> {
    /// `null`.
    Null,
    /// An array: every item that converts to `T`, in order (the others are skipped).
    Items(Vec<T>),
    /// Anything else.
    Other,
}

/// Reads a JSON value that should be an array, item by item, keeping every item that
/// converts to `T` and skipping the others.
pub(crate) fn decodable_items<'de, D, T>(deserializer: D) -> Result<List<T>, D::Error>
where
    D: Deserializer<'de>,
    T: DeserializeOwned,
{
    deserializer.deserialize_any(Items {
        list_only: false,
        item: std::marker::PhantomData,
    })
}

/// Like [`decodable_items`] for a value that must be an array: anything else is an error.
pub(crate) fn decodable_items_of_list<'de, D, T>(deserializer: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: DeserializeOwned,
{
    deserializer
        .deserialize_seq(Items {
            list_only: true,
            item: std::marker::PhantomData,
        })?
        .into_items()
        .ok_or_else(|| de::Error::custom("expected a list"))
}

impl<T> List<T> {
    /// The items of an array; `None` for anything else.
    pub(crate) fn into_items(self) -> Option<Vec<T>> {
        match self {
            List::Items(items) => Some(items),
            List::Null | List::Other => None,
        }
    }
}

/// The visitor of [`decodable_items`].
struct Items<T> {
    /// Anything but a list is an error (and the error says a list was expected).
    list_only: bool,
    item: std::marker::PhantomData<T>,
}

impl<'de, T: DeserializeOwned> Visitor<'de> for Items<T> {
    type Value = List<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.list_only {
            "a list"
        } else {
            "any JSON value (a list keeps the items that decode)"
        })
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
        while let Some(item) = seq.next_element::<Buffered<'de>>()? {
            items.extend(item.convert());
        }
        Ok(List::Items(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map
            .next_entry::<de::IgnoredAny, de::IgnoredAny>()?
            .is_some()
        {}
        Ok(List::Other)
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(List::Other)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(List::Other)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(List::Other)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(List::Other)
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
        Ok(List::Other)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(List::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(List::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, serde::Deserialize)]
    struct Point {
        x: u32,
    }

    fn items(json: &str) -> List<Point> {
        let mut de = serde_json::Deserializer::from_str(json);
        decodable_items(&mut de).unwrap()
    }

    #[test]
    fn serde_json_hands_over_raw_text() {
        let buffered: Buffered<'_> = serde_json::from_str(r#" {"x": [1, "two"]} "#).unwrap();
        assert!(
            matches!(&buffered, Buffered::Text(Cow::Borrowed(text)) if *text == r#"{"x": [1, "two"]}"#),
            "{buffered:?}"
        );
    }

    #[test]
    fn items_that_do_not_convert_are_skipped_and_the_rest_kept() {
        assert_eq!(
            items(r#"[{"x": 1}, {"x": "no"}, 7, null, {"x": 2}]"#),
            List::Items(vec![Point { x: 1 }, Point { x: 2 }])
        );
        assert_eq!(items("[]"), List::Items(vec![]));
        assert_eq!(items(r#"{"x": 1}"#), List::Other);
        assert_eq!(items(r#""list""#), List::Other);
        assert_eq!(items("3"), List::Other);
        assert_eq!(items("null"), List::Null);
    }

    #[test]
    fn an_item_with_a_repeated_key_is_skipped_as_the_typed_decode_rejects_it() {
        assert_eq!(
            items(r#"[{"x": 1, "x": 2}, {"x": 3}]"#),
            List::Items(vec![Point { x: 3 }])
        );
    }

    #[test]
    fn deserializers_without_raw_text_give_the_same_items() {
        let json = r#"[{"x": 1}, {"x": "no"}, {"x": 2}]"#;
        let value: Value = serde_json::from_str(json).unwrap();
        let from_tree: List<Point> = decodable_items(value).unwrap();
        assert_eq!(from_tree, items(json));
        // serde's own buffer (what `#[serde(flatten)]` and untagged unions use) has no raw
        // text either.
        #[derive(serde::Deserialize)]
        struct Outer {
            #[serde(flatten)]
            inner: Inner,
        }
        #[derive(serde::Deserialize)]
        struct Inner {
            #[serde(deserialize_with = "decodable_items")]
            points: List<Point>,
        }
        let outer: Outer =
            serde_json::from_str(r#"{"points": [{"x": 1}, {"x": "no"}, {"x": 2}]}"#).unwrap();
        assert_eq!(outer.inner.points, items(json));
    }

    #[test]
    fn a_tree_converts_through_its_text_to_the_floats_it_held() {
        #[derive(Debug, PartialEq, serde::Deserialize)]
        struct Floats {
            f: Vec<f64>,
        }
        // Floats of every magnitude (random bits), whose shortest digits a best-effort parser
        // does not always read back to the same float.
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let floats: Vec<f64> = std::iter::repeat_with(|| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            f64::from_bits(state)
        })
        .filter(|float| float.is_finite())
        .take(20_000)
        .collect();
        let tree = Buffered::Tree(serde_json::json!({ "f": floats }));
        assert_eq!(tree.convert::<Floats>(), Some(Floats { f: floats }));
    }

    #[test]
    fn an_error_from_a_tree_names_no_position_in_its_text() {
        let error = super::super::from_tree::<Point>(&serde_json::json!({"x": "no"})).unwrap_err();
        assert_eq!(
            super::super::tree_error_message(&error),
            "invalid type: string \"no\", expected u32"
        );
    }

    #[test]
    fn a_value_that_must_be_a_list_says_so_when_it_is_not() {
        let mut de = serde_json::Deserializer::from_str(r#"{"x": 1}"#);
        let error = decodable_items_of_list::<_, Point>(&mut de).unwrap_err();
        assert!(error.to_string().contains("expected a list"), "{error}");
        let error = decodable_items_of_list::<_, Point>(Value::from("text")).unwrap_err();
        assert!(error.to_string().contains("expected a list"), "{error}");
        let mut de = serde_json::Deserializer::from_str(r#"[{"x": 1}, 2]"#);
        assert_eq!(
            decodable_items_of_list::<_, Point>(&mut de).unwrap(),
            vec![Point { x: 1 }]
        );
    }

    #[test]
    fn raw_text_from_a_reader_is_copied() {
        let mut de = serde_json::Deserializer::from_reader(&br#"{"x": 5}"#[..]);
        let buffered = Buffered::deserialize(&mut de).unwrap();
        assert!(
            matches!(&buffered, Buffered::Text(Cow::Owned(_))),
            "{buffered:?}"
        );
        assert_eq!(buffered.convert::<Point>(), Some(Point { x: 5 }));
    }
}
