//! What the ownership tests share: the agent methods of each version whose params name a
//! session (read from the reference schema, kept to what this build's method tables have),
//! params that decode for every one of them, and the probe that sends each one naming
//! another principal's session and naming an unknown id, and requires the same answer.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::future::Future;

use acptk_runtime::agent::{AgentFeatures, ConfigOption, Modes, SessionConfig};
use serde_json::{Value, json};

use super::common::TestAgent;

/// A session id no store knows, in the shape of the runtime's ids.
pub const UNKNOWN: &str = "sess_0123456789abcdef0123456789abcdef";

/// What the first principal puts in its session's title.
pub const SECRET: &str = "A's secret: the launch code is 0000";

/// The request and notification methods of `version` whose params have `sessionId`, as
/// the reference schema (every unstable part included) says, that this build's tables
/// decode.
pub fn session_methods(version: u16) -> (Vec<String>, Vec<String>) {
    let path = format!(
        "{}/../../reference/acp-v{version}.unstable.schema.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let (requests, notifications) = if version == 1 {
        (
            acptk_schema::v1::ClientRequest::METHODS,
            acptk_schema::v1::ClientNotification::METHODS,
        )
    } else {
        (
            acptk_schema::v2::ClientRequest::METHODS,
            acptk_schema::v2::ClientNotification::METHODS,
        )
    };
    let mut named = (Vec::new(), Vec::new());
    for (name, definition) in schema["$defs"].as_object().unwrap() {
        let Some(method) = definition["x-method"].as_str() else {
            continue;
        };
        if definition["x-side"] != "agent" || definition["properties"].get("sessionId").is_none() {
            continue;
        }
        if name.ends_with("Request") && requests.contains(&method) {
            named.0.push(method.to_owned());
        } else if name.ends_with("Notification") && notifications.contains(&method) {
            named.1.push(method.to_owned());
        }
    }
    named.0.sort();
    named.1.sort();
    named
}

/// Params naming `session` that decode for every session method of both versions (each
/// method reads the fields it has).
pub fn params(session: &str) -> Value {
    json!({
        "sessionId": session,
        "cwd": "/work",
        "mcpServers": [],
        "prompt": [{"type": "text", "text": "B was here"}],
        "modeId": "code",
        "configId": "fast",
        "type": "boolean",
        "value": true,
        "title": "B's title",
        "toolCallId": "call_1",
        "terminalId": "term_1",
        "replayFrom": {"type": "start"},
    })
}

/// What every session of [`agent`] offers: two modes and a boolean option.
pub fn config() -> SessionConfig {
    SessionConfig::new()
        .modes(Modes::new("ask").mode("ask", "Ask").mode("code", "Code"))
        .option(ConfigOption::boolean("fast", "Fast", false))
}

/// The test agent with modes and options, answering `session/options` where it can.
pub fn agent() -> TestAgent {
    #[allow(unused_mut)]
    let mut features = AgentFeatures::new();
    #[cfg(feature = "unstable_session_options")]
    {
        features =
            features.unstable(acptk_runtime::agent::UnstableFeatures::new().session_options(true));
    }
    TestAgent {
        features: Some(features),
        config: Some(config()),
        ..TestAgent::default()
    }
}

/// Something that sends requests as one principal: `Ok(result)` or `Err(error object)`.
pub trait Caller {
    fn call(&mut self, method: &str, params: Value) -> impl Future<Output = Result<Value, Value>>;
    fn notify(&mut self, method: &str, params: Value) -> impl Future<Output = ()>;
}

impl Caller for super::common::wire::Wire {
    async fn call(&mut self, method: &str, params: Value) -> Result<Value, Value> {
        let answer = super::common::wire::Wire::call(self, method, params).await;
        match answer.get("error") {
            Some(error) => Err(error.clone()),
            None => Ok(answer["result"].clone()),
        }
    }

    async fn notify(&mut self, method: &str, params: Value) {
        super::common::wire::Wire::notify(self, method, params).await;
    }
}

/// Sends every request method in `methods` as `caller`, once naming `theirs` (another
/// principal's session) and once naming [`UNKNOWN`]; both answers must be the same once the
/// id is swapped, and the unknown id's must be `-32002` (or, for `session/close` and
/// `session/delete`, which succeed for an unknown session and change nothing, a success; or
/// `-32601` for a method this agent does not offer). Returns each method with the code it
/// got (0 for a success).
pub async fn probe(
    caller: &mut impl Caller,
    theirs: &str,
    methods: &[String],
) -> Vec<(String, i64)> {
    let mut codes = Vec::new();
    for method in methods {
        let other = caller.call(method, params(theirs)).await;
        let unknown = caller.call(method, params(UNKNOWN)).await;
        let shown = serde_json::to_string(&other)
            .unwrap()
            .replace(theirs, UNKNOWN);
        assert_eq!(
            shown,
            serde_json::to_string(&unknown).unwrap(),
            "`{method}` answers another principal's session unlike an unknown one"
        );
        let code = match &unknown {
            Ok(_) => {
                assert!(
                    method == "session/close" || method == "session/delete",
                    "`{method}` of an unknown id succeeded"
                );
                0
            }
            Err(error) => error["code"].as_i64().unwrap(),
        };
        assert!(
            [0, -32002, -32601].contains(&code),
            "`{method}` of an unknown id: {unknown:?} (the params must decode for every method)"
        );
        codes.push((method.clone(), code));
    }
    codes
}

/// The ids and titles of a `session/list` result, as one string to search.
pub fn listed(result: &Value) -> String {
    result["sessions"].to_string()
}
