//! Open string enums: known values as variants, anything else kept verbatim.

/// Declares an open string enum.
///
/// Known strings decode to their variant; any other string decodes to `Other` holding an
/// [`crate::OtherValue`], which can only be built from a string that is *not* known, so every
/// value has exactly one representation and re-encodes to the string it came from.
///
/// A value may exist only with a cargo feature: write `#[cfg(feature = "...")]` after its docs.
/// Without the feature the string is an ordinary unknown value (kept in `Other`); with it, the
/// value's alternative in the JSON Schema is marked unstable, so the stable schema leaves it out.
macro_rules! open_enum {
    (
        $(#[doc = $doc:expr])*
        $vis:vis enum $name:ident {
            $( $(#[doc = $vdoc:expr])* $(#[cfg($cfg:meta)])? $variant:ident = $value:literal, )+
        }
    ) => {
        $(#[doc = $doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        $vis enum $name {
            $( $(#[doc = $vdoc])* $(#[cfg($cfg)])? $variant, )+
            /// A value this crate does not know, kept verbatim. Values starting with `_` are
            /// implementation extensions; other unknown values are reserved for future ACP
            /// versions.
            Other($crate::OtherValue),
        }

        impl $name {
            /// Every value this enum knows with the enabled cargo features, in declaration
            /// order.
            pub const KNOWN: &'static [&'static str] = &[$( $(#[cfg($cfg)])? $value, )+];

            /// The wire string of this value.
            pub fn as_str(&self) -> &str {
                match self {
                    $( $(#[cfg($cfg)])? Self::$variant => $value, )+
                    Self::Other(other) => other.as_str(),
                }
            }

            /// Whether this is one of the values listed in [`Self::KNOWN`].
            pub fn is_known(&self) -> bool {
                !matches!(self, Self::Other(_))
            }

            /// Whether this is an implementation extension value (unknown, starts with `_`).
            pub fn is_extension(&self) -> bool {
                matches!(self, Self::Other(other) if other.is_extension())
            }

            /// Whether this is an unknown value reserved for a future ACP version (unknown and
            /// not starting with `_`).
            pub fn is_reserved(&self) -> bool {
                matches!(self, Self::Other(other) if !other.is_extension())
            }
        }

        impl From<&str> for $name {
            fn from(value: &str) -> Self {
                match value {
                    $( $(#[cfg($cfg)])? $value => Self::$variant, )+
                    other => Self::Other($crate::OtherValue::new(other.into())),
                }
            }
        }

        impl From<String> for $name {
            fn from(value: String) -> Self {
                match value.as_str() {
                    $( $(#[cfg($cfg)])? $value => Self::$variant, )+
                    _ => Self::Other($crate::OtherValue::new(value.into_boxed_str())),
                }
            }
        }

        impl std::str::FromStr for $name {
            type Err = std::convert::Infallible;
            fn from_str(value: &str) -> Result<Self, Self::Err> {
                Ok(Self::from(value))
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        encode_as_str!($name);

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                struct V;
                impl serde::de::Visitor<'_> for V {
                    type Value = $name;
                    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                        f.write_str(concat!("a string (", stringify!($name), ")"))
                    }
                    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<$name, E> {
                        Ok($name::from(v))
                    }
                    fn visit_string<E: serde::de::Error>(self, v: String) -> Result<$name, E> {
                        Ok($name::from(v))
                    }
                }
                deserializer.deserialize_str(V)
            }
        }

        schema_impl!($name, |_| {
            let mut alternatives: Vec<serde_json::Value> = Vec::new();
            $(
                $(#[cfg($cfg)])?
                alternatives.push($crate::schema_parts::string_const(
                    $value,
                    None $(.or(Some(stringify!($cfg))))?,
                ));
            )+
            alternatives.push(serde_json::json!({ "title": "other", "type": "string" }));
            schemars::json_schema!({ "anyOf": alternatives })
        });
    };
}
