//! Typed requests from the agent to the client about a session: permission, text files,
//! terminals and elicitation.
//!
//! Each one first passes the gate of [`ConnectedClient::require`](super::ConnectedClient::require):
//! when the client did not advertise what the request needs (or the protocol version has no
//! such method), the call fails with [`Error::NotAdvertised`] and nothing is sent.
//!
//! In v2, while the running turn waits for the user (a permission or an elicitation), the
//! runtime reports `requires_action`, and `running` again once the answer came. Once the turn
//! is cancelled, every call of it fails with [`Error::Cancelled`]: one made afterwards sends
//! nothing (no `requires_action` either), and one still waiting stops waiting, its request is
//! cancelled with `$/cancel_request` (before the turn's stop is sent), and it reports the
//! cancellation. [`Terminal::kill`] and [`Terminal::release`] are the exception: they clean
//! up after a cancelled turn and are always sent.

use std::future::Future;

use acptk_schema::method::RequestMethod;
use acptk_schema::v1::ProtocolVersion;
use acptk_schema::{v1, v2};

use super::connected_client::Elicitation;
use super::session::Session;
use crate::client_feature::ClientFeature;
use crate::error::Error;

/// What selecting a permission option means.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PermissionKind {
    /// Allow this once.
    AllowOnce,
    /// Allow this and remember it.
    AllowAlways,
    /// Refuse this once.
    RejectOnce,
    /// Refuse this and remember it.
    RejectAlways,
}

impl PermissionKind {
    /// Whether the option allows the operation.
    pub fn allows(self) -> bool {
        matches!(
            self,
            PermissionKind::AllowOnce | PermissionKind::AllowAlways
        )
    }

    fn to_v1(self) -> v1::PermissionOptionKind {
        match self {
            PermissionKind::AllowOnce => v1::PermissionOptionKind::AllowOnce,
            PermissionKind::AllowAlways => v1::PermissionOptionKind::AllowAlways,
            PermissionKind::RejectOnce => v1::PermissionOptionKind::RejectOnce,
            PermissionKind::RejectAlways => v1::PermissionOptionKind::RejectAlways,
        }
    }

    fn to_v2(self) -> v2::PermissionOptionKind {
        match self {
            PermissionKind::AllowOnce => v2::PermissionOptionKind::AllowOnce,
            PermissionKind::AllowAlways => v2::PermissionOptionKind::AllowAlways,
            PermissionKind::RejectOnce => v2::PermissionOptionKind::RejectOnce,
            PermissionKind::RejectAlways => v2::PermissionOptionKind::RejectAlways,
        }
    }
}

/// One choice offered in a permission request.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PermissionChoice {
    /// Its id, which the client answers with.
    pub id: String,
    /// Its label.
    pub name: String,
    /// What it means.
    pub kind: PermissionKind,
}

impl PermissionChoice {
    /// A choice `id` labelled `name`.
    pub fn new(id: impl Into<String>, name: impl Into<String>, kind: PermissionKind) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            kind,
        }
    }
}

/// A request for permission to run a tool call.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PermissionRequest {
    /// The tool call that needs permission.
    pub tool_call_id: String,
    /// What is asked (the tool call's title in v1, the prompt's title in v2).
    pub title: String,
    /// Why permission is needed (v2 only).
    pub description: Option<String>,
    /// The choices; at least one.
    pub choices: Vec<PermissionChoice>,
}

impl PermissionRequest {
    /// A request for tool call `tool_call_id`, titled `title`, with the usual three choices:
    /// allow once (`allow`), always allow (`allow_always`) and reject (`reject`).
    pub fn new(tool_call_id: impl Into<String>, title: impl Into<String>) -> Self {
        Self {
            tool_call_id: tool_call_id.into(),
            title: title.into(),
            description: None,
            choices: vec![
                PermissionChoice::new("allow", "Allow", PermissionKind::AllowOnce),
                PermissionChoice::new("allow_always", "Always allow", PermissionKind::AllowAlways),
                PermissionChoice::new("reject", "Reject", PermissionKind::RejectOnce),
            ],
        }
    }

    /// Replaces the choices.
    #[must_use]
    pub fn choices(mut self, choices: impl Into<Vec<PermissionChoice>>) -> Self {
        self.choices = choices.into();
        self
    }

    /// Sets the description.
    #[must_use]
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }
}

/// How a permission request ended.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PermissionOutcome {
    /// The user picked an offered choice.
    Selected(PermissionChoice),
    /// The client answered with an option id that was not offered, or an outcome this runtime
    /// does not know: never an approval.
    Unrecognised(String),
    /// No choice was made: the turn was cancelled, or the user dismissed the prompt.
    Cancelled,
}

impl PermissionOutcome {
    /// Whether the operation may go ahead: only an offered choice that allows it.
    pub fn allowed(&self) -> bool {
        matches!(self, PermissionOutcome::Selected(choice) if choice.kind.allows())
    }
}

/// What a client terminal should run.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct TerminalCommand {
    /// The program.
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Environment variables (name, value).
    pub env: Vec<(String, String)>,
    /// The working directory (absolute); the client's choice when absent.
    pub cwd: Option<String>,
    /// How many bytes of output the client keeps (the oldest are dropped first).
    pub output_byte_limit: Option<u64>,
}

impl TerminalCommand {
    /// Runs `command` without arguments.
    pub fn new(command: impl Into<String>) -> Self {
        Self {
            command: command.into(),
            args: Vec::new(),
            env: Vec::new(),
            cwd: None,
            output_byte_limit: None,
        }
    }

    /// Adds an argument.
    #[must_use]
    pub fn arg(mut self, arg: impl Into<String>) -> Self {
        self.args.push(arg.into());
        self
    }

    /// Sets the working directory.
    #[must_use]
    pub fn cwd(mut self, cwd: impl Into<String>) -> Self {
        self.cwd = Some(cwd.into());
        self
    }

    /// Sets the output limit.
    #[must_use]
    pub fn output_byte_limit(mut self, bytes: u64) -> Self {
        self.output_byte_limit = Some(bytes);
        self
    }
}

/// How a terminal's command ended.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct ExitStatus {
    /// The exit code, if it exited.
    pub exit_code: Option<u32>,
    /// The signal that ended it, if one did.
    pub signal: Option<String>,
}

/// What a terminal has printed so far.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct TerminalOutput {
    /// The output.
    pub output: String,
    /// Whether older output was dropped to stay within the limit.
    pub truncated: bool,
    /// How the command ended, if it has.
    pub exit: Option<ExitStatus>,
}

/// A terminal the client runs for a session (v1). Release it when done
/// ([`Terminal::release`]); the client kills the command then if it still runs.
#[derive(Debug, Clone)]
pub struct Terminal {
    session: Session,
    id: String,
}

impl Terminal {
    /// The terminal's id (for a tool call's content).
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Sends the terminal request `M` that `request` builds from the session id and the
    /// terminal id.
    async fn call<M: RequestMethod>(
        &self,
        request: impl FnOnce(String, String) -> M::Params,
    ) -> Result<M::Result, Error> {
        let params = request(self.session.id().to_owned(), self.id.clone());
        self.session.flush().await?;
        let client = self.session.client_connection();
        client
            .call::<M>(Some(ClientFeature::Terminal), &params)
            .await
    }

    /// The output so far (`terminal/output`).
    pub async fn output(&self) -> Result<TerminalOutput, Error> {
        let reading = self.call::<v1::methods::TerminalOutput>(v1::TerminalOutputRequest::new);
        let response = self.session.unless_cancelled(reading).await?;
        Ok(TerminalOutput {
            output: response.output,
            truncated: response.truncated,
            exit: response.exit_status.map(|status| ExitStatus {
                exit_code: status.exit_code,
                signal: status.signal,
            }),
        })
    }

    /// Waits until the command exits (`terminal/wait_for_exit`); cancelled with the turn.
    pub async fn wait_for_exit(&self) -> Result<ExitStatus, Error> {
        let waiting =
            self.call::<v1::methods::TerminalWaitForExit>(v1::WaitForTerminalExitRequest::new);
        let response = self.session.unless_cancelled(waiting).await?;
        Ok(ExitStatus {
            exit_code: response.exit_code,
            signal: response.signal,
        })
    }

    /// Kills the command and keeps the terminal (`terminal/kill`); sent after a cancellation
    /// too, so that a cancelled turn can stop what it started.
    pub async fn kill(&self) -> Result<(), Error> {
        self.call::<v1::methods::TerminalKill>(v1::KillTerminalRequest::new)
            .await
            .map(|_| ())
    }

    /// Releases the terminal (`terminal/release`), killing the command if it still runs; sent
    /// after a cancellation too.
    pub async fn release(self) -> Result<(), Error> {
        self.call::<v1::methods::TerminalRelease>(v1::ReleaseTerminalRequest::new)
            .await
            .map(|_| ())
    }
}

/// The choices of a [`PermissionRequest`] as `$version` sends them.
macro_rules! permission_options {
    ($request:expr, $version:ident, $to:ident) => {
        $request
            .choices
            .iter()
            .map(|choice| {
                $version::PermissionOption::new(
                    choice.id.as_str(),
                    choice.name.as_str(),
                    choice.kind.$to(),
                )
            })
            .collect::<Vec<_>>()
    };
}

/// Sends `session/request_permission` of `$version` to `$client`; the id of the chosen
/// option (`$chosen` reads it from `$outcome`), `None` when none was chosen.
macro_rules! ask_client {
    ($client:expr, $version:ident, $params:expr, |$outcome:ident| $chosen:expr) => {
        async {
            let response = $client
                .call::<$version::methods::SessionRequestPermission>(None, &$params)
                .await?;
            let $outcome = response.outcome;
            let chosen: Option<String> = $chosen;
            Ok(chosen)
        }
    };
}

impl Session {
    /// Runs `work` (a request to the client) as a call of the turn: refused with
    /// [`Error::Cancelled`] once the turn was cancelled, and given up when it is cancelled
    /// meanwhile. Once admitted, the request is sent even if the cancellation comes in the
    /// same instant (the work is polled first), so that what was announced for it (v2
    /// `requires_action`) is always followed by it. Dropping the work cancels its request with
    /// `$/cancel_request`, and that happens before the turn's stop is sent (the stop waits
    /// for admitted calls).
    pub(crate) async fn unless_cancelled<T>(
        &self,
        work: impl Future<Output = Result<T, Error>>,
    ) -> Result<T, Error> {
        let busy = self.admit()?;
        // The updates sent before the request reach the client first.
        self.flush().await?;
        let Some(busy) = busy else {
            return work.await;
        };
        let Some(turn) = self.turn().cloned() else {
            return work.await;
        };
        let result = {
            let mut work = std::pin::pin!(work);
            tokio::select! {
                biased;
                result = &mut work => result,
                () = turn.cancelled() => Err(Error::Cancelled),
            }
            // The work is dropped here: a request given up queues its `$/cancel_request`
            // while the call still counts.
        };
        drop(busy);
        result
    }

    /// Runs `work`, which waits for the user: in v2 the turn reports `requires_action`
    /// meanwhile and `running` again afterwards (never on a cancelled turn).
    async fn waiting_for_user<T>(
        &self,
        work: impl Future<Output = Result<T, Error>>,
    ) -> Result<T, Error> {
        let _busy = self.admit()?;
        let turn = self
            .turn()
            .filter(|_| self.protocol_version() != ProtocolVersion::V1)
            .cloned();
        if let Some(turn) = &turn
            && turn.wait_on_user()
        {
            let blocked = v2::StateUpdate::RequiresAction(v2::RequiresActionStateUpdate::new());
            self.send_state(blocked).await?;
        }
        let result = self.unless_cancelled(work).await;
        if let Some(turn) = &turn
            && turn.user_answered()
        {
            let running = v2::StateUpdate::Running(v2::RunningStateUpdate::new());
            self.send_state(running).await?;
        }
        result
    }

    /// Asks the user, through the client, whether a tool call may run
    /// (`session/request_permission`; every client supports it). An error answer or a closed
    /// connection is never an approval: check [`PermissionOutcome::allowed`]. On a cancelled
    /// turn it fails with [`Error::Cancelled`] (so that `?` ends the handler); a client that
    /// answers `cancelled` by itself gives [`PermissionOutcome::Cancelled`].
    pub async fn request_permission(
        &self,
        request: &PermissionRequest,
    ) -> Result<PermissionOutcome, Error> {
        let client = self.client_connection();
        let answer = match self.protocol_version() {
            ProtocolVersion::V1 => {
                let params = v1::RequestPermissionRequest::new(
                    self.id(),
                    v1::ToolCallUpdate::new(request.tool_call_id.as_str())
                        .title(request.title.as_str()),
                    permission_options!(request, v1, to_v1),
                );
                let asking = ask_client!(client, v1, params, |outcome| match outcome {
                    v1::RequestPermissionOutcome::Selected(selected) => {
                        Some(selected.option_id.to_string())
                    }
                    _ => None,
                });
                self.waiting_for_user(asking).await
            }
            _ => {
                let mut params = v2::RequestPermissionRequest::new(
                    self.id(),
                    request.title.as_str(),
                    permission_options!(request, v2, to_v2),
                )
                .subject(v2::RequestPermissionSubject::ToolCall(Box::new(
                    v2::ToolCallPermissionSubject::new(v2::ToolCallUpdate::new(
                        request.tool_call_id.as_str(),
                    )),
                )));
                if let Some(description) = &request.description {
                    params = params.description(description.as_str());
                }
                let asking = ask_client!(client, v2, params, |outcome| match outcome {
                    v2::RequestPermissionOutcome::Selected(selected) => {
                        Some(selected.option_id.to_string())
                    }
                    v2::RequestPermissionOutcome::Cancelled(_) => None,
                    other => Some(format!("outcome `{}`", other.tag())),
                });
                self.waiting_for_user(asking).await
            }
        };
        match answer {
            Ok(Some(id)) => Ok(request
                .choices
                .iter()
                .find(|choice| choice.id == id)
                .map_or(PermissionOutcome::Unrecognised(id), |choice| {
                    PermissionOutcome::Selected(choice.clone())
                })),
            Ok(None) if self.is_cancelled() => Err(Error::Cancelled),
            Ok(None) => Ok(PermissionOutcome::Cancelled),
            Err(error) => Err(error),
        }
    }

    /// Reads a text file through the client (`fs/read_text_file`), which may include
    /// unsaved editor changes: the whole file, or `limit` lines from line `line` (1-based).
    /// Needs `fs.readTextFile` (v1; v2 has no such method).
    pub async fn read_text_file(
        &self,
        path: &str,
        line: Option<u32>,
        limit: Option<u32>,
    ) -> Result<String, Error> {
        let mut request = v1::ReadTextFileRequest::new(self.id(), path);
        if let Some(line) = line {
            request = request.line(line);
        }
        if let Some(limit) = limit {
            request = request.limit(limit);
        }
        let reading = self
            .client_connection()
            .call::<v1::methods::FsReadTextFile>(Some(ClientFeature::ReadTextFile), &request);
        Ok(self.unless_cancelled(reading).await?.content)
    }

    /// Writes a text file through the client (`fs/write_text_file`). Needs
    /// `fs.writeTextFile` (v1; v2 has no such method).
    pub async fn write_text_file(&self, path: &str, content: &str) -> Result<(), Error> {
        let request = v1::WriteTextFileRequest::new(self.id(), path, content);
        let writing = self
            .client_connection()
            .call::<v1::methods::FsWriteTextFile>(Some(ClientFeature::WriteTextFile), &request);
        self.unless_cancelled(writing).await.map(|_| ())
    }

    /// Starts a command in a terminal the client runs (`terminal/create`). Needs `terminal`
    /// (v1; v2 has no client terminals).
    pub async fn create_terminal(&self, command: &TerminalCommand) -> Result<Terminal, Error> {
        let mut request = v1::CreateTerminalRequest::new(self.id(), command.command.as_str())
            .args(command.args.clone())
            .env(
                command
                    .env
                    .iter()
                    .map(|(name, value)| v1::EnvVariable::new(name.as_str(), value.as_str()))
                    .collect::<Vec<_>>(),
            );
        if let Some(cwd) = &command.cwd {
            request = request.cwd(cwd.as_str());
        }
        if let Some(limit) = command.output_byte_limit {
            request = request.output_byte_limit(limit);
        }
        let creating = self
            .client_connection()
            .call::<v1::methods::TerminalCreate>(Some(ClientFeature::Terminal), &request);
        let response = self.unless_cancelled(creating).await?;
        Ok(Terminal {
            session: self.clone(),
            id: response.terminal_id.to_string(),
        })
    }

    /// Asks the user for input through the client (`elicitation/create`) with a request of
    /// the connection's version. Needs `elicitation.form` or `elicitation.url`, as the
    /// request's mode says. In v2 the running turn reports `requires_action` meanwhile.
    pub async fn elicit<R: Elicitation>(&self, request: &R) -> Result<R::Response, Error> {
        let client = self.client_connection();
        client.check_elicitation(request)?;
        self.waiting_for_user(request.send(client)).await
    }
}
