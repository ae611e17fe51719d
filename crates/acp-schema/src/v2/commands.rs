//! Commands in ACP v2: the slash commands an agent advertises, and the permission subject for
//! running a shell command.

#[allow(unused_imports)]
use super::*;

use std::fmt;

use serde::de::{MapAccess, Visitor};

use super::auth::{string_field, unknown_with_strings};

wire_struct! {
    /// The subject of a permission request to run a shell command.
    ///
    /// ```json
    /// {"command": "cargo test", "cwd": "/home/me/project", "toolCallId": "call_1"}
    /// ```
    pub struct CommandPermissionSubject {
        /// The command line that would run.
        pub command: String,
        /// The absolute directory it would run in.
        pub cwd: AbsolutePath,
        /// The tool call that wants to run it, if any. A malformed value is treated as absent.
        #[serde(
            default,
            deserialize_with = "crate::de::lenient_string",
            skip_serializing_if = "Option::is_none",
        )]
        pub tool_call_id: Option<ToolCallId>,
        /// The terminal it would run in, if one exists already. A malformed value is treated as
        /// absent.
        #[serde(
            default,
            deserialize_with = "crate::de::lenient_string",
            skip_serializing_if = "Option::is_none",
        )]
        pub terminal_id: Option<TerminalId>,
    }
}

impl CommandPermissionSubject {
    /// Builds the subject for `command` run in `cwd`.
    pub fn new(command: impl Into<String>, cwd: impl Into<AbsolutePath>) -> Self {
        Self {
            command: command.into(),
            cwd: cwd.into(),
            tool_call_id: None,
            terminal_id: None,
            meta: None,
        }
    }
}

setters!(CommandPermissionSubject { opt tool_call_id: ToolCallId, opt terminal_id: TerminalId });

const COMMAND: &str = "command";
const NAME: &str = "name";
const DESCRIPTION: &str = "description";

/// An entry of the command list, tagged by `type`.
///
/// The union is open: an entry of a kind this crate does not know is kept verbatim as
/// [`AvailableCommand::Other`], but it must still carry a string `name` and `description` so
/// that a client can list it. A known `type` whose fields do not fit is an error.
///
/// ```json
/// {"type": "command", "name": "web", "description": "Search the web", "input": {"type": "text", "hint": "query"}}
/// ```
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(tag = "type")]
#[non_exhaustive]
pub enum AvailableCommand {
    /// A slash command (`"type": "command"`).
    #[serde(rename = "command")]
    Command(Command),
    /// A kind of entry this crate does not know, kept verbatim (it has a string `name` and
    /// `description`).
    #[serde(untagged)]
    Other(crate::UnknownVariant),
}

impl AvailableCommand {
    /// The name of the JSON field holding the tag.
    pub const TAG_KEY: &'static str = "type";

    /// Every tag this union knows, in declaration order.
    pub const TAGS: &'static [&'static str] = &[COMMAND];

    /// The tag this value is written with.
    pub fn tag(&self) -> &str {
        match self {
            Self::Command(_) => COMMAND,
            Self::Other(unknown) => unknown.tag(),
        }
    }

    /// The entry's name (for a command, without the leading `/`).
    pub fn name(&self) -> &str {
        match self {
            Self::Command(command) => &command.name,
            Self::Other(unknown) => string_field(unknown, NAME),
        }
    }

    /// What the entry does, for the user.
    pub fn description(&self) -> &str {
        match self {
            Self::Command(command) => &command.description,
            Self::Other(unknown) => string_field(unknown, DESCRIPTION),
        }
    }

    /// Builds an entry of a kind this crate does not know: `tag` plus the required `name` and
    /// `description`, and any further `fields`. Fails with [`crate::Error::KnownTag`] when
    /// `tag` is one of [`Self::TAGS`].
    pub fn unknown(
        tag: impl Into<String>,
        name: impl Into<String>,
        description: impl Into<String>,
        mut fields: crate::unknown::Fields,
    ) -> Result<Self, crate::Error> {
        let tag = tag.into();
        if Self::TAGS.contains(&tag.as_str()) {
            return Err(crate::Error::KnownTag { tag });
        }
        fields.insert(NAME.into(), serde_json::Value::String(name.into()));
        fields.insert(
            DESCRIPTION.into(),
            serde_json::Value::String(description.into()),
        );
        Ok(Self::Other(crate::UnknownVariant::new(
            Self::TAG_KEY,
            tag,
            fields,
        )))
    }
}

impl From<Command> for AvailableCommand {
    fn from(command: Command) -> Self {
        Self::Command(command)
    }
}

impl<'de> serde::Deserialize<'de> for AvailableCommand {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = AvailableCommand;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a command entry tagged by `type`")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<AvailableCommand, A::Error> {
                let (tag, payload) = crate::de::tagged::read_tag(map, AvailableCommand::TAG_KEY)?;
                match &*tag {
                    COMMAND => payload.decode().map(AvailableCommand::Command),
                    _ => unknown_with_strings(
                        AvailableCommand::TAG_KEY,
                        tag.into_owned(),
                        payload.into_fields()?,
                        &[NAME, DESCRIPTION],
                    )
                    .map(AvailableCommand::Other),
                }
            }
        }
        deserializer.deserialize_map(V)
    }
}

#[cfg(feature = "schemars")]
impl schemars::JsonSchema for AvailableCommand {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "AvailableCommand".into()
    }
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let tag = |value: &str| {
            serde_json::json!({
                "type": "object",
                "properties": { "type": { "type": "string", "const": value } },
                "required": ["type"],
            })
        };
        let mut command = tag(COMMAND);
        command["allOf"] = serde_json::json!([generator.subschema_for::<Command>()]);
        let other = serde_json::json!({
            "title": "other",
            "type": "object",
            "properties": {
                "type": { "type": "string" },
                "name": { "type": "string" },
                "description": { "type": "string" }
            },
            "required": ["type", NAME, DESCRIPTION],
            "not": { "anyOf": Self::TAGS.iter().map(|value| tag(value)).collect::<Vec<_>>() },
            "additionalProperties": true
        });
        crate::schema::union_schema(vec![command, other], Self::TAG_KEY, false)
    }
}

tagged_union! {
    /// How a command takes input, tagged by `type`. Open: an unknown kind of input is kept
    /// verbatim.
    pub enum AvailableCommandInput("type") open(Other) {
        /// Free text typed after the command name.
        Text(TextCommandInput) = "text",
    }
}

wire_struct! {
    /// Free-text input for a command.
    pub struct TextCommandInput {
        /// Placeholder text shown while the user has not typed any input yet.
        pub hint: String,
    }
}

impl TextCommandInput {
    /// Builds free-text input with a placeholder hint.
    pub fn new(hint: impl Into<String>) -> Self {
        Self {
            hint: hint.into(),
            meta: None,
        }
    }
}

wire_struct! {
    /// A command the user can run by typing `/name` in the prompt.
    pub struct Command {
        /// The command name, without the leading `/`.
        pub name: String,
        /// What the command does, for the user.
        pub description: String,
        /// How the command takes input, if it takes any. A malformed value is treated as
        /// absent.
        #[serde(
            default,
            deserialize_with = "crate::de::lenient",
            skip_serializing_if = "Option::is_none",
        )]
        pub input: Option<AvailableCommandInput>,
    }
}

impl Command {
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

setters!(Command { opt input: AvailableCommandInput });

wire_struct! {
    /// A session update that replaces the list of commands the agent offers.
    ///
    /// ```json
    /// {"sessionUpdate": "available_commands_update",
    ///  "availableCommands": [{"type": "command", "name": "plan", "description": "Make a plan first"}]}
    /// ```
    pub struct AvailableCommandsUpdate {
        /// The complete new list. Entries that do not decode are skipped.
        #[serde(deserialize_with = "crate::de::items_skip_invalid")]
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
