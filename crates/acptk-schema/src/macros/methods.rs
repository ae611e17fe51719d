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
        params_table! {
            $(#[doc = $doc])*
            $requests: RequestMethod {
                $(
                    $(#[doc = $mdoc])*
                    $(#[cfg($cfg)])?
                    $marker = $method ($params) {
                        type Result = $result;
                        fn decode_params(text: &str) -> Result<$params, serde_json::Error> {
                            serde_json::from_str(text)
                        }
                        fn encode_params(
                            params: &$params,
                        ) -> Result<Box<serde_json::value::RawValue>, serde_json::Error> {
                            serde_json::value::to_raw_value(params)
                        }
                        fn decode_result(text: &str) -> Result<$result, serde_json::Error> {
                            serde_json::from_str(text)
                        }
                        fn encode_result(
                            result: &$result,
                        ) -> Result<Box<serde_json::value::RawValue>, serde_json::Error> {
                            serde_json::value::to_raw_value(result)
                        }
                    }
                )+
            }
            extension: "An extension method (name starting with `_`), params kept raw.",
            /// Decodes the params of a request for `method`. Absent params decode as `{}`.
            ///
            /// Fails with [`crate::Error::UnknownMethod`] for a method outside the table that
            /// is not an extension, and with [`crate::Error::InvalidParams`] (naming the path
            /// inside the params) when the params do not fit the method.
        }

        table_enum! {
            #[doc = concat!("The results of [`", stringify!($requests), "`] methods, keyed by method.")]
            ///
            /// A response carries no method name, so [`Self::decode`] takes the method of the
            /// request it answers (known from the request id). Encoding writes the result only.
            $responses {
                $(
                    #[doc = concat!("Result of `", $method, "`.")]
                    $(#[cfg($cfg)])?
                    $marker = $method ($result);
                )+
            }
            extension: "The result of an extension method, kept raw.",
            method: "The method whose result this is.",
        }

        impl $responses {
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

        table_schema! {
            $requests ("ExtMethodRequest", ExtRequest) |generator, params|
                $crate::schema_parts::request_envelope(generator.subschema_for::<RequestId>(), params);
            $( $(#[cfg($cfg)])? $params; )+
        }

        table_schema! {
            $responses ("ExtMethodResponse", ExtResponse) |generator, results|
                $crate::schema_parts::response_envelope(
                    generator.subschema_for::<RequestId>(),
                    generator.subschema_for::<Error>(),
                    results,
                );
            $( $(#[cfg($cfg)])? $result; )+
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
        params_table! {
            $(#[doc = $doc])*
            $notifications: NotificationMethod {
                $(
                    $(#[doc = $mdoc])*
                    $(#[cfg($cfg)])?
                    $marker = $method ($params) {
                        fn decode_params(text: &str) -> Result<$params, serde_json::Error> {
                            serde_json::from_str(text)
                        }
                        fn encode_notification(params: &$params) -> Result<Vec<u8>, serde_json::Error> {
                            serde_json::to_vec(&$crate::jsonrpc::Notification::new($method, Some(params)))
                        }
                    }
                )+
            }
            extension: "An extension notification (name starting with `_`), params kept raw.",
            /// Decodes the params of a notification for `method`. Absent params decode as `{}`.
            ///
            /// Fails with [`crate::Error::UnknownMethod`] or [`crate::Error::InvalidParams`].
        }

        impl $notifications {
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

        impl $notifications {
            /// [`Self::deserialize_params`] for `serde_json`'s deserializer of text, compiled
            /// once in this crate: a caller that names this function does not compile its own
            /// copy of every params decoder (see
            /// [`RequestMethod::decode_params`](crate::method::RequestMethod::decode_params)).
            pub fn read_params<'de>(
                method: &str,
                deserializer: &mut serde_json::Deserializer<serde_json::de::StrRead<'de>>,
            ) -> Result<Self, serde_json::Error> {
                Self::deserialize_params(method, deserializer)
            }
        }

        table_schema! {
            $notifications ("ExtNotification", ExtNotification) |generator, params|
                $crate::schema_parts::notification_envelope(params);
            $( $(#[cfg($cfg)])? $params; )+
        }
    };
}

/// The part of a request or notification table that is the same for both: a marker type per
/// method implementing `$trait` (with the associated items given in braces after each row),
/// and the routing enum of the params with `METHODS` and `decode` (documented with the docs
/// after `extension:`).
macro_rules! params_table {
    (
        $(#[doc = $doc:expr])*
        $name:ident: $trait:ident {
            $(
                $(#[doc = $mdoc:expr])*
                $(#[cfg($cfg:meta)])?
                $marker:ident = $method:literal ($params:ty) { $($assoc:tt)* }
            )+
        }
        extension: $ext_doc:literal,
        $(#[doc = $decode_doc:expr])*
    ) => {
        $(
            $(#[doc = $mdoc])*
            $(#[cfg($cfg)])?
            #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
            pub struct $marker;

            $(#[cfg($cfg)])?
            impl $crate::method::$trait for $marker {
                const METHOD: &'static str = $method;
                type Params = $params;
                $($assoc)*
            }
        )+

        table_enum! {
            $(#[doc = $doc])*
            ///
            /// Each variant holds the decoded `params` of one method; [`Self::decode`] picks the
            /// variant from the method name. Encoding writes the params only.
            $name {
                $(
                    #[doc = concat!("`", $method, "`: see [`", stringify!($marker), "`].")]
                    $(#[cfg($cfg)])?
                    $marker = $method ($params);
                )+
            }
            extension: $ext_doc,
            method: "The method name this value is sent with.",
        }

        table_enum! {
            @decode_params $name
            $(#[doc = $decode_doc])*
            { $( $(#[cfg($cfg)])? $marker = $method; )+ }
        }
    };
}

/// What every routing enum of a method table has: a variant per method (each behind its cargo
/// feature, if any) and `Extension`, `method()`, and a `Serialize` that writes the payload only.
/// The `@decode_params` form adds `METHODS` and `decode` to an enum of params (requests or
/// notifications), with the given docs on `decode`.
macro_rules! table_enum {
    (
        @decode_params $name:ident
        $(#[doc = $doc:expr])*
        { $( $(#[cfg($cfg:meta)])? $marker:ident = $method:literal; )+ }
    ) => {
        impl $name {
            /// Every method of this table with the enabled cargo features, in declaration
            /// order.
            pub const METHODS: &'static [&'static str] = &[$( $(#[cfg($cfg)])? $method, )+];

            $(#[doc = $doc])*
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
    };
    (
        $(#[doc = $doc:expr])*
        $name:ident {
            $(
                #[doc = $vdoc:expr]
                $(#[cfg($cfg:meta)])?
                $marker:ident = $method:literal ($payload:ty);
            )+
        }
        extension: $ext_doc:literal,
        method: $method_doc:literal,
    ) => {
        $(#[doc = $doc])*
        // Variants hold params by value: boxing the large ones would cost an allocation per
        // decoded message on the hot path, for a smaller enum that is rarely stored.
        #[allow(clippy::large_enum_variant)]
        #[derive(Debug, Clone, PartialEq)]
        #[non_exhaustive]
        pub enum $name {
            $(
                #[doc = $vdoc]
                $(#[cfg($cfg)])?
                $marker($payload),
            )+
            #[doc = $ext_doc]
            Extension($crate::method::Extension),
        }

        impl $name {
            #[doc = $method_doc]
            pub fn method(&self) -> &str {
                match self {
                    $( $(#[cfg($cfg)])? Self::$marker(_) => $method, )+
                    Self::Extension(extension) => &extension.method,
                }
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                match self {
                    $( $(#[cfg($cfg)])? Self::$marker(payload) => payload.serialize(serializer), )+
                    Self::Extension(extension) => extension.serialize(serializer),
                }
            }
        }
    };
}

/// The JSON Schema of a routing enum (with the `schemars` feature): one titled subschema per
/// payload type (marked unstable when behind a cargo feature), then the extension's, handed as
/// `$list` to the envelope expression.
macro_rules! table_schema {
    (
        $name:ident ($ext_title:literal, $ext:ty) |$generator:ident, $list:ident| $envelope:expr;
        $( $(#[cfg($cfg:meta)])? $payload:ty; )+
    ) => {
        schema_impl!($name, |$generator| {
            let $list = Vec::from([
                $(
                    $(#[cfg($cfg)])?
                    $crate::schema_parts::titled_gated(
                        stringify!($payload),
                        $generator.subschema_for::<$payload>(),
                        None $(.or(Some(stringify!($cfg))))?,
                    ),
                )+
                $crate::schema_parts::titled($ext_title, $generator.subschema_for::<$ext>()),
            ]);
            $envelope
        });
    };
}
