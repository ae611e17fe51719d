//! The example agent's prompt commands that go through the client: `/read PATH` reads a file
//! (`fs/read_text_file`) and `/run COMMAND [ARGS...]` runs a command in a client terminal
//! (`terminal/*`). Each one works only when the client advertised the capability it needs;
//! otherwise the agent says which one is missing.

use acptk_runtime::agent::{
    ClientFeature, Session, StopReason, TerminalCommand, ToolCall, ToolCallChange, ToolCallStatus,
    ToolKind,
};
use acptk_runtime::{Error, ErrorObject};

use super::ExampleAgent;

/// The most characters of a file or of a command's output quoted in a reply.
const QUOTE_CHARS: usize = 200;

/// The argument of prompt command `/name` on the prompt's first line (`""` when it has none);
/// `None` when the prompt is not that command.
pub fn command_argument<'a>(prompt: &'a str, name: &str) -> Option<&'a str> {
    let line = prompt.lines().next().unwrap_or_default().trim();
    let rest = line.strip_prefix('/')?.strip_prefix(name)?;
    if rest.is_empty() || rest.starts_with(char::is_whitespace) {
        Some(rest.trim())
    } else {
        None
    }
}

/// `path` made absolute against the session's working directory.
fn absolute(session: &Session, path: &str) -> String {
    if path.starts_with('/') {
        path.to_owned()
    } else {
        let cwd = session.cwd();
        format!("{}/{path}", cwd.trim_end_matches('/'))
    }
}

/// The first characters of `text`, for a reply.
fn quote(text: &str) -> String {
    let mut quoted: String = text.chars().take(QUOTE_CHARS).collect();
    if text.chars().count() > QUOTE_CHARS {
        quoted.push('…');
    }
    quoted
}

/// Why `feature` cannot be used with this client, for a reply.
fn missing(session: &Session, feature: ClientFeature) -> String {
    Error::NotAdvertised {
        feature,
        version: session.protocol_version(),
    }
    .to_string()
}

/// `/read PATH`.
pub async fn read(session: &Session, path: &str) -> Result<StopReason, ErrorObject> {
    if path.is_empty() {
        ExampleAgent::say(session, "Usage: /read PATH").await?;
        return Ok(StopReason::EndTurn);
    }
    if !session.client().supports(ClientFeature::ReadTextFile) {
        let reason = missing(session, ClientFeature::ReadTextFile);
        ExampleAgent::say(session, &format!("I cannot read {path}: {reason}.")).await?;
        return Ok(StopReason::EndTurn);
    }
    let path = absolute(session, path);
    match session.read_text_file(&path, None, None).await {
        Ok(content) => {
            let lines = content.lines().count();
            let chars = content.chars().count();
            let text = format!(
                "{path} has {lines} lines and {chars} characters. It starts with: {}",
                quote(&content)
            );
            ExampleAgent::say(session, &text).await?;
            Ok(StopReason::EndTurn)
        }
        Err(error) if error.is_cancelled() => Err(error.into()),
        Err(error) => {
            ExampleAgent::say(session, &format!("Reading {path} failed: {error}")).await?;
            Ok(StopReason::EndTurn)
        }
    }
}

impl ExampleAgent {
    /// `/run COMMAND [ARGS...]`: the words of the command, without a shell.
    pub(super) async fn run(
        &self,
        session: &Session,
        command: &str,
    ) -> Result<StopReason, ErrorObject> {
        let mut words = command.split_whitespace();
        let Some(program) = words.next() else {
            Self::say(session, "Usage: /run COMMAND [ARGS...]").await?;
            return Ok(StopReason::EndTurn);
        };
        if !session.client().supports(ClientFeature::Terminal) {
            let reason = missing(session, ClientFeature::Terminal);
            Self::say(session, &format!("I cannot run `{command}`: {reason}.")).await?;
            return Ok(StopReason::EndTurn);
        }
        let tool = ToolCall::new(format!("Run `{command}`"))
            .kind(ToolKind::Execute)
            .raw_input(serde_json::json!({ "command": command }));
        let call = session.start_tool_call(tool).await?;
        if !self.allowed(&call).await? {
            Self::say(
                session,
                &format!("You did not allow me to run `{command}`."),
            )
            .await?;
            return Ok(StopReason::EndTurn);
        }
        let mut spec = TerminalCommand::new(program).cwd(session.cwd());
        for arg in words {
            spec = spec.arg(arg);
        }
        let terminal = match session.create_terminal(&spec).await {
            Ok(terminal) => terminal,
            Err(error) if error.is_cancelled() => return Err(error.into()),
            Err(error) => {
                let text = format!("The client could not start `{command}`: {error}");
                call.fail(text.as_str()).await?;
                Self::say(session, &text).await?;
                return Ok(StopReason::EndTurn);
            }
        };
        let shown = ToolCallChange::new()
            .status(ToolCallStatus::InProgress)
            .terminal(&terminal);
        call.update(shown).await?;
        let exit = match terminal.wait_for_exit().await {
            Ok(exit) => exit,
            Err(error) => {
                // Cancelled or failed: stop the command (kill and release still go out).
                let _ = terminal.kill().await;
                let _ = terminal.release().await;
                return Err(error.into());
            }
        };
        let output = terminal.output().await;
        terminal.release().await?;
        let output = output?;
        let ended = match (exit.exit_code, &exit.signal) {
            (Some(code), _) => format!("exited with code {code}"),
            (None, Some(signal)) => format!("was ended by signal {signal}"),
            (None, None) => "ended".to_owned(),
        };
        if exit.exit_code == Some(0) {
            call.complete(output.output.as_str()).await?;
        } else {
            call.fail(output.output.as_str()).await?;
        }
        session.new_message();
        let text = format!("`{command}` {ended}. Output: {}", quote(&output.output));
        Self::say(session, &text).await?;
        Ok(StopReason::EndTurn)
    }
}
