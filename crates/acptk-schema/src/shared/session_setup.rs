//! The end every session-setup request of both versions shares (`session/new`, v1's
//! `session/load`, `session/resume`): the client's system prompt and, with
//! `unstable_session_options`, the initial config option values.
//!
//! The type names in the macro resolve where it is invoked, in the version's module.

/// Declares a session-setup request with `wire_struct!`: the fields written in the invocation
/// come first, then `systemPrompt` and (with `unstable_session_options`) `configOptions`, in
/// that order on the wire and in the JSON Schema. It also writes the setters of those two
/// fields; the invocation writes the setters of its own fields.
///
/// Docs and `new(<arguments>) { <fields>, }` after the struct write its `new()` with
/// `constructor!`: the listed fields get the given values, the system prompt, the config
/// options and `_meta` start empty.
macro_rules! setup_request {
    (
        $(#[$attr:meta])*
        pub struct $name:ident { $($fields:tt)* }
        $(#[doc = $new_doc:expr])+
        new($($args:tt)*) { $($rest:tt)* }
    ) => {
        setup_request! {
            $(#[$attr])*
            pub struct $name { $($fields)* }
        }

        constructor! {
            $(#[doc = $new_doc])+
            $name($($args)*) {
                $($rest)*
                system_prompt: None,
                #[cfg(feature = "unstable_session_options")]
                config_options: Vec::new(),
                meta: None,
            }
        }
    };
    (
        $(#[$attr:meta])*
        pub struct $name:ident { $($fields:tt)* }
    ) => {
        wire_struct_ending! {
            {
                /// Extra system prompt text from the client; absent means the agent's own prompt only.
                #[opt]
                pub system_prompt: Option<SystemPrompt>,
                /// Initial config option values, applied in order after setup (only if the agent
                /// advertised `sessionCapabilities.options`); absent or `null` means none.
                #[unstable("unstable_session_options")]
                #[list("crate::de::null_as_default")]
                pub config_options: Vec<InitialSessionConfigOption>,
            }
            $(#[$attr])*
            pub struct $name { $($fields)* }
        }

        setters!($name { opt system_prompt: SystemPrompt });

        #[cfg(feature = "unstable_session_options")]
        setters!($name { set config_options: Vec<InitialSessionConfigOption> });
    };
}
