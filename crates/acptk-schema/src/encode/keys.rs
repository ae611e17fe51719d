//! Wire names computed at compile time from Rust names, by the rules serde's `rename_all`
//! applies, so that the encoders take every name from the field or variant itself.

/// How a Rust name becomes a wire name.
#[derive(Clone, Copy)]
pub(crate) enum Case {
    /// As written (an explicit wire name).
    Verbatim,
    /// `tool_call_id` -> `toolCallId` (serde's `rename_all = "camelCase"` on fields).
    Camel,
    /// `InProgress` -> `in_progress` (serde's `rename_all = "snake_case"` on variants).
    Snake,
}

/// The length of the wire name of `name`.
pub(crate) const fn name_len(name: &str, case: Case) -> usize {
    let bytes = name.as_bytes();
    let mut len = 0;
    let mut i = 0;
    while i < bytes.len() {
        let byte = bytes[i];
        len += match case {
            Case::Verbatim => 1,
            Case::Camel if byte == b'_' => 0,
            Case::Camel => 1,
            Case::Snake if i > 0 && byte.is_ascii_uppercase() => 2,
            Case::Snake => 1,
        };
        i += 1;
    }
    len
}

/// The wire name of `name`; `N` must be [`name_len`] of it.
pub(crate) const fn name<const N: usize>(name: &str, case: Case) -> [u8; N] {
    let bytes = name.as_bytes();
    let mut out = [0u8; N];
    let mut i = 0;
    let mut j = 0;
    let mut upper = false;
    while i < bytes.len() {
        let byte = bytes[i];
        match case {
            Case::Verbatim => {
                out[j] = byte;
                j += 1;
            }
            Case::Camel => {
                if byte == b'_' {
                    upper = true;
                } else {
                    out[j] = if upper {
                        byte.to_ascii_uppercase()
                    } else {
                        byte
                    };
                    upper = false;
                    j += 1;
                }
            }
            Case::Snake => {
                if i > 0 && byte.is_ascii_uppercase() {
                    out[j] = b'_';
                    j += 1;
                }
                out[j] = byte.to_ascii_lowercase();
                j += 1;
            }
        }
        i += 1;
    }
    out
}

/// `prefix`, `name` and `suffix` end to end (`,"` `name` `":` frames a key, `"` `name` `"`
/// quotes a string); `N` must be their total length.
pub(crate) const fn framed<const N: usize>(prefix: &[u8], name: &[u8], suffix: &[u8]) -> [u8; N] {
    let mut out = [0u8; N];
    let parts = [prefix, name, suffix];
    let mut at = 0;
    let mut part = 0;
    while part < parts.len() {
        let bytes = parts[part];
        let mut i = 0;
        while i < bytes.len() {
            out[at] = bytes[i];
            at += 1;
            i += 1;
        }
        part += 1;
    }
    out
}

/// Text of a name made of ASCII letters, digits, `_` and `-` (every name this crate uses);
/// anything else fails the build, so that no key needs escaping.
pub(crate) const fn text(bytes: &'static [u8]) -> &'static str {
    let mut i = 0;
    while i < bytes.len() {
        let byte = bytes[i];
        assert!(
            byte.is_ascii_alphanumeric()
                || matches!(byte, b'_' | b'-' | b'"' | b',' | b':' | b'$' | b'/' | b'.'),
            "a wire name must not need escaping"
        );
        i += 1;
    }
    match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(_) => panic!("a wire name is ASCII"),
    }
}

/// A field's wire name, as a plain string (for serde) and framed as `,"name":` (for the
/// encoders; without its first byte when no comma is due).
#[derive(Clone, Copy)]
pub(crate) struct Key {
    /// The wire name.
    pub(crate) name: &'static str,
    /// `,"name":`.
    pub(crate) framed: &'static str,
}
