//! Macros of the hot types' encoders (see the `encode` module): their wire names, taken from
//! the Rust names at compile time, and their `Encode` and `Serialize` impls.

/// The `encode::keys::Key` of a field: `wire_key!(tool_call_id)` is `toolCallId`, and
/// `wire_key!(meta = "_meta")` is `_meta`.
macro_rules! wire_key {
    ($field:ident) => {
        wire_key!(@make stringify!($field), $crate::encode::keys::Case::Camel)
    };
    ($field:ident = $key:literal) => {
        wire_key!(@make $key, $crate::encode::keys::Case::Verbatim)
    };
    (@make $name:expr, $case:expr) => {{
        const LEN: usize = $crate::encode::keys::name_len($name, $case);
        const NAME: [u8; LEN] = $crate::encode::keys::name::<LEN>($name, $case);
        const FRAMED: [u8; LEN + 4] =
            $crate::encode::keys::framed::<{ LEN + 4 }>(b",\"", &NAME, b"\":");
        const KEY: $crate::encode::keys::Key = $crate::encode::keys::Key {
            name: $crate::encode::keys::text(&NAME),
            framed: $crate::encode::keys::text(&FRAMED),
        };
        KEY
    }};
}

/// The JSON string (`"in_progress"`) of a unit variant named `InProgress` under serde's
/// `rename_all = "snake_case"`.
macro_rules! snake_variant {
    ($variant:ident) => {{
        const NAME_STR: &str = stringify!($variant);
        const LEN: usize =
            $crate::encode::keys::name_len(NAME_STR, $crate::encode::keys::Case::Snake);
        const NAME: [u8; LEN] =
            $crate::encode::keys::name::<LEN>(NAME_STR, $crate::encode::keys::Case::Snake);
        const QUOTED: [u8; LEN + 2] =
            $crate::encode::keys::framed::<{ LEN + 2 }>(b"\"", &NAME, b"\"");
        const TEXT: &str = $crate::encode::keys::text(&QUOTED);
        TEXT
    }};
}

/// The encoder and the `Serialize` impl of a hot object type, from its field list in
/// declaration order (the order serde writes them in):
///
/// ```text
/// encode_struct!(ToolCallLocation { req path, opt line, opt meta = "_meta" });
/// ```
///
/// Each field is `req` (always written), `opt` (an `Option`, skipped when `None`), `vec` (a
/// `Vec`, skipped when empty) or `patch` (a `Patch`, skipped when unchanged), as its
/// `skip_serializing_if` says; `= "name"` gives a wire name that is not the field's name in
/// camelCase. The struct must be declared with `wire_struct! { encoded ... }` (no derived
/// `Serialize`). The field list is matched against the struct exhaustively, so a field added
/// to the struct and not here fails the build.
///
/// The `Serialize` impl writes through the encoder for `serde_json`'s compact serializer, and
/// otherwise does what serde's derive did: `serialize_struct` with the count of the fields
/// written, then `serialize_field` or `skip_field` for each.
macro_rules! encode_struct {
    ($name:ident { $( $(#[cfg($cfg:meta)])? $kind:ident $field:ident $(= $key:literal)? ),+ $(,)? }) => {
        impl $crate::encode::EncodeFields for $name {
            #[allow(unused_assignments)]
            fn encode_fields(&self, out: &mut String, mut comma: bool) -> $crate::encode::Result {
                let Self { $( $(#[cfg($cfg)])? $field, )+ } = self;
                $(
                    $(#[cfg($cfg)])?
                    encode_struct!(@encode out comma $kind $field $(= $key)?);
                )+
                Ok(())
            }
        }

        impl $crate::encode::Encode for $name {
            fn encode(&self, out: &mut String) -> $crate::encode::Result {
                out.push('{');
                $crate::encode::EncodeFields::encode_fields(self, out, false)?;
                out.push('}');
                Ok(())
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                use serde::ser::SerializeStruct as _;
                if $crate::encode::is_compact_json::<S>() {
                    return $crate::encode::emit(self, serializer);
                }
                let Self { $( $(#[cfg($cfg)])? $field, )+ } = self;
                let len = 0usize;
                $(
                    $(#[cfg($cfg)])?
                    let len = len + encode_struct!(@count $kind $field);
                )+
                let mut state = serializer.serialize_struct(stringify!($name), len)?;
                $(
                    $(#[cfg($cfg)])?
                    encode_struct!(@serde state $kind $field $(= $key)?);
                )+
                state.end()
            }
        }
    };
    (@encode $out:ident $comma:ident req $field:ident $(= $key:literal)?) => {
        $crate::encode::write_key($out, &wire_key!($field $(= $key)?), $comma);
        $comma = true;
        $crate::encode::Encode::encode($field, $out)?;
    };
    (@encode $out:ident $comma:ident opt $field:ident $(= $key:literal)?) => {
        if let Some(value) = $field {
            $crate::encode::write_key($out, &wire_key!($field $(= $key)?), $comma);
            $comma = true;
            $crate::encode::Encode::encode(value, $out)?;
        }
    };
    (@encode $out:ident $comma:ident vec $field:ident $(= $key:literal)?) => {
        if !$field.is_empty() {
            $crate::encode::write_key($out, &wire_key!($field $(= $key)?), $comma);
            $comma = true;
            $crate::encode::Encode::encode($field, $out)?;
        }
    };
    (@encode $out:ident $comma:ident patch $field:ident $(= $key:literal)?) => {
        if !$field.is_unchanged() {
            $crate::encode::write_key($out, &wire_key!($field $(= $key)?), $comma);
            $comma = true;
            $crate::encode::Encode::encode($field, $out)?;
        }
    };
    (@count req $field:ident) => { 1usize };
    (@count opt $field:ident) => { usize::from($field.is_some()) };
    (@count vec $field:ident) => { usize::from(!$field.is_empty()) };
    (@count patch $field:ident) => { usize::from(!$field.is_unchanged()) };
    (@serde $state:ident req $field:ident $(= $key:literal)?) => {
        $state.serialize_field(wire_key!($field $(= $key)?).name, $field)?;
    };
    (@serde $state:ident $kind:ident $field:ident $(= $key:literal)?) => {
        if encode_struct!(@count $kind $field) == 1 {
            $state.serialize_field(wire_key!($field $(= $key)?).name, $field)?;
        } else {
            $state.skip_field(wire_key!($field $(= $key)?).name)?;
        }
    };
}

/// The encoder of a tagged union (declared with `tagged_union!`) whose listed variants are hot:
/// those are written as the tag followed by the payload's fields, the others (and a kept
/// unknown variant) through the union's derived `Serialize` impl.
///
/// ```text
/// encode_union!(ContentBlock { Text });
/// ```
macro_rules! encode_union {
    ($name:ident { $( $(#[cfg($cfg:meta)])? $variant:ident ),+ $(,)? }) => {
        impl $crate::encode::Encode for $name {
            fn encode(&self, out: &mut String) -> $crate::encode::Result {
                match self {
                    $(
                        $(#[cfg($cfg)])?
                        Self::$variant(payload) => {
                            out.push_str(self.encoded_tag().unwrap_or_default());
                            $crate::encode::EncodeFields::encode_fields(payload, out, true)?;
                            out.push('}');
                            Ok(())
                        }
                    )+
                    #[allow(unreachable_patterns)]
                    _ => $crate::encode::encode_with_serde(out, self),
                }
            }
        }
    };
}

/// The encoder of a closed enum of unit variants whose derived `Serialize` impl writes each
/// variant's name in snake_case (`#[serde(rename_all = "snake_case")]`). The match is
/// exhaustive, so a new variant fails the build until it is listed.
macro_rules! encode_unit_enum {
    ($name:ident { $( $variant:ident ),+ $(,)? }) => {
        impl $crate::encode::Encode for $name {
            fn encode(&self, out: &mut String) -> $crate::encode::Result {
                out.push_str(match self {
                    $( Self::$variant => snake_variant!($variant), )+
                });
                Ok(())
            }
        }
    };
}

/// The encoder of a type written as a JSON string by `as_str()` (open enums).
macro_rules! encode_as_str {
    ($($name:ident),+ $(,)?) => {
        $(
            impl $crate::encode::Encode for $name {
                fn encode(&self, out: &mut String) -> $crate::encode::Result {
                    $crate::encode::write_str(out, self.as_str());
                    Ok(())
                }
            }
        )+
    };
}

/// The encoder of a cold type that appears inside a hot one: its own `Serialize` impl,
/// through `serde_json`.
macro_rules! encode_with_serde {
    ($($name:ty),+ $(,)?) => {
        $(
            impl $crate::encode::Encode for $name {
                fn encode(&self, out: &mut String) -> $crate::encode::Result {
                    $crate::encode::encode_with_serde(out, self)
                }
            }
        )+
    };
}
