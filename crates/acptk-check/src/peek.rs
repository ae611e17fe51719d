//! Cheap looks at raw payloads, for what typed decoding cannot say: which version a message
//! is in before the version is known, and why a notice did not decode.

use acptk_schema::jsonrpc::Id;
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

/// The `protocolVersion` number of `initialize` params or result, when it is one.
pub(crate) fn protocol_version(raw: Option<&RawValue>) -> Option<u64> {
    #[derive(Deserialize)]
    struct Peek {
        #[serde(rename = "protocolVersion")]
        protocol_version: Option<Value>,
    }
    let peek: Peek = serde_json::from_str(raw?.get()).ok()?;
    peek.protocol_version?.as_u64()
}

/// The `requestId` of `$/cancel_request` params.
pub(crate) fn cancelled_id(raw: Option<&RawValue>) -> Option<Id> {
    #[derive(Deserialize)]
    struct Peek {
        #[serde(rename = "requestId")]
        request_id: Option<Id>,
    }
    let peek: Peek = serde_json::from_str(raw?.get()).ok()?;
    peek.request_id
}

/// The `sessionId` of request params, when it is a string.
pub(crate) fn session_id(raw: Option<&RawValue>) -> Option<String> {
    #[derive(Deserialize)]
    struct Peek {
        #[serde(rename = "sessionId")]
        session_id: Option<Value>,
    }
    let peek: Peek = serde_json::from_str(raw?.get()).ok()?;
    match peek.session_id? {
        Value::String(session) => Some(session),
        _ => None,
    }
}

/// A `session/update` whose update is tagged `notice`, read without the typed schema.
#[derive(Debug)]
pub(crate) struct RawNotice {
    /// The `sessionId`, when it is a string.
    pub(crate) session: Option<String>,
    /// Why the notice fields are wrong, when the problem is in them.
    pub(crate) problem: Option<String>,
}

/// Reads `session/update` params whose update is a notice (`"sessionUpdate": "notice"`);
/// `None` when the update is not tagged `notice`.
pub(crate) fn raw_notice(params: Option<&RawValue>) -> Option<RawNotice> {
    #[derive(Deserialize)]
    struct Params {
        #[serde(rename = "sessionId")]
        session_id: Option<Value>,
        update: Option<serde_json::Map<String, Value>>,
    }
    let params: Params = serde_json::from_str(params?.get()).ok()?;
    let update = params.update?;
    if update.get("sessionUpdate").and_then(Value::as_str) != Some("notice") {
        return None;
    }
    let problem = match (update.get("severity"), update.get("title")) {
        (None, _) => Some("notice has no `severity`".to_owned()),
        (Some(severity), _) if !severity.is_string() => Some(format!(
            "notice `severity` must be a string, found {}",
            kind(severity)
        )),
        (_, None) => Some("notice has no `title`".to_owned()),
        (_, Some(Value::String(title))) if title.is_empty() => {
            Some("notice `title` must not be empty".to_owned())
        }
        (_, Some(title)) if !title.is_string() => Some(format!(
            "notice `title` must be a string, found {}",
            kind(title)
        )),
        _ => None,
    };
    Some(RawNotice {
        session: params
            .session_id
            .and_then(|id| id.as_str().map(str::to_owned)),
        problem,
    })
}

/// `null`, `a number`, ... for a reason text.
fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
