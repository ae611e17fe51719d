//! What an agent can ask of a client, as one trait: [`ClientHandler`].
//!
//! Each service a client may offer (reading files, writing files, terminals, elicitations,
//! terminal logins) is a small trait of its own, and the handler hands out the ones it
//! implements through accessors that return `None` by default. The runtime derives the
//! capabilities it advertises in `initialize` from those accessors and routes the agent's
//! requests to the same objects, so what is advertised and what is served cannot disagree: a
//! request for a service the handler does not offer is answered `-32601` (method not found).
//!
//! | accessor | serves | advertised as (v1) | advertised as (v2) |
//! |---|---|---|---|
//! | [`ClientHandler::request_permission`] | `session/request_permission` | (always) | (always) |
//! | [`ClientHandler::file_reader`] | `fs/read_text_file` | `fs.readTextFile` | (no such method) |
//! | [`ClientHandler::file_writer`] | `fs/write_text_file` | `fs.writeTextFile` | (no such method) |
//! | [`ClientHandler::terminals`] | `terminal/*` | `terminal` | (no such method) |
//! | [`ClientHandler::elicitation`] | `elicitation/create`, `elicitation/complete` | `elicitation` | `elicitation` |
//! | [`ClientHandler::terminal_login`] | `terminal` auth methods | `auth.terminal` | `auth.terminal` |
//!
//! Requests carry the [`SessionScope`] of the session they name (its working directory and
//! additional directories as this client opened it); a request naming a session this client
//! did not open is refused before it reaches the handler.
//!
//! # Consent
//!
//! What acts on the machine (running a command: `terminal/create`; creating or replacing a
//! file: `fs/write_text_file`) is first put to [`ClientHandler::approve`] as an [`Action`],
//! and reaches the service only when the answer is [`Consent::Allowed`]; the request the
//! service then gets is marked approved ([`CreateTerminal::is_approved`],
//! [`WriteTextFile::is_approved`]). The default `approve` refuses everything, and the
//! ready-made services ([`LocalTerminals`](super::LocalTerminals),
//! [`LocalFiles`](super::LocalFiles)) refuse a request that is not marked approved, so a
//! client that forgets to ask runs nothing and writes nothing.

use std::ffi::OsString;
use std::path::PathBuf;

use acptk_schema::jsonrpc::ErrorObject;
use acptk_schema::{v1, v2};

use super::permission::{PermissionDecision, PermissionRequest};
use crate::connection::BoxFuture;
use crate::version::ByVersion;

/// The directories of a session, as the client opened it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SessionScope {
    /// The session id.
    pub session_id: String,
    /// Its working directory.
    pub cwd: PathBuf,
    /// The further directories the session may use.
    pub additional_directories: Vec<PathBuf>,
}

impl SessionScope {
    /// A scope with a working directory and no additional directories.
    pub fn new(session_id: impl Into<String>, cwd: impl Into<PathBuf>) -> Self {
        Self {
            session_id: session_id.into(),
            cwd: cwd.into(),
            additional_directories: Vec::new(),
        }
    }

    /// Sets the additional directories.
    #[must_use]
    pub fn additional_directories(mut self, directories: Vec<PathBuf>) -> Self {
        self.additional_directories = directories;
        self
    }

    /// The working directory and the additional directories, in that order.
    pub fn roots(&self) -> impl Iterator<Item = &PathBuf> + '_ {
        std::iter::once(&self.cwd).chain(&self.additional_directories)
    }
}

/// The user's agreement to a request that a service carries out (`approve`,
/// `is_approved`), alike for every such request: `$what` names what is agreed to and
/// `$service` the service that carries it out.
macro_rules! approval {
    ($request:ident, $what:literal, $service:ident) => {
        impl $request {
            #[doc = concat!(
                "Marks the ", $what, " as agreed to by the user. The runtime does this once\n",
                "[`ClientHandler::approve`] allowed it; call it yourself only when you drive a\n",
                "[`", stringify!($service), "`] service directly and asked the user first."
            )]
            #[must_use]
            pub fn approve(mut self) -> Self {
                self.approved = true;
                self
            }

            #[doc = concat!(
                "Whether the ", $what, " was agreed to ([`", stringify!($request), "::approve`])."
            )]
            pub fn is_approved(&self) -> bool {
                self.approved
            }
        }
    };
}

/// `fs/read_text_file`: read a text file, or some of its lines.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ReadTextFile {
    /// The session asking.
    pub scope: SessionScope,
    /// The file (the agent must send an absolute path).
    pub path: PathBuf,
    /// The first line to return, counted from 1 (default: 1).
    pub line: Option<u32>,
    /// How many lines to return at most (default: all).
    pub limit: Option<u32>,
}

impl ReadTextFile {
    /// A read of the whole file `path`.
    pub fn new(scope: SessionScope, path: impl Into<PathBuf>) -> Self {
        Self {
            scope,
            path: path.into(),
            line: None,
            limit: None,
        }
    }
}

/// `fs/write_text_file`: create or replace a text file.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct WriteTextFile {
    /// The session asking.
    pub scope: SessionScope,
    /// The file (the agent must send an absolute path).
    pub path: PathBuf,
    /// The whole new content.
    pub content: String,
    /// Whether the user agreed (see [`WriteTextFile::approve`]).
    approved: bool,
}

impl WriteTextFile {
    /// A write of `content` to `path`, not approved yet.
    pub fn new(scope: SessionScope, path: impl Into<PathBuf>, content: impl Into<String>) -> Self {
        Self {
            scope,
            path: path.into(),
            content: content.into(),
            approved: false,
        }
    }
}

approval!(WriteTextFile, "write", WriteFiles);
approval!(CreateTerminal, "command", Terminals);

/// `terminal/create`: run a command in a new terminal.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CreateTerminal {
    /// The session asking.
    pub scope: SessionScope,
    /// The program.
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Environment variables to set for it (name, value).
    pub env: Vec<(String, String)>,
    /// Its working directory (absolute); `None` means the session's.
    pub cwd: Option<PathBuf>,
    /// The most output bytes to keep (older output goes first); `None` means the client's
    /// default.
    pub output_byte_limit: Option<u64>,
    /// Whether the user agreed (see [`CreateTerminal::approve`]).
    approved: bool,
}

impl CreateTerminal {
    /// Runs `command` without arguments in the session's directory, with the default output
    /// limit.
    pub fn new(scope: SessionScope, command: impl Into<String>) -> Self {
        Self {
            scope,
            command: command.into(),
            args: Vec::new(),
            env: Vec::new(),
            cwd: None,
            output_byte_limit: None,
            approved: false,
        }
    }

    /// Sets the arguments.
    #[must_use]
    pub fn args<I: IntoIterator<Item = S>, S: Into<String>>(mut self, args: I) -> Self {
        self.args = args.into_iter().map(Into::into).collect();
        self
    }

    /// Adds an environment variable.
    #[must_use]
    pub fn env(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.push((name.into(), value.into()));
        self
    }

    /// Sets the working directory.
    #[must_use]
    pub fn cwd(mut self, cwd: impl Into<PathBuf>) -> Self {
        self.cwd = Some(cwd.into());
        self
    }

    /// Sets the output byte limit.
    #[must_use]
    pub fn output_byte_limit(mut self, limit: u64) -> Self {
        self.output_byte_limit = Some(limit);
        self
    }
}

/// Something the agent asks this client to do to the machine, put to the user before it is
/// done (see [`ClientHandler::approve`]).
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum Action<'a> {
    /// `terminal/create`: run a command.
    RunCommand(&'a CreateTerminal),
    /// `fs/write_text_file`: create or replace a file.
    WriteFile(&'a WriteTextFile),
}

impl Action<'_> {
    /// The session asking.
    pub fn scope(&self) -> &SessionScope {
        match self {
            Action::RunCommand(request) => &request.scope,
            Action::WriteFile(request) => &request.scope,
        }
    }
}

/// The user's answer to an [`Action`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Consent {
    /// Do it.
    Allowed,
    /// Do not; the reason goes back to the agent in the error.
    Refused(String),
}

/// A request about an existing terminal (`terminal/output`, `wait_for_exit`, `kill`,
/// `release`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct TerminalRef {
    /// The session asking.
    pub scope: SessionScope,
    /// The terminal, as `terminal/create` named it.
    pub terminal_id: String,
}

impl TerminalRef {
    /// The terminal `terminal_id` of the session in `scope`.
    pub fn new(scope: SessionScope, terminal_id: impl Into<String>) -> Self {
        Self {
            scope,
            terminal_id: terminal_id.into(),
        }
    }
}

/// How a terminal's command ended.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct TerminalExit {
    /// The exit code, when it exited by itself.
    pub exit_code: Option<u32>,
    /// The signal that ended it (`SIGKILL`, ...), when one did.
    pub signal: Option<String>,
}

impl TerminalExit {
    /// An exit with a code.
    pub fn code(code: u32) -> Self {
        Self {
            exit_code: Some(code),
            signal: None,
        }
    }

    /// An end by a signal.
    pub fn signal(name: impl Into<String>) -> Self {
        Self {
            exit_code: None,
            signal: Some(name.into()),
        }
    }
}

/// What `terminal/output` answers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct TerminalOutput {
    /// The output kept so far.
    pub output: String,
    /// Whether older output was dropped to stay within the byte limit.
    pub truncated: bool,
    /// How the command ended, once it has.
    pub exit: Option<TerminalExit>,
}

/// The agent's own program, run for a `terminal` auth method: the command the client launched
/// the agent with, the method's arguments appended and its environment variables added.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct LoginCommand {
    /// The auth method's id.
    pub method_id: String,
    /// The program.
    pub program: OsString,
    /// The agent's arguments followed by the method's.
    pub args: Vec<OsString>,
    /// The variables to set (the agent's, then the method's, which win).
    pub env: Vec<(OsString, OsString)>,
    /// The working directory the agent was launched in, if one was set.
    pub cwd: Option<PathBuf>,
}

/// Which kinds of elicitation a handler can answer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ElicitationModes {
    /// Forms built from a schema.
    pub form: bool,
    /// Sending the user to a URL.
    pub url: bool,
}

impl ElicitationModes {
    /// The given kinds.
    pub fn new(form: bool, url: bool) -> Self {
        Self { form, url }
    }
}

/// `elicitation/create`, in the version of the connection.
pub type ElicitationRequest = ByVersion<v1::CreateElicitationRequest, v2::CreateElicitationRequest>;

/// The answer to an [`ElicitationRequest`], in the same version.
pub type ElicitationResponse =
    ByVersion<v1::CreateElicitationResponse, v2::CreateElicitationResponse>;

/// `elicitation/complete`, in the version of the connection.
pub type ElicitationComplete =
    ByVersion<v1::CompleteElicitationNotification, v2::CompleteElicitationNotification>;

/// Reads text files for the agent.
pub trait ReadFiles: Send + Sync {
    /// Answers `fs/read_text_file` with the text.
    fn read_text_file(&self, request: ReadTextFile) -> BoxFuture<Result<String, ErrorObject>>;
}

/// Writes text files for the agent.
pub trait WriteFiles: Send + Sync {
    /// Answers `fs/write_text_file` once the file is written.
    fn write_text_file(&self, request: WriteTextFile) -> BoxFuture<Result<(), ErrorObject>>;
}

/// Runs commands for the agent in terminals the client manages.
pub trait Terminals: Send + Sync {
    /// Starts the command and returns the new terminal's id.
    fn create(&self, request: CreateTerminal) -> BoxFuture<Result<String, ErrorObject>>;
    /// The output so far and, once it ended, how the command ended.
    fn output(&self, terminal: TerminalRef) -> BoxFuture<Result<TerminalOutput, ErrorObject>>;
    /// Waits until the command has ended.
    fn wait_for_exit(&self, terminal: TerminalRef) -> BoxFuture<Result<TerminalExit, ErrorObject>>;
    /// Ends the command; the terminal and its output stay until released.
    fn kill(&self, terminal: TerminalRef) -> BoxFuture<Result<(), ErrorObject>>;
    /// Ends the command if it still runs and forgets the terminal.
    fn release(&self, terminal: TerminalRef) -> BoxFuture<Result<(), ErrorObject>>;
}

/// Asks the user for input on the agent's behalf.
pub trait Elicitations: Send + Sync {
    /// The kinds of elicitation answered (advertised in `initialize`).
    fn modes(&self) -> ElicitationModes;
    /// Answers `elicitation/create`.
    fn create(
        &self,
        request: ElicitationRequest,
    ) -> BoxFuture<Result<ElicitationResponse, ErrorObject>>;
    /// Learns that an elicitation finished elsewhere (`elicitation/complete`). Default: ignored.
    fn complete(&self, notification: ElicitationComplete) {
        let _ = notification;
    }
}

/// Runs an agent's login program for a `terminal` auth method, in the user's terminal.
pub trait TerminalLogin: Send + Sync {
    /// Runs `command` in the foreground and reports whether it exited with status 0 (`Err`
    /// says why not).
    fn run(&self, command: LoginCommand) -> BoxFuture<Result<(), String>>;
}

/// Everything an agent can ask of a client. Implement what your client offers; every
/// accessor returns `None` by default, and what is `None` is neither advertised nor served.
///
/// ```
/// use std::sync::Arc;
/// use acptk_runtime::client::{ClientHandler, LocalFiles, PermissionDecision, PermissionRequest, ReadFiles};
/// use acptk_runtime::connection::BoxFuture;
///
/// /// Allows everything once and reads files, but writes nothing and runs no command.
/// struct Editor {
///     files: LocalFiles,
/// }
///
/// impl ClientHandler for Editor {
///     fn request_permission(&self, request: PermissionRequest) -> BoxFuture<PermissionDecision> {
///         let choice = request.options.iter().find(|o| o.kind == "allow_once").map(|o| o.id.clone());
///         Box::pin(async move { choice.map_or(PermissionDecision::Cancelled, PermissionDecision::Selected) })
///     }
///     fn file_reader(&self) -> Option<&dyn ReadFiles> {
///         Some(&self.files)
///     }
/// }
/// ```
pub trait ClientHandler: Send + Sync + 'static {
    /// Answers `session/request_permission` (both versions; needs no capability). Default:
    /// every request is answered `cancelled`.
    fn request_permission(&self, request: PermissionRequest) -> BoxFuture<PermissionDecision> {
        let _ = request;
        Box::pin(async { PermissionDecision::Cancelled })
    }

    /// Decides whether an [`Action`] (a command to run, a file to write) may happen; asked
    /// before the request reaches [`ClientHandler::terminals`] or
    /// [`ClientHandler::file_writer`]. Ask the user, or apply their policy. Default: every
    /// action is refused, so a client that offers terminals or writes must implement this.
    fn approve(&self, action: Action<'_>) -> BoxFuture<Consent> {
        let what = match action {
            Action::RunCommand(_) => "runs no command",
            Action::WriteFile(_) => "writes no file",
        };
        let reason = format!("this client {what} without the user's consent and has no way to ask");
        Box::pin(async move { Consent::Refused(reason) })
    }

    /// The file reader, if this client reads files for the agent (v1 `fs.readTextFile`).
    fn file_reader(&self) -> Option<&dyn ReadFiles> {
        None
    }

    /// The file writer, if this client writes files for the agent (v1 `fs.writeTextFile`).
    fn file_writer(&self) -> Option<&dyn WriteFiles> {
        None
    }

    /// The terminals, if this client runs commands for the agent (v1 `terminal`).
    fn terminals(&self) -> Option<&dyn Terminals> {
        None
    }

    /// The elicitation service, if this client asks the user for input (`elicitation`).
    fn elicitation(&self) -> Option<&dyn Elicitations> {
        None
    }

    /// The login runner, if this client can run an agent's `terminal` auth methods
    /// (`auth.terminal`). Advertised only when the client launched the agent itself
    /// ([`ClientBuilder::spawn`](super::ClientBuilder::spawn)), since the login runs the
    /// agent's own command.
    fn terminal_login(&self) -> Option<&dyn TerminalLogin> {
        None
    }

    /// The service for the client's `acp` MCP servers, if it provides any (`mcp/message`
    /// requests; cargo feature `unstable_mcp_over_acp`). Without one, `mcp/message` answers
    /// `-32601`. The protocol has no client capability for it: offering `acp` servers in a
    /// session set-up is what commits a client to serving them.
    #[cfg(feature = "unstable_mcp_over_acp")]
    fn mcp_over_acp(&self) -> Option<&dyn super::McpOverAcp> {
        None
    }

    /// Learns that the agent's authentication state changed (`auth/status_update`; cargo
    /// feature `unstable_auth_status`). Default: ignored.
    #[cfg(feature = "unstable_auth_status")]
    fn auth_status_update(&self, update: crate::draft_payloads::AuthStatusUpdate) {
        let _ = update;
    }
}

/// The handler used when the application gives none: permission requests are cancelled and
/// nothing else is offered.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoServices;

impl ClientHandler for NoServices {}

/// What a handler offers, as the runtime reads it from the accessors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct Offered {
    /// `fs/read_text_file`.
    pub read_files: bool,
    /// `fs/write_text_file`.
    pub write_files: bool,
    /// `terminal/*`.
    pub terminals: bool,
    /// Elicitation kinds, if any.
    pub elicitation: Option<ElicitationModes>,
    /// Terminal logins (only when the agent's command is known).
    pub terminal_login: bool,
}

/// One version's elicitation capabilities for `modes` (the types differ by version only).
macro_rules! elicitation_capabilities {
    ($version:ident, $modes:expr) => {{
        let modes = $modes;
        let mut elicitation = $version::ElicitationCapabilities::new();
        if modes.form {
            elicitation = elicitation.form($version::ElicitationFormCapabilities::new());
        }
        if modes.url {
            elicitation = elicitation.url($version::ElicitationUrlCapabilities::new());
        }
        elicitation
    }};
}

impl Offered {
    /// What `handler` offers; terminal logins only when `agent_command_known`.
    pub fn of(handler: &dyn ClientHandler, agent_command_known: bool) -> Self {
        Self {
            read_files: handler.file_reader().is_some(),
            write_files: handler.file_writer().is_some(),
            terminals: handler.terminals().is_some(),
            elicitation: handler.elicitation().map(Elicitations::modes),
            terminal_login: agent_command_known && handler.terminal_login().is_some(),
        }
    }

    /// The v1 `clientCapabilities` for this offer, with `session.notices` when `notices`.
    pub fn v1_capabilities(&self, notices: bool) -> v1::ClientCapabilities {
        let mut capabilities = v1::ClientCapabilities::new()
            .fs(v1::FileSystemCapabilities::new()
                .read_text_file(self.read_files)
                .write_text_file(self.write_files))
            .terminal(self.terminals)
            .auth(v1::AuthCapabilities::new().terminal(self.terminal_login));
        if let Some(modes) = self.elicitation {
            capabilities = capabilities.elicitation(elicitation_capabilities!(v1, modes));
        }
        if notices {
            capabilities = capabilities.with_notices();
        }
        capabilities
    }

    /// The v2 `capabilities` for this offer (v2 has no client file system or terminals).
    pub fn v2_capabilities(&self) -> v2::ClientCapabilities {
        let mut capabilities = v2::ClientCapabilities::new();
        if self.terminal_login {
            capabilities = capabilities.auth(
                v2::ClientAuthCapabilities::new().terminal(v2::TerminalAuthCapabilities::new()),
            );
        }
        if let Some(modes) = self.elicitation {
            capabilities = capabilities.elicitation(elicitation_capabilities!(v2, modes));
        }
        capabilities
    }
}
