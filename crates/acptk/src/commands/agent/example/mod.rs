//! The example agent's behaviour: a canned streamed reply with a tool call it asks
//! permission for, two session modes and one option that change how it answers, a title for
//! each session, `/read` and `/run` through the client, and notices.

mod tools;

use std::time::Duration;

use acptk_runtime::agent::{
    Agent, AgentFeatures, AgentInfo, CommandSpec, ConfigOption, McpServerSpec, McpTransports,
    Modes, Prompt, Session, SessionConfig, SessionSetup, StopReason, ToolCall, ToolCallHandle,
    ToolCallStatus, ToolKind,
};
use acptk_runtime::{Error, ErrorObject, Notice};

use super::mcp::unavailable_reason;
use super::notice_command::parse_notice_command;

/// The mode that answers with a tool call (the default).
pub const CODE_MODE: &str = "code";
/// The mode that answers in one line, without tools.
pub const ASK_MODE: &str = "ask";
/// The boolean option that makes the agent answer in capital letters.
pub const SHOUT_OPTION: &str = "shout";

/// The longest session title the agent sets, in characters.
const TITLE_CHARS: usize = 40;

/// Options of the example agent.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ExampleOptions {
    /// Delay between reply chunks (zero in tests).
    pub chunk_delay: Duration,
    /// Words per reply chunk.
    pub words_per_chunk: usize,
    /// Ask the user's permission before each tool call (on by default).
    pub ask_permission: bool,
}

impl Default for ExampleOptions {
    fn default() -> Self {
        Self {
            chunk_delay: super::DEFAULT_DELAY,
            words_per_chunk: 3,
            ask_permission: true,
        }
    }
}

impl ExampleOptions {
    /// The defaults: 40 ms between chunks of three words, permission asked.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the delay between reply chunks.
    #[must_use]
    pub fn chunk_delay(mut self, delay: Duration) -> Self {
        self.chunk_delay = delay;
        self
    }

    /// Sets whether the agent asks permission before its tool calls.
    #[must_use]
    pub fn ask_permission(mut self, ask: bool) -> Self {
        self.ask_permission = ask;
        self
    }
}

/// The example agent. Serve it with `acptk_runtime::agent::AgentServer`.
#[derive(Debug, Default)]
pub struct ExampleAgent {
    pub(super) options: ExampleOptions,
}

/// The modes and the option every session of the example agent offers.
pub fn session_config() -> SessionConfig {
    SessionConfig::new()
        .modes(
            Modes::new(CODE_MODE)
                .described_mode(
                    CODE_MODE,
                    "Code",
                    "Answers at length and counts your words with a tool call",
                )
                .described_mode(ASK_MODE, "Ask", "Answers in one line, without tools"),
        )
        .option(
            ConfigOption::boolean(SHOUT_OPTION, "Shout", false)
                .description("Answer in capital letters"),
        )
}

/// The commands every session offers.
fn commands() -> [CommandSpec; 3] {
    [
        CommandSpec::new("notice", "Send a notice to this client")
            .hint("SEVERITY TITLE [-- DESCRIPTION]"),
        CommandSpec::new("read", "Read a file through the client").hint("PATH"),
        CommandSpec::new("run", "Run a command in a client terminal").hint("COMMAND [ARGS...]"),
    ]
}

impl ExampleAgent {
    /// An agent with the given options.
    pub fn new(options: ExampleOptions) -> Self {
        Self { options }
    }

    /// `text` as this session wants it said (in capitals with the shout option).
    pub(super) fn styled(session: &Session, text: &str) -> String {
        let shout = session
            .config_value(SHOUT_OPTION)
            .and_then(|value| value.as_bool())
            .unwrap_or(false);
        if shout {
            text.to_uppercase()
        } else {
            text.to_owned()
        }
    }

    /// Says `text` in one chunk.
    pub(super) async fn say(session: &Session, text: &str) -> Result<(), ErrorObject> {
        session.send_text(Self::styled(session, text)).await?;
        Ok(())
    }

    /// Streams `text` in chunks of a few words. A cancelled turn fails the next chunk (and the
    /// wait between chunks), which ends the turn.
    async fn stream(&self, session: &Session, text: &str) -> Result<(), ErrorObject> {
        let text = Self::styled(session, text);
        let words: Vec<&str> = text.split_inclusive(' ').collect();
        for chunk in words.chunks(self.options.words_per_chunk.max(1)) {
            self.pause(session).await?;
            session.send_text(chunk.concat()).await?;
        }
        Ok(())
    }

    /// Waits the chunk delay; fails with the cancellation when the turn is cancelled meanwhile.
    pub(super) async fn pause(&self, session: &Session) -> Result<(), Error> {
        if session.is_cancelled() {
            return Err(Error::Cancelled);
        }
        if self.options.chunk_delay.is_zero() {
            return Ok(());
        }
        tokio::select! {
            () = tokio::time::sleep(self.options.chunk_delay) => Ok(()),
            () = session.cancelled() => Err(Error::Cancelled),
        }
    }

    /// Asks the user whether `call` may run (when the agent asks at all); `false` when the
    /// user did not allow it (the tool call is then marked failed).
    pub(super) async fn allowed(&self, call: &ToolCallHandle) -> Result<bool, ErrorObject> {
        if !self.options.ask_permission {
            return Ok(true);
        }
        if call.request_permission().await?.allowed() {
            return Ok(true);
        }
        call.fail("Not allowed by the user.").await?;
        Ok(false)
    }

    /// Gives the session a title from its first prompt.
    async fn name_session(session: &Session, prompt: &str) -> Result<(), ErrorObject> {
        if session.title().is_some() {
            return Ok(());
        }
        let first = prompt.lines().next().unwrap_or_default().trim();
        let mut title: String = first.chars().take(TITLE_CHARS).collect();
        if first.chars().count() > TITLE_CHARS {
            title.push('…');
        }
        if title.is_empty() {
            return Ok(());
        }
        session.set_title(title).await?;
        Ok(())
    }

    /// The answer to an ordinary prompt, by the session's mode.
    async fn answer(&self, session: &Session, prompt: &str) -> Result<StopReason, ErrorObject> {
        let words = prompt.split_whitespace().count();
        if session.mode().as_deref() == Some(ASK_MODE) {
            Self::say(session, &format!("Your prompt had {words} words.")).await?;
            return Ok(StopReason::EndTurn);
        }
        self.stream(session, &reply_text(prompt)).await?;
        let tool = ToolCall::new("Count the words of the prompt")
            .kind(ToolKind::Think)
            .raw_input(serde_json::json!({ "prompt": prompt }));
        let call = session.start_tool_call(tool).await?;
        if !self.allowed(&call).await? {
            session.new_message();
            Self::say(
                session,
                "You did not allow the tool call, so I did not count.",
            )
            .await?;
            return Ok(StopReason::EndTurn);
        }
        self.pause(session).await?;
        call.set_status(ToolCallStatus::InProgress).await?;
        self.pause(session).await?;
        let chars = prompt.chars().count();
        let result = format!("{words} words, {chars} characters");
        call.complete(result.as_str()).await?;
        session.new_message();
        self.stream(session, &format!("Done: {result}.")).await?;
        Ok(StopReason::EndTurn)
    }
}

/// The reply to an ordinary prompt in the code mode.
fn reply_text(prompt: &str) -> String {
    let words = prompt.split_whitespace().count();
    format!(
        "Hello! I am the example agent of the ACP toolkit. I have no language model, so I \
         answer every prompt the same way: your prompt had {words} words. Let me count them \
         with a small tool call. Type /notice SEVERITY TITLE -- DESCRIPTION to make me send \
         a notice. "
    )
}

impl Agent for ExampleAgent {
    fn info(&self) -> AgentInfo {
        AgentInfo::new("acp-example-agent", env!("CARGO_PKG_VERSION")).title("ACP example agent")
    }

    fn features(&self) -> AgentFeatures {
        // It looks at the stdio MCP servers it is given (and warns when one cannot start).
        AgentFeatures::new().mcp(McpTransports::new().stdio(true))
    }

    async fn new_session(&self, _setup: &SessionSetup) -> Result<SessionConfig, ErrorObject> {
        Ok(session_config())
    }

    async fn session_opened(&self, session: Session, setup: SessionSetup) {
        if session.set_commands(&commands()).await.is_err() {
            return;
        }
        for server in &setup.mcp_servers {
            let McpServerSpec::Stdio { name, command, .. } = server else {
                continue;
            };
            let Some(reason) = unavailable_reason(command) else {
                continue;
            };
            let notice =
                Notice::warning(format!("MCP server {name} unavailable")).description(reason);
            if session.notice(&notice).await.is_err() {
                return;
            }
        }
    }

    async fn prompt(&self, session: Session, prompt: Prompt) -> Result<StopReason, ErrorObject> {
        Self::name_session(&session, &prompt.text).await?;
        if let Some(command) = parse_notice_command(&prompt.text) {
            match command {
                Ok(command) => {
                    let mut notice = Notice::new(command.severity, command.title);
                    if let Some(description) = command.description {
                        notice = notice.description(description);
                    }
                    session.notice(&notice).await?;
                }
                Err(message) => Self::say(&session, &message).await?,
            }
            return Ok(StopReason::EndTurn);
        }
        if let Some(path) = tools::command_argument(&prompt.text, "read") {
            return tools::read(&session, path).await;
        }
        if let Some(command) = tools::command_argument(&prompt.text, "run") {
            return self.run(&session, command).await;
        }
        self.answer(&session, &prompt.text).await
    }
}
