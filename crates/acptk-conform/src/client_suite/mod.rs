//! The client suite: the engine of `acp conform client`, an agent that a client under test
//! launches. It answers `initialize` and `session/new`, plays its scenarios in the first
//! prompt turn (`scenarios`), and judges what it sees on the wire (`judge`); the report
//! is made when the client disconnects (or `stop` resolves).
//!
//! ```no_run
//! use acptk_conform::client_suite::{ClientOptions, run_client_suite};
//!
//! # async fn example() {
//! // The client under test launched this process: it speaks on standard input and output.
//! let report = run_client_suite(
//!     tokio::io::stdin(),
//!     tokio::io::stdout(),
//!     &ClientOptions::new(),
//!     std::future::pending(),
//! )
//! .await;
//! eprint!("{}", acptk_conform::report::text(&report));
//! # }
//! ```

mod judge;
mod scenarios;
mod services;
mod turn;
mod wire;

use std::future::Future;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncWrite};

use crate::outcome::Outcome;
use crate::peer::Received;
use crate::suite::{Outcomes, Report, checked_run};
use wire::Wire;

/// The name of the client suite's run (its transcript's file name).
pub const RUN_NAME: &str = "client.jsonl";

/// How the client suite runs.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ClientOptions {
    /// How long to wait for the client's answer to each request (a person may have to decide
    /// a permission request).
    pub timeout: Duration,
}

impl ClientOptions {
    /// Two minutes per answer.
    pub fn new() -> Self {
        ClientOptions {
            timeout: Duration::from_secs(120),
        }
    }

    /// Waits at most `timeout` for each answer of the client.
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }
}

impl Default for ClientOptions {
    fn default() -> Self {
        Self::new()
    }
}

/// What the suite learnt of the client so far.
struct Client {
    /// The protocol version agreed in `initialize` (`None` before it).
    version: Option<u16>,
    /// The client's capabilities as it sent them.
    capabilities: Value,
    /// The sessions this agent created.
    sessions: Vec<String>,
    /// How many prompts came.
    prompts: u32,
    /// Whether the client loaded a session (v1 `session/load`).
    loaded: bool,
    outcomes: Outcomes,
    to_look_at: Vec<String>,
}

/// Runs the client suite over `reader` and `writer` (the client's side of the connection)
/// until the client disconnects or `stop` resolves, and returns the report.
pub async fn run_client_suite<R, W>(
    reader: R,
    writer: W,
    options: &ClientOptions,
    stop: impl Future<Output = ()>,
) -> Report
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send,
{
    let started = Instant::now();
    // The suite's code is generic over its writer; boxed, it is compiled once for every kind
    // of writer a caller passes (standard output, a pipe, a sink).
    let writer: Box<dyn AsyncWrite + Unpin + Send + '_> = Box::new(writer);
    let mut wire = Wire::new(reader, writer, options.timeout);
    let mut client = Client {
        version: None,
        capabilities: Value::Null,
        sessions: Vec::new(),
        prompts: 0,
        loaded: false,
        outcomes: Vec::new(),
        to_look_at: Vec::new(),
    };
    tokio::pin!(stop);
    let mut first = true;
    loop {
        let message = tokio::select! {
            message = wire.next(None) => message,
            () = &mut stop => None,
        };
        let Some(message) = message else {
            break;
        };
        if first {
            first = false;
            client
                .outcomes
                .push(("client.init.first", judge::first_message(&message)));
        }
        handle(&mut wire, &mut client, message).await;
    }
    judge::responses(&wire, &mut client.outcomes);
    let version = client.version.unwrap_or(1);
    if version == 1 && client.prompts > 0 && !client.loaded {
        client.to_look_at.push(
            "not exercised: a notice during a session's replay (the client loaded no session; reopen one, e.g. `acp client --load conform-session-1`, to see it)".to_owned(),
        );
    }
    let verdicts = judge::collect(version, &client);
    let transcript = wire.into_transcript();
    Report {
        verdicts,
        runs: vec![checked_run(RUN_NAME.to_owned(), transcript, "client")],
        elapsed: started.elapsed(),
        subject: "client",
        to_look_at: client.to_look_at,
    }
}

/// Answers one message of the client.
async fn handle<W: AsyncWrite + Unpin>(wire: &mut Wire<W>, client: &mut Client, message: Received) {
    let Some(value) = message.value.clone() else {
        return;
    };
    let Some(method) = message.method().map(str::to_owned) else {
        // A response: the judges read every response at the end.
        return;
    };
    let params = value.get("params").cloned().unwrap_or(Value::Null);
    let Some(id) = value.get("id").cloned() else {
        if method == "session/cancel" {
            let known = params
                .get("sessionId")
                .and_then(Value::as_str)
                .is_some_and(|s| client.sessions.iter().any(|k| k == s));
            client.outcomes.push((
                "client.cancel.notification",
                if known {
                    Outcome::Passed
                } else {
                    Outcome::failed(
                        RUN_NAME,
                        message.line,
                        "`session/cancel` names no session this agent created",
                    )
                },
            ));
        }
        return;
    };
    match method.as_str() {
        "initialize" => initialize(wire, client, &id, &params, message.line).await,
        "authenticate" | "auth/login" => wire.respond(&id, json!({})).await,
        "session/new" => {
            let session = format!("conform-session-{}", client.sessions.len() + 1);
            client.sessions.push(session.clone());
            wire.respond(&id, json!({"sessionId": session})).await;
        }
        "session/load" if client.version == Some(1) => {
            load(wire, client, &id, &params).await;
        }
        "session/prompt" => {
            client.prompts += 1;
            scenarios::turn(wire, client, &id, &params, message.line).await;
        }
        "session/cancel" => {
            client.outcomes.push((
                "client.cancel.notification",
                Outcome::failed(
                    RUN_NAME,
                    message.line,
                    "`session/cancel` came as a request (with an id), not as a notification",
                ),
            ));
            wire.respond_error(
                &id,
                -32600,
                "session/cancel is a notification: send it without an id",
            )
            .await;
        }
        other => {
            let text = format!("method not found: {other} (acp conform client does not offer it)");
            wire.respond_error(&id, -32601, &text).await;
        }
    }
}

/// Answers `initialize` with the version the client asked for (1 or 2; 2 for any other) and
/// judges the client's capabilities.
async fn initialize<W: AsyncWrite + Unpin>(
    wire: &mut Wire<W>,
    client: &mut Client,
    id: &Value,
    params: &Value,
    line: u64,
) {
    let proposal = params.get("protocolVersion").and_then(Value::as_u64);
    let version = if proposal == Some(1) { 1 } else { 2 };
    client.version = Some(version);
    let key = if version == 1 {
        "clientCapabilities"
    } else {
        "capabilities"
    };
    client.capabilities = params.get(key).cloned().unwrap_or(Value::Null);
    client.outcomes.push((
        "client.init.capabilities.types",
        judge::capability_types(version, &client.capabilities, line),
    ));
    let info = json!({"name": "acp-conform-client-suite", "version": env!("CARGO_PKG_VERSION")});
    let result = if version == 1 {
        json!({
            "protocolVersion": 1,
            "agentCapabilities": {"loadSession": true},
            "authMethods": [],
            "agentInfo": info,
        })
    } else {
        json!({"protocolVersion": 2, "info": info, "capabilities": {}, "authMethods": []})
    };
    wire.respond(id, result).await;
}

/// Answers a v1 `session/load` of any session: replays a short history with a notice
/// interleaved (where the client advertised notices), then probes.
async fn load<W: AsyncWrite + Unpin>(
    wire: &mut Wire<W>,
    client: &mut Client,
    id: &Value,
    params: &Value,
) {
    let Some(session) = params.get("sessionId").and_then(Value::as_str) else {
        wire.respond_error(id, -32602, "session/load needs a string `sessionId`")
            .await;
        return;
    };
    client.loaded = true;
    if !client.sessions.iter().any(|s| s == session) {
        client.sessions.push(session.to_owned());
    }
    let turn = turn::Turn {
        session: session.to_owned(),
        version: 1,
    };
    let text = |text: &str| json!({"type": "text", "text": text});
    turn.update(
        wire,
        json!({"sessionUpdate": "user_message_chunk", "content": text("acp conform: a replayed prompt\n")}),
    )
    .await;
    let notices = client
        .capabilities
        .pointer("/session/notices")
        .is_some_and(Value::is_object);
    if notices {
        turn.update(
            wire,
            json!({"sessionUpdate": "notice", "severity": "info", "title": "acp conform: a notice during the replay"}),
        )
        .await;
    }
    turn.update(
        wire,
        json!({"sessionUpdate": "agent_message_chunk", "content": text("acp conform: a replayed answer\n")}),
    )
    .await;
    wire.respond(id, json!({})).await;
    client.to_look_at.push(if notices {
        "the reopened session's history `acp conform: a replayed prompt` and `a replayed answer`, with the notice `acp conform: a notice during the replay` shown as a notice of now, not as part of the history".to_owned()
    } else {
        "the reopened session's history `acp conform: a replayed prompt` and `a replayed answer` (no notice was replayed: the client did not advertise `session.notices`)".to_owned()
    });
    turn::probe(wire, client, "client.load.replay.survives").await;
}
