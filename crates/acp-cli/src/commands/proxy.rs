//! `acp proxy`: sit between a client and an agent, check the traffic, and repair the agent's
//! notice mistakes live.

use std::io::Write;
use std::path::PathBuf;
use std::process::{ExitCode, ExitStatus, Stdio};
use std::time::Duration;

use acp_check::proxy::{self, Hooks, ProxyOptions, ProxyReport};
use acp_check::repair::Fallback;
use acp_check::report::{Format, text_finding};
use acp_runtime::transport::{Stdin, Stdout};

/// How long the agent's remaining output may take to arrive once the agent has exited.
const DRAIN_AFTER_EXIT: Duration = Duration::from_secs(2);

/// Arguments of `acp proxy`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Record the transcript (as the peers sent it, before repairs) to FILE; findings then
    /// name FILE and its line numbers.
    #[arg(long, value_name = "FILE")]
    record: Option<PathBuf>,
    /// What a notice to a v1 client without `session.notices` becomes: an agent message
    /// (`message`) or nothing (`drop`).
    #[arg(long, value_parser = ["message", "drop"], default_value = "message")]
    fallback: String,
    /// Longest line checked, in bytes; longer lines are forwarded unchecked.
    #[arg(long, value_name = "BYTES", default_value_t = acp_check::lines::DEFAULT_MAX_LINE)]
    max_line: usize,
    /// The agent to launch, and its arguments (after `--`).
    #[arg(last = true, required = true, value_name = "AGENT_COMMAND")]
    command: Vec<String>,
}

/// Runs the agent behind the proxy until it exits, and exits with its status.
pub fn run(args: Args) -> super::Outcome {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let result = runtime.block_on(serve(args));
    // Standard input may still be read by a blocking thread: do not wait for it.
    runtime.shutdown_background();
    result
}

async fn serve(args: Args) -> super::Outcome {
    let Some((program, agent_args)) = args.command.split_first() else {
        return Err("missing the agent command (after `--`)".into());
    };
    let mut child = tokio::process::Command::new(program)
        .args(agent_args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("cannot start the agent `{program}`: {e}"))?;
    let (Some(agent_in), Some(agent_out)) = (child.stdin.take(), child.stdout.take()) else {
        return Err("the agent's standard streams are not available".into());
    };
    let label = match &args.record {
        Some(path) => path.display().to_string(),
        None => "<proxy>".to_owned(),
    };
    let finding_label = label.clone();
    let mut hooks = Hooks::new(move |finding| {
        let line = text_finding(&finding_label, finding);
        // Nothing sensible is left to do when standard error is gone.
        let _ = std::io::stderr().lock().write_all(line.as_bytes());
    });
    if let Some(path) = &args.record {
        let file = proxy::create_record(path)
            .await
            .map_err(|e| format!("cannot create {}: {e}", path.display()))?;
        hooks = hooks.record(file);
    }
    let options = ProxyOptions::new()
        .fallback(match args.fallback.as_str() {
            "drop" => Fallback::Drop,
            _ => Fallback::Message,
        })
        .max_line(args.max_line);
    let forward = proxy::run(
        Stdin::new(),
        Stdout::new(),
        agent_in,
        agent_out,
        options,
        hooks,
    );
    tokio::pin!(forward);
    let (report, status) = tokio::select! {
        report = &mut forward => (Some(report), child.wait().await?),
        status = child.wait() => {
            let status = status?;
            // The agent is gone; let its last output through, unless something else holds
            // its output open.
            (tokio::time::timeout(DRAIN_AFTER_EXIT, &mut forward).await.ok(), status)
        }
    };
    if let Some(report) = report {
        finish(&label, report?);
    }
    Ok(exit_code(status))
}

/// Says on standard error what the run found, if anything, and why the record stopped early.
fn finish(label: &str, report: ProxyReport) {
    let mut err = std::io::stderr().lock();
    if report.summary.total() > 0 {
        let _ = err.write_all(Format::Text.summary(label, &report.summary).as_bytes());
    }
    if let Some(error) = report.record_error {
        let _ = writeln!(err, "acp proxy: the record stopped early: {error}");
    }
}

/// The agent's exit status as ours: its code, or 128 + the signal that ended it.
fn exit_code(status: ExitStatus) -> ExitCode {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => ExitCode::from(code.clamp(0, 255) as u8),
        (None, Some(signal)) => ExitCode::from((128 + signal).clamp(0, 255) as u8),
        (None, None) => ExitCode::FAILURE,
    }
}
