//! The v1 client services the scenarios exercise where the client advertised them: a file
//! write (`fs.writeTextFile`), a terminal's life (`terminal`: create, a tool call showing it,
//! wait for exit, output, kill, release, then its id once more), and a tool call carrying diff
//! content with its update.

use serde_json::{Value, json};
use tokio::io::AsyncWrite;

use super::turn::{Turn, probe, probe_path};
use super::wire::Wire;
use super::{Client, RUN_NAME};
use crate::outcome::Outcome;
use crate::peer::Reply;
use crate::suite::brief;

/// The text the probe write puts into its file.
const WRITE_TEXT: &str = "acp conform: written by fs/write_text_file\n";
/// What the terminal probe prints.
const TERMINAL_TEXT: &str = "acp conform: a terminal probe";

/// How the client answered one request.
enum Answer {
    /// No response came (in the timeout).
    Missing(u64),
    /// An error with an integer code.
    Error(u64),
    /// A result, and the line of the response.
    Result(Value, u64),
    /// Neither a result nor an error with an integer code.
    Malformed(u64, String),
}

/// A judge of a result's shape: what is wrong with it.
type Shape = fn(&Value) -> Result<(), String>;

fn answer(reply: &Reply) -> Answer {
    let Some(response) = &reply.response else {
        return Answer::Missing(reply.request_line);
    };
    if response.error_code().is_some() {
        return Answer::Error(response.line);
    }
    match response.result() {
        Some(result) => Answer::Result(result.clone(), response.line),
        None => Answer::Malformed(response.line, brief(response.value.as_ref())),
    }
}

/// Whether the client's capabilities set `pointer` to `true`.
fn advertised(client: &Client, pointer: &str) -> bool {
    client
        .capabilities
        .pointer(pointer)
        .and_then(Value::as_bool)
        == Some(true)
}

/// An empty response (`{}`, its `_meta` aside); `null` is let pass.
fn empty(result: &Value) -> Result<(), String> {
    if result.is_object() || result.is_null() {
        Ok(())
    } else {
        Err("expected an object (`{}`)".to_owned())
    }
}

/// Judges `reply` to `method`: its result must pass `shape`; an error with an integer code
/// passes when `error_ok`. Returns the result when there is one of the right shape.
fn judge(reply: &Reply, method: &str, error_ok: bool, shape: Shape) -> (Outcome, Option<Value>) {
    match answer(reply) {
        Answer::Missing(line) => (
            Outcome::failed(RUN_NAME, line, format!("`{method}` got no response")),
            None,
        ),
        Answer::Error(_) if error_ok => (Outcome::Passed, None),
        Answer::Error(line) => (
            Outcome::failed(
                RUN_NAME,
                line,
                format!("`{method}` of a terminal the client created got an error"),
            ),
            None,
        ),
        Answer::Malformed(line, got) => (
            Outcome::failed(
                RUN_NAME,
                line,
                format!(
                    "`{method}`: expected a result or an error with an integer code, got {got}"
                ),
            ),
            None,
        ),
        Answer::Result(result, line) => match shape(&result) {
            Ok(()) => (Outcome::Passed, Some(result)),
            Err(why) => (
                Outcome::failed(
                    RUN_NAME,
                    line,
                    format!("`{method}`: {why}, got {}", brief(Some(&result))),
                ),
                None,
            ),
        },
    }
}

/// `fs/write_text_file` of a probe file, where the client advertised `fs.writeTextFile`.
pub(super) async fn write_file<W: AsyncWrite + Unpin>(
    wire: &mut Wire<W>,
    client: &mut Client,
    turn: &Turn,
) {
    const ID: &str = "client.fs.write.answer";
    if !advertised(client, "/fs/writeTextFile") {
        client.outcomes.push((
            ID,
            Outcome::not_applicable("the client did not advertise `fs.writeTextFile`"),
        ));
        return;
    }
    let path = probe_path("written.txt");
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let id = wire.fresh_id();
    let reply = wire
        .call(
            id,
            "fs/write_text_file",
            json!({"sessionId": turn.session, "path": path.to_string_lossy(), "content": WRITE_TEXT}),
        )
        .await;
    let (mut outcome, result) = judge(&reply, "fs/write_text_file", true, empty);
    // Where the client runs on this machine, what it wrote is there to read.
    if result.is_some()
        && let Ok(text) = std::fs::read_to_string(&path)
        && text != WRITE_TEXT
        && let Some(response) = &reply.response
    {
        outcome = Outcome::failed(
            RUN_NAME,
            response.line,
            format!(
                "`fs/write_text_file` succeeded, but {} holds {text:?}, not {WRITE_TEXT:?}",
                path.display()
            ),
        );
    }
    if let Some(dir) = path.parent() {
        let _ = std::fs::remove_dir_all(dir);
    }
    client.outcomes.push((ID, outcome));
    client.to_look_at.push(format!(
        "a request to write `{}` (asked or shown as the client does for edits)",
        path.display()
    ));
}

fn created(result: &Value) -> Result<(), String> {
    match result.get("terminalId") {
        Some(Value::String(_)) => Ok(()),
        _ => Err("expected {\"terminalId\": a string}".to_owned()),
    }
}

/// `exitCode` an integer or null, `signal` a string or null, when present.
fn exit_status(status: &Value) -> Result<(), String> {
    let code_ok = status
        .get("exitCode")
        .is_none_or(|c| c.is_u64() || c.is_null());
    let signal_ok = status
        .get("signal")
        .is_none_or(|s| s.is_string() || s.is_null());
    if status.is_object() && code_ok && signal_ok {
        Ok(())
    } else {
        Err("expected an exit status {\"exitCode\": an integer or null, \"signal\": a string or null}".to_owned())
    }
}

fn output(result: &Value) -> Result<(), String> {
    let text_ok = result.get("output").is_some_and(Value::is_string);
    let truncated_ok = result.get("truncated").is_some_and(Value::is_boolean);
    let status_ok = result
        .get("exitStatus")
        .is_none_or(|s| s.is_null() || exit_status(s).is_ok());
    if text_ok && truncated_ok && status_ok {
        Ok(())
    } else {
        Err("expected {\"output\": a string, \"truncated\": a boolean, \"exitStatus\": absent, null or an exit status}".to_owned())
    }
}

/// A terminal's life where the client advertised `terminal`, with the tool-call scenario
/// (showing the terminal) inside it; without terminals the tool-call scenario alone.
pub(super) async fn terminal<W: AsyncWrite + Unpin>(
    wire: &mut Wire<W>,
    client: &mut Client,
    turn: &Turn,
) {
    const ANSWERS: &str = "client.terminal.answers";
    const RELEASED: &str = "client.terminal.released-id";
    if !advertised(client, "/terminal") {
        for id in [ANSWERS, RELEASED] {
            client.outcomes.push((
                id,
                Outcome::not_applicable("the client did not advertise `terminal`"),
            ));
        }
        tool_content(wire, client, turn, None).await;
        return;
    }
    client.to_look_at.push(format!(
        "a request to run `echo {TERMINAL_TEXT}` (asked as the client does for commands), and its output shown in the tool call `acp conform: a tool call with diff and terminal content`"
    ));
    let id = wire.fresh_id();
    let reply = wire
        .call(
            id,
            "terminal/create",
            json!({"sessionId": turn.session, "command": "echo", "args": [TERMINAL_TEXT]}),
        )
        .await;
    let (outcome, result) = judge(&reply, "terminal/create", true, created);
    let terminal = result
        .as_ref()
        .and_then(|r| r.get("terminalId"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    client.outcomes.push((ANSWERS, outcome));
    let Some(terminal) = terminal else {
        client.outcomes.push((
            RELEASED,
            Outcome::not_exercised("the client created no terminal (it refused `terminal/create`)"),
        ));
        tool_content(wire, client, turn, None).await;
        return;
    };
    tool_content(wire, client, turn, Some(&terminal)).await;
    let steps: [(&str, Shape); 4] = [
        ("terminal/wait_for_exit", exit_status),
        ("terminal/output", output),
        ("terminal/kill", empty),
        ("terminal/release", empty),
    ];
    let params = json!({"sessionId": turn.session, "terminalId": terminal});
    for (method, shape) in steps {
        let id = wire.fresh_id();
        let reply = wire.call(id, method, params.clone()).await;
        client
            .outcomes
            .push((ANSWERS, judge(&reply, method, false, shape).0));
        if wire.closed() {
            return;
        }
    }
    let id = wire.fresh_id();
    let reply = wire.call(id, "terminal/output", params).await;
    let outcome = match answer(&reply) {
        Answer::Error(_) => Outcome::Passed,
        Answer::Missing(line) => Outcome::failed(
            RUN_NAME,
            line,
            "`terminal/output` of a released terminal got no response",
        ),
        Answer::Result(_, line) | Answer::Malformed(line, _) => Outcome::failed(
            RUN_NAME,
            line,
            format!(
                "`terminal/output` of the released terminal {terminal:?} was answered without an error"
            ),
        ),
    };
    client.outcomes.push((RELEASED, outcome));
}

/// A tool call carrying diff content (and the terminal's content when there is one) and its
/// update, then a probe.
async fn tool_content<W: AsyncWrite + Unpin>(
    wire: &mut Wire<W>,
    client: &mut Client,
    turn: &Turn,
    terminal: Option<&str>,
) {
    let title = match terminal {
        Some(_) => "acp conform: a tool call with diff and terminal content",
        None => "acp conform: a tool call with diff content",
    };
    let diff = json!({
        "type": "diff",
        "path": probe_path("edited.txt").to_string_lossy(),
        "oldText": "the old line\n",
        "newText": "the new line\n",
    });
    let mut content = vec![diff];
    if let Some(terminal) = terminal {
        content.push(json!({"type": "terminal", "terminalId": terminal}));
    }
    turn.update(
        wire,
        json!({"sessionUpdate": "tool_call", "toolCallId": "conform-tool-content", "title": title, "kind": "edit", "status": "in_progress", "content": content}),
    )
    .await;
    turn.update(
        wire,
        json!({"sessionUpdate": "tool_call_update", "toolCallId": "conform-tool-content", "status": "completed", "content": [
            {"type": "diff", "path": probe_path("new.txt").to_string_lossy(), "newText": "a new file\n"},
            {"type": "content", "content": {"type": "text", "text": "acp conform: the tool call is done"}},
        ]}),
    )
    .await;
    client.to_look_at.push(format!(
        "the tool call `{title}`: its diff (`the old line` to `the new line`), then marked completed with a new file's diff"
    ));
    probe(wire, client, "client.tool-content.survives").await;
}
