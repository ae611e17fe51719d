//! The scenarios played in the client's first prompt turn, in order: notices of every kind
//! (v1 only when the client advertised `session.notices`, else the agent-message fallback), an
//! unknown session-update kind (v2), a line that is not JSON, a permission request, and in v1
//! a file read and a file write where advertised, a terminal's life where advertised and a
//! tool call with diff (and terminal) content ([`super::services`]); after each odd input an unknown request checks that the client
//! still answers. A `session/cancel` from the client ends the turn early with `cancelled`.

use serde_json::{Value, json};
use tokio::io::AsyncWrite;

use super::services;
use super::turn::{Turn, probe, probe_path};
use super::wire::Wire;
use super::{Client, RUN_NAME};
use crate::outcome::Outcome;
use crate::suite::unexpected;

/// The text the probe file holds.
const PROBE_TEXT: &str = "acp conform: the probe file\n";

/// One notice of the set: severity, title, description (absent, null or text), `_meta`.
type NoticeCase = (&'static str, &'static str, Option<Value>, Option<Value>);

fn notice_cases() -> Vec<NoticeCase> {
    vec![
        (
            "info",
            "acp conform: an info notice",
            Some(json!("With a description.")),
            None,
        ),
        (
            "warning",
            "acp conform: a warning notice",
            Some(Value::Null),
            Some(Value::Null),
        ),
        (
            "error",
            "acp conform: an error notice",
            None,
            Some(json!({"acpConform": true})),
        ),
        (
            "critical",
            "acp conform: a notice of a future severity",
            Some(json!("Shown like any notice, its severity kept.")),
            None,
        ),
        (
            "_acp_conform.debug",
            "acp conform: a notice of an extension severity",
            None,
            None,
        ),
        ("warning", "acp conform: a repeated notice", None, None),
        ("warning", "acp conform: a repeated notice", None, None),
    ]
}

/// Runs the turn of the prompt request `id`.
pub(super) async fn turn<W: AsyncWrite + Unpin>(
    wire: &mut Wire<W>,
    client: &mut Client,
    id: &Value,
    params: &Value,
    line: u64,
) {
    let version = client.version.unwrap_or(1);
    let shape = prompt_shape(params, &client.sessions);
    let shape_ok = shape.is_empty();
    client.outcomes.push((
        "client.prompt.shape",
        if shape_ok {
            Outcome::Passed
        } else {
            Outcome::failed(RUN_NAME, line, shape.join("; "))
        },
    ));
    let session = params
        .get("sessionId")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .or_else(|| client.sessions.first().cloned())
        .unwrap_or_default();
    let mut turn = Turn { session, version };
    if version == 2 {
        wire.respond(
            id,
            json!({"messageId": format!("conform-user-{}", client.prompts)}),
        )
        .await;
        turn.update(
            wire,
            json!({"sessionUpdate": "state_update", "state": "running"}),
        )
        .await;
    }
    let cancelled = if client.prompts == 1 {
        play(wire, client, &mut turn).await
    } else {
        turn.message(
            wire,
            "acp conform: the scenarios ran in the first turn; nothing more to see.",
        )
        .await;
        false
    };
    let stop_reason = if cancelled { "cancelled" } else { "end_turn" };
    if version == 1 {
        wire.respond(id, json!({"stopReason": stop_reason})).await;
    } else {
        turn.update(
            wire,
            json!({"sessionUpdate": "state_update", "state": "idle", "stopReason": stop_reason}),
        )
        .await;
    }
}

/// Plays the scenarios; returns whether the client cancelled the turn.
async fn play<W: AsyncWrite + Unpin>(
    wire: &mut Wire<W>,
    client: &mut Client,
    turn: &mut Turn,
) -> bool {
    turn.message(wire, "acp conform: the scenarios start.")
        .await;
    notices(wire, client, turn).await;
    if cancelled(wire, turn) {
        return true;
    }
    if turn.version == 2 {
        turn.update(
            wire,
            json!({"sessionUpdate": "acp_conform_future_update", "detail": "a kind from a later revision"}),
        )
        .await;
        probe(wire, client, "client.update.unknown-kind.survives").await;
    }
    wire.send_raw("{\"jsonrpc\": \"2.0\", this line is not JSON")
        .await;
    probe(wire, client, "client.rpc.parse-error.survives").await;
    if cancelled(wire, turn) {
        return true;
    }
    permission(wire, client, turn).await;
    if cancelled(wire, turn) {
        return true;
    }
    read_file(wire, client, turn).await;
    if turn.version == 1 {
        services::write_file(wire, client, turn).await;
        if cancelled(wire, turn) {
            return true;
        }
        services::terminal(wire, client, turn).await;
    }
    turn.message(
        wire,
        "acp conform: the scenarios are over; disconnect to get the report.",
    )
    .await;
    cancelled(wire, turn)
}

fn cancelled<W: AsyncWrite + Unpin>(wire: &Wire<W>, turn: &Turn) -> bool {
    wire.closed() || wire.cancel_waiting(&turn.session)
}

/// The notice set, or in v1 without the capability the fallback message; then a probe.
async fn notices<W: AsyncWrite + Unpin>(wire: &mut Wire<W>, client: &mut Client, turn: &Turn) {
    let advertised = client
        .capabilities
        .pointer("/session/notices")
        .is_some_and(Value::is_object);
    if turn.version == 1 && !advertised {
        turn.message(
            wire,
            "acp conform (notice fallback): this client did not advertise session.notices, so this agent message stands in for the notices.",
        )
        .await;
        client.outcomes.push((
            "client.notice.survives",
            Outcome::not_exercised(
                "the client did not advertise `session.notices` (v1): the agent-message fallback was sent instead",
            ),
        ));
        client.to_look_at.push(
            "an agent message beginning `acp conform (notice fallback)`, in the conversation"
                .to_owned(),
        );
        return;
    }
    for (severity, title, description, meta) in notice_cases() {
        let mut update = json!({"sessionUpdate": "notice", "severity": severity, "title": title});
        if let Some(description) = description {
            update["description"] = description;
        }
        if let Some(meta) = meta {
            update["_meta"] = meta;
        }
        turn.update(wire, update).await;
    }
    client.to_look_at.extend([
        "the notices `acp conform: an info notice` (with its description), `a warning notice` and `an error notice`, each presented as its severity, outside the conversation".to_owned(),
        "`a notice of a future severity` (`critical`) and `a notice of an extension severity` presented as generic notices, the unknown severity kept, not dropped and not an error".to_owned(),
        "`a repeated notice` shown twice or coalesced into one (both are right)".to_owned(),
        "none of the notices in the conversation history, and none again when the session is reopened".to_owned(),
    ]);
    probe(wire, client, "client.notice.survives").await;
}

/// A permission request with a string id; the answer must select an offered option or be
/// `cancelled`.
async fn permission<W: AsyncWrite + Unpin>(wire: &mut Wire<W>, client: &mut Client, turn: &Turn) {
    let options = json!([
        {"optionId": "conform-allow", "name": "Allow once", "kind": "allow_once"},
        {"optionId": "conform-reject", "name": "Reject", "kind": "reject_once"},
    ]);
    let title = "acp conform: a permission probe";
    let params = if turn.version == 1 {
        turn.update(
            wire,
            json!({"sessionUpdate": "tool_call", "toolCallId": "conform-tool-1", "title": title, "kind": "other", "status": "pending"}),
        )
        .await;
        json!({"sessionId": turn.session, "toolCall": {"toolCallId": "conform-tool-1"}, "options": options})
    } else {
        json!({"sessionId": turn.session, "title": title, "options": options})
    };
    client.to_look_at.push(format!(
        "a permission request `{title}` offering `Allow once` and `Reject`"
    ));
    let reply = wire
        .call(
            json!("conform-permission"),
            "session/request_permission",
            params,
        )
        .await;
    let outcome = match &reply.response {
        None => Outcome::failed(
            RUN_NAME,
            reply.request_line,
            "`session/request_permission` got no response",
        ),
        Some(response) => {
            let answer = response.result().and_then(|r| r.get("outcome"));
            let kind = answer
                .and_then(|o| o.get("outcome"))
                .and_then(Value::as_str);
            let option = answer
                .and_then(|o| o.get("optionId"))
                .and_then(Value::as_str);
            match (kind, option) {
                (Some("cancelled"), _) => Outcome::Passed,
                (Some("selected"), Some("conform-allow" | "conform-reject")) => Outcome::Passed,
                _ => unexpected(
                    RUN_NAME,
                    response,
                    "{\"outcome\": {\"outcome\": \"selected\", \"optionId\": one of those offered}} or cancelled",
                ),
            }
        }
    };
    client.outcomes.push(("client.permission.answer", outcome));
    if turn.version == 1 {
        // A tool call whose permission was not given does not complete.
        let allowed = reply
            .response
            .as_ref()
            .and_then(|r| r.result())
            .and_then(|r| r.pointer("/outcome/optionId"))
            .and_then(Value::as_str)
            == Some("conform-allow");
        let status = if allowed { "completed" } else { "failed" };
        turn.update(
            wire,
            json!({"sessionUpdate": "tool_call_update", "toolCallId": "conform-tool-1", "status": status}),
        )
        .await;
    }
}

/// `fs/read_text_file` of the probe file, where the client advertised `fs.readTextFile`.
async fn read_file<W: AsyncWrite + Unpin>(wire: &mut Wire<W>, client: &mut Client, turn: &Turn) {
    let advertised = turn.version == 1
        && client
            .capabilities
            .pointer("/fs/readTextFile")
            .and_then(Value::as_bool)
            == Some(true);
    if !advertised {
        if turn.version == 1 {
            client.outcomes.push((
                "client.fs.read.answer",
                Outcome::not_applicable("the client did not advertise `fs.readTextFile`"),
            ));
        }
        return;
    }
    let path = probe_path("probe.txt");
    let written = path
        .parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .and_then(|()| std::fs::write(&path, PROBE_TEXT));
    if let Err(error) = written {
        client.outcomes.push((
            "client.fs.read.answer",
            Outcome::not_exercised(format!(
                "could not write the probe file {}: {error}",
                path.display()
            )),
        ));
        return;
    }
    let id = wire.fresh_id();
    let reply = wire
        .call(
            id,
            "fs/read_text_file",
            json!({"sessionId": turn.session, "path": path.to_string_lossy()}),
        )
        .await;
    if let Some(dir) = path.parent() {
        let _ = std::fs::remove_dir_all(dir);
    }
    let outcome = match &reply.response {
        None => Outcome::failed(
            RUN_NAME,
            reply.request_line,
            "`fs/read_text_file` got no response",
        ),
        Some(response) if response.error_code().is_some() => Outcome::Passed,
        Some(response) => match response
            .result()
            .and_then(|r| r.get("content"))
            .and_then(Value::as_str)
        {
            Some(PROBE_TEXT) => Outcome::Passed,
            _ => unexpected(
                RUN_NAME,
                response,
                format!("{{\"content\": {PROBE_TEXT:?}}} or an error with an integer code"),
            ),
        },
    };
    client.outcomes.push(("client.fs.read.answer", outcome));
}

/// What is wrong with a prompt request's params.
fn prompt_shape(params: &Value, sessions: &[String]) -> Vec<String> {
    let mut wrong = Vec::new();
    match params.get("sessionId").and_then(Value::as_str) {
        Some(s) if sessions.iter().any(|k| k == s) => {}
        Some(s) => wrong.push(format!(
            "`sessionId` {s:?} is no session this agent created"
        )),
        None => wrong.push("`sessionId` is missing or not a string".to_owned()),
    }
    match params.get("prompt").and_then(Value::as_array) {
        None => wrong.push("`prompt` is missing or not an array".to_owned()),
        Some(blocks) => {
            if blocks
                .iter()
                .any(|b| !b.get("type").is_some_and(Value::is_string))
            {
                wrong.push("a block of `prompt` has no string `type`".to_owned());
            }
        }
    }
    wrong
}
