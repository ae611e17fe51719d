//! Slash commands in the terminal UI's input line: the client's own (`/help`, `/mode ID`,
//! `/set CONFIG_ID VALUE`), which never reach the agent, and the agent's available commands,
//! which are sent as prompts. Typing `/` offers the matching commands; Tab completes.

use acptk_runtime::client::transcript::Command as AgentCommand;

/// The client's own commands: name, argument hint, what it does.
pub const CLIENT_COMMANDS: &[(&str, &str, &str)] = &[
    ("help", "", "list the keys and the commands"),
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
    /// `/help`: the keys and the commands.
    Help,
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
        "help" => Some(ClientCommand::Help),
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
            hint: Some((*hint).to_owned()).filter(|hint| !hint.is_empty()),
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

/// The terminal UI's keys: key, what it does.
const TUI_KEYS: &[(&str, &str)] = &[
    (
        "Enter",
        "send the prompt (while a turn runs, only /mode and /set go through)",
    ),
    (
        "Alt-Enter, Ctrl-J, Shift-Enter",
        "a new line in the prompt (Shift-Enter only where the terminal reports it: the client turns on the kitty keyboard protocol when the terminal has it)",
    ),
    ("Left, Right, Ctrl-B, Ctrl-F", "a character back, forward"),
    (
        "Ctrl-Left, Ctrl-Right, Alt-B, Alt-F",
        "a word back, forward",
    ),
    ("Home, End, Ctrl-A, Ctrl-E", "start, end of the line"),
    ("Backspace, Delete", "delete a character"),
    (
        "Ctrl-W, Alt-Backspace, Alt-D",
        "delete the word before, after the cursor",
    ),
    (
        "Ctrl-U, Ctrl-K",
        "delete to the start, to the end of the line",
    ),
    ("Ctrl-Z, Ctrl-Y", "undo, redo"),
    (
        "Up, Down",
        "a line up or down; from the first or last line, the earlier prompts",
    ),
    ("Tab", "complete a / command"),
    (
        "PgUp, PgDn, Ctrl-Home, Ctrl-End",
        "scroll the conversation; its top; back to its end",
    ),
    ("Ctrl-T", "fold or unfold the agent's thoughts"),
    ("Ctrl-O", "show tool output whole, or only its last lines"),
    ("Ctrl-N", "open or close the notice list"),
    (
        "Ctrl-G",
        "open or close the agent pane: its standard error and the protocol problems (Esc also closes it)",
    ),
    (
        "Ctrl-R",
        "when the agent has gone: start it again and continue the session",
    ),
    (
        "Esc, Ctrl-D, Ctrl-X",
        "dismiss the oldest toast, all toasts (Esc also closes the list)",
    ),
    ("Ctrl-C", "cancel the running turn; when none runs, leave"),
    ("Ctrl-Q", "leave"),
];

/// What `/help` says: the keys (in the terminal UI; `keys` false in plain mode, which reads
/// lines), the client's commands, then the agent's.
#[must_use]
pub fn help(agent: &[AgentCommand], keys: bool) -> Vec<String> {
    let mut lines = Vec::new();
    if keys {
        lines.push("keys:".to_owned());
        lines.extend(TUI_KEYS.iter().map(|(key, what)| format!("{key}: {what}")));
    } else {
        lines.push(
            "a line is a prompt; a line of \"\"\" starts and ends one of several lines".to_owned(),
        );
        lines.push("/notices: the session's notices".to_owned());
        lines.push("/quit: leave".to_owned());
    }
    lines.push("the client's commands (never sent to the agent):".to_owned());
    lines.extend(CLIENT_COMMANDS.iter().map(|(name, hint, what)| {
        let name = [*name, *hint].join(" ");
        format!("/{}: {what}", name.trim_end())
    }));
    if agent.is_empty() {
        lines.push("the agent offers no commands".to_owned());
    } else {
        lines.push("the agent's commands (sent to it as a prompt):".to_owned());
        lines.extend(agent.iter().map(|command| {
            let hint = command
                .hint
                .as_deref()
                .map(|hint| format!(" {hint}"))
                .unwrap_or_default();
            format!("/{}{hint}: {}", command.name, command.description)
        }));
    }
    lines
}
