//! What `acp client` offers the agent, built on the runtime's
//! [`ClientHandler`] like any editor would be:
//!
//! * permission requests: asked in the terminal UI; with `--prompt`, answered by `--allow`
//!   (the first "allow" option) or else rejected (the first "reject" option);
//! * files (`--no-fs` turns them off): read inside the session's directories; every write is
//!   asked in the terminal UI and, with `--prompt`, refused unless `--allow-write`;
//! * terminals (`--no-terminal` turns them off): commands run in their own process group;
//! * terminal logins: the agent's login command runs in the foreground terminal (the terminal
//!   UI steps aside meanwhile); offered only when there is a terminal to run it in.
//!
//! Each decision is recorded in an [`EventLog`] for the output.

use std::io::IsTerminal;
use std::process::Stdio;

use acp_runtime::client::{
    ClientHandler, CreateTerminal, LocalFiles, LocalTerminals, LoginCommand, PermissionDecision,
    PermissionRequest, ReadFiles, ReadTextFile, TerminalExit, TerminalLogin, TerminalOutput,
    TerminalRef, Terminals, WriteFiles, WriteTextFile,
};
use acp_runtime::connection::BoxFuture;
use acp_schema::jsonrpc::{ErrorObject, INTERNAL_ERROR};
use tokio::sync::{mpsc, oneshot};

use super::events::{ClientEvent, EventLog};

/// The longest preview of a file write shown in the confirmation, in characters.
pub const WRITE_PREVIEW_CHARS: usize = 2000;

/// A question for the user of the terminal UI, with the way back for the answer.
#[derive(Debug)]
#[non_exhaustive]
pub enum Question {
    /// A permission request.
    Permission(PermissionRequest, oneshot::Sender<PermissionDecision>),
    /// May the agent write this file?
    Write(WriteQuestion, oneshot::Sender<bool>),
    /// Run the agent's login command now (the terminal UI steps aside); the answer is how it
    /// went.
    Login(LoginCommand, oneshot::Sender<Result<(), String>>),
}

/// What a write confirmation shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteQuestion {
    /// The file.
    pub path: String,
    /// The length of the new content in bytes.
    pub bytes: usize,
    /// Whether the file exists (it would be replaced).
    pub replaces: bool,
    /// The start of the new content.
    pub preview: String,
}

/// How questions are answered.
#[derive(Debug, Clone)]
pub enum Answers {
    /// Without a user (`--prompt`): permissions by `allow`, writes by `allow_write`.
    Fixed {
        /// `--allow`.
        allow: bool,
        /// `--allow-write`.
        allow_write: bool,
    },
    /// By the user of the terminal UI.
    Ask(mpsc::Sender<Question>),
}

/// The `--prompt` answer to a permission request: the first option of the wanted kind
/// (`allow…` with `allow`, `reject…` otherwise), falling back to "cancelled".
#[must_use]
pub fn fixed_permission(request: &PermissionRequest, allow: bool) -> PermissionDecision {
    let wanted = if allow { "allow" } else { "reject" };
    request
        .options
        .iter()
        .find(|option| option.kind.starts_with(wanted))
        .map_or(PermissionDecision::Cancelled, |option| {
            PermissionDecision::Selected(option.id.clone())
        })
}

/// The event for an answered permission request.
fn permission_event(request: &PermissionRequest, decision: &PermissionDecision) -> ClientEvent {
    let choice = match decision {
        PermissionDecision::Selected(id) => request
            .options
            .iter()
            .find(|option| &option.id == id)
            .map(|option| (option.id.clone(), option.name.clone(), option.kind.clone())),
        _ => None,
    };
    ClientEvent::Permission {
        title: request.title.clone(),
        choice,
    }
}

/// Files with every write confirmed.
#[derive(Debug, Clone)]
pub struct ConfirmedFiles {
    files: LocalFiles,
    answers: Answers,
    events: EventLog,
}

impl ReadFiles for ConfirmedFiles {
    fn read_text_file(&self, request: ReadTextFile) -> BoxFuture<Result<String, ErrorObject>> {
        self.files.read_text_file(request)
    }
}

impl WriteFiles for ConfirmedFiles {
    fn write_text_file(&self, request: WriteTextFile) -> BoxFuture<Result<(), ErrorObject>> {
        let this = self.clone();
        Box::pin(async move {
            let path = request.path.display().to_string();
            let bytes = request.content.len();
            // Outside paths are refused before anyone is asked.
            let target = this.files.check_write(&request.scope, &request.path)?;
            let refusal = match &this.answers {
                Answers::Fixed { allow_write, .. } => {
                    (!allow_write).then(|| "writes need --allow-write with --prompt".to_owned())
                }
                Answers::Ask(questions) => {
                    let question = WriteQuestion {
                        path: path.clone(),
                        bytes,
                        replaces: target.exists(),
                        preview: request.content.chars().take(WRITE_PREVIEW_CHARS).collect(),
                    };
                    let (reply, answer) = oneshot::channel();
                    let asked = questions
                        .send(Question::Write(question, reply))
                        .await
                        .is_ok();
                    let allowed = asked && answer.await.unwrap_or(false);
                    (!allowed).then(|| "the user declined".to_owned())
                }
            };
            let allowed = refusal.is_none();
            this.events.push(ClientEvent::FileWrite {
                path: path.clone(),
                bytes,
                allowed,
                reason: refusal.clone(),
            });
            if let Some(reason) = refusal {
                return Err(ErrorObject::new(
                    INTERNAL_ERROR,
                    format!("writing `{path}` was refused: {reason}"),
                ));
            }
            this.files.write_text_file(request).await
        })
    }
}

/// Terminals with every command recorded.
#[derive(Debug, Clone, Default)]
pub struct RecordedTerminals {
    terminals: LocalTerminals,
    events: EventLog,
}

impl RecordedTerminals {
    /// The terminals underneath.
    #[must_use]
    pub fn inner(&self) -> &LocalTerminals {
        &self.terminals
    }
}

impl Terminals for RecordedTerminals {
    fn create(&self, request: CreateTerminal) -> BoxFuture<Result<String, ErrorObject>> {
        self.events.push(ClientEvent::Terminal {
            command: request.command.clone(),
            args: request.args.clone(),
        });
        self.terminals.create(request)
    }
    fn output(&self, terminal: TerminalRef) -> BoxFuture<Result<TerminalOutput, ErrorObject>> {
        self.terminals.output(terminal)
    }
    fn wait_for_exit(&self, terminal: TerminalRef) -> BoxFuture<Result<TerminalExit, ErrorObject>> {
        self.terminals.wait_for_exit(terminal)
    }
    fn kill(&self, terminal: TerminalRef) -> BoxFuture<Result<(), ErrorObject>> {
        self.terminals.kill(terminal)
    }
    fn release(&self, terminal: TerminalRef) -> BoxFuture<Result<(), ErrorObject>> {
        self.terminals.release(terminal)
    }
}

/// Runs login commands in the foreground terminal.
#[derive(Debug, Clone)]
pub struct ForegroundLogin {
    answers: Answers,
}

/// Runs `command` with this process's terminal and waits for it (blocking).
pub fn run_login(command: &LoginCommand) -> Result<(), String> {
    let mut process = std::process::Command::new(&command.program);
    process
        .args(&command.args)
        .envs(command.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::inherit())
        .stdout(Stdio::inherit())
        .stderr(Stdio::inherit());
    if let Some(cwd) = &command.cwd {
        process.current_dir(cwd);
    }
    let status = process.status().map_err(|error| {
        format!(
            "cannot start `{}`: {error}",
            command.program.to_string_lossy()
        )
    })?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("the login command ended with {status}"))
    }
}

impl TerminalLogin for ForegroundLogin {
    fn run(&self, command: LoginCommand) -> BoxFuture<Result<(), String>> {
        let answers = self.answers.clone();
        Box::pin(async move {
            match answers {
                Answers::Fixed { .. } => tokio::task::spawn_blocking(move || run_login(&command))
                    .await
                    .unwrap_or_else(|error| Err(format!("the login task failed: {error}"))),
                Answers::Ask(questions) => {
                    let (reply, answer) = oneshot::channel();
                    if questions
                        .send(Question::Login(command, reply))
                        .await
                        .is_err()
                    {
                        return Err("the terminal UI has gone".to_owned());
                    }
                    answer
                        .await
                        .unwrap_or_else(|_| Err("the terminal UI has gone".to_owned()))
                }
            }
        })
    }
}

/// The handler of `acp client`.
#[derive(Debug, Clone)]
pub struct CliHandler {
    answers: Answers,
    events: EventLog,
    files: Option<ConfirmedFiles>,
    terminals: Option<RecordedTerminals>,
    login: Option<ForegroundLogin>,
}

/// Which services `acp client` offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Services {
    /// Files (not `--no-fs`).
    pub files: bool,
    /// Terminals (not `--no-terminal`).
    pub terminals: bool,
}

impl CliHandler {
    /// A handler answering with `answers`, offering `services`, recording into `events`.
    /// Terminal logins are offered when standard input is a terminal.
    #[must_use]
    pub fn new(answers: Answers, services: Services, events: EventLog) -> Self {
        let files = services.files.then(|| ConfirmedFiles {
            files: LocalFiles::new(),
            answers: answers.clone(),
            events: events.clone(),
        });
        let terminals = services.terminals.then(|| RecordedTerminals {
            terminals: LocalTerminals::new(),
            events: events.clone(),
        });
        let login = std::io::stdin().is_terminal().then(|| ForegroundLogin {
            answers: answers.clone(),
        });
        Self {
            answers,
            events,
            files,
            terminals,
            login,
        }
    }

    /// The terminals (to check that nothing is left running).
    #[must_use]
    pub fn local_terminals(&self) -> Option<&LocalTerminals> {
        self.terminals.as_ref().map(RecordedTerminals::inner)
    }
}

impl ClientHandler for CliHandler {
    fn request_permission(&self, request: PermissionRequest) -> BoxFuture<PermissionDecision> {
        let answers = self.answers.clone();
        let events = self.events.clone();
        Box::pin(async move {
            let decision = match answers {
                Answers::Fixed { allow, .. } => fixed_permission(&request, allow),
                Answers::Ask(questions) => {
                    let (reply, answer) = oneshot::channel();
                    if questions
                        .send(Question::Permission(request.clone(), reply))
                        .await
                        .is_err()
                    {
                        PermissionDecision::Cancelled
                    } else {
                        answer.await.unwrap_or(PermissionDecision::Cancelled)
                    }
                }
            };
            events.push(permission_event(&request, &decision));
            decision
        })
    }

    fn file_reader(&self) -> Option<&dyn ReadFiles> {
        self.files.as_ref().map(|files| files as &dyn ReadFiles)
    }

    fn file_writer(&self) -> Option<&dyn WriteFiles> {
        self.files.as_ref().map(|files| files as &dyn WriteFiles)
    }

    fn terminals(&self) -> Option<&dyn Terminals> {
        self.terminals
            .as_ref()
            .map(|terminals| terminals as &dyn Terminals)
    }

    fn terminal_login(&self) -> Option<&dyn TerminalLogin> {
        self.login.as_ref().map(|login| login as &dyn TerminalLogin)
    }
}
