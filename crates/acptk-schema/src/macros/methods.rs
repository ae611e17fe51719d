//! Method tables: marker types and routing enums from one list per direction.

/// Declares the request methods one side handles: a marker type per method, the routing enum
/// of requests (params keyed by method) and the routing enum of their responses (results keyed
/// by method).
///
/// ```text
/// request_table! {
///     /// docs of the request enum
///     ClientRequest -> AgentResponse {
///         /// docs of the method
///         Initialize = "initialize" (InitializeRequest) -> InitializeResponse;
///         /// docs of a method that exists only with a cargo feature
///         #[cfg(feature = "unstable_session_fork")]
///         SessionFork = "session/fork" (ForkSessionRequest) -> ForkSessionResponse;
///     }
/// }
/// ```
///
/// A method behind a cargo feature is left out of everything the table generates (marker,
/// variants, `METHODS`, decoders) without it, and is marked unstable in the JSON Schema with it.
macro_rules! request_table {
    (
        $(#[doc = $doc:expr])*
        $requests:ident -> $responses:ident {
            $(
                $(#[doc = $mdoc:expr])*
                $(#[cfg($cfg:meta)])?
                $marker:ident = $method:literal ($params:ty) -> $result:ty;
            )+
        }
    ) => {
        $(
            $(#[doc = $mdoc])*
            $(#[cfg($cfg)])?
            #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
            pub struct $marker;

            $(#[cfg($cfg)])?
            impl $crate::method::RequestMethod for $marker {
                const METHOD: &'static str = $method;
                type Params = $params;
                type Result = $result;
            }
        )+

        $(#[doc = $doc])*
        ///
        /// Each variant holds the decoded `params` of one method; [`Self::decode`] picks the
        /// variant from the method name. Encoding writes the params only.
        // Variants hold params by value: boxing the large ones would cost an allocation per
        // decoded message on the hot path, for a smaller enum that is rarely stored.
        #[allow(clippy::large_enum_variant)]
        #[derive(Debug, Clone, PartialEq)]
        #[non_exhaustive]
        pub enum $requests {
            $(
                #[doc = concat!("`", $method, "`: see [`", stringify!($marker), "`].")]
                $(#[cfg($cfg)])?
                $marker($params),
            )+
            /// An extension method (name starting with `_`), params kept raw.
            Extension($crate::method::Extension),
        }

        impl $requests {
            /// Every method of this table with the enabled cargo features, in declaration
            /// order.
            pub const METHODS: &'static [&'static str] = &[$( $(#[cfg($cfg)])? $method, )+];

            /// The method name this value is sent with.
            pub fn method(&self) -> &str {
                match self {
                    $( $(#[cfg($cfg)])? Self::$marker(_) => $method, )+
                    Self::Extension(extension) => &extension.method,
                }
            }

            /// Decodes the params of a request for `method`. Absent params decode as `{}`.
            ///
            /// Fails with [`crate::Error::UnknownMethod`] for a method outside the table that
            /// is not an extension, and with [`crate::Error::InvalidParams`] (naming the path
            /// inside the params) when the params do not fit the method.
            pub fn decode(
                method: &str,
                params: Option<&serde_json::value::RawValue>,
            ) -> Result<Self, $crate::Error> {
                match method {
                    $(
                        $(#[cfg($cfg)])?
                        $method => $crate::method::decode_payload(
                            method,
                            $crate::method::params_or_empty(params),
                        )
                        .map(Self::$marker),
                    )+
                    other if $crate::method::is_extension(other) => Ok(Self::Extension(
                        $crate::method::Extension::new(other, $crate::method::raw_or_null(params)),
                    )),
                    other => Err($crate::Error::UnknownMethod { method: other.to_owned() }),
                }
            }
        }

        impl serde::Serialize for $requests {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                match self {
                    $( $(#[cfg($cfg)])? Self::$marker(params) => params.serialize(serializer), )+
                    Self::Extension(extension) => extension.serialize(serializer),
                }
            }
        }

        #[doc = concat!("The results of [`", stringify!($requests), "`] methods, keyed by method.")]
        ///
        /// A response carries no method name, so [`Self::decode`] takes the method of the
        /// request it answers (known from the request id). Encoding writes the result only.
        // Variants hold params by value: boxing the large ones would cost an allocation per
        // decoded message on the hot path, for a smaller enum that is rarely stored.
        #[allow(clippy::large_enum_variant)]
        #[derive(Debug, Clone, PartialEq)]
        #[non_exhaustive]
        pub enum $responses {
            $(
                #[doc = concat!("Result of `", $method, "`.")]
                $(#[cfg($cfg)])?
                $marker($result),
            )+
            /// The result of an extension method, kept raw.
            Extension($crate::method::Extension),
        }

        impl $responses {
            /// The method whose result this is.
            pub fn method(&self) -> &str {
                match self {
                    $( $(#[cfg($cfg)])? Self::$marker(_) => $method, )+
                    Self::Extension(extension) => &extension.method,
                }
            }

            /// Decodes the `result` of a response to a request for `method`. A `null` result
            /// decodes as `{}`, which succeeds for the methods whose result is an empty object.
            pub fn decode(
                method: &str,
                result: &serde_json::value::RawValue,
            ) -> Result<Self, $crate::Error> {
                match method {
                    $(
                        $(#[cfg($cfg)])?
                        $method => $crate::method::decode_result(method, result)
                            .map(Self::$marker),
                    )+
                    other if $crate::method::is_extension(other) => Ok(Self::Extension(
                        $crate::method::Extension::new(other, result.to_owned()),
                    )),
                    other => Err($crate::Error::UnknownMethod { method: other.to_owned() }),
                }
            }
        }

        impl serde::Serialize for $responses {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                match self {
                    $( $(#[cfg($cfg)])? Self::$marker(result) => result.serialize(serializer), )+
                    Self::Extension(extension) => extension.serialize(serializer),
                }
            }
        }

        #[cfg(feature = "schemars")]
        impl schemars::JsonSchema for $requests {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($requests).into()
            }
            fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
                let params = Vec::from([
                    $(
                        $(#[cfg($cfg)])?
                        $crate::schema_parts::titled_gated(
                            stringify!($params),
                            generator.subschema_for::<$params>(),
                            None $(.or(Some(stringify!($cfg))))?,
                        ),
                    )+
                    $crate::schema_parts::titled("ExtMethodRequest", generator.subschema_for::<ExtRequest>()),
                ]);
                $crate::schema_parts::request_envelope(generator.subschema_for::<RequestId>(), params)
            }
        }

        #[cfg(feature = "schemars")]
        impl schemars::JsonSchema for $responses {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($responses).into()
            }
            fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
                let results = Vec::from([
                    $(
                        $(#[cfg($cfg)])?
                        $crate::schema_parts::titled_gated(
                            stringify!($result),
                            generator.subschema_for::<$result>(),
                            None $(.or(Some(stringify!($cfg))))?,
                        ),
                    )+
                    $crate::schema_parts::titled("ExtMethodResponse", generator.subschema_for::<ExtResponse>()),
                ]);
                $crate::schema_parts::response_envelope(
                    generator.subschema_for::<RequestId>(),
                    generator.subschema_for::<Error>(),
                    results,
                )
            }
        }
    };
}

/// Declares the notification methods one side handles: a marker type per method and the
/// routing enum of their params. Entries may be behind a cargo feature, as in
/// [`request_table!`].
macro_rules! notification_table {
    (
        $(#[doc = $doc:expr])*
        $notifications:ident {
            $(
                $(#[doc = $mdoc:expr])*
                $(#[cfg($cfg:meta)])?
                $marker:ident = $method:literal ($params:ty);
            )+
        }
    ) => {
        $(
            $(#[doc = $mdoc])*
            $(#[cfg($cfg)])?
            #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
            pub struct $marker;

            $(#[cfg($cfg)])?
            impl $crate::method::NotificationMethod for $marker {
                const METHOD: &'static str = $method;
                type Params = $params;
            }
        )+

        $(#[doc = $doc])*
        ///
        /// Each variant holds the decoded `params` of one method; [`Self::decode`] picks the
        /// variant from the method name. Encoding writes the params only.
        // Variants hold params by value: boxing the large ones would cost an allocation per
        // decoded message on the hot path, for a smaller enum that is rarely stored.
        #[allow(clippy::large_enum_variant)]
        #[derive(Debug, Clone, PartialEq)]
        #[non_exhaustive]
        pub enum $notifications {
            $(
                #[doc = concat!("`", $method, "`: see [`", stringify!($marker), "`].")]
                $(#[cfg($cfg)])?
                $marker($params),
            )+
            /// An extension notification (name starting with `_`), params kept raw.
            Extension($crate::method::Extension),
        }

        impl $notifications {
            /// Every method of this table with the enabled cargo features, in declaration
            /// order.
            pub const METHODS: &'static [&'static str] = &[$( $(#[cfg($cfg)])? $method, )+];

            /// The method name this value is sent with.
            pub fn method(&self) -> &str {
                match self {
                    $( $(#[cfg($cfg)])? Self::$marker(_) => $method, )+
                    Self::Extension(extension) => &extension.method,
                }
            }

            /// Decodes the params of a notification for `method`. Absent params decode as `{}`.
            ///
            /// Fails with [`crate::Error::UnknownMethod`] or [`crate::Error::InvalidParams`].
            pub fn decode(
                method: &str,
                params: Option<&serde_json::value::RawValue>,
            ) -> Result<Self, $crate::Error> {
                match method {
                    $(
                        $(#[cfg($cfg)])?
                        $method => $crate::method::decode_payload(
                            method,
                            $crate::method::params_or_empty(params),
                        )
                        .map(Self::$marker),
                    )+
                    other if $crate::method::is_extension(other) => Ok(Self::Extension(
                        $crate::method::Extension::new(other, $crate::method::raw_or_null(params)),
                    )),
                    other => Err($crate::Error::UnknownMethod { method: other.to_owned() }),
                }
            }

            /// Decodes the params of a notification for `method` straight from `deserializer`
            /// (positioned at the params value), without first copying them out as raw JSON.
            ///
            /// This is the one-pass form of [`Self::decode`] for hot paths. It accepts the
            /// params `decode` accepts (short of the deserializer's nesting limit, which counts
            /// from the root of the whole document), but its errors are the deserializer's own
            /// (no path inside the params, no [`crate::Error`] variant), and a `null` value is
            /// an error rather than "no params". Extension params are kept raw, which needs
            /// `serde_json`'s deserializer; other formats fail for them.
            pub fn deserialize_params<'de, D: serde::Deserializer<'de>>(
                method: &str,
                deserializer: D,
            ) -> Result<Self, D::Error> {
                match method {
                    $(
                        $(#[cfg($cfg)])?
                        $method => <$params as serde::Deserialize>::deserialize(deserializer)
                            .map(Self::$marker),
                    )+
                    other if $crate::method::is_extension(other) => {
                        <Box<serde_json::value::RawValue> as serde::Deserialize>::deserialize(
                            deserializer,
                        )
                        .map(|payload| Self::Extension($crate::method::Extension::new(other, payload)))
                    }
                    other => Err(<D::Error as serde::de::Error>::custom(format_args!(
                        "unknown notification method `{other}`"
                    ))),
                }
            }
        }

        impl serde::Serialize for $notifications {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                match self {
                    $( $(#[cfg($cfg)])? Self::$marker(params) => params.serialize(serializer), )+
                    Self::Extension(extension) => extension.serialize(serializer),
                }
            }
        }

        #[cfg(feature = "schemars")]
        impl schemars::JsonSchema for $notifications {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($notifications).into()
            }
            fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
                let params = Vec::from([
                    $(
                        $(#[cfg($cfg)])?
                        $crate::schema_parts::titled_gated(
                            stringify!($params),
                            generator.subschema_for::<$params>(),
                            None $(.or(Some(stringify!($cfg))))?,
                        ),
                    )+
                    $crate::schema_parts::titled("ExtNotification", generator.subschema_for::<ExtNotification>()),
                ]);
                $crate::schema_parts::notification_envelope(params)
            }
        }
    };
}
