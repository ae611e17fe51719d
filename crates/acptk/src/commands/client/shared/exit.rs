//! The exit codes of `acp client` and the failures that lead to them.
//!
//! | code | meaning |
//! |---|---|
//! | 0 | the turn ended normally (`end_turn`), or the terminal UI was left normally |
//! | 1 | the turn or the agent failed (an error, or another stop reason) |
//! | 2 | bad usage (flags, or a mode, option or session the agent does not have) |
//! | 3 | authentication is needed or failed |
//! | 4 | timed out (`--timeout`) |
//! | 5 | the agent could not be started or exited early |
//! | 6 | a permission was needed and there was no terminal to ask (`--non-interactive-permissions fail`) |
//! | 129, 130, 143 | ended by SIGHUP, SIGINT (Ctrl-C), SIGTERM (128 + the signal) |
//! | 141 | the output was closed (a closed pipe: 128 + SIGPIPE) |

use std::fmt;
use std::process::ExitCode;

use acptk_runtime::Error;
use acptk_runtime::client::AuthMethod;
use acptk_runtime::rpc::AUTH_REQUIRED;
use acptk_runtime::transport::remote::RemoteError;
use acptk_schema::jsonrpc::ErrorObject;

/// Why `acp client` ends, as an exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Exit {
    /// 0: the turn ended normally.
    Ok,
    /// 1: the turn or the agent failed.
    Failed,
    /// 2: bad usage.
    Usage,
    /// 3: authentication needed or failed.
    Auth,
    /// 4: timed out.
    Timeout,
    /// 5: the agent could not be started or exited early.
    AgentGone,
    /// 6: a permission was needed and nobody could be asked.
    PermissionNeeded,
    /// 130: interrupted (SIGINT, Ctrl-C).
    Interrupted,
    /// 128 + the signal: ended by SIGTERM (143) or SIGHUP (129).
    Signal(u8),
    /// 141: the output was closed.
    OutputClosed,
}

impl Exit {
    /// The process exit code.
    #[must_use]
    pub fn code(self) -> u8 {
        match self {
            Exit::Ok => 0,
            Exit::Failed => 1,
            Exit::Usage => 2,
            Exit::Auth => 3,
            Exit::Timeout => 4,
            Exit::AgentGone => 5,
            Exit::PermissionNeeded => 6,
            Exit::Interrupted => 130,
            Exit::Signal(signal) => 128u8.saturating_add(signal),
            Exit::OutputClosed => 141,
        }
    }
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> Self {
        ExitCode::from(exit.code())
    }
}

/// A failure with its exit code and one message for the user.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    /// The exit code.
    pub exit: Exit,
    /// What happened, in one line or a few (no `acp:` prefix).
    pub message: String,
    /// The agent's JSON-RPC error, when one caused it.
    pub rpc: Option<Box<ErrorObject>>,
    /// The sign-in methods the agent offers, when it needs a sign-in.
    pub auth_methods: Vec<AuthMethod>,
    /// The environment variables an `env_var` sign-in needs and that are not set.
    pub missing_vars: Vec<String>,
}

impl Failure {
    /// A failure with this code and message.
    pub fn new(exit: Exit, message: impl Into<String>) -> Self {
        Self {
            exit,
            message: message.into(),
            rpc: None,
            auth_methods: Vec::new(),
            missing_vars: Vec::new(),
        }
    }

    /// A usage failure.
    pub fn usage(message: impl Into<String>) -> Self {
        Self::new(Exit::Usage, message)
    }

    /// The failure of the step `what` (`"cannot create a session"`) with `error`: the code
    /// follows from the error (the agent gone: 5; `-32000`: 3; otherwise `otherwise`).
    pub fn of(what: &str, error: &Error, otherwise: Exit) -> Self {
        let exit = match error {
            Error::Remote(RemoteError::Unreachable {
                status: Some(401 | 403),
                ..
            }) => Exit::Auth,
            Error::ConnectionClosed | Error::Io(_) | Error::Remote(_) => Exit::AgentGone,
            Error::Rpc(object) if object.code == AUTH_REQUIRED => Exit::Auth,
            _ => otherwise,
        };
        let message = match error {
            Error::ConnectionClosed => {
                format!("{what}: the agent exited or closed the connection")
            }
            other => format!("{what}: {other}"),
        };
        Self {
            rpc: error.rpc().cloned().map(Box::new),
            ..Self::new(exit, message)
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Failure {}

/// Prints a failure as `acp: MESSAGE` to standard error and returns its exit code. A closed
/// standard error is not an error here (nothing panics, nothing is retried), and a closed
/// output is said nowhere: its run ends quietly.
pub fn report(failure: &Failure) -> ExitCode {
    if failure.exit != Exit::OutputClosed {
        say(&format!("acp: {}", failure.message));
    }
    failure.exit.into()
}

/// Writes `line` to standard error, ignoring a closed one.
pub fn say(line: &str) {
    use std::io::Write;
    let mut stderr = std::io::stderr().lock();
    let _ = writeln!(stderr, "{line}");
}
