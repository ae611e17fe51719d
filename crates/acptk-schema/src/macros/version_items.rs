//! What both versions declare alike, as macros that each version invokes: the types stay
//! distinct per version (their fields name that version's types), but they are written once.

/// Declares a version's `IdleStateUpdate`: the stop reason (flattened, see `IdleStopReason`),
/// the token usage of the finished turn (cargo feature `unstable_end_turn_token_usage`) and
/// `_meta`, with its setters, decoder and JSON Schema. `new:` is the doc of its `new()`.
///
/// v2 adds `background: Vec<BackgroundWork> = "background" via BackgroundField`: the work that
/// keeps running after the turn, an optional list of that type under that key, decoded through
/// that field wrapper (which treats a malformed list as absent).
macro_rules! idle_state_update {
    (
        $(#[doc = $doc:expr])*
        new: $new_doc:literal
        $(, $field:ident: Vec<$work:ident> = $key:literal via $work_field:ident)? $(,)?
    ) => {
        $(#[doc = $doc])*
        #[derive(Debug, Clone, PartialEq, Default, serde::Serialize)]
        #[non_exhaustive]
        pub struct IdleStateUpdate {
            /// Why the turn ended, with the fields that belong to that reason; `None` when not given.
            #[serde(flatten, skip_serializing_if = "Option::is_none")]
            pub stop_reason: Option<IdleStopReason>,
            $(
                /// Work that keeps running in the background after the turn (terminals, tool calls,
                /// subagents). A malformed list is treated as absent.
                #[serde(skip_serializing_if = "Option::is_none")]
                pub $field: Option<Vec<$work>>,
            )?
            /// Token counts of the finished turn, if reported (cargo feature
            /// `unstable_end_turn_token_usage`). A malformed value is treated as absent; a repeated
            /// snapshot does not count as more usage.
            #[cfg(feature = "unstable_end_turn_token_usage")]
            #[serde(skip_serializing_if = "Option::is_none")]
            pub usage: Option<Box<Usage>>,
            /// Extension metadata (`_meta`). Absent when `None`; see [`crate::Meta`].
            #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
            pub meta: Option<crate::Meta>,
        }

        #[cfg(feature = "unstable_end_turn_token_usage")]
        setters!(IdleStateUpdate { boxed usage: Usage });

        default_new!(IdleStateUpdate, $new_doc);

        meta_setter!(IdleStateUpdate);

        setters!(IdleStateUpdate { opt stop_reason: IdleStopReason $(, opt $field: Vec<$work>)? });

        map_deserialize!(IdleStateUpdate, "an idle state object", |mut map| {
            #[cfg(feature = "unstable_end_turn_token_usage")]
            let mut usage = None;
            let mut meta = None;
            $(let mut $field: Option<Vec<$work>> = None;)?
            let mut parts = StopReasonParts::default();
            while let Some(key) = map.next_key::<String>()? {
                match key.as_str() {
                    #[cfg(feature = "unstable_end_turn_token_usage")]
                    "usage" => usage = map.next_value::<UsageField>()?.0.map(Box::new),
                    "_meta" => meta = map.next_value::<LenientMetaField>()?.0,
                    $($key => $field = map.next_value::<$work_field>()?.0,)?
                    _ => parts.entry(key, &mut map)?,
                }
            }
            Ok(IdleStateUpdate {
                stop_reason: parts.finish()?,
                $($field,)?
                #[cfg(feature = "unstable_end_turn_token_usage")]
                usage,
                meta,
            })
        });

        schema_impl!(IdleStateUpdate, |generator| {
            $(let $field = generator.subschema_for::<$work>();)?
            let alternatives = IdleStopReason::schema_alternatives(generator);
            #[allow(unused_mut)]
            let mut schema = serde_json::json!({
                "type": "object",
                "properties": {
                    $($key: {
                        "type": ["array", "null"],
                        "items": $field,
                        "x-deserialize-default-on-error": true
                    },)?
                    "_meta": state_meta_schema(),
                    "stopReason": { "type": ["string", "null"], "x-deserialize-default-on-error": true }
                },
                "anyOf": alternatives
            });
            #[cfg(feature = "unstable_end_turn_token_usage")]
            crate::schema_parts::add_property(
                &mut schema,
                "usage",
                serde_json::json!({
                    "anyOf": [generator.subschema_for::<Usage>(), { "type": "null" }],
                    "x-deserialize-default-on-error": true,
                    "x-unstable": "unstable_end_turn_token_usage",
                }),
            );
            schemars::Schema::try_from(schema).unwrap_or_default()
        });
    };
}

/// Declares a version's JSON-RPC error object `Error` (`code`, `message`, optional `data`,
/// no `_meta`), its `new(code, message)` and the setter of `data`. The invocation gives the
/// `data` field: its docs, its decoder shorthand and its type.
macro_rules! rpc_error_object {
    (
        $(#[$($data_attr:tt)*])*
        data: $data:ty $(,)?
    ) => {
        wire_struct! {
            no_meta
            /// The error object of a failed request (the JSON-RPC `error` member).
            ///
            /// ```json
            /// {"code": -32602, "message": "Invalid params", "data": "missing field `sessionId`"}
            /// ```
            pub struct Error {
                /// What kind of error this is.
                pub code: ErrorCode,
                /// A short, human-readable description, ideally one sentence.
                pub message: String,
                $(#[$($data_attr)*])*
                pub data: Option<$data>,
            }
        }

        impl Error {
            /// Builds an error with a code and a message and no data.
            pub fn new(code: impl Into<ErrorCode>, message: impl Into<String>) -> Self {
                Self {
                    code: code.into(),
                    message: message.into(),
                    data: None,
                }
            }
        }

        setters!(Error { opt data: $data });
    };
}

/// Declares a version's slash command object (`name`, `description` and an optional `input`),
/// its `new(name, description)` and the setter of `input`. The invocation gives its docs and
/// name: v1 calls it `AvailableCommand`, v2 `Command` (one kind of its `AvailableCommand`).
macro_rules! slash_command {
    ($(#[doc = $doc:expr])* $name:ident) => {
        wire_struct! {
            $(#[doc = $doc])*
            pub struct $name {
                /// The command name, without the leading `/`.
                pub name: String,
                /// What the command does, for the user.
                pub description: String,
                /// How the command takes input, if it takes any. A malformed value is treated as
                /// absent.
                #[opt("crate::de::lenient_object")]
                pub input: Option<AvailableCommandInput>,
            }
        }

        impl $name {
            /// Builds a command without input.
            pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
                Self {
                    name: name.into(),
                    description: description.into(),
                    input: None,
                    meta: None,
                }
            }
        }

        setters!($name { opt input: AvailableCommandInput });
    };
}

/// Declares a version's `available_commands_update` payload, `AvailableCommandsUpdate`, and its
/// `new(available_commands)`. The invocation gives the struct's docs, then, after
/// `available_commands:`, the docs and decoder of the list.
macro_rules! available_commands_update {
    (
        $(#[doc = $doc:expr])*
        available_commands: $(#[$($field_attr:tt)*])*
    ) => {
        wire_struct! {
            $(#[doc = $doc])*
            pub struct AvailableCommandsUpdate {
                $(#[$($field_attr)*])*
                pub available_commands: Vec<AvailableCommand>,
            }
        }

        impl AvailableCommandsUpdate {
            /// Builds the update from the complete list of commands.
            pub fn new(available_commands: impl Into<Vec<AvailableCommand>>) -> Self {
                Self {
                    available_commands: available_commands.into(),
                    meta: None,
                }
            }
        }
    };
}

/// Declares a version's `ToolCallContent` union (`content`, `diff`, `terminal`, `session`,
/// tagged by `type`), closed unless `open(Other)` is given. The invocation gives the union's
/// docs and, after `diff:`, the docs of its `Diff` variant.
macro_rules! tool_call_content {
    (
        $(#[doc = $doc:expr])*
        $(open($other:ident))?
        diff: $(#[doc = $diff_doc:expr])*
    ) => {
        tagged_union! {
            $(#[doc = $doc])*
            pub enum ToolCallContent("type") $(open($other))? {
                /// Ordinary content (text, an image, a resource...).
                Content(Content) = "content",
                $(#[doc = $diff_doc])*
                Diff(Diff) = "diff",
                /// A terminal whose output the client shows live.
                Terminal(Terminal) = "terminal",
                /// Another session (for example a subagent) doing the work.
                Session(SessionReference) = "session",
            }
        }
    };
}

/// Declares a version's `ToolCallLocation` (a path and an optional line), its encoder,
/// `new(path)` and the setter of `line`. The invocation gives the type of `path` (v1 a
/// `String`, v2 an `AbsolutePath`) and the docs and decoder of `line`.
macro_rules! tool_call_location {
    (path: $path:ty, line: $(#[$($line_attr:tt)*])*) => {
        wire_struct! {
            encoded
            /// A place in a file that a tool call works on, so that the client can follow along.
            pub struct ToolCallLocation {
                /// The absolute path of the file.
                pub path: $path,
                $(#[$($line_attr)*])*
                pub line: Option<u32>,
            }
        }

        encode_struct!(ToolCallLocation { req path, opt line, opt meta = "_meta" });

        impl ToolCallLocation {
            /// A location in `path`, without a line.
            pub fn new(path: impl Into<$path>) -> Self {
                Self {
                    path: path.into(),
                    line: None,
                    meta: None,
                }
            }
        }

        setters!(ToolCallLocation { opt line: u32 });
    };
}

/// Declares one of a version's answers that make a session active (`session/new`,
/// `session/resume`, `session/fork`, v1's `session/load`): the fields written in the
/// invocation, then the version's session-state fields (`state { ... }`, in `wire_struct!`
/// syntax) with their setters (`setters { ... }`).
///
/// With `new: "<doc>"` after a struct whose only own field is `session_id`, it also writes that
/// struct's `new(session_id)`, documented with `<doc>`, whose other fields get the values in
/// `empty { ... }`. Each version wraps this in its own `session_state_response!`.
macro_rules! session_state_response_of {
    (
        state { $($state:tt)* } setters { $($setters:tt)* } empty { $($empty:tt)* }
        $(#[$attr:meta])*
        pub struct $name:ident {
            $(#[doc = $field_doc:expr])*
            pub session_id: SessionId,
        }
        new: $new_doc:literal
    ) => {
        session_state_response_of! {
            state { $($state)* } setters { $($setters)* } empty { $($empty)* }
            $(#[$attr])*
            pub struct $name {
                $(#[doc = $field_doc])*
                pub session_id: SessionId,
            }
        }

        constructor! {
            #[doc = concat!(" ", $new_doc)]
            $name(session_id: impl Into<SessionId>) { $($empty)* meta: None }
        }
    };
    (
        state { $($state:tt)* } setters { $($setters:tt)* } empty { $($empty:tt)* }
        $(#[$attr:meta])*
        pub struct $name:ident { $($fields:tt)* }
    ) => {
        wire_struct_ending! {
            { $($state)* }
            $(#[$attr])*
            pub struct $name { $($fields)* }
        }

        setters!($name { $($setters)* });
    };
}

/// Declares a struct with `wire_struct!` whose fields are the ones written in the invocation
/// followed by the trailing fields given first in braces, in that order on the wire and in the
/// JSON Schema. The response and setup-request macros of both versions end their structs with it.
macro_rules! wire_struct_ending {
    (
        { $($trailing:tt)* }
        $(#[$attr:meta])*
        pub struct $name:ident { $($fields:tt)* }
    ) => {
        wire_struct! {
            $(#[$attr])*
            pub struct $name {
                $($fields)*
                $($trailing)*
            }
        }
    };
}

/// Declares a version's answers to the unstable session operations whose request is shared:
/// `session/fork` (`unstable_session_fork`: the new session's id and its state, through the
/// version's own `session_state_response!`), `session/options` (`unstable_session_options`:
/// the version's session-state fields alone) and `session/status` (`unstable_session_status`:
/// the status, then the fields given in `status { ... }`, with their setters and their values
/// in `new(status)`).
// The `session_ops` modules that use it exist only with one of those features.
#[allow(unused_macros)]
macro_rules! session_ops_responses {
    (status { $($fields:tt)* } setters { $($setters:tt)* } empty { $($empty:tt)* }) => {
        #[cfg(feature = "unstable_session_fork")]
        session_state_response! {
            /// The agent's answer to `session/fork`: the id of the new session and its initial
            /// state.
            pub struct ForkSessionResponse {
                /// The new session's id.
                pub session_id: SessionId,
            }
            new: "A response for the new session `session_id`."
        }

        #[cfg(feature = "unstable_session_options")]
        session_state_response! {
            /// The agent's answer to `session/options`: what the session would start with (the
            /// state a `session/new` answer would carry).
            #[derive(Default)]
            pub struct SessionOptionsResponse {
            }
        }

        #[cfg(feature = "unstable_session_options")]
        default_new!(SessionOptionsResponse, "A response with nothing to start with.");

        #[cfg(feature = "unstable_session_status")]
        wire_struct! {
            /// The agent's answer to `session/status`: a snapshot (a session reported `open` may
            /// be closed before the client's next request).
            pub struct SessionStatusResponse {
                /// Whether the agent has the session in memory.
                pub status: SessionStatus,
                $($fields)*
            }
        }

        #[cfg(feature = "unstable_session_status")]
        constructor! {
            /// A response reporting `status` and nothing else.
            SessionStatusResponse(status: impl Into<SessionStatus>) { $($empty)* meta: None }
        }

        #[cfg(feature = "unstable_session_status")]
        setters!(SessionStatusResponse { $($setters)* });
    };
}

/// Declares a version's elicitation string field and answer types: `StringPropertySchema`
/// (with its `new()` and setters), the multi-select choices `StringMultiSelectItems` and
/// `TitledMultiSelectItems` (with their `new()`), and the answer value `ElicitationContentValue`.
///
/// The invocation gives the docs of the string field, then `pattern` in `string { ... }` where
/// the field takes a `pattern` (v1); in `lists [ ... ]` the attributes of every list of choices
/// (v2 requires at least one) and after `choices:` the end of the docs of the multi-select
/// lists (their docs are in the JSON Schema); in `titled [ ... ]` more attributes of
/// `TitledMultiSelectItems`;
/// then the docs of the answer value and, in `answer { ... }`, the name of its variant for an
/// answer of another JSON kind, where it has one (v2).
macro_rules! elicitation_string_items {
    (
        $(#[doc = $doc:expr])*
        string { $($pattern:ident)? }
        lists [ $(#[$list_attr:meta])* ] choices: $choices:literal
        titled [ $(#[$titled_attr:meta])* ]
        $(#[doc = $answer_doc:expr])*
        answer { $($other:ident)? }
    ) => {
        wire_struct! {
            $(#[doc = $doc])*
            #[derive(Default)]
            pub struct StringPropertySchema {
                /// Label shown for the field; a malformed value is treated as absent.
                #[opt("crate::de::lenient_string")]
                pub title: Option<String>,
                /// Help text shown for the field; a malformed value is treated as absent.
                #[opt("crate::de::lenient_string")]
                pub description: Option<String>,
                /// Shortest accepted length in characters.
                #[opt]
                pub min_length: Option<u32>,
                /// Longest accepted length in characters.
                #[opt]
                pub max_length: Option<u32>,
                $(
                    /// A regular expression the value must match.
                    #[opt]
                    pub $pattern: Option<String>,
                )?
                /// A format the value must have.
                #[opt]
                pub format: Option<StringFormat>,
                /// Value to prefill; a malformed value is treated as absent.
                #[opt("crate::de::lenient_string")]
                pub default: Option<String>,
                /// The only accepted values, without labels (a single-select field).
                #[opt]
                $(#[$list_attr])*
                pub r#enum: Option<Vec<String>>,
                /// The only accepted values, with labels (a titled single-select field).
                #[opt]
                $(#[$list_attr])*
                pub one_of: Option<Vec<EnumOption>>,
            }
        }

        default_new!(StringPropertySchema, "A free-text field without constraints.");

        setters!(StringPropertySchema {
            opt title: String,
            opt description: String,
            opt min_length: u32,
            opt max_length: u32,
            $(opt $pattern: String,)?
            opt format: StringFormat,
            opt default: String,
            opt r#enum: Vec<String>,
            opt one_of: Vec<EnumOption>,
        });

        wire_struct! {
            /// Multi-select choices given as plain strings (`{"type": "string", "enum": [...]}`).
            pub struct StringMultiSelectItems {
                #[doc = concat!(" The values the user can pick from", $choices, ".")]
                $(#[$list_attr])*
                pub r#enum: Vec<String>,
            }
        }

        constructor! {
            /// Choices `values`.
            StringMultiSelectItems(r#enum: impl Into<Vec<String>>) { meta: None }
        }

        wire_struct! {
            /// Multi-select choices with labels (`{"anyOf": [{"const": ..., "title": ...}]}`).
            $(#[$titled_attr])*
            pub struct TitledMultiSelectItems {
                #[doc = concat!(" The choices the user can pick from", $choices, ".")]
                $(#[$list_attr])*
                pub any_of: Vec<EnumOption>,
            }
        }

        constructor! {
            /// Labelled choices `any_of`.
            TitledMultiSelectItems(any_of: impl Into<Vec<EnumOption>>) { meta: None }
        }

        $(#[doc = $answer_doc])*
        #[derive(Debug, Clone, PartialEq, serde::Serialize)]
        #[serde(untagged)]
        #[non_exhaustive]
        pub enum ElicitationContentValue {
            /// A text answer.
            String(String),
            /// An integer answer.
            Integer(i64),
            /// A non-integer (or out-of-range integer) numeric answer.
            Number(f64),
            /// A yes/no answer.
            Boolean(bool),
            /// The picks of a multi-select field.
            StringArray(Vec<String>),
            $(
                /// A value of another JSON kind (`null` or an object), kept verbatim.
                $other(serde_json::Value),
            )?
        }
    };
}
