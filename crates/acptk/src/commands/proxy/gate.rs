//! `acp proxy --listen`: the session gate of one connection, between the remote client and
//! the proxy run. Whatever the agent keeps, the client reaches only its principal's
//! sessions ([`Owners`]):
//!
//! * A request or notification whose `params.sessionId` is not one of the principal's
//!   sessions is not forwarded; a request is answered `-32002` at once (the same answer for
//!   another principal's session and for an id nobody knows: the proxy does not tell them
//!   apart). `params.sessionId` given twice, or not as a string, is refused too, as is a
//!   message that is not JSON (`-32700`): the gate forwards only what it read exactly as an
//!   agent would.
//! * The answer to the principal's `session/new` or `session/fork` makes the new id the
//!   principal's; a successful `session/delete` forgets it.
//! * Every response that lists sessions (`result.sessions`) keeps only the principal's.
//! * A batch is judged item by item: the refused items' answers are added to the agent's
//!   answer to the rest (or sent alone when nothing else needs one).
//!
//! Requests in flight are tracked by id (at most [`MAX_IN_FLIGHT`]; a request that would
//! reuse the id of one still in flight is refused), so that only the real answer to a
//! `session/new` can give a session to the principal.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::Arc;

use acptk_runtime::agent::Principal;
use serde::Deserialize;
use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Value, json};

use super::owners::Owners;

/// How many requests of one connection the gate tracks at once; further ones are refused
/// until answers come.
pub(super) const MAX_IN_FLIGHT: usize = 4096;

/// What the client asked for in a request the gate tracks.
#[derive(Debug, Clone)]
enum Asked {
    /// `session/new` or `session/fork`: the answer names a new session.
    Create,
    /// `session/delete` of this session.
    Delete(String),
    /// Anything else.
    Other,
}

/// The session gate of one connection.
pub(super) struct Gate {
    owners: Arc<Owners>,
    principal: Principal,
    /// Requests in flight, by id key.
    asked: HashMap<String, Asked>,
    /// Answers to refused batch items, waiting for the agent's answer to the rest of the
    /// batch (which has a response to one of these ids).
    merges: Vec<(HashSet<String>, Vec<Value>)>,
}

/// What to do with one message of the client.
#[derive(Debug, Default)]
pub(super) struct Inbound {
    /// What to forward to the agent (the message as it came when nothing was refused).
    pub(super) forward: Option<Vec<u8>>,
    /// What to answer the client at once.
    pub(super) reply: Option<Vec<u8>>,
    /// What to log.
    pub(super) note: Option<String>,
}

/// What to send the client for one message of the agent.
#[derive(Debug, Default)]
pub(super) struct Outbound {
    /// The message to send instead of the agent's (`None`: the agent's, unchanged).
    pub(super) message: Option<Vec<u8>>,
    /// Answers to send after it (refused batch items whose batch got no array answer).
    pub(super) after: Option<Vec<u8>>,
    /// What to log.
    pub(super) note: Option<String>,
}

impl Gate {
    /// The gate of a connection of `principal`.
    pub(super) fn new(owners: Arc<Owners>, principal: Principal) -> Self {
        Self {
            owners,
            principal,
            asked: HashMap::new(),
            merges: Vec::new(),
        }
    }

    /// Judges one message of the client.
    pub(super) fn client_message(&mut self, message: Vec<u8>) -> Inbound {
        let first = message.iter().find(|byte| !byte.is_ascii_whitespace());
        match first {
            Some(b'[') => self.client_batch(message),
            Some(b'{') => match serde_json::from_slice::<ClientItem>(&message) {
                Ok(item) => match self.judge(&item) {
                    Verdict::Forward => Inbound {
                        forward: Some(message),
                        ..Inbound::default()
                    },
                    Verdict::Refuse { reply, note } => Inbound {
                        forward: None,
                        reply: reply.map(|reply| encode(&reply)),
                        note: Some(note),
                    },
                },
                Err(error) => not_json(&error),
            },
            // Any other JSON value names no session; the agent answers it.
            _ => match serde_json::from_slice::<IgnoredAny>(&message) {
                Ok(_) => Inbound {
                    forward: Some(message),
                    ..Inbound::default()
                },
                Err(error) => not_json(&error),
            },
        }
    }

    fn client_batch(&mut self, message: Vec<u8>) -> Inbound {
        let items: Vec<Box<RawValue>> = match serde_json::from_slice(&message) {
            Ok(items) => items,
            Err(error) => return not_json(&error),
        };
        let mut forward = Vec::new();
        let mut forwarded_ids = HashSet::new();
        let mut replies = Vec::new();
        let mut notes = Vec::new();
        for item in items {
            let read = item
                .get()
                .starts_with('{')
                .then(|| serde_json::from_str::<ClientItem>(item.get()));
            let verdict = match &read {
                Some(Ok(read)) => self.judge(read),
                // Not an object: the agent answers it.
                None => Verdict::Forward,
                Some(Err(error)) => Verdict::Refuse {
                    reply: Some(error_reply(
                        &Value::Null,
                        -32700,
                        &format!("parse error: {error}"),
                    )),
                    note: format!("refused a batch item that is not JSON: {error}"),
                },
            };
            match verdict {
                Verdict::Forward => {
                    if let Some(Ok(ClientItem {
                        method: Some(_),
                        id: Some(id),
                        ..
                    })) = &read
                    {
                        forwarded_ids.extend(id_key(id));
                    }
                    forward.push(item);
                }
                Verdict::Refuse { reply, note } => {
                    replies.extend(reply);
                    notes.push(note);
                }
            }
        }
        let note = (!notes.is_empty()).then(|| notes.join("; "));
        if notes.is_empty() {
            return Inbound {
                forward: Some(message),
                ..Inbound::default()
            };
        }
        let reply = if replies.is_empty() {
            None
        } else if forwarded_ids.is_empty() {
            Some(encode(&Value::Array(replies)))
        } else {
            self.merges.push((forwarded_ids, replies));
            None
        };
        Inbound {
            forward: (!forward.is_empty()).then(|| encode(&forward)),
            reply,
            note,
        }
    }

    /// Whether one message (or batch item) of the client goes to the agent.
    fn judge(&mut self, item: &ClientItem) -> Verdict {
        let id = item.id.clone().unwrap_or(Value::Null);
        // Only a request (a method and an id) gets an answer.
        let answered = item.id.is_some() && item.method.is_some();
        let refuse = |code: i64, message: String, note: String| Verdict::Refuse {
            reply: answered.then(|| error_reply(&id, code, &message)),
            note,
        };
        if item.twice {
            return refuse(
                -32600,
                "invalid request: a member (`method`, `id`, `params` or `params.sessionId`) is given twice".to_owned(),
                "refused a message with a member given twice".to_owned(),
            );
        }
        let method = match &item.method {
            // A response of the client.
            None => return Verdict::Forward,
            Some(None) => {
                return refuse(
                    -32600,
                    "invalid request: `method` must be a string".to_owned(),
                    "refused a message whose `method` is not a string".to_owned(),
                );
            }
            Some(Some(method)) => method,
        };
        let asked = match &item.session {
            Named::Nothing if method == "session/new" => Asked::Create,
            Named::Nothing => Asked::Other,
            Named::NotText => {
                return refuse(
                    -32602,
                    format!("invalid params: `{method}` needs `sessionId` as a string"),
                    format!("refused `{method}` with a `sessionId` that is not a string"),
                );
            }
            Named::Session(session) if !self.owners.owns(&self.principal, session) => {
                let error = json!({"code": -32002, "message": format!("session `{session}` not found"),
                                   "data": {"sessionId": session}});
                return Verdict::Refuse {
                    reply: answered.then(|| json!({"jsonrpc": "2.0", "id": id, "error": error})),
                    note: format!(
                        "refused `{method}` naming session `{session}`, which is not {}'s",
                        self.principal
                    ),
                };
            }
            Named::Session(_) if method == "session/fork" => Asked::Create,
            Named::Session(session) if method == "session/delete" => Asked::Delete(session.clone()),
            Named::Session(_) => Asked::Other,
        };
        let Some(key) = item.id.as_ref().and_then(id_key) else {
            return Verdict::Forward;
        };
        if self.asked.contains_key(&key) {
            return refuse(
                -32600,
                "invalid request: the id of a request still in flight".to_owned(),
                format!("refused `{method}` reusing the id of a request in flight"),
            );
        }
        if self.asked.len() >= MAX_IN_FLIGHT {
            return refuse(
                -32000,
                format!("{MAX_IN_FLIGHT} requests are in flight already; wait for their answers"),
                format!("refused `{method}`: {MAX_IN_FLIGHT} requests in flight"),
            );
        }
        self.asked.insert(key, asked);
        Verdict::Forward
    }

    /// Reads one message of the agent: answers to tracked requests, lists to filter, batch
    /// answers to complete.
    pub(super) fn agent_message(&mut self, message: &[u8]) -> Outbound {
        let first = message.iter().find(|byte| !byte.is_ascii_whitespace());
        let mut notes = Vec::new();
        let mut outbound = Outbound::default();
        if first == Some(&b'[') {
            let Ok(items) = serde_json::from_slice::<Vec<Box<RawValue>>>(message) else {
                return outbound;
            };
            let mut changed = false;
            let mut values: Vec<Value> = Vec::with_capacity(items.len());
            let mut ids = Vec::new();
            for item in &items {
                let (value, id) = self.agent_item(item.get(), &mut notes);
                changed |= value.is_some();
                ids.extend(id);
                values.push(match value {
                    Some(value) => value,
                    None => serde_json::from_str(item.get()).unwrap_or(Value::Null),
                });
            }
            if let Some(replies) = self.merged(&ids) {
                values.extend(replies);
                changed = true;
            }
            outbound.message = changed.then(|| encode(&Value::Array(values)));
        } else {
            let text = std::str::from_utf8(message).unwrap_or_default();
            let (value, id) = self.agent_item(text, &mut notes);
            // A batch the agent answered with one object (an error about the whole batch).
            if let Some(replies) = id.and_then(|id| self.merged(&[id])) {
                outbound.after = Some(encode(&Value::Array(replies)));
            }
            outbound.message = value.map(|value| encode(&value));
        }
        outbound.note = (!notes.is_empty()).then(|| notes.join("; "));
        outbound
    }

    /// One message or batch item of the agent: its replacement when it changed, and the id
    /// key of the response it is.
    fn agent_item(
        &mut self,
        text: &str,
        notes: &mut Vec<String>,
    ) -> (Option<Value>, Option<String>) {
        let Ok(head) = serde_json::from_str::<AgentHead>(text) else {
            return (None, None);
        };
        if head.method.is_some() {
            return (None, None);
        }
        let key = head.id.as_ref().and_then(id_key);
        let asked = key.as_ref().and_then(|key| self.asked.remove(key));
        let Some(result) = head.result else {
            return (None, key);
        };
        match asked {
            Some(Asked::Create) => {
                if let Ok(Created {
                    session_id: Some(session),
                }) = serde_json::from_str(result.get())
                {
                    match self.owners.created(&self.principal, &session) {
                        Ok(true) => {}
                        Ok(false) => notes.push(format!(
                            "the agent created session `{session}`, whose id is already another principal's: it stays theirs"
                        )),
                        Err(error) => notes.push(format!("cannot record the owner of `{session}`: {error}")),
                    }
                }
            }
            Some(Asked::Delete(session)) => {
                if let Err(error) = self.owners.deleted(&self.principal, &session) {
                    notes.push(format!(
                        "cannot record that `{session}` was deleted: {error}"
                    ));
                }
            }
            Some(Asked::Other) | None => {}
        }
        let listed = matches!(
            serde_json::from_str::<Listing>(result.get()),
            Ok(Listing { sessions: Some(_) })
        );
        if !listed {
            return (None, key);
        }
        let Ok(mut value) = serde_json::from_str::<Value>(text) else {
            return (None, key);
        };
        let Some(sessions) = value["result"]["sessions"].as_array_mut() else {
            return (None, key);
        };
        let before = sessions.len();
        sessions.retain(|info| {
            info.get("sessionId")
                .and_then(Value::as_str)
                .is_some_and(|session| self.owners.owns(&self.principal, session))
        });
        let changed = sessions.len() != before;
        (changed.then_some(value), key)
    }

    /// The answers to refused batch items that wait for the answer including one of `ids`.
    fn merged(&mut self, ids: &[String]) -> Option<Vec<Value>> {
        let at = self
            .merges
            .iter()
            .position(|(waiting, _)| ids.iter().any(|id| waiting.contains(id)))?;
        Some(self.merges.remove(at).1)
    }
}

enum Verdict {
    Forward,
    Refuse { reply: Option<Value>, note: String },
}

fn encode<T: serde::Serialize>(value: &T) -> Vec<u8> {
    serde_json::to_vec(value).unwrap_or_default()
}

fn error_reply(id: &Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// The answer to a message that is not JSON: `-32700`, not forwarded.
fn not_json(error: &serde_json::Error) -> Inbound {
    Inbound {
        forward: None,
        reply: Some(encode(&error_reply(
            &Value::Null,
            -32700,
            &format!("parse error: {error}"),
        ))),
        note: Some(format!("refused a message that is not JSON: {error}")),
    }
}

/// A key for a request id, the same for every spelling of one number (`1`, `1.0`), so that
/// an agent that writes the id back another way still matches.
fn id_key(id: &Value) -> Option<String> {
    match id {
        Value::String(text) => Some(format!("s:{text}")),
        Value::Number(number) => Some(match (number.as_i64(), number.as_u64(), number.as_f64()) {
            (Some(n), _, _) => format!("n:{n}"),
            (_, Some(n), _) => format!("n:{n}"),
            (_, _, Some(f)) if f.fract() == 0.0 && f.abs() < 9.0e15 => format!("n:{}", f as i64),
            (_, _, Some(f)) => format!("f:{}", f.to_bits()),
            _ => format!("n:{number}"),
        }),
        _ => None,
    }
}

/// What the gate reads of a message of the client.
#[derive(Debug, Default)]
struct ClientItem {
    /// `Some(None)`: a `method` that is not a string.
    method: Option<Option<String>>,
    id: Option<Value>,
    session: Named,
    /// `method`, `id`, `params` or `params.sessionId` came twice.
    twice: bool,
}

/// What `params.sessionId` is.
#[derive(Debug, Default)]
enum Named {
    #[default]
    Nothing,
    Session(String),
    NotText,
}

impl<'de> Deserialize<'de> for ClientItem {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(ItemVisitor)
    }
}

struct ItemVisitor;

impl<'de> Visitor<'de> for ItemVisitor {
    type Value = ClientItem;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON-RPC message (an object)")
    }

    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<ClientItem, M::Error> {
        let mut item = ClientItem::default();
        let mut seen = [false; 3];
        while let Some(key) = map.next_key::<String>()? {
            let slot = match key.as_str() {
                "method" => 0,
                "id" => 1,
                "params" => 2,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
            };
            item.twice |= std::mem::replace(&mut seen[slot], true);
            match slot {
                0 => item.method = Some(map.next_value::<Value>()?.as_str().map(str::to_owned)),
                1 => item.id = Some(map.next_value::<Value>()?),
                _ => {
                    let params = map.next_value::<Box<RawValue>>()?;
                    if params.get().starts_with('{') {
                        let read = serde_json::from_str::<Params>(params.get())
                            .map_err(serde::de::Error::custom)?;
                        item.twice |= read.twice;
                        item.session = read.session;
                    }
                }
            }
        }
        Ok(item)
    }
}

/// `params.sessionId` of a client message, and whether it came twice.
struct Params {
    session: Named,
    twice: bool,
}

impl<'de> Deserialize<'de> for Params {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(ParamsVisitor)
    }
}

struct ParamsVisitor;

impl<'de> Visitor<'de> for ParamsVisitor {
    type Value = Params;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("params (an object)")
    }

    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Params, M::Error> {
        let mut params = Params {
            session: Named::Nothing,
            twice: false,
        };
        while let Some(key) = map.next_key::<String>()? {
            if key != "sessionId" {
                map.next_value::<IgnoredAny>()?;
                continue;
            }
            params.twice |= !matches!(params.session, Named::Nothing);
            params.session = match map.next_value::<Value>()? {
                Value::String(session) => Named::Session(session),
                _ => Named::NotText,
            };
        }
        Ok(params)
    }
}

/// What the gate reads of a message of the agent.
#[derive(Deserialize)]
struct AgentHead {
    method: Option<IgnoredAny>,
    id: Option<Value>,
    result: Option<Box<RawValue>>,
}

/// The new session of a `session/new` or `session/fork` answer.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Created {
    session_id: Option<String>,
}

/// Whether a result lists sessions.
#[derive(Deserialize)]
struct Listing {
    sessions: Option<IgnoredAny>,
}
