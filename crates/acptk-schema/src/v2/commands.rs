//! Commands in ACP v2: the slash commands an agent advertises, and the permission subject for
//! running a shell command.

#[allow(unused_imports)]
use super::*;

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
        #[opt("crate::de::lenient_string")]
        pub tool_call_id: Option<ToolCallId>,
        /// The terminal it would run in, if one exists already. A malformed value is treated as
        /// absent.
        #[opt("crate::de::lenient_string")]
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

tagged_union! {
    /// An entry of the command list, tagged by `type`: a slash command, or (with the
    /// `unstable_agent_skills` feature) a skill.
    ///
    /// The union is open: an entry of a kind this crate does not know is kept verbatim as
    /// [`AvailableCommand::Other`], but it must still carry a string `name` and `description` so
    /// that a client can list it. A known `type` whose fields do not fit is an error.
    ///
    /// ```json
    /// {"type": "command", "name": "web", "description": "Search the web", "input": {"type": "text", "hint": "query"}}
    /// ```
    pub enum AvailableCommand("type") open(Other requires("name": String, "description": String)) {
        /// A slash command (`"type": "command"`), run by typing `/name` in the prompt.
        Command(Command) = "command",
        /// A skill of the agent (`"type": "skill"`), invoked with a `skill` content block that
        /// names it. Sent only to clients that advertised `session.commands.skill`.
        #[cfg(feature = "unstable_agent_skills")]
        Skill(Skill) = "skill",
    }
}

impl AvailableCommand {
    /// The entry's name (for a command, without the leading `/`).
    pub fn name(&self) -> &str {
        match self {
            Self::Command(command) => &command.name,
            #[cfg(feature = "unstable_agent_skills")]
            Self::Skill(skill) => &skill.name,
            Self::Other(unknown) => unknown.str_field("name"),
        }
    }

    /// What the entry does, for the user.
    pub fn description(&self) -> &str {
        match self {
            Self::Command(command) => &command.description,
            #[cfg(feature = "unstable_agent_skills")]
            Self::Skill(skill) => &skill.description,
            Self::Other(unknown) => unknown.str_field("description"),
        }
    }
}

from_variants!(AvailableCommand { Command(Command) });

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

constructor! {
    /// Builds free-text input with a placeholder hint.
    TextCommandInput(hint: impl Into<String>) { meta: None }
}

slash_command! {
    /// A command the user can run by typing `/name` in the prompt.
    Command
}

available_commands_update! {
    /// A session update that replaces the list of commands the agent offers.
    ///
    /// ```json
    /// {"sessionUpdate": "available_commands_update",
    ///  "availableCommands": [{"type": "command", "name": "plan", "description": "Make a plan first"}]}
    /// ```
    available_commands:
    /// The complete new list. Entries that do not decode are skipped.
    #[serde(deserialize_with = "crate::de::items_skip_invalid")]
}
