//! `acp demo`: the example agent against three clients (v1 with notices, v1 without, v2),
//! through one scripted story, in process and without network. For each client it prints
//! what the user sees (conversation lines and notice lines), the client's notice list, the
//! history rebuilt by the replay after a reconnect, and what arrived live after the replay;
//! then a side-by-side summary.
//!
//! Deterministic: the agent answers without delays, the notice center's clock stands still,
//! and each step is printed once it is complete.

mod gate;
mod pipe;
pub mod report;
pub mod story;

use std::process::ExitCode;
use std::time::Duration;

use acptk_notice_center::render::plain;
use acptk_notice_center::sanitize::fit_width;
use acptk_runtime::agent::AgentServer;
use acptk_runtime::client::{Client, ClientBuilder};

use super::agent::{ExampleAgent, ExampleOptions};
use crate::commands::client::render::follow::Follower;
use crate::commands::client::render::plain::{PlainPrinter, note_line};
use report::ClientReport;
use story::{CLIENTS, ClientSpec, STEPS};

/// The widest line the report prints; longer lines are cut with an ellipsis.
const LINE_WIDTH: usize = 110;

/// How long to wait for what the agent sends right after a session opens.
const OPEN_TIMEOUT: Duration = Duration::from_secs(3);

/// Arguments of `acp demo`.
#[derive(Debug, clap::Args)]
pub struct Args {}

type DemoError = Box<dyn std::error::Error + Send + Sync>;

/// Runs the demo and prints its report.
pub fn run(args: Args) -> super::Outcome {
    let _ = args;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let reports = runtime.block_on(run_story())?;
    runtime.shutdown_background();
    let titles = story::notice_titles();
    let titles: Vec<&str> = titles.iter().map(String::as_str).collect();
    let text = report::render(&story::outline(), &reports, &titles);
    use std::io::Write as _;
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => {}
        other => other?,
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs the story for every client against one agent server (one session store).
pub async fn run_story() -> Result<Vec<ClientReport>, DemoError> {
    let agent = ExampleAgent::new(
        ExampleOptions::new()
            .chunk_delay(Duration::ZERO)
            .ask_permission(false),
    );
    let (agent, gate) = gate::Gated::new(agent);
    let server = AgentServer::new(agent);
    let mut reports = Vec::new();
    for spec in &CLIENTS {
        let report = run_client(&server, &gate, spec)
            .await
            .map_err(|error| format!("client {} ({}): {error}", spec.name, spec.kind))?;
        reports.push(report);
    }
    Ok(reports)
}

/// A client of `spec` connected to `server` over a fresh in-memory pipe.
async fn connect(
    server: &AgentServer<gate::Gated>,
    spec: &ClientSpec,
) -> Result<(Client, pipe::HangUp), DemoError> {
    let ends = pipe::pipe();
    server.start(ends.agent_read, ends.agent_write);
    let client = ClientBuilder::new()
        .protocol(spec.protocol)
        .notices(spec.notices)
        .info("acp-demo", env!("CARGO_PKG_VERSION"))
        .clock(|| Duration::ZERO)
        .connect(ends.client_read, ends.client_write)
        .await?;
    Ok((client, ends.hang_up))
}

/// Waits until `ready` holds for the client, or `OPEN_TIMEOUT` passed.
async fn wait_until(client: &Client, ready: impl Fn(&Client) -> bool) {
    let mut changes = client.changes();
    let wait = async {
        while !ready(client) {
            if changes.changed().await.is_err() {
                break;
            }
        }
    };
    let _ = tokio::time::timeout(OPEN_TIMEOUT, wait).await;
}

/// Whether the MCP server's notice (or its fallback message) has arrived in `session` since
/// the transcript had `after` entries.
fn mcp_reported(client: &Client, session: &str, after: usize) -> bool {
    let title = story::mcp_title();
    let in_center = client
        .with_notice_center(|center| center.entries(session).any(|entry| entry.title() == title));
    let in_transcript = client.with_transcript(|transcript| {
        transcript.session(session).is_some_and(|session| {
            session
                .entries
                .iter()
                .skip(after.saturating_sub(1))
                .any(|entry| {
                    crate::commands::client::render::plain::entry_text(entry).contains(&title)
                })
        })
    });
    in_center || in_transcript
}

/// Prints what is new for the user into `lines`.
fn look(
    client: &Client,
    follower: &mut Follower,
    notices: bool,
    lines: &mut Vec<String>,
) -> Result<(), DemoError> {
    let mut printer = PlainPrinter::new(Vec::new());
    client.with_transcript(|transcript| follower.transcript(transcript, &mut printer))?;
    if notices {
        client.with_notice_center(|center| follower.notices(center, &mut printer))?;
    }
    printer.finish()?;
    let text = String::from_utf8_lossy(&printer.into_inner()).into_owned();
    lines.extend(
        text.lines()
            .map(|line| fit_width(line, LINE_WIDTH).into_owned()),
    );
    Ok(())
}

fn transcript_len(client: &Client, session: &str) -> usize {
    client.with_transcript(|transcript| {
        transcript
            .session(session)
            .map_or(0, |session| session.entries.len())
    })
}

/// Takes one client through the story.
async fn run_client(
    server: &AgentServer<gate::Gated>,
    gate: &gate::Gate,
    spec: &ClientSpec,
) -> Result<ClientReport, DemoError> {
    let mut report = ClientReport {
        name: spec.name.to_owned(),
        kind: spec.kind.to_owned(),
        reconnect: spec.reconnect.to_owned(),
        ..ClientReport::default()
    };
    let servers = story::mcp_servers();

    // First connection: open the session, run the prompts.
    let (client, hang_up) = connect(server, spec).await?;
    let session = client.new_session(story::CWD, &servers).await?;
    gate.open();
    wait_until(&client, |client| mcp_reported(client, &session, 0)).await;
    let mut follower = Follower::new(session.as_str());
    look(&client, &mut follower, spec.notices, &mut report.seen)?;
    for step in &STEPS {
        let stop = client.prompt(&session, step.prompt).await?;
        look(&client, &mut follower, spec.notices, &mut report.seen)?;
        if stop != acptk_runtime::agent::StopReason::EndTurn {
            report
                .seen
                .push(note_line(&format!("turn ended: {}", stop)));
        }
    }
    if spec.notices {
        report.notice_list = client.with_notice_center(|center| {
            center
                .entries(&session)
                .map(|entry| fit_width(&plain::line(entry), LINE_WIDTH).into_owned())
                .collect()
        });
    }
    hang_up.hang_up();
    let _ = tokio::time::timeout(OPEN_TIMEOUT, client.closed()).await;

    // Second connection: reopen the session with a replay of its history.
    let (client, hang_up) = connect(server, spec).await?;
    client.load_session(&session, story::CWD, &servers).await?;
    let mut history = Follower::new(session.as_str());
    look(&client, &mut history, false, &mut report.history)?;
    // What follows the replay is live: print it apart, starting where the history ended.
    let mut after = history.clone();
    let replayed = transcript_len(&client, &session);
    if spec.protocol == acptk_schema::v1::ProtocolVersion::V1 {
        // (A v2 resume ran the agent's hook before its response: see `gate`.)
        gate.open();
    }
    wait_until(&client, |client| mcp_reported(client, &session, replayed)).await;
    look(&client, &mut after, spec.notices, &mut report.after_replay)?;
    report.notices_during_replay = client.violations().notices_during_replay;
    hang_up.hang_up();
    let _ = tokio::time::timeout(OPEN_TIMEOUT, client.closed()).await;
    Ok(report)
}
