//! Slash commands in the terminal UI's input line: the client's own (`/mode ID`,
//! `/set CONFIG_ID VALUE`), which never reach the agent, and the agent's available commands,
//! which are sent as prompts. Typing `/` offers the matching commands; Tab completes.

use acptk_runtime::client::transcript::Command as AgentCommand;

/// The client's own commands: name, argument hint, what it does.
pub const CLIENT_COMMANDS: &[(&str, &str, &str)] = &[
    ("mode", "ID", "switch the session's mode"),
    (
        "set",
        "CONFIG_ID VALUE",
        "set one of the session's config options",
    ),
];

/// The most completions offered at once.
pub const MAX_COMPLETIONS: usize = 8;

/// What the input line asks for, when it is one of the client's commands.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ClientCommand {
    /// `/mode ID`; `None` lists the modes.
    Mode(Option<String>),
    /// `/set CONFIG_ID VALUE`; `None` lists the options (a missing value is an error).
    Set(Option<(String, String)>),
    /// A client command used wrongly, with the message.
    Invalid(String),
}

/// Reads `input` as one of the client's commands; `None` for anything else (a prompt, or an
/// agent command, which goes to the agent).
#[must_use]
pub fn parse(input: &str) -> Option<ClientCommand> {
    let rest = input.trim().strip_prefix('/')?;
    let (name, args) = rest
        .split_once(char::is_whitespace)
        .map_or((rest, ""), |(name, args)| (name, args.trim()));
    match name {
        "mode" if args.is_empty() => Some(ClientCommand::Mode(None)),
        "mode" => Some(ClientCommand::Mode(Some(args.to_owned()))),
        "set" if args.is_empty() => Some(ClientCommand::Set(None)),
        "set" => match args.split_once(char::is_whitespace) {
            Some((id, value)) => Some(ClientCommand::Set(Some((
                id.to_owned(),
                value.trim().to_owned(),
            )))),
            None => Some(ClientCommand::Invalid(format!(
                "/set {args}: give a value too (/set CONFIG_ID VALUE)"
            ))),
        },
        _ => None,
    }
}

/// One offered completion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completion {
    /// The command name, without `/`.
    pub name: String,
    /// Its argument hint, if any.
    pub hint: Option<String>,
    /// What it does.
    pub description: String,
    /// Whether it is the client's own command (not sent to the agent).
    pub local: bool,
}

/// The commands matching what is typed: only while the input is `/` and a partial name (no
/// space yet). The client's commands come first, then the agent's, each by name.
#[must_use]
pub fn completions(input: &str, agent: &[AgentCommand]) -> Vec<Completion> {
    let Some(typed) = input.strip_prefix('/') else {
        return Vec::new();
    };
    if typed.contains(char::is_whitespace) {
        return Vec::new();
    }
    let local = CLIENT_COMMANDS
        .iter()
        .filter(|(name, _, _)| name.starts_with(typed))
        .map(|(name, hint, description)| Completion {
            name: (*name).to_owned(),
            hint: Some((*hint).to_owned()),
            description: (*description).to_owned(),
            local: true,
        });
    let theirs = agent
        .iter()
        .filter(|command| command.name.starts_with(typed))
        .filter(|command| {
            !CLIENT_COMMANDS
                .iter()
                .any(|(name, _, _)| *name == command.name)
        })
        .map(|command| Completion {
            name: command.name.clone(),
            hint: command.hint.clone(),
            description: command.description.clone(),
            local: false,
        });
    local.chain(theirs).take(MAX_COMPLETIONS).collect()
}
