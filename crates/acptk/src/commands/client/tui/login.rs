//! A terminal login of the terminal UI (an auth method of kind `terminal`): the agent's
//! login command runs in the foreground of the terminal while the UI is suspended, and can be
//! cancelled: Ctrl-C (which the login gets too) ends it and the UI goes back to the sign-in
//! picker. SIGTERM and SIGHUP end the login and the client.

use std::process::Stdio;
use std::time::Duration;

use acptk_runtime::client::LoginCommand;

use crate::commands::signals::Signals;

/// How long a login gets to exit after Ctrl-C before it is killed.
const CANCEL_GRACE: Duration = Duration::from_secs(2);

/// How a terminal login ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Login {
    /// It ran to its end: `Ok` when it succeeded, else why not.
    Done(Result<(), String>),
    /// The user pressed Ctrl-C.
    Cancelled,
    /// The client got this signal (SIGTERM, SIGHUP) and must end.
    Ended(i32),
}

/// Runs `command` on this terminal until it ends, Ctrl-C cancels it or a signal ends the
/// client.
pub async fn run_in_terminal(command: &LoginCommand, signals: &mut Signals) -> Login {
    let program = command.program.to_string_lossy().into_owned();
    println!("Running the agent's login: {program} (Ctrl-C cancels it)");
    let mut process = tokio::process::Command::new(&command.program);
    process
        .args(&command.args)
        .envs(command.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::inherit())
        .stdout(Stdio::inherit())
        .stderr(Stdio::inherit())
        .kill_on_drop(true);
    if let Some(cwd) = &command.cwd {
        process.current_dir(cwd);
    }
    let mut child = match process.spawn() {
        Ok(child) => child,
        Err(error) => return Login::Done(Err(format!("cannot start `{program}`: {error}"))),
    };
    tokio::select! {
        status = child.wait() => Login::Done(match status {
            Ok(status) if status.success() => Ok(()),
            Ok(status) => Err(format!("the login command ended with {status}")),
            Err(error) => Err(format!("waiting for `{program}` failed: {error}")),
        }),
        signal = signals.recv() => {
            // Ctrl-C reached the login too (it runs in the terminal's foreground): give it a
            // moment to end by itself, then end it.
            if tokio::time::timeout(CANCEL_GRACE, child.wait()).await.is_err() {
                let _ = child.kill().await;
            }
            if signal == tokio::signal::unix::SignalKind::interrupt().as_raw_value() {
                Login::Cancelled
            } else {
                Login::Ended(signal)
            }
        }
    }
}
