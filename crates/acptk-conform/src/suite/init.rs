//! Initialization: version negotiation, the JSON types of capabilities, `authMethods`; and
//! `session/new`, the step after it of every run that opens a session.

use serde_json::{Value, json};

use super::{Options, Outcomes, brief, unexpected};
use crate::outcome::Outcome;
use crate::peer::{RawPeer, Reply};

/// The `initialize` params of `version`'s shape, proposing `proposal`; `notices` advertises
/// the v1 `session.notices` capability.
fn params(version: u16, proposal: u16, notices: bool) -> Value {
    let info = json!({"name": "acp-conform", "version": env!("CARGO_PKG_VERSION")});
    if version == 1 {
        let mut capabilities =
            json!({"fs": {"readTextFile": false, "writeTextFile": false}, "terminal": false});
        if notices {
            capabilities["session"] = json!({"notices": {}});
        }
        json!({"protocolVersion": proposal, "clientCapabilities": capabilities, "clientInfo": info})
    } else {
        json!({"protocolVersion": proposal, "info": info, "capabilities": {}})
    }
}

/// The answered `protocolVersion`, or a failure naming the response line.
fn answered_version(peer: &RawPeer, reply: &Reply) -> Result<u16, Outcome> {
    let Some(response) = &reply.response else {
        return Err(Outcome::failed(
            peer.name(),
            reply.request_line,
            "`initialize` got no response",
        ));
    };
    let version = response.result().and_then(|r| r.get("protocolVersion"));
    match version.and_then(Value::as_u64).map(u16::try_from) {
        Some(Ok(v)) => Ok(v),
        _ => Err(unexpected(
            peer.name(),
            response,
            "a result with an integer protocolVersion",
        )),
    }
}

/// The v2 error for a proposal below every version the agent supports.
const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

/// Proposes `proposal` (99: newer than any; 0: older than any) in `version`'s shape and judges
/// the answer: a version the agent supports, never the impossible proposal itself; for 0, v2's
/// error -32022 passes too (v1 and v2 disagree there, see the requirement).
pub(super) async fn probe_version(peer: &mut RawPeer, version: u16, proposal: u16) -> Outcome {
    let reply = peer
        .call("initialize", params(version, proposal, false))
        .await;
    let refused = reply
        .response
        .as_ref()
        .is_some_and(|r| r.error_code() == Some(UNSUPPORTED_PROTOCOL_VERSION));
    if proposal == 0 && refused {
        return Outcome::Passed;
    }
    match answered_version(peer, &reply) {
        Err(failed) => failed,
        Ok(v) if v == proposal || v == 0 => {
            let line = reply
                .response
                .as_ref()
                .map_or(reply.request_line, |r| r.line);
            Outcome::failed(
                peer.name(),
                line,
                format!(
                    "answered protocolVersion {v} to a proposal of {proposal}: no agent supports it"
                ),
            )
        }
        Ok(_) => Outcome::Passed,
    }
}

/// Initializes the run with `version` and judges the answer; returns the version answered.
pub(super) async fn initialize(
    peer: &mut RawPeer,
    version: u16,
    notices: bool,
    outcomes: &mut Outcomes,
) -> Option<u16> {
    let reply = peer
        .call("initialize", params(version, version, notices))
        .await;
    let answered = match answered_version(peer, &reply) {
        Err(failed) => {
            outcomes.push(("init.version.same", failed));
            return None;
        }
        Ok(v) => v,
    };
    // An agent that answers another version does not speak this one: that is allowed, and
    // the rest of this version's requirements are not applicable.
    outcomes.push(("init.version.same", Outcome::Passed));
    let (Some(response), true) = (&reply.response, answered == version) else {
        return Some(answered);
    };
    let result = response.result().cloned().unwrap_or(Value::Null);
    let key = if version == 1 {
        "agentCapabilities"
    } else {
        "capabilities"
    };
    let mut wrong = Vec::new();
    match result.get(key) {
        None | Some(Value::Null) => {}
        Some(Value::Object(_)) => capability_types(version, &result[key], key, &mut wrong),
        Some(other) => wrong.push(format!("`{key}` is {}, expected an object", kind(other))),
    }
    outcomes.push((
        "init.capabilities.types",
        judged(peer, response.line, wrong),
    ));
    outcomes.push((
        "init.auth-methods",
        judged(
            peer,
            response.line,
            auth_methods(version, result.get("authMethods")),
        ),
    ));
    Some(answered)
}

fn judged(peer: &RawPeer, line: u64, wrong: Vec<String>) -> Outcome {
    if wrong.is_empty() {
        Outcome::Passed
    } else {
        Outcome::failed(peer.name(), line, wrong.join("; "))
    }
}

/// The JSON type's name, for messages.
pub(crate) fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Checks the members the schema types: v1 booleans and objects, v2 objects (or null).
fn capability_types(version: u16, caps: &Value, path: &str, wrong: &mut Vec<String>) {
    let expect =
        |value: Option<&Value>, what: &str, ok: fn(&Value) -> bool, wrong: &mut Vec<String>| {
            if let Some(v) = value
                && !ok(v)
            {
                wrong.push(format!(
                    "`{path}.{what}` is {}, expected {}",
                    kind(v),
                    expected_name(ok)
                ));
            }
        };
    let object_or_null = |v: &Value| v.is_object() || v.is_null();
    if version == 1 {
        expect(
            caps.get("loadSession"),
            "loadSession",
            Value::is_boolean,
            wrong,
        );
        for (group, members) in [
            (
                "promptCapabilities",
                &["image", "audio", "embeddedContext"][..],
            ),
            ("mcpCapabilities", &["http", "sse"][..]),
        ] {
            expect(caps.get(group), group, Value::is_object, wrong);
            for member in members {
                let name = format!("{group}.{member}");
                expect(
                    caps.get(group).and_then(|g| g.get(member)),
                    &name,
                    Value::is_boolean,
                    wrong,
                );
            }
        }
        expect(
            caps.get("sessionCapabilities"),
            "sessionCapabilities",
            Value::is_object,
            wrong,
        );
        session_members(
            caps.get("sessionCapabilities"),
            "sessionCapabilities",
            path,
            wrong,
        );
    } else {
        expect(caps.get("session"), "session", object_or_null, wrong);
        expect(caps.get("auth"), "auth", object_or_null, wrong);
        session_members(caps.get("session"), "session", path, wrong);
    }
}

/// Each member of the session capabilities is an object (a capability) or null.
fn session_members(session: Option<&Value>, name: &str, path: &str, wrong: &mut Vec<String>) {
    if let Some(Value::Object(members)) = session {
        for (member, value) in members {
            if member != "_meta" && !(value.is_object() || value.is_null()) {
                wrong.push(format!(
                    "`{path}.{name}.{member}` is {}, expected an object or null",
                    kind(value)
                ));
            }
        }
    }
}

fn expected_name(ok: fn(&Value) -> bool) -> &'static str {
    if ok(&Value::Bool(true)) {
        "a boolean"
    } else if ok(&Value::Null) {
        "an object or null"
    } else {
        "an object"
    }
}

/// `authMethods`: absent, or an array of objects with a string id (`id` in v1, `methodId` in
/// v2) and a string `name`.
fn auth_methods(version: u16, methods: Option<&Value>) -> Vec<String> {
    let id_key = if version == 1 { "id" } else { "methodId" };
    match methods {
        None => Vec::new(),
        Some(Value::Array(entries)) => entries
            .iter()
            .enumerate()
            .filter_map(|(i, entry)| {
                let id_ok = entry.get(id_key).is_some_and(Value::is_string);
                let name_ok = entry.get("name").is_some_and(Value::is_string);
                (!(entry.is_object() && id_ok && name_ok)).then(|| {
                    format!(
                        "`authMethods[{i}]` is {}, expected an object with a string `{id_key}` and a string `name`",
                        brief(Some(entry))
                    )
                })
            })
            .collect(),
        Some(other) => vec![format!("`authMethods` is {}, expected an array", kind(other))],
    }
}

/// `session/new` in the run's directory: the reply, and the session id it gave if any.
pub(super) async fn new_session(peer: &mut RawPeer, options: &Options) -> (Reply, Option<String>) {
    let cwd = options.cwd.to_string_lossy().into_owned();
    let reply = peer
        .call("session/new", json!({"cwd": cwd, "mcpServers": []}))
        .await;
    let session = reply
        .response
        .as_ref()
        .and_then(|r| r.result())
        .and_then(|r| r.get("sessionId"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    (reply, session)
}
