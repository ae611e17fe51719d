//! The agent suite: which runs are made, in which order, and how their results are collected.
//!
//! For each protocol version under test:
//!
//! * `vN-newer.jsonl`, `vN-older.jsonl`: `initialize` proposing 99 and 0 (`init`);
//! * `vN-main.jsonl`: a client that advertises nothing (no notices): `initialize`, the JSON-RPC
//!   hygiene probes (`rpc`), a session with one prompt (its permission request allowed),
//!   unknown session ids, a replay, list, delete and close (`sessions`), every session method
//!   against the capabilities (`methods`), and the notice rules over the whole run (`notices`);
//! * `v1-notices.jsonl` (v1 only): a client that advertises `session.notices`, one session and
//!   one prompt, and the notices it got;
//! * `vN-reject.jsonl`, `vN-dismiss.jsonl`, `vN-cancel.jsonl`, side by side with the main run:
//!   one prompt each, its permission request rejected, answered `cancelled`, or cancelled with
//!   `session/cancel` (`turns`);
//! * `vN-interrupt.jsonl`, beside them: one prompt, cancelled as soon as its answer streams
//!   (`turns`); `vN-fork.jsonl`: a turn, `session/fork` where advertised, and a turn in the
//!   fork and in the original (`fork`).
//!
//! The main run also reloads its session and runs a second turn, whose tool call ids are
//! compared with the first's.
//!
//! Every run is also checked with `acp check`'s rules ([`acptk_check::check_bytes`]).

mod fork;
pub(crate) mod init;
mod methods;
mod notices;
mod rpc;
mod sessions;
mod turns;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use acptk_check::{CheckOptions, Finding};
use acptk_runtime::transport::AgentCommand;
use serde_json::Value;

use crate::error::ConformError;
use crate::outcome::{Outcome, Verdict};
use crate::peer::RawPeer;
use crate::requirement::{self, Requirement};

/// How the suite runs.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Options {
    /// The protocol versions to test (1, 2 or both).
    pub versions: Vec<u16>,
    /// How long to wait for each response.
    pub timeout: Duration,
    /// The text of the prompt sent in each session.
    pub prompt: String,
    /// The working directory sessions are opened in (absolute).
    pub cwd: PathBuf,
}

impl Options {
    /// Both versions, 5 s per response, a short greeting, the current directory (or `/`).
    pub fn new() -> Self {
        Options {
            versions: vec![1, 2],
            timeout: Duration::from_secs(5),
            prompt: "Hello from acp conform.".to_owned(),
            cwd: std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/")),
        }
    }

    /// Tests these protocol versions.
    #[must_use]
    pub fn versions(mut self, versions: Vec<u16>) -> Self {
        self.versions = versions;
        self
    }

    /// Waits at most `timeout` for each response.
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Sends `prompt` as the text of each prompt.
    #[must_use]
    pub fn prompt(mut self, prompt: impl Into<String>) -> Self {
        self.prompt = prompt.into();
        self
    }

    /// Opens sessions in `cwd`.
    #[must_use]
    pub fn cwd(mut self, cwd: impl Into<PathBuf>) -> Self {
        self.cwd = cwd.into();
        self
    }
}

impl Default for Options {
    fn default() -> Self {
        Self::new()
    }
}

/// One recorded run: its transcript and what `acp check`'s rules found in it.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Run {
    /// The transcript's file name (`v1-main.jsonl`).
    pub name: String,
    /// The transcript, one JSON object per line.
    pub transcript: Vec<String>,
    /// The findings of `acp check` over it.
    pub findings: Vec<Finding>,
}

/// The result of the suite.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Report {
    /// One verdict per requirement and version, in registry order.
    pub verdicts: Vec<Verdict>,
    /// Every run, in the order made.
    pub runs: Vec<Run>,
    /// How long the whole suite took.
    pub elapsed: Duration,
    /// What was tested: `agent` or `client`.
    pub subject: &'static str,
    /// What a person should have seen in the client under test (the client suite's scenarios
    /// that only a look at its screen can judge); empty for the agent suite.
    pub to_look_at: Vec<String>,
}

impl Report {
    /// Whether a `MUST` failed.
    pub fn failed(&self) -> bool {
        self.verdicts.iter().any(Verdict::fails_run)
    }

    /// Keeps only the verdicts of these requirement ids (all when `ids` is empty).
    pub fn retain_ids(&mut self, ids: &[String]) {
        if !ids.is_empty() {
            self.verdicts
                .retain(|v| ids.iter().any(|id| id == v.requirement.id));
        }
    }
}

/// The outcomes one version's runs produced, by requirement id.
pub(crate) type Outcomes = Vec<(&'static str, Outcome)>;

/// How each run reaches the agent: a fresh process, or a fresh connection.
pub(crate) enum Launch<'a> {
    Command(&'a AgentCommand),
    #[cfg(feature = "remote")]
    Url {
        url: &'a str,
        token: Option<&'a str>,
    },
}

impl Launch<'_> {
    /// The peer of the run `name`.
    pub(crate) async fn start(
        &self,
        name: String,
        options: &Options,
    ) -> Result<RawPeer, ConformError> {
        match self {
            Launch::Command(command) => RawPeer::spawn(command, name, options.timeout),
            #[cfg(feature = "remote")]
            Launch::Url { url, token } => {
                RawPeer::connect(url, *token, name, options.timeout).await
            }
        }
    }
}

/// Runs the agent suite against `command`, starting the agent afresh for each run.
pub async fn run_agent_suite(
    command: &AgentCommand,
    options: &Options,
) -> Result<Report, ConformError> {
    run_suite(&Launch::Command(command), options).await
}

/// Runs the agent suite against the remote agent at `url` (`ws://`, `wss://`; `http://`,
/// `https://` for Streamable HTTP), with a fresh connection for each run, `token` as the
/// bearer token. Fails with [`ConformError::Connect`] naming the URL when it cannot connect.
#[cfg(feature = "remote")]
pub async fn run_remote_agent_suite(
    url: &str,
    token: Option<&str>,
    options: &Options,
) -> Result<Report, ConformError> {
    run_suite(&Launch::Url { url, token }, options).await
}

async fn run_suite(launch: &Launch<'_>, options: &Options) -> Result<Report, ConformError> {
    let started = Instant::now();
    let mut verdicts = Vec::new();
    let mut runs = Vec::new();
    for &version in &options.versions {
        let mut outcomes: Outcomes = Vec::new();
        for (proposal, id, label) in [
            (99, "init.version.newer", "newer"),
            (0, "init.version.older", "older"),
        ] {
            let mut peer = launch
                .start(format!("v{version}-{label}.jsonl"), options)
                .await?;
            outcomes.push((id, init::probe_version(&mut peer, version, proposal).await));
            runs.push(finish(peer).await);
        }
        let mut peer = launch
            .start(format!("v{version}-main.jsonl"), options)
            .await?;
        let answered = init::initialize(&mut peer, version, false, &mut outcomes).await;
        if answered == Some(version) {
            // Once the agent answered, the permission runs go side by side with the rest of
            // the main run: the suite's time is that of the longest.
            let (main, turns) = tokio::join!(
                main_runs(peer, launch, version, options),
                side_runs(launch, version, options)
            );
            let (more, main_runs) = main?;
            let (turn_outcomes, turn_peers) = turns?;
            outcomes.extend(more);
            outcomes.extend(turn_outcomes);
            runs.extend(main_runs);
            for peer in turn_peers {
                turns::requests(&peer, &mut outcomes);
                runs.push(finish(peer).await);
            }
        } else {
            runs.push(finish(peer).await);
        }
        verdicts.extend(collect(version, answered, outcomes));
    }
    Ok(Report {
        verdicts,
        runs,
        elapsed: started.elapsed(),
        subject: "agent",
        to_look_at: Vec::new(),
    })
}

/// The runs beside the main run of `version`: the permission runs, the interrupting run and
/// the fork run.
async fn side_runs(
    launch: &Launch<'_>,
    version: u16,
    options: &Options,
) -> Result<(Outcomes, Vec<RawPeer>), ConformError> {
    let interrupt = launch
        .start(format!("v{version}-interrupt.jsonl"), options)
        .await?;
    let forking = launch
        .start(format!("v{version}-fork.jsonl"), options)
        .await?;
    let (permission, interrupted, forked) = tokio::join!(
        turns::permission_runs(launch, version, options),
        turns::interrupt_run(interrupt, version, options),
        fork::fork_run(forking, version, options),
    );
    let (mut outcomes, mut peers) = permission?;
    for (more, peer) in [interrupted, forked] {
        outcomes.extend(more);
        peers.push(peer);
    }
    Ok((outcomes, peers))
}

/// The rest of the main run of `version` (initialized) and, in v1, the notices run: the
/// outcomes and the finished runs.
async fn main_runs(
    mut peer: RawPeer,
    launch: &Launch<'_>,
    version: u16,
    options: &Options,
) -> Result<(Outcomes, Vec<Run>), ConformError> {
    let mut outcomes = Vec::new();
    let mut runs = Vec::new();
    rpc::check(&mut peer, &mut outcomes).await;
    sessions::check(&mut peer, version, options, &mut outcomes).await;
    notices::check_main_run(&peer, version, &mut outcomes);
    turns::requests(&peer, &mut outcomes);
    runs.push(finish(peer).await);
    if version == 1 {
        let mut peer = launch.start("v1-notices.jsonl".to_owned(), options).await?;
        if init::initialize(&mut peer, version, true, &mut Vec::new()).await == Some(1) {
            sessions::one_turn(&mut peer, version, options).await;
            notices::check_notices_run(&peer, &mut outcomes);
            turns::requests(&peer, &mut outcomes);
        }
        runs.push(finish(peer).await);
    }
    Ok((outcomes, runs))
}

/// Ends a run's agent and checks its transcript with `acp check`'s rules.
async fn finish(peer: RawPeer) -> Run {
    let name = peer.name().to_owned();
    let transcript = peer.finish().await;
    checked_run(name, transcript, "agent")
}

/// A run with the findings of `acp check` over it, keeping those on lines written by `side`
/// (the side under test: the suite's own probes are mistakes on purpose).
pub(crate) fn checked_run(name: String, transcript: Vec<String>, side: &str) -> Run {
    let mut bytes = transcript.join("\n");
    bytes.push('\n');
    let (mut findings, _) = acptk_check::check_bytes(bytes.as_bytes(), &CheckOptions::new());
    let prefix = format!("{{\"from\":\"{side}\"");
    findings.retain(|f| {
        usize::try_from(f.line)
            .ok()
            .and_then(|line| transcript.get(line.wrapping_sub(1)))
            .is_some_and(|entry| entry.starts_with(&prefix))
    });
    Run {
        name,
        transcript,
        findings,
    }
}

/// One verdict per requirement of `version`, in registry order: the outcome the runs gave
/// (the worst one when a requirement was judged more than once), else *not exercised*.
fn collect(version: u16, answered: Option<u16>, outcomes: Outcomes) -> Vec<Verdict> {
    requirement::ALL
        .iter()
        .filter(|r| r.applies_to(version))
        .map(|requirement| {
            let judged: Vec<Outcome> = outcomes
                .iter()
                .filter(|(id, _)| *id == requirement.id)
                .map(|(_, o)| o.clone())
                .collect();
            let outcome = merge(judged).unwrap_or_else(|| unjudged(requirement, version, answered));
            Verdict {
                requirement,
                version,
                outcome,
            }
        })
        .collect()
}

fn unjudged(requirement: &Requirement, version: u16, answered: Option<u16>) -> Outcome {
    match answered {
        Some(other) if other != version => Outcome::not_applicable(format!(
            "the agent answered version {other} to a proposal of {version}: it does not speak v{version}"
        )),
        None => Outcome::not_exercised(format!(
            "`initialize` of the v{version} run got no usable answer"
        )),
        Some(_) => Outcome::not_exercised(format!(
            "{}: the situation did not arise in this run",
            requirement.id
        )),
    }
}

/// Merges several outcomes of one requirement: every failure's evidence; else passed if any
/// passed; else the first reason given.
pub(crate) fn merge(outcomes: Vec<Outcome>) -> Option<Outcome> {
    let mut evidence = Vec::new();
    let mut passed = false;
    let mut first = None;
    for outcome in outcomes {
        match outcome {
            Outcome::Failed { evidence: more } => evidence.extend(more),
            Outcome::Passed => passed = true,
            other => {
                first.get_or_insert(other);
            }
        }
    }
    if !evidence.is_empty() {
        Some(Outcome::Failed { evidence })
    } else if passed {
        Some(Outcome::Passed)
    } else {
        first
    }
}

/// `run` failed at `response`, which is not what was `expected`: the evidence says what came.
pub(crate) fn unexpected(
    run: &str,
    response: &crate::peer::Received,
    expected: impl std::fmt::Display,
) -> Outcome {
    Outcome::failed(
        run,
        response.line,
        format!(
            "expected {expected}, got {}",
            brief(response.value.as_ref())
        ),
    )
}

/// A short rendering of a JSON value for evidence notes (at most about 120 characters).
pub(crate) fn brief(value: Option<&Value>) -> String {
    let text = match value {
        Some(v) => v.to_string(),
        None => "nothing".to_owned(),
    };
    if text.chars().count() > 120 {
        let cut: String = text.chars().take(117).collect();
        format!("{cut}...")
    } else {
        text
    }
}
