//! The way in from serde: a hot type's `Serialize` impl hands a compact `serde_json`
//! serializer the type's own encoding, and every other serializer the generic path.

use std::cell::Cell;

use serde::ser::{Error as _, SerializeStruct as _};
use serde::{Serialize, Serializer};

use super::Encode;

/// The name by which `serde_json`'s serializer recognises a value that is already JSON text
/// and writes it unchanged (the protocol of its `RawValue`, feature `raw_value`, which this
/// crate turns on). The tests check that a value written this way comes out verbatim.
const RAW_TOKEN: &str = "$serde_json::private::RawValue";

/// Encodings up to this size keep their buffer for the next message of the same thread;
/// larger ones (a big diff, a long file) give it back to the allocator.
const KEPT_CAPACITY: usize = 64 * 1024;

thread_local! {
    /// One reusable buffer per thread. Taken (left empty) while an encoding runs, so that a
    /// nested encoding gets a buffer of its own.
    static BUFFER: Cell<String> = const { Cell::new(String::new()) };
}

/// Whether `S` is `serde_json`'s compact serializer writing into a vector: the serializer of
/// `serde_json::to_vec`, `to_string`, `value::to_raw_value` and `to_writer(&mut vec, ..)`,
/// whose output our encoders reproduce byte for byte.
///
/// Rust has no specialisation, so the type is compared by its `TypeId` (through `typeid`,
/// since a serializer borrows and is not `'static`). Pretty printing, `to_value`, other
/// writers, other formats and wrappers (such as `serde_path_to_error`) all take the generic
/// path. The comparison is between two constants and folds away.
#[inline]
pub(crate) fn is_compact_json<S>() -> bool {
    let id = typeid::of::<S>();
    id == typeid::of::<&mut serde_json::Serializer<&mut Vec<u8>>>()
        || id == typeid::of::<&mut serde_json::Serializer<Vec<u8>>>()
}

/// Encodes `value` and hands the text to `serializer`, which must be one that
/// [`is_compact_json`] accepted: it writes the text unchanged, as it writes a `RawValue`.
pub(crate) fn emit<T: Encode + ?Sized, S: Serializer>(
    value: &T,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    let mut buffer = BUFFER.try_with(Cell::take).unwrap_or_default();
    buffer.clear();
    let result = match value.encode(&mut buffer) {
        Ok(()) => write_raw(serializer, &buffer),
        Err(error) => Err(S::Error::custom(error)),
    };
    if buffer.capacity() <= KEPT_CAPACITY {
        let _ = BUFFER.try_with(|cell| cell.set(buffer));
    }
    result
}

/// Writes `json` (valid JSON text) through a `serde_json` serializer, unchanged.
fn write_raw<S: Serializer>(serializer: S, json: &str) -> Result<S::Ok, S::Error> {
    let mut raw = serializer.serialize_struct(RAW_TOKEN, 1)?;
    raw.serialize_field(RAW_TOKEN, json)?;
    raw.end()
}

/// Writes `value` with its own `Serialize` impl through a `serde_json` compact serializer:
/// the path of the cold types (and the fallback variants) inside a hot one.
pub(crate) fn encode_with_serde<T: Serialize + ?Sized>(
    out: &mut String,
    value: &T,
) -> Result<(), serde_json::Error> {
    out.push_str(&serde_json::to_string(value)?);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::is_compact_json;

    struct Plain;
    impl serde_json::ser::Formatter for Plain {}

    #[test]
    fn only_the_compact_vector_serializer_is_recognised() {
        assert!(is_compact_json::<&mut serde_json::Serializer<&mut Vec<u8>>>());
        assert!(is_compact_json::<&mut serde_json::Serializer<Vec<u8>>>());
        assert!(!is_compact_json::<
            &mut serde_json::Serializer<&mut Vec<u8>, Plain>,
        >());
        assert!(!is_compact_json::<
            &mut serde_json::Serializer<&mut Vec<u8>, serde_json::ser::PrettyFormatter<'_>>,
        >());
        assert!(!is_compact_json::<&mut serde_json::Serializer<std::io::Sink>>());
        assert!(!is_compact_json::<serde_json::value::Serializer>());
    }
}
