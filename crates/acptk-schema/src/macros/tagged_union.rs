//! Internally tagged unions (`{"<tag>": "<name>", ...payload}`).

/// Declares an internally tagged union whose variants each wrap one payload struct.
///
/// ```text
/// tagged_union! {
///     /// docs
///     pub enum SessionUpdate("sessionUpdate") open(Other) {
///         /// docs
///         AgentMessageChunk(ContentChunk) = "agent_message_chunk",
///         /// docs
///         #[cfg(feature = "unstable_session_cursors")]
///         CursorUpdate(CursorUpdate) = "cursor_update",
///     }
/// }
/// ```
///
/// A payload may be boxed (`ToolCall(Box<ToolCall>) = "tool_call"`): serde and the JSON Schema
/// see through the `Box`, so the wire form and the schema are those of the unboxed payload.
/// Box the large, rarely sent payloads, so that the union is as small as its frequent variants.
///
/// The variant list is the only list of tags: `TAGS`, the decoder, the encoder and the JSON
/// Schema all come from it. With `open(Name)` an unknown tag decodes to `Name(UnknownVariant)`;
/// without it an unknown tag is an error. A known tag whose payload does not decode is an error
/// either way.
///
/// Some open unions still require fields of the fallback, the ones every kind shares (a plan
/// id, a name): `open(Other requires("planId": PlanId, "name": String))`. An object with an
/// unknown tag is then kept only when each such field is present and decodes as its type; the
/// JSON Schema's "other" alternative lists them as required properties.
macro_rules! tagged_union {
    // A union with a replayable part: every variant in the first block may be recorded as
    // history and replayed; variants in the `live` block (notices) never are. Expands to the
    // union itself plus a `$replay` enum that has only the replayable variants, so a history
    // built from it cannot hold a live-only update.
    (
        $(#[doc = $doc:expr])*
        $vis:vis enum $name:ident ($tag:literal) $(open($other:ident))? replayable($replay:ident) {
            $(
                $(#[doc = $vdoc:expr])*
                $(#[cfg($cfg:meta)])?
                $variant:ident($payload:ty) = $value:literal,
            )+
        } live {
            $(
                $(#[doc = $ldoc:expr])*
                $(#[cfg($lcfg:meta)])?
                $lvariant:ident($lpayload:ty) = $lvalue:literal,
            )+
        }
    ) => {
        tagged_union! {
            $(#[doc = $doc])*
            $vis enum $name ($tag) $(open($other))? {
                $(
                    $(#[doc = $vdoc])*
                    $(#[cfg($cfg)])?
                    $variant($payload) = $value,
                )+
                $(
                    $(#[doc = $ldoc])*
                    $(#[cfg($lcfg)])?
                    $lvariant($lpayload) = $lvalue,
                )+
            }
        }

        #[doc = concat!("A [`", stringify!($name), "`] that may be recorded as session history and replayed.")]
        ///
        /// It has every variant of the full union except the live-only ones (notices), so a
        /// history made of these values cannot contain a notice. Convert with `From` (into the
        /// full union, to send it) and `TryFrom` (from the full union; a live-only update is
        /// handed back as the error).
        #[allow(clippy::large_enum_variant)]
        #[derive(Debug, Clone, PartialEq)]
        #[non_exhaustive]
        $vis enum $replay {
            $(
                $(#[doc = $vdoc])*
                $(#[cfg($cfg)])?
                $variant($payload),
            )+
            $(
                /// An update with a tag this crate does not know, kept verbatim.
                $other($crate::UnknownVariant),
            )?
        }

        impl From<$replay> for $name {
            fn from(update: $replay) -> Self {
                match update {
                    $( $(#[cfg($cfg)])? $replay::$variant(payload) => Self::$variant(payload), )+
                    $( $replay::$other(unknown) => Self::$other(unknown), )?
                }
            }
        }

        impl TryFrom<$name> for $replay {
            /// The live-only update, handed back.
            type Error = $name;

            fn try_from(update: $name) -> Result<Self, Self::Error> {
                match update {
                    $( $(#[cfg($cfg)])? $name::$variant(payload) => Ok(Self::$variant(payload)), )+
                    $( $name::$other(unknown) => Ok(Self::$other(unknown)), )?
                    #[allow(unreachable_patterns)]
                    live => Err(live),
                }
            }
        }

        impl $name {
            /// Whether this update is live-only (a notice): never history, never replayed.
            pub fn is_live_only(&self) -> bool {
                match self {
                    $( $(#[cfg($lcfg)])? Self::$lvariant(_) => true, )+
                    #[allow(unreachable_patterns)]
                    _ => false,
                }
            }
        }
    };
    (
        $(#[doc = $doc:expr])*
        $vis:vis enum $name:ident ($tag:literal)
            $(open($other:ident $(requires($($rkey:literal : $rty:ty),+ $(,)?))?))? {
            $(
                $(#[doc = $vdoc:expr])*
                $(#[cfg($cfg:meta)])?
                $variant:ident($payload:ty) = $value:literal,
            )+
        }
    ) => {
        $(#[doc = $doc])*
        // Payloads that stay unboxed may still differ in size (boxing them all would cost an
        // allocation per decoded value); each union boxes only its large, rare payloads.
        #[allow(clippy::large_enum_variant)]
        #[derive(Debug, Clone, PartialEq, serde::Serialize)]
        #[serde(tag = $tag)]
        #[non_exhaustive]
        $vis enum $name {
            $(
                $(#[doc = $vdoc])*
                $(#[cfg($cfg)])?
                #[serde(rename = $value)]
                $variant($payload),
            )+
            $(
                /// A variant whose tag this crate does not know, kept verbatim.
                #[serde(untagged)]
                $other($crate::UnknownVariant),
            )?
        }

        impl $name {
            /// The name of the JSON field holding the tag.
            pub const TAG_KEY: &'static str = $tag;

            /// Every tag this union knows with the enabled cargo features, in declaration order.
            pub const TAGS: &'static [&'static str] = &[$( $(#[cfg($cfg)])? $value, )+];

            /// The tag this value is written with.
            pub fn tag(&self) -> &str {
                match self {
                    $( $(#[cfg($cfg)])? Self::$variant(_) => $value, )+
                    $( Self::$other(unknown) => unknown.tag(), )?
                }
            }

            /// The start of a known variant's JSON text, `{"<tag key>":"<tag>"`, for the
            /// encoders of `encode_union!` (`None` for a kept unknown variant). Tags need no
            /// escaping: the encoder tests check every one.
            #[allow(dead_code)]
            pub(crate) fn encoded_tag(&self) -> Option<&'static str> {
                match self {
                    $( $(#[cfg($cfg)])? Self::$variant(_) => Some(concat!("{\"", $tag, "\":\"", $value, "\"")), )+
                    $( Self::$other(_) => None, )?
                }
            }
        }

        $(
            impl $name {
                /// Builds the fallback variant for a tag this crate does not know. Fails with
                /// [`crate::Error::KnownTag`] when `tag` is one of [`Self::TAGS`], since such a
                /// value would decode as the known variant.
                ///
                /// Fails with [`crate::Error::FallbackField`] when a field that every variant of
                /// this union must have is missing from `fields` or has the wrong type.
                pub fn unknown(
                    tag: impl Into<String>,
                    fields: $crate::unknown::Fields,
                ) -> Result<Self, $crate::Error> {
                    let unknown = $crate::UnknownVariant::checked($tag, Self::TAGS, tag.into(), fields)?;
                    $($(
                        if !$crate::unknown::field_decodes::<$rty>(unknown.fields(), $rkey) {
                            return Err($crate::Error::FallbackField {
                                tag: unknown.tag().to_owned(),
                                field: $rkey,
                            });
                        }
                    )+)?
                    Ok(Self::$other(unknown))
                }
            }
        )?

        map_deserialize! {
            $name, concat!("an object tagged by `", $tag, "` (", stringify!($name), ")"),
            #[allow(unreachable_code)]
            visit_map(map: A) {
                let (tag, payload) = $crate::de::tagged::read_tag(map, $tag)?;
                match &*tag {
                    $( $(#[cfg($cfg)])? $value => payload.decode().map($name::$variant), )+
                    _ => {
                        $(
                            let fields = payload.into_fields()?;
                            $($(
                                if !$crate::unknown::field_decodes::<$rty>(&fields, $rkey) {
                                    return Err(serde::de::Error::custom(format_args!(
                                        "an object with the unknown `{}` value `{}` must still have `{}` ({})",
                                        $tag,
                                        tag,
                                        $rkey,
                                        stringify!($rty),
                                    )));
                                }
                            )+)?
                            return Ok($name::$other($crate::UnknownVariant::new(
                                $tag,
                                tag.into_owned(),
                                fields,
                            )));
                        )?
                        // The rest of the object first: the error then names the
                        // union's object, not its tag member (de/tagged.rs).
                        payload.skip_rest()?;
                        Err(serde::de::Error::unknown_variant(&tag, $name::TAGS))
                    }
                }
            }
        }

        schema_impl!($name, |generator| {
            let mut alternatives: Vec<serde_json::Value> = Vec::with_capacity(Self::TAGS.len() + 1);
            $(
                $(#[cfg($cfg)])?
                alternatives.push($crate::schema_parts::tagged_alternative(
                    $tag,
                    $value,
                    generator.subschema_for::<$payload>(),
                    None $(.or(Some(stringify!($cfg))))?,
                ));
            )+
            $(
                let _ = stringify!($other);
                #[allow(unused_mut)]
                let mut other = $crate::schema_parts::other_alternative_of($tag, &alternatives);
                $($(
                    $crate::schema_parts::require_property(
                        &mut other,
                        $rkey,
                        generator.subschema_for::<$rty>(),
                    );
                )+)?
                alternatives.push(other);
            )?
            let open: &[&str] = &[$(stringify!($other))?];
            $crate::schema_parts::union_schema(alternatives, $tag, open.is_empty())
        });
    };
}
