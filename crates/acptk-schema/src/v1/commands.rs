//! Slash commands that an agent advertises to the client (`available_commands_update`).

#[allow(unused_imports)]
use super::*;

slash_command! {
    /// A command the user can run by typing `/name` in the prompt.
    ///
    /// ```json
    /// {"name": "web", "description": "Search the web", "input": {"hint": "query"}}
    /// ```
    AvailableCommand
}

/// How a command takes input. ACP v1 knows one form, free text after the command name; the
/// object carries no tag.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum AvailableCommandInput {
    /// Free text typed after the command, with a hint about what to type.
    Unstructured(UnstructuredCommandInput),
}

from_variants!(AvailableCommandInput { Unstructured(UnstructuredCommandInput) });

impl serde::Serialize for AvailableCommandInput {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Unstructured(input) => serde::Serialize::serialize(input, serializer),
        }
    }
}

impl<'de> serde::Deserialize<'de> for AvailableCommandInput {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        <UnstructuredCommandInput as serde::Deserialize>::deserialize(deserializer)
            .map(Self::Unstructured)
    }
}

schema_impl!(AvailableCommandInput, |generator| {
    let unstructured = generator.subschema_for::<UnstructuredCommandInput>();
    schemars::json_schema!({
        "anyOf": [{ "title": "unstructured", "allOf": [unstructured] }]
    })
});

wire_struct! {
    /// Free-text input for a command.
    pub struct UnstructuredCommandInput {
        /// Placeholder text shown while the user has not typed any input yet.
        pub hint: String,
    }
}

constructor! {
    /// Builds free-text input with a placeholder hint.
    UnstructuredCommandInput(hint: impl Into<String>) { meta: None }
}

available_commands_update! {
    /// A session update that replaces the list of commands the agent offers.
    ///
    /// ```json
    /// {"sessionUpdate": "available_commands_update",
    ///  "availableCommands": [{"name": "plan", "description": "Make a plan first"}]}
    /// ```
    available_commands:
    /// The complete new list. Entries that do not decode are skipped; a value that is not
    /// a list is treated as empty.
    #[serde(deserialize_with = "crate::de::lenient_items")]
}
