//! Reading the replayable session updates of either protocol version into a [`Transcript`].
//!
//! The two versions carry the same facts in other types: a chunk of a message, a tool call's
//! content (text, diff, terminal), commands, a title. The version-specific part is only how a
//! value is read ([`WireChunk`], [`WireContent`]); what it changes in the transcript is said
//! once, in [`Transcript`]'s shared methods.

use acptk_schema::{v1, v2};

use super::{
    ChangedPath, Command, DIFF_TEXT_LIMIT, FileDiff, PlanItem, Role, ToolChange, ToolParts,
    Transcript, block_text,
};
use crate::client::controls::SessionControls;
use crate::client::diff_summary::{v1_diff, v2_diff};

impl Transcript {
    /// Applies one replayable v1 update.
    pub fn apply_v1(&mut self, session: &str, update: &v1::ReplayableUpdate) {
        use v1::ReplayableUpdate as U;
        match update {
            U::UserMessageChunk(chunk) => self.chunk(session, Role::User, chunk),
            U::AgentMessageChunk(chunk) => self.chunk(session, Role::Agent, chunk),
            U::AgentThoughtChunk(chunk) => self.chunk(session, Role::Thought, chunk),
            U::ToolCall(call) => self.upsert_tool_call(
                session,
                call.tool_call_id.as_str(),
                ToolChange {
                    title: Some(call.title.clone()),
                    status: Some(status_word(call.status.as_ref())),
                    kind: call.kind.as_ref().map(json_word),
                    content: Some(parts(&call.content)),
                },
            ),
            U::ToolCallUpdate(update) => self.upsert_tool_call(
                session,
                update.tool_call_id.as_str(),
                ToolChange {
                    title: update.title.clone(),
                    status: update.status.as_ref().map(|s| status_word(Some(s))),
                    kind: update.kind.as_ref().map(json_word),
                    content: update.content.as_deref().map(parts),
                },
            ),
            U::Plan(plan) => {
                self.entry(session).plan = plan
                    .entries
                    .iter()
                    .map(|entry| PlanItem {
                        content: entry.content.clone(),
                        status: json_word(&entry.status),
                    })
                    .collect();
            }
            U::AvailableCommandsUpdate(update) => {
                let commands = update.available_commands.iter().map(|command| {
                    let hint = match &command.input {
                        Some(v1::AvailableCommandInput::Unstructured(input)) => Some(&input.hint),
                        _ => None,
                    };
                    Command::of(&command.name, &command.description, hint)
                });
                self.entry(session).commands = commands.collect();
            }
            U::SessionInfoUpdate(info) => self.set_title(session, info.title.as_set()),
            U::CurrentModeUpdate(update) => {
                let mode = update.current_mode_id.as_str().to_owned();
                self.update_controls(session, |controls| controls.set_current_mode(&mode));
            }
            U::ConfigOptionUpdate(update) => {
                let options = SessionControls::options_from_v1(&update.config_options);
                self.update_controls(session, |controls| controls.config_options = options);
            }
            _ => {}
        }
    }

    /// Applies one replayable v2 update.
    pub fn apply_v2(&mut self, session: &str, update: &v2::ReplayableUpdate) {
        use v2::ReplayableUpdate as U;
        match update {
            U::UserMessageChunk(chunk) => self.chunk(session, Role::User, chunk),
            U::AgentMessageChunk(chunk) => self.chunk(session, Role::Agent, chunk),
            U::AgentThoughtChunk(chunk) => self.chunk(session, Role::Thought, chunk),
            U::UserMessage(m) => self.whole(session, Role::User, &m.message_id, &m.content),
            U::AgentMessage(m) => self.whole(session, Role::Agent, &m.message_id, &m.content),
            U::AgentThought(m) => self.whole(session, Role::Thought, &m.message_id, &m.content),
            U::ToolCallUpdate(update) => self.upsert_tool_call(
                session,
                update.tool_call_id.as_str(),
                ToolChange {
                    title: update.title.as_set().cloned(),
                    status: update
                        .status
                        .as_set()
                        .map(|status| status.as_str().to_owned()),
                    kind: update.kind.as_set().map(json_word),
                    content: update.content.as_set().map(|content| parts(content)),
                },
            ),
            U::ToolCallContentChunk(chunk) => {
                let more = parts(std::slice::from_ref(&chunk.content));
                if !(more.texts.is_empty() && more.diffs.is_empty() && more.terminals.is_empty()) {
                    self.extend_tool_call(session, chunk.tool_call_id.as_str(), more);
                }
            }
            U::StateUpdate(state) => {
                let running = matches!(**state, v2::StateUpdate::Running(_));
                self.set_running(session, running);
            }
            U::AvailableCommandsUpdate(update) => {
                let commands = update.available_commands.iter().filter_map(|command| {
                    let v2::AvailableCommand::Command(command) = command else {
                        return None;
                    };
                    let hint = match &command.input {
                        Some(v2::AvailableCommandInput::Text(input)) => Some(&input.hint),
                        _ => None,
                    };
                    Some(Command::of(&command.name, &command.description, hint))
                });
                self.entry(session).commands = commands.collect();
            }
            U::SessionInfoUpdate(info) => self.set_title(session, info.title.as_set()),
            U::ConfigOptionUpdate(update) => {
                let options = SessionControls::options_from_v2(&update.config_options);
                self.update_controls(session, |controls| controls.config_options = options);
            }
            _ => {}
        }
    }

    /// A streamed chunk of a message of `role`, of either version.
    fn chunk(&mut self, session: &str, role: Role, chunk: &impl WireChunk) {
        self.append_chunk(session, role, chunk.message_id(), &chunk.text());
    }

    /// A v2 whole-message update: its content (when set) replaces the message's text.
    fn whole(
        &mut self,
        session: &str,
        role: Role,
        id: &v2::MessageId,
        content: &acptk_schema::Patch<Vec<v2::ContentBlock>>,
    ) {
        let text = content.as_set().map(|blocks| v2_text(blocks));
        self.set_message(session, role, id.as_str(), text);
    }

    /// A session info update: a title that is set replaces the session's title.
    fn set_title(&mut self, session: &str, title: Option<&String>) {
        if let Some(title) = title {
            self.entry(session).title = Some(title.clone());
        }
    }
}

impl Command {
    fn of(name: &str, description: &str, hint: Option<&String>) -> Self {
        Self {
            name: name.to_owned(),
            description: description.to_owned(),
            hint: hint.cloned(),
        }
    }
}

/// A streamed message chunk of either version.
trait WireChunk {
    /// The message id (optional in v1).
    fn message_id(&self) -> Option<&str>;
    /// Its text (a non-text block as a placeholder).
    fn text(&self) -> String;
}

impl WireChunk for v1::ContentChunk {
    fn message_id(&self) -> Option<&str> {
        self.message_id.as_ref().map(|id| id.as_str())
    }

    fn text(&self) -> String {
        block_text(self.content.as_text())
    }
}

impl WireChunk for v2::ContentChunk {
    fn message_id(&self) -> Option<&str> {
        Some(self.message_id.as_str())
    }

    fn text(&self) -> String {
        block_text(self.content.as_text())
    }
}

/// One item of a tool call's content, as read from either version.
enum Part {
    Text(String),
    Diff(FileDiff),
    Terminal(String),
}

/// A tool call content item of either version.
trait WireContent {
    /// What the item shows; `None` for a kind this client does not know.
    fn part(&self) -> Option<Part>;
}

/// A tool call's content read into texts, diffs and terminals, in order.
fn parts<C: WireContent>(content: &[C]) -> ToolParts {
    let mut parts = ToolParts::default();
    for part in content.iter().filter_map(WireContent::part) {
        match part {
            Part::Text(text) => parts.texts.push(text),
            Part::Diff(diff) => parts.diffs.push(diff),
            Part::Terminal(id) => parts.terminals.push(id),
        }
    }
    parts
}

/// Declares how a tool call content of one version (`$content`) becomes a part, alike for
/// both versions but for the diff (`$diff` converts it).
macro_rules! tool_call_parts {
    ($content:ty, $diff:ident) => {
        impl WireContent for $content {
            fn part(&self) -> Option<Part> {
                match self {
                    Self::Content(content) => {
                        Some(Part::Text(block_text(content.content.as_text())))
                    }
                    Self::Diff(diff) => Some(Part::Diff($diff(diff))),
                    Self::Terminal(terminal) => {
                        Some(Part::Terminal(terminal.terminal_id.as_str().to_owned()))
                    }
                    _ => None,
                }
            }
        }
    };
}

tool_call_parts!(v1::ToolCallContent, v1_file_diff);
tool_call_parts!(v2::ToolCallContent, v2_file_diff);

/// A v1 diff: the path with the old and new text.
fn v1_file_diff(diff: &v1::Diff) -> FileDiff {
    let mut too_large = false;
    let old_text = diff
        .old_text
        .as_deref()
        .and_then(|text| bounded_text(text, &mut too_large));
    let new_text = bounded_text(&diff.new_text, &mut too_large);
    let operation = if diff.old_text.is_some() {
        "modify"
    } else {
        "add"
    };
    FileDiff {
        paths: vec![ChangedPath {
            operation: operation.to_owned(),
            path: diff.path.clone(),
            from: None,
        }],
        old_text,
        new_text,
        patch: None,
        too_large,
        summaries: vec![v1_diff(diff)],
    }
}

/// A v2 diff: the changed paths with, optionally, the patch text.
fn v2_file_diff(diff: &v2::Diff) -> FileDiff {
    let mut too_large = false;
    let patch = diff
        .patch
        .as_ref()
        .and_then(|patch| bounded_text(&patch.text, &mut too_large));
    let paths = diff.changes.iter().map(|change| {
        use v2::DiffOperation as Op;
        let (path, from) = match &change.operation {
            Op::Add(one) | Op::Delete(one) | Op::Modify(one) => (one.path.to_string(), None),
            Op::Move(pair) | Op::Copy(pair) => {
                (pair.path.to_string(), Some(pair.old_path.to_string()))
            }
            _ => (String::new(), None),
        };
        let operation = change.operation.tag().to_owned();
        ChangedPath {
            operation,
            path,
            from,
        }
    });
    FileDiff {
        paths: paths.collect(),
        old_text: None,
        new_text: None,
        patch,
        too_large,
        summaries: v2_diff(diff),
    }
}

fn v2_text(blocks: &[v2::ContentBlock]) -> String {
    blocks
        .iter()
        .map(|block| block_text(block.as_text()))
        .collect::<Vec<_>>()
        .join("\n")
}

fn status_word(status: Option<&v1::ToolCallStatus>) -> String {
    status.map_or_else(|| "pending".to_owned(), json_word)
}

/// The JSON string form of a serialisable enum value.
fn json_word<T: serde::Serialize>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(word)) => word,
        _ => "unknown".to_owned(),
    }
}

/// `text` unless it passes [`DIFF_TEXT_LIMIT`] (then `None`, and `too_large` is set).
fn bounded_text(text: &str, too_large: &mut bool) -> Option<String> {
    if text.len() > DIFF_TEXT_LIMIT {
        *too_large = true;
        None
    } else {
        Some(text.to_owned())
    }
}
