//! What `acp client` offers the agent, built on the runtime's
//! [`ClientHandler`] like any editor would be:
//!
//! * permission requests: asked in the terminal UI; with `--prompt`, decided by the
//!   permission policy ([`super::policy`]), asked y/N on the terminal for what it leaves open,
//!   and refused without a terminal;
//! * files (`--no-fs` turns them off; over `--url` only with `--allow-remote-fs`): read inside
//!   the session's directories; every write is put to the user (terminal UI) or to the policy
//!   (`--prompt`, where `--allow-write` allows them);
//! * terminals (`--no-terminal` turns them off; over `--url` only with
//!   `--allow-remote-terminal`): every command is put to the user (terminal UI: a dialog with
//!   the command, arguments, directory and environment) or to the policy (`--prompt`, default:
//!   asked, refused without a terminal) before it runs, and runs in a process group of its own
//!   inside the session's directories;
//! * terminal logins: the agent's login command runs in the foreground terminal (the terminal
//!   UI steps aside meanwhile); offered only when there is a terminal to run it in.
//!
//! Each decision is recorded in an [`EventLog`] for the output.

use std::io::IsTerminal;
use std::process::Stdio;

use acptk_runtime::client::{
    Action, ClientHandler, Consent, CreateTerminal, LocalFiles, LocalTerminals, LoginCommand,
    PermissionDecision, PermissionRequest, ReadFiles, ReadTextFile, TerminalLogin, Terminals,
    WriteFiles, WriteTextFile,
};
use acptk_runtime::connection::BoxFuture;
use acptk_schema::jsonrpc::ErrorObject;
use tokio::sync::{mpsc, oneshot};

use super::decide::{Decision, OneShot};
use super::policy::Subject;
use crate::commands::client::shared::events::DecidedBy;
use crate::commands::client::shared::events::{ClientEvent, EventLog};
use crate::commands::client::shared::text::command_line;

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
    /// May the agent run this command?
    Run(RunQuestion, oneshot::Sender<bool>),
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

/// What a command confirmation shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunQuestion {
    /// The program.
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// The directory it would run in (links resolved).
    pub cwd: String,
    /// The environment variables the agent sets for it (name, value).
    pub env: Vec<(String, String)>,
}

impl RunQuestion {
    /// The command and its arguments as one line (arguments with spaces quoted).
    #[must_use]
    pub fn line(&self) -> String {
        command_line(&self.command, &self.args)
    }
}

/// How questions are answered.
#[derive(Debug, Clone)]
pub enum Answers {
    /// Without the terminal UI (`--prompt`): the permission policy, then y/N on the terminal.
    OneShot(OneShot),
    /// By the user of the terminal UI.
    Ask(mpsc::Sender<Question>),
}

/// The answer to a permission request that is allowed (`allow`) or refused: the first option
/// of the wanted kind (`allow_once` before `allow_always`, `reject_once` before
/// `reject_always`), falling back to "cancelled".
#[must_use]
pub fn fixed_permission(request: &PermissionRequest, allow: bool) -> PermissionDecision {
    let (first, second) = if allow {
        ("allow_once", "allow")
    } else {
        ("reject_once", "reject")
    };
    request
        .options
        .iter()
        .find(|option| option.kind == first)
        .or_else(|| {
            request
                .options
                .iter()
                .find(|option| option.kind.starts_with(second))
        })
        .map_or(PermissionDecision::Cancelled, |option| {
            PermissionDecision::Selected(option.id.clone())
        })
}

/// The event for an answered permission request.
fn permission_event(
    request: &PermissionRequest,
    decision: &PermissionDecision,
    by: DecidedBy,
) -> ClientEvent {
    let choice = match decision {
        PermissionDecision::Selected(id) => request
            .options
            .iter()
            .find(|option| &option.id == id)
            .map(|option| (option.id.clone(), option.name.clone(), option.kind.clone())),
        _ => None,
    };
    ClientEvent::Permission {
        session: request.session_id.clone(),
        tool_call_id: request.tool_call_id.clone(),
        title: request.title.clone(),
        tool_kind: request.tool_kind.clone(),
        choice,
        by,
    }
}

/// Files for the agent: reads inside the session's directories; writes once approved.
#[derive(Debug, Clone, Default)]
pub struct CliFiles {
    files: LocalFiles,
}

impl ReadFiles for CliFiles {
    fn read_text_file(&self, request: ReadTextFile) -> BoxFuture<Result<String, ErrorObject>> {
        self.files.read_text_file(request)
    }
}

impl WriteFiles for CliFiles {
    fn write_text_file(&self, request: WriteTextFile) -> BoxFuture<Result<(), ErrorObject>> {
        self.files.write_text_file(request)
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
                Answers::OneShot(_) => tokio::task::spawn_blocking(move || run_login(&command))
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
    files: Option<CliFiles>,
    terminals: Option<LocalTerminals>,
    login: Option<ForegroundLogin>,
}

/// Which services `acp client` offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Services {
    /// Files (not `--no-fs`; over `--url`, `--allow-remote-fs`).
    pub files: bool,
    /// Terminals (not `--no-terminal`; over `--url`, `--allow-remote-terminal`).
    pub terminals: bool,
}

impl CliHandler {
    /// A handler answering with `answers`, offering `services`, recording into `events`.
    /// Terminal logins are offered when standard input is a terminal.
    #[must_use]
    pub fn new(answers: Answers, services: Services, events: EventLog) -> Self {
        let files = services.files.then(CliFiles::default);
        let terminals = services.terminals.then(LocalTerminals::new);
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
        self.terminals.as_ref()
    }

    /// Decides about running `request`: refused at once outside the session's directories,
    /// else put to the user or the policy.
    async fn approve_command(&self, request: CreateTerminal) -> Consent {
        let shown_cwd = request
            .cwd
            .as_ref()
            .unwrap_or(&request.scope.cwd)
            .display()
            .to_string();
        let (decision, reason) = match LocalTerminals::working_dir(&request) {
            Err(error) => (
                Decision {
                    allowed: false,
                    by: DecidedBy::Client,
                },
                Some(
                    error
                        .message
                        .trim_start_matches("invalid params: ")
                        .to_owned(),
                ),
            ),
            Ok(cwd) => {
                let question = RunQuestion {
                    command: request.command.clone(),
                    args: request.args.clone(),
                    cwd: cwd.display().to_string(),
                    env: request.env.clone(),
                };
                let decision = match &self.answers {
                    Answers::OneShot(decide) => {
                        let ask = format!(
                            "acp: the agent wants to run `{}` in {}{}. Run it?",
                            crate::commands::client::shared::text::terminal_safe(&question.line()),
                            question.cwd,
                            env_note(&question.env)
                        );
                        // Policies match the words joined by spaces, without quoting.
                        let words = std::iter::once(&question.command)
                            .chain(&question.args)
                            .map(String::as_str)
                            .collect::<Vec<_>>()
                            .join(" ");
                        decide.decide(Subject::Run(&words), ask).await
                    }
                    Answers::Ask(questions) => {
                        let (reply, answer) = oneshot::channel();
                        let asked = questions.send(Question::Run(question, reply)).await.is_ok();
                        Decision {
                            allowed: asked && answer.await.unwrap_or(false),
                            by: DecidedBy::User,
                        }
                    }
                };
                let reason = (!decision.allowed).then(|| refusal_reason(decision.by));
                (decision, reason)
            }
        };
        self.events.push(ClientEvent::Terminal {
            session: request.scope.session_id.clone(),
            command: request.command.clone(),
            args: request.args.clone(),
            cwd: shown_cwd,
            allowed: decision.allowed,
            reason: reason.clone(),
        });
        match reason {
            None => Consent::Allowed,
            Some(reason) => Consent::Refused(reason),
        }
    }

    /// Decides about writing `request`: refused at once outside the session's directories,
    /// else put to the user or the policy.
    async fn approve_write(&self, request: WriteTextFile) -> Consent {
        let path = request.path.display().to_string();
        let bytes = request.content.len();
        let reason = match LocalFiles::new().check_write(&request.scope, &request.path) {
            Err(error) => Some(
                error
                    .message
                    .trim_start_matches("invalid params: ")
                    .to_owned(),
            ),
            Ok(target) => {
                let decision = match &self.answers {
                    Answers::OneShot(decide) => {
                        let ask = format!(
                            "acp: the agent wants to write {bytes} bytes to {}. Write it?",
                            crate::commands::client::shared::text::terminal_safe(&path)
                        );
                        decide.decide(Subject::Write(&path), ask).await
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
                        Decision {
                            allowed: asked && answer.await.unwrap_or(false),
                            by: DecidedBy::User,
                        }
                    }
                };
                (!decision.allowed).then(|| match decision.by {
                    DecidedBy::Policy => {
                        "the permission policy refuses it (allow writes with --allow-write or --approve-all)"
                            .to_owned()
                    }
                    by => refusal_reason(by),
                })
            }
        };
        self.events.push(ClientEvent::FileWrite {
            session: request.scope.session_id.clone(),
            path,
            bytes,
            allowed: reason.is_none(),
            reason: reason.clone(),
        });
        match reason {
            None => Consent::Allowed,
            Some(reason) => Consent::Refused(reason),
        }
    }
}

/// `; with VAR=value, ...` for the environment of a command (empty without one).
fn env_note(env: &[(String, String)]) -> String {
    if env.is_empty() {
        return String::new();
    }
    let vars: Vec<String> = env
        .iter()
        .map(|(name, value)| {
            crate::commands::client::shared::text::terminal_safe(&format!("{name}={value}"))
                .into_owned()
        })
        .collect();
    format!(" with {}", vars.join(" "))
}

/// Why something was refused, by who refused it.
fn refusal_reason(by: DecidedBy) -> String {
    match by {
        DecidedBy::User => "the user declined".to_owned(),
        DecidedBy::NoTerminal => {
            "the permission policy asks the user and there is no terminal to ask on".to_owned()
        }
        DecidedBy::Policy | DecidedBy::Client => "the permission policy refuses it".to_owned(),
    }
}

impl ClientHandler for CliHandler {
    fn request_permission(&self, request: PermissionRequest) -> BoxFuture<PermissionDecision> {
        let answers = self.answers.clone();
        let events = self.events.clone();
        Box::pin(async move {
            let (decision, by) = match answers {
                Answers::OneShot(decide) => {
                    let subject = Subject::Permission {
                        kind: request.tool_kind.as_deref(),
                        title: &request.title,
                    };
                    let kind = request
                        .tool_kind
                        .as_deref()
                        .map_or_else(String::new, |kind| format!(" ({kind})"));
                    let ask = format!(
                        "acp: the agent asks permission{kind}: {}. Allow?",
                        crate::commands::client::shared::text::terminal_safe(&request.title)
                            .replace('\n', " ")
                    );
                    let decision = decide.decide(subject, ask).await;
                    (fixed_permission(&request, decision.allowed), decision.by)
                }
                Answers::Ask(questions) => {
                    let (reply, answer) = oneshot::channel();
                    let decision = if questions
                        .send(Question::Permission(request.clone(), reply))
                        .await
                        .is_err()
                    {
                        PermissionDecision::Cancelled
                    } else {
                        answer.await.unwrap_or(PermissionDecision::Cancelled)
                    };
                    (decision, DecidedBy::User)
                }
            };
            events.push(permission_event(&request, &decision, by));
            decision
        })
    }

    fn approve(&self, action: Action<'_>) -> BoxFuture<Consent> {
        let this = self.clone();
        match action {
            Action::RunCommand(request) => {
                let request = request.clone();
                Box::pin(async move { this.approve_command(request).await })
            }
            Action::WriteFile(request) => {
                let request = request.clone();
                Box::pin(async move { this.approve_write(request).await })
            }
            _ => Box::pin(async {
                Consent::Refused("this client does not know the action".to_owned())
            }),
        }
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
