//! Encoding of the hot wire types, byte for byte as `serde_json` writes them, without going
//! through serde's generic machinery.
//!
//! Agents send `session/update` notifications by the thousand (message chunks, tool call
//! updates, plans, usage, notices); their encoding is written here by hand, with keys framed
//! at compile time, strings scanned eight bytes at a time for characters to escape, and
//! integers through `itoa`. Every other type keeps its derived `Serialize` impl.
//!
//! Callers see nothing of this: the hot types' `Serialize` impls (written by
//! `encode_struct!`) take this path when the serializer is `serde_json`'s compact one
//! (`serde_json::to_vec`, `to_string`, `to_writer`, `value::to_raw_value`), and the generic
//! serde path otherwise (pretty printing, `to_value`, other formats), so the bytes are the
//! same either way; the tests compare both paths on random values and on the differential
//! corpus.

mod entry;
pub(crate) mod keys;
mod write;

pub(crate) use entry::{emit, encode_with_serde, is_compact_json};
pub(crate) use write::{write_f64, write_i64, write_str, write_u64};

/// The result of an encoder: only a cold part written through serde can fail (as it would
/// with `serde_json`).
pub(crate) type Result = std::result::Result<(), serde_json::Error>;

/// A value with its own JSON encoder, identical to its `Serialize` output through
/// `serde_json`'s compact serializer.
pub(crate) trait Encode {
    /// Appends the JSON text of `self` to `out`.
    fn encode(&self, out: &mut String) -> Result;
}

/// An object type whose fields can be written after other keys (a tag) in the same object.
pub(crate) trait EncodeFields {
    /// Appends `self`'s fields as `"key":value` pairs, separated by commas, with a comma
    /// before the first one when `comma` is set; no braces.
    fn encode_fields(&self, out: &mut String, comma: bool) -> Result;
}

/// Appends a field's key: `"name":`, after a comma when `comma` is set.
#[inline]
pub(crate) fn write_key(out: &mut String, key: &keys::Key, comma: bool) {
    let framed = key.framed;
    out.push_str(if comma {
        framed
    } else {
        framed.get(1..).unwrap_or(framed)
    });
}

impl Encode for str {
    fn encode(&self, out: &mut String) -> Result {
        write_str(out, self);
        Ok(())
    }
}

impl Encode for String {
    fn encode(&self, out: &mut String) -> Result {
        write_str(out, self);
        Ok(())
    }
}

impl Encode for bool {
    fn encode(&self, out: &mut String) -> Result {
        out.push_str(if *self { "true" } else { "false" });
        Ok(())
    }
}

/// Integers through `itoa`, as `serde_json` writes them.
macro_rules! encode_integers {
    ($($ty:ty => $write:ident as $wide:ty),* $(,)?) => {
        $(
            impl Encode for $ty {
                fn encode(&self, out: &mut String) -> Result {
                    $write(out, <$wide>::from(*self));
                    Ok(())
                }
            }
        )*
    };
}

encode_integers!(u8 => write_u64 as u64, u16 => write_u64 as u64, u32 => write_u64 as u64,
    u64 => write_u64 as u64, i32 => write_i64 as i64, i64 => write_i64 as i64);

impl Encode for f64 {
    fn encode(&self, out: &mut String) -> Result {
        write_f64(out, *self);
        Ok(())
    }
}

/// `None` is `null`, as serde writes a field that is not skipped.
impl<T: Encode> Encode for Option<T> {
    fn encode(&self, out: &mut String) -> Result {
        match self {
            Some(value) => value.encode(out),
            None => {
                out.push_str("null");
                Ok(())
            }
        }
    }
}

impl<T: Encode + ?Sized> Encode for Box<T> {
    fn encode(&self, out: &mut String) -> Result {
        (**self).encode(out)
    }
}

impl<T: Encode> Encode for Vec<T> {
    fn encode(&self, out: &mut String) -> Result {
        out.push('[');
        for (index, item) in self.iter().enumerate() {
            if index > 0 {
                out.push(',');
            }
            item.encode(out)?;
        }
        out.push(']');
        Ok(())
    }
}

impl<T: EncodeFields + ?Sized> EncodeFields for Box<T> {
    fn encode_fields(&self, out: &mut String, comma: bool) -> Result {
        (**self).encode_fields(out, comma)
    }
}

/// `Unchanged` and `Clear` are `null` (an unchanged field is normally skipped), as
/// `Patch`'s `Serialize` impl writes them.
impl<T: Encode> Encode for crate::Patch<T> {
    fn encode(&self, out: &mut String) -> Result {
        match self {
            crate::Patch::Set(value) => value.encode(out),
            crate::Patch::Unchanged | crate::Patch::Clear => {
                out.push_str("null");
                Ok(())
            }
        }
    }
}

/// Any JSON value (`rawInput`, `rawOutput`, extension data), in its map's own key order.
impl Encode for serde_json::Value {
    fn encode(&self, out: &mut String) -> Result {
        use serde_json::Value;
        match self {
            Value::Null => out.push_str("null"),
            Value::Bool(value) => return value.encode(out),
            Value::Number(number) => write::write_number(out, number),
            Value::String(text) => write_str(out, text),
            Value::Array(items) => return items.encode(out),
            Value::Object(map) => return map.encode(out),
        }
        Ok(())
    }
}

impl Encode for serde_json::Map<String, serde_json::Value> {
    fn encode(&self, out: &mut String) -> Result {
        out.push('{');
        for (index, (key, value)) in self.iter().enumerate() {
            if index > 0 {
                out.push(',');
            }
            write_str(out, key);
            out.push(':');
            value.encode(out)?;
        }
        out.push('}');
        Ok(())
    }
}

impl Encode for crate::Meta {
    fn encode(&self, out: &mut String) -> Result {
        (**self).encode(out)
    }
}
