//! `acp proxy --url URL`: a stdio client (an editor that launches the proxy) uses a remote
//! agent. The client's lines are checked, recorded and repaired as with a launched agent,
//! and travel to the agent over [`connect`].
//!
//! The run ends when the client's input ends (the connection is closed, and the agent gets
//! `--grace-period` to finish its output), when the agent closes the connection, or on
//! SIGTERM, SIGINT or SIGHUP (as when the input ends; a second signal stops at once).
//!
//! Exit codes: 0 when the client ended the run; 5 when the agent could not be reached or
//! closed the connection first; 3 when the server refused the token (401 or 403); 128 + the
//! signal's number when a signal ended it.

use std::future::Future;
use std::io::{self, Write};
use std::pin::Pin;
use std::process::ExitCode;
use std::time::Duration;

use acptk_check::proxy::{Control, ProxyReport};
use acptk_runtime::transport::remote::{ClientOptions, DEFAULT_MAX_MESSAGE_BYTES, connect};

use super::{Args, Run, bridge, finish};
use crate::commands::signals::Signals;

/// The exit code for an agent that cannot be reached or closed the connection (as `acp
/// client --url`).
const AGENT_GONE: u8 = 5;
/// The exit code for a refused token (as `acp client --url`).
const AUTH: u8 = 3;

/// The client options from the flags: the token (or `$ACP_TOKEN`; empty is a usage error)
/// and `--tls-ca`.
fn options(args: &Args) -> Result<ClientOptions, Box<dyn std::error::Error + Send + Sync>> {
    let mut options = ClientOptions::new();
    if let Some(token) = crate::commands::tokens::token(args.remote.token.as_ref())? {
        options = options.token(token);
    }
    if let Some(file) = &args.tls_ca {
        let pem =
            std::fs::read(file).map_err(|error| format!("--tls-ca {}: {error}", file.display()))?;
        options = options
            .trust_pem(&pem)
            .map_err(|error| format!("--tls-ca {}: {error}", file.display()))?;
    }
    Ok(options)
}

/// Proxies standard input and output to the agent at `url`.
pub(super) async fn serve(args: &Args, url: &str) -> super::super::Outcome {
    let mut signals = Signals::new()?;
    let options = options(args)?;
    let connected = tokio::select! {
        connected = connect(url, &options) => connected,
        number = signals.recv() => return Ok(by_signal(number)),
    };
    let (reader, writer) = match connected {
        Ok(pair) => pair,
        Err(error) => {
            let code = match error.status() {
                Some(401 | 403) => AUTH,
                _ => AGENT_GONE,
            };
            eprintln!("acp proxy: {error}");
            return Ok(ExitCode::from(code));
        }
    };
    let (run, label) = Run::single(args, vec![url.to_owned()], url)?;
    let say = |message: String| eprintln!("acp proxy: {message}");
    let (to_engine, agent_out) = bridge::pipe();
    let (agent_in, from_engine) = bridge::pipe();
    let inbound = tokio::spawn(bridge::messages_to_lines(reader, to_engine, say));
    let outbound = tokio::spawn(bridge::lines_to_messages(
        from_engine,
        writer,
        DEFAULT_MAX_MESSAGE_BYTES,
        say,
    ));
    let control = Control::new();
    let forward = run.forward_stdio(agent_in, agent_out, control.clone());
    tokio::pin!(forward);
    let grace = Duration::from_secs_f64(args.grace_period);
    let first = tokio::select! {
        report = forward.as_mut() => First::AgentDone(report),
        () = control.client_done() => First::ClientDone,
        number = signals.recv() => First::Signal(number),
    };
    let (report, agent_first, mut signal) = match first {
        First::AgentDone(report) => (report, true, None),
        First::ClientDone => {
            let (report, signal) = wind_down(forward, &control, &mut signals, grace).await;
            (report, false, signal)
        }
        First::Signal(number) => {
            control.close_client();
            let (report, _) = wind_down(forward, &control, &mut signals, grace).await;
            (report, false, Some(number))
        }
    };
    // The engine closed the agent's side: the connection is closing; give it a moment.
    let closing = async {
        let _ = outbound.await;
    };
    tokio::select! {
        () = closing => {}
        () = tokio::time::sleep(Duration::from_secs(2)) => {}
        number = signals.recv() => { signal.get_or_insert(number); }
    }
    inbound.abort();
    finish(&label, report?);
    if let Some(number) = signal {
        return Ok(by_signal(number));
    }
    if agent_first {
        let _ = writeln!(
            std::io::stderr().lock(),
            "acp proxy: the agent at {url} closed the connection"
        );
        return Ok(ExitCode::from(AGENT_GONE));
    }
    Ok(ExitCode::SUCCESS)
}

enum First {
    AgentDone(io::Result<ProxyReport>),
    ClientDone,
    Signal(i32),
}

/// 128 + the signal's number.
fn by_signal(number: i32) -> ExitCode {
    ExitCode::from((128 + number).clamp(0, 255) as u8)
}

/// The client's side is done and the agent's input closed: let the agent's last output
/// through for up to `grace`, then stop (a signal meanwhile stops at once). Returns the
/// report and the signal that came, if one did.
async fn wind_down<F>(
    mut forward: Pin<&mut F>,
    control: &Control,
    signals: &mut Signals,
    grace: Duration,
) -> (io::Result<ProxyReport>, Option<i32>)
where
    F: Future<Output = io::Result<ProxyReport>>,
{
    let mut signal = None;
    // Signals first, so one that came with the client's leaving is counted; the forwarding
    // last, so that a flood from the agent, which can use up the task's budget, does not keep
    // the others from being seen.
    tokio::select! {
        biased;
        number = signals.recv() => signal = Some(number),
        () = tokio::time::sleep(grace) => {}
        report = forward.as_mut() => return (report, signals.already_come().await),
    }
    control.stop();
    (forward.await, signal)
}
