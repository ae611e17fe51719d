//! Round trips of the hand-written session-area types (elicitation, config options,
//! permissions, MCP servers, idempotency keys) in both protocol versions.
//!
//! Run with `cargo test -p acp-schema --all-features --test methods_sessions`; the v2 cases
//! need `unstable_protocol_v2` and the schema cases need `schemars`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// Decodes `input` as `T`, checks the decoded value with `check`, encodes it again and
/// compares the result with `expected` (the input itself when `None`).
fn round_trip<T>(name: &str, input: &Value, expected: Option<&Value>, check: fn(&T) -> bool)
where
    T: DeserializeOwned + Serialize + std::fmt::Debug,
{
    let decoded: T = serde_json::from_value(input.clone())
        .unwrap_or_else(|error| panic!("{name}: {input} failed to decode: {error}"));
    assert!(
        check(&decoded),
        "{name}: {input} decoded to the wrong variant: {decoded:?}"
    );
    let encoded = serde_json::to_value(&decoded).unwrap();
    assert_eq!(
        &encoded,
        expected.unwrap_or(input),
        "{name}: re-encoding differs"
    );
    // Decoding from a string (the streaming path) must agree with decoding from a value.
    let from_text: T = serde_json::from_str(&input.to_string()).unwrap();
    assert_eq!(
        serde_json::to_value(&from_text).unwrap(),
        encoded,
        "{name}: text decode differs"
    );
}

/// Checks that `input` does not decode as `T`; returns the error message.
fn rejects<T: DeserializeOwned + std::fmt::Debug>(name: &str, input: &Value) -> String {
    match serde_json::from_value::<T>(input.clone()) {
        Ok(value) => panic!("{name}: {input} should fail but decoded to {value:?}"),
        Err(error) => {
            assert!(
                serde_json::from_str::<T>(&input.to_string()).is_err(),
                "{name}: text decode"
            );
            error.to_string()
        }
    }
}

/// A table of cases for one type: `(name, input, expected re-encoding or None, variant check)`.
type Cases<T> = Vec<(&'static str, Value, Option<Value>, fn(&T) -> bool)>;

fn run<T>(cases: Cases<T>)
where
    T: DeserializeOwned + Serialize + std::fmt::Debug,
{
    for (name, input, expected, check) in cases {
        round_trip::<T>(name, &input, expected.as_ref(), check);
    }
}

fn run_rejects<T: DeserializeOwned + std::fmt::Debug>(cases: Vec<(&'static str, Value)>) {
    for (name, input) in cases {
        rejects::<T>(name, &input);
    }
}

fn form_schema() -> Value {
    json!({
        "type": "object",
        "title": "Branch",
        "properties": {
            "branch": {"type": "string", "minLength": 1},
            "count": {"type": "integer", "minimum": 0},
            "ratio": {"type": "number", "default": 0.5},
            "force": {"type": "boolean", "default": false},
            "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}, "default": ["a"]},
            "labels": {"type": "array", "items": {"anyOf": [{"const": "x", "title": "X"}]}},
            "future": {"type": "color", "palette": "web"}
        },
        "required": ["branch"]
    })
}

/// A type name and a function registering that type's schema.
#[cfg(feature = "schemars")]
type SchemaCheck = (&'static str, fn(&mut schemars::SchemaGenerator));

/// Checks that the generated JSON Schema of each type equals its `$defs` entry in the reference.
#[cfg(feature = "schemars")]
fn check_schemas(reference: &str, checks: Vec<SchemaCheck>) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/reference")
        .join(reference);
    let Ok(text) = std::fs::read_to_string(&path) else {
        eprintln!(
            "reference schema {} not found; skipping schema comparison",
            path.display()
        );
        return;
    };
    let reference: Value = serde_json::from_str(&text).unwrap();
    for (name, register) in checks {
        let mut generator =
            schemars::SchemaGenerator::new(schemars::generate::SchemaSettings::draft2020_12());
        register(&mut generator);
        let defs = generator.take_definitions(true);
        let mut ours = defs
            .get(name)
            .cloned()
            .unwrap_or_else(|| panic!("{name} not generated"));
        let mut theirs = reference["$defs"][name].clone();
        for schema in [&mut ours, &mut theirs] {
            strip_annotations(schema);
        }
        assert_eq!(ours, theirs, "schema of {name} differs from the reference");
    }
}

/// Removes keys that only annotate (descriptions, method markers), which the reference
/// strips or this crate adds elsewhere.
#[cfg(feature = "schemars")]
fn strip_annotations(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for key in ["description", "x-side", "x-method", "x-scope", "x-state"] {
                map.remove(key);
            }
            map.values_mut().for_each(strip_annotations);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_annotations),
        _ => {}
    }
}

mod v1 {
    use super::*;
    use acp_schema::v1::*;

    #[test]
    fn mcp_server() {
        run::<McpServer>(vec![
            (
                "stdio without type",
                json!({"name": "fs", "command": "/bin/fs", "args": ["-v"], "env": [{"name": "A", "value": "1"}]}),
                None,
                |s| matches!(s, McpServer::Stdio(_)),
            ),
            (
                "http",
                json!({"type": "http", "name": "docs", "url": "https://x.test/mcp", "headers": [{"name": "Authorization", "value": "t"}]}),
                None,
                |s| matches!(s, McpServer::Http(_)),
            ),
            (
                "sse",
                json!({"type": "sse", "name": "old", "url": "https://x.test/sse", "headers": []}),
                None,
                |s| matches!(s, McpServer::Sse(_)),
            ),
            (
                "tag not first",
                json!({"name": "docs", "url": "https://x.test/mcp", "type": "http", "headers": []}),
                Some(
                    json!({"type": "http", "name": "docs", "url": "https://x.test/mcp", "headers": []}),
                ),
                |s| matches!(s, McpServer::Http(_)),
            ),
            (
                "explicit stdio tag is written without it",
                json!({"type": "stdio", "name": "fs", "command": "/bin/fs", "args": [], "env": []}),
                Some(json!({"name": "fs", "command": "/bin/fs", "args": [], "env": []})),
                |s| matches!(s, McpServer::Stdio(_)),
            ),
            (
                "null lists mean empty",
                json!({"name": "fs", "command": "/bin/fs", "args": null, "env": null}),
                Some(json!({"name": "fs", "command": "/bin/fs", "args": [], "env": []})),
                |s| matches!(s, McpServer::Stdio(_)),
            ),
        ]);
        run_rejects::<McpServer>(vec![
            (
                "unknown type (closed)",
                json!({"type": "ws", "name": "x", "url": "wss://x", "headers": []}),
            ),
            (
                "http without url",
                json!({"type": "http", "name": "x", "headers": []}),
            ),
            (
                "http shaped like stdio",
                json!({"type": "http", "name": "x", "command": "c", "args": [], "env": []}),
            ),
            (
                "stdio without args",
                json!({"name": "fs", "command": "/bin/fs", "env": []}),
            ),
            (
                "type not a string",
                json!({"type": 1, "name": "fs", "command": "/bin/fs", "args": [], "env": []}),
            ),
        ]);
    }

    #[test]
    fn request_permission_outcome() {
        run::<RequestPermissionOutcome>(vec![
            ("cancelled", json!({"outcome": "cancelled"}), None, |o| {
                matches!(o, RequestPermissionOutcome::Cancelled)
            }),
            (
                "selected",
                json!({"outcome": "selected", "optionId": "allow"}),
                None,
                |o| matches!(o, RequestPermissionOutcome::Selected(_)),
            ),
        ]);
        run_rejects::<RequestPermissionOutcome>(vec![
            ("unknown outcome (closed)", json!({"outcome": "maybe"})),
            ("selected without optionId", json!({"outcome": "selected"})),
            ("no outcome", json!({"optionId": "allow"})),
        ]);
        round_trip::<RequestPermissionResponse>(
            "response",
            &json!({"outcome": {"outcome": "selected", "optionId": "a"}, "_meta": {"k": 1}}),
            None,
            |_| true,
        );
    }

    #[test]
    fn session_config_option() {
        run::<SessionConfigOption>(vec![
            (
                "select, ungrouped",
                json!({"id": "model", "name": "Model", "description": "Which model", "category": "model",
                       "type": "select", "currentValue": "fast",
                       "options": [{"value": "fast", "name": "Fast"}, {"value": "slow", "name": "Slow", "description": "Careful"}]}),
                None,
                |o| matches!(&o.kind, SessionConfigKind::Select(s) if matches!(s.options, SessionConfigSelectOptions::Ungrouped(_))),
            ),
            (
                "select, grouped",
                json!({"id": "model", "name": "Model", "type": "select", "currentValue": "a",
                       "options": [{"group": "g1", "name": "Group", "options": [{"value": "a", "name": "A"}]}],
                       "_meta": {"x": true}}),
                None,
                |o| matches!(&o.kind, SessionConfigKind::Select(s) if matches!(s.options, SessionConfigSelectOptions::Grouped(_))),
            ),
            (
                "boolean, unknown category kept",
                json!({"id": "web", "name": "Web search", "category": "_custom", "type": "boolean", "currentValue": true}),
                None,
                |o| {
                    matches!(o.kind, SessionConfigKind::Boolean(_))
                        && o.category.as_ref().is_some_and(|c| !c.is_known())
                },
            ),
            (
                "malformed description and category are absent",
                json!({"id": "web", "name": "Web", "description": 5, "category": [], "type": "boolean", "currentValue": false}),
                Some(json!({"id": "web", "name": "Web", "type": "boolean", "currentValue": false})),
                |o| o.description.is_none() && o.category.is_none(),
            ),
            (
                "malformed entries of a group are dropped",
                json!({"id": "m", "name": "M", "type": "select", "currentValue": "a",
                       "options": [{"group": "g", "name": "G", "options": [{"value": "a", "name": "A"}, {"value": 1}]}]}),
                Some(
                    json!({"id": "m", "name": "M", "type": "select", "currentValue": "a",
                            "options": [{"group": "g", "name": "G", "options": [{"value": "a", "name": "A"}]}]}),
                ),
                |_| true,
            ),
        ]);
        run_rejects::<SessionConfigOption>(vec![
            (
                "unknown type (closed)",
                json!({"id": "x", "name": "X", "type": "slider", "currentValue": 3}),
            ),
            (
                "select without options",
                json!({"id": "x", "name": "X", "type": "select", "currentValue": "a"}),
            ),
            (
                "boolean with a string value",
                json!({"id": "x", "name": "X", "type": "boolean", "currentValue": "yes"}),
            ),
            (
                "no type",
                json!({"id": "x", "name": "X", "currentValue": true}),
            ),
            (
                "mixed options",
                json!({"id": "x", "name": "X", "type": "select", "currentValue": "a",
                                    "options": [{"value": "a", "name": "A"}, {"group": "g", "name": "G", "options": []}]}),
            ),
        ]);
        // Malformed options in the response lists are dropped one by one.
        let response: SetSessionConfigOptionResponse = serde_json::from_value(json!({
            "configOptions": [{"id": "w", "name": "W", "type": "boolean", "currentValue": true}, {"id": "bad"}]
        }))
        .unwrap();
        assert_eq!(response.config_options.len(), 1);
    }

    #[test]
    fn set_session_config_option_request() {
        run::<SetSessionConfigOptionRequest>(vec![
            (
                "value id (no type)",
                json!({"sessionId": "s", "configId": "model", "value": "fast"}),
                None,
                |r| matches!(r.value, SessionConfigOptionValue::ValueId(_)),
            ),
            (
                "boolean",
                json!({"sessionId": "s", "configId": "web", "type": "boolean", "value": true, "_meta": {"a": 1}}),
                None,
                |r| matches!(r.value, SessionConfigOptionValue::Boolean(true)),
            ),
        ]);
        run_rejects::<SetSessionConfigOptionRequest>(vec![
            (
                "boolean with a string",
                json!({"sessionId": "s", "configId": "web", "type": "boolean", "value": "yes"}),
            ),
            (
                "value id that is a boolean",
                json!({"sessionId": "s", "configId": "web", "value": true}),
            ),
            (
                "unknown type (closed)",
                json!({"sessionId": "s", "configId": "web", "type": "id", "value": "a"}),
            ),
            ("no value", json!({"sessionId": "s", "configId": "web"})),
        ]);
    }

    #[test]
    fn create_elicitation_request() {
        run::<CreateElicitationRequest>(vec![
            (
                "form, session scope",
                json!({"message": "Which branch?", "mode": "form", "sessionId": "s", "toolCallId": "t",
                       "requestedSchema": form_schema()}),
                None,
                |r| matches!(&r.mode, ElicitationMode::Form(f) if matches!(f.scope, ElicitationScope::Session(_))),
            ),
            (
                "form, request scope",
                json!({"message": "Token?", "mode": "form", "requestId": 7, "requestedSchema": {"type": "object", "properties": {}}}),
                None,
                |r| matches!(&r.mode, ElicitationMode::Form(f) if matches!(f.scope, ElicitationScope::Request(_))),
            ),
            (
                "url",
                json!({"message": "Sign in", "mode": "url", "requestId": "init-1", "elicitationId": "e1",
                       "url": "https://x.test/login", "_meta": {"trace": "1"}}),
                None,
                |r| matches!(r.mode, ElicitationMode::Url(_)),
            ),
            (
                "unknown mode kept verbatim",
                json!({"message": "Scan", "mode": "qr", "sessionId": "s", "payload": {"a": [1, 2]}}),
                None,
                |r| matches!(&r.mode, ElicitationMode::Other(u) if u.tag() == "qr"),
            ),
            (
                "v1 accepts both scopes as a session scope",
                json!({"message": "m", "mode": "url", "sessionId": "s", "requestId": 1, "elicitationId": "e", "url": "https://x.test"}),
                Some(
                    json!({"message": "m", "mode": "url", "sessionId": "s", "elicitationId": "e", "url": "https://x.test"}),
                ),
                |_| true,
            ),
            (
                "malformed toolCallId is absent",
                json!({"message": "m", "mode": "url", "sessionId": "s", "toolCallId": 5, "elicitationId": "e", "url": "https://x.test"}),
                Some(
                    json!({"message": "m", "mode": "url", "sessionId": "s", "elicitationId": "e", "url": "https://x.test"}),
                ),
                |_| true,
            ),
            (
                "schema type and properties default",
                json!({"message": "m", "mode": "form", "sessionId": "s", "requestedSchema": {}}),
                Some(
                    json!({"message": "m", "mode": "form", "sessionId": "s", "requestedSchema": {"type": "object", "properties": {}}}),
                ),
                |_| true,
            ),
            (
                "malformed schema type means object",
                json!({"message": "m", "mode": "form", "sessionId": "s", "requestedSchema": {"type": "array", "properties": {}}}),
                Some(
                    json!({"message": "m", "mode": "form", "sessionId": "s", "requestedSchema": {"type": "object", "properties": {}}}),
                ),
                |_| true,
            ),
        ]);
        run_rejects::<CreateElicitationRequest>(vec![
            (
                "no message",
                json!({"mode": "url", "sessionId": "s", "elicitationId": "e", "url": "u"}),
            ),
            (
                "no mode",
                json!({"message": "m", "sessionId": "s", "elicitationId": "e", "url": "u"}),
            ),
            (
                "no scope",
                json!({"message": "m", "mode": "url", "elicitationId": "e", "url": "u"}),
            ),
            (
                "unknown mode without scope",
                json!({"message": "m", "mode": "qr"}),
            ),
            (
                "form without schema",
                json!({"message": "m", "mode": "form", "sessionId": "s"}),
            ),
            (
                "form with malformed schema",
                json!({"message": "m", "mode": "form", "sessionId": "s", "requestedSchema": 5}),
            ),
            (
                "url without url",
                json!({"message": "m", "mode": "url", "sessionId": "s", "elicitationId": "e"}),
            ),
            (
                "known field type with bad payload",
                json!({"message": "m", "mode": "form", "sessionId": "s",
                "requestedSchema": {"properties": {"n": {"type": "integer", "minimum": "low"}}}}),
            ),
        ]);
    }

    #[test]
    fn multi_select_items() {
        run::<MultiSelectItems>(vec![
            (
                "string",
                json!({"type": "string", "enum": ["a", "b"]}),
                None,
                |i| matches!(i, MultiSelectItems::String(_)),
            ),
            (
                "titled",
                json!({"anyOf": [{"const": "a", "title": "A", "description": "first"}]}),
                None,
                |i| matches!(i, MultiSelectItems::Titled(_)),
            ),
            (
                "unknown type kept",
                json!({"type": "number", "enum": [1, 2]}),
                None,
                |i| matches!(i, MultiSelectItems::Other(_)),
            ),
            (
                "tag after payload",
                json!({"enum": ["a"], "type": "string"}),
                Some(json!({"type": "string", "enum": ["a"]})),
                |i| matches!(i, MultiSelectItems::String(_)),
            ),
        ]);
        run_rejects::<MultiSelectItems>(vec![
            (
                "string without enum",
                json!({"type": "string", "anyOf": []}),
            ),
            ("titled without anyOf", json!({"enum": ["a"]})),
        ]);
    }

    #[test]
    fn elicitation_content_value() {
        run::<ElicitationContentValue>(vec![
            ("string", json!("main"), None, |v| {
                matches!(v, ElicitationContentValue::String(_))
            }),
            ("integer", json!(-3), None, |v| {
                matches!(v, ElicitationContentValue::Integer(-3))
            }),
            ("number", json!(0.5), None, |v| {
                matches!(v, ElicitationContentValue::Number(_))
            }),
            ("boolean", json!(true), None, |v| {
                matches!(v, ElicitationContentValue::Boolean(true))
            }),
            ("string array", json!(["a", "b"]), None, |v| {
                matches!(v, ElicitationContentValue::StringArray(_))
            }),
            (
                "huge integer is a number",
                json!(u64::MAX),
                Some(json!(u64::MAX as f64)),
                |v| matches!(v, ElicitationContentValue::Number(_)),
            ),
        ]);
        run_rejects::<ElicitationContentValue>(vec![
            ("null (closed)", json!(null)),
            ("object (closed)", json!({"a": 1})),
            ("array with a number", json!(["a", 1])),
        ]);
    }

    #[test]
    fn create_elicitation_response() {
        run::<CreateElicitationResponse>(vec![
            (
                "accept with content",
                json!({"action": "accept", "content": {"branch": "main", "n": 2, "x": 1.5, "f": true, "tags": ["a"]}}),
                None,
                |r| matches!(r.action, ElicitationAction::Accept(_)),
            ),
            (
                "accept without content",
                json!({"action": "accept"}),
                None,
                |r| matches!(r.action, ElicitationAction::Accept(_)),
            ),
            (
                "decline",
                json!({"action": "decline", "_meta": {"why": "no"}}),
                None,
                |r| matches!(r.action, ElicitationAction::Decline) && r.meta.is_some(),
            ),
            ("cancel", json!({"action": "cancel"}), None, |r| {
                matches!(r.action, ElicitationAction::Cancel)
            }),
            (
                "unknown action kept",
                json!({"action": "defer", "until": "later", "_meta": {"a": 1}}),
                None,
                |r| matches!(&r.action, ElicitationAction::Other(u) if u.tag() == "defer" && u.fields().contains_key("until")),
            ),
        ]);
        run_rejects::<CreateElicitationResponse>(vec![
            (
                "accept with malformed content",
                json!({"action": "accept", "content": 5}),
            ),
            (
                "accept with an object answer",
                json!({"action": "accept", "content": {"a": {"b": 1}}}),
            ),
            ("no action", json!({"content": {}})),
        ]);
    }

    #[test]
    fn builders_match_the_wire() {
        let request = CreateElicitationRequest::form(
            "Which branch?",
            ElicitationSessionScope::new("s").tool_call_id("t"),
            ElicitationSchema::new().property(
                "branch",
                ElicitationPropertySchema::String(StringPropertySchema::new()),
            ),
        );
        assert_eq!(
            serde_json::to_value(&request).unwrap(),
            json!({"message": "Which branch?", "mode": "form", "sessionId": "s", "toolCallId": "t",
                   "requestedSchema": {"type": "object", "properties": {"branch": {"type": "string"}}}})
        );
        let option = SessionConfigOption::boolean("web", "Web", true)
            .category(SessionConfigOptionCategory::Mode);
        assert_eq!(
            serde_json::to_value(&option).unwrap(),
            json!({"id": "web", "name": "Web", "category": "mode", "type": "boolean", "currentValue": true})
        );
        let set = SetSessionConfigOptionRequest::new("s", "web", false);
        assert_eq!(
            serde_json::to_value(&set).unwrap(),
            json!({"sessionId": "s", "configId": "web", "type": "boolean", "value": false})
        );
        let stdio: McpServer =
            McpServerStdio::new("fs", "/bin/fs", Vec::<String>::new(), Vec::new()).into();
        assert_eq!(
            serde_json::to_value(&stdio).unwrap(),
            json!({"name": "fs", "command": "/bin/fs", "args": [], "env": []})
        );
        assert_eq!(
            serde_json::to_value(CreateElicitationResponse::decline()).unwrap(),
            json!({"action": "decline"})
        );
        assert!(matches!(
            ElicitationAction::unknown("accept", Default::default()),
            Err(acp_schema::Error::KnownTag { .. })
        ));
    }

    #[test]
    fn session_lists_skip_malformed_entries() {
        let response: NewSessionResponse = serde_json::from_value(json!({
            "sessionId": "s",
            "modes": {"currentModeId": "ask", "availableModes": [{"id": "ask", "name": "Ask"}, {"id": 3}]},
            "configOptions": [{"id": "w", "name": "W", "type": "boolean", "currentValue": true}, {"id": "bad"}]
        }))
        .unwrap();
        assert_eq!(response.config_options.as_ref().map(Vec::len), Some(1));
        assert_eq!(
            response.modes.as_ref().map(|m| m.available_modes.len()),
            Some(1)
        );
        let response: NewSessionResponse =
            serde_json::from_value(json!({"sessionId": "s", "configOptions": "bad"})).unwrap();
        assert!(response.config_options.is_none());
        let list: ListSessionsResponse = serde_json::from_value(
            json!({"sessions": [{"sessionId": "a", "cwd": "/w"}, {"cwd": 1}], "nextCursor": 5}),
        )
        .unwrap();
        assert_eq!(list.sessions.len(), 1);
        assert!(list.next_cursor.is_none());
    }

    #[cfg(feature = "schemars")]
    #[test]
    fn schemas_match_the_reference() {
        check_schemas(
            "acp-v1.schema.json",
            vec![
                ("CreateElicitationRequest", |g| {
                    drop(g.subschema_for::<CreateElicitationRequest>())
                }),
                ("ElicitationFormMode", |g| {
                    drop(g.subschema_for::<ElicitationFormMode>())
                }),
                ("ElicitationUrlMode", |g| {
                    drop(g.subschema_for::<ElicitationUrlMode>())
                }),
                ("ElicitationContentValue", |g| {
                    drop(g.subschema_for::<ElicitationContentValue>())
                }),
                ("MultiSelectItems", |g| {
                    drop(g.subschema_for::<MultiSelectItems>())
                }),
                ("CreateElicitationResponse", |g| {
                    drop(g.subschema_for::<CreateElicitationResponse>())
                }),
                ("SessionConfigOption", |g| {
                    drop(g.subschema_for::<SessionConfigOption>())
                }),
                ("SessionConfigSelectOptions", |g| {
                    drop(g.subschema_for::<SessionConfigSelectOptions>())
                }),
                ("SetSessionConfigOptionRequest", |g| {
                    drop(g.subschema_for::<SetSessionConfigOptionRequest>())
                }),
                ("McpServer", |g| drop(g.subschema_for::<McpServer>())),
                ("RequestPermissionOutcome", |g| {
                    drop(g.subschema_for::<RequestPermissionOutcome>())
                }),
            ],
        );
    }
}

#[cfg(feature = "unstable_protocol_v2")]
mod v2 {
    use super::*;
    use acp_schema::v2::*;

    #[test]
    fn mcp_server() {
        run::<McpServer>(vec![
            (
                "http",
                json!({"type": "http", "name": "d", "url": "https://x.test/mcp"}),
                None,
                |s| matches!(s, McpServer::Http(_)),
            ),
            (
                "stdio",
                json!({"type": "stdio", "name": "fs", "command": "/bin/fs", "args": ["-v"], "env": [{"name": "A", "value": "1"}]}),
                None,
                |s| matches!(s, McpServer::Stdio(_)),
            ),
            (
                "unknown transport kept",
                json!({"type": "ws", "name": "w", "url": "wss://x.test", "extra": [1]}),
                None,
                |s| matches!(s, McpServer::Other(_)),
            ),
            (
                "null headers mean none",
                json!({"type": "http", "name": "d", "url": "https://x.test/mcp", "headers": null}),
                Some(json!({"type": "http", "name": "d", "url": "https://x.test/mcp"})),
                |_| true,
            ),
        ]);
        run_rejects::<McpServer>(vec![
            ("no type", json!({"name": "fs", "command": "/bin/fs"})),
            (
                "stdio without command",
                json!({"type": "stdio", "name": "fs"}),
            ),
            (
                "http with malformed url",
                json!({"type": "http", "name": "d", "url": 3}),
            ),
        ]);
    }

    #[test]
    fn session_config_option() {
        run::<SessionConfigOption>(vec![
            (
                "select, grouped",
                json!({"configId": "model", "name": "Model", "type": "select", "currentValue": "a",
                       "options": [{"groupId": "g", "name": "G", "options": [{"value": "a", "name": "A"}]}]}),
                None,
                |o| matches!(&o.kind, SessionConfigKind::Select(s) if matches!(s.options, SessionConfigSelectOptions::Grouped(_))),
            ),
            (
                "boolean",
                json!({"configId": "web", "name": "Web", "type": "boolean", "currentValue": false}),
                None,
                |o| matches!(o.kind, SessionConfigKind::Boolean(_)),
            ),
            (
                "unknown type kept verbatim",
                json!({"configId": "t", "name": "Temp", "category": "model_config", "type": "slider", "currentValue": 0.7, "min": 0}),
                None,
                |o| matches!(&o.kind, SessionConfigKind::Other(u) if u.tag() == "slider"),
            ),
        ]);
        run_rejects::<SessionConfigOption>(vec![
            (
                "known type, malformed payload",
                json!({"configId": "x", "name": "X", "type": "boolean", "currentValue": 1}),
            ),
            (
                "v1 field name",
                json!({"id": "x", "name": "X", "type": "boolean", "currentValue": true}),
            ),
        ]);
        run_rejects::<SetSessionConfigOptionResponse>(vec![(
            "list must be a list",
            json!({"configOptions": {}}),
        )]);
        let response: SetSessionConfigOptionResponse =
            serde_json::from_value(json!({"configOptions": [{"configId": "w", "name": "W", "type": "boolean", "currentValue": true}, 1]}))
                .unwrap();
        assert_eq!(response.config_options.len(), 1);
    }

    #[test]
    fn set_session_config_option_request() {
        run::<SetSessionConfigOptionRequest>(vec![
            (
                "id",
                json!({"sessionId": "s", "configId": "m", "type": "id", "value": "fast"}),
                None,
                |r| matches!(r.value, SessionConfigOptionValue::Id(_)),
            ),
            (
                "boolean",
                json!({"sessionId": "s", "configId": "w", "type": "boolean", "value": true}),
                None,
                |r| matches!(r.value, SessionConfigOptionValue::Boolean(true)),
            ),
            (
                "unknown type kept",
                json!({"sessionId": "s", "configId": "t", "type": "number", "value": 0.7, "unit": "x"}),
                None,
                |r| matches!(&r.value, SessionConfigOptionValue::Other(u) if u.tag() == "number"),
            ),
        ]);
        run_rejects::<SetSessionConfigOptionRequest>(vec![
            (
                "id with a boolean",
                json!({"sessionId": "s", "configId": "m", "type": "id", "value": true}),
            ),
            (
                "no type",
                json!({"sessionId": "s", "configId": "m", "value": "fast"}),
            ),
            (
                "unknown type without value",
                json!({"sessionId": "s", "configId": "m", "type": "number"}),
            ),
        ]);
    }

    #[test]
    fn create_elicitation_request() {
        run::<CreateElicitationRequest>(vec![
            (
                "form, session scope",
                json!({"message": "Which branch?", "mode": "form", "sessionId": "s", "requestedSchema": form_schema()}),
                None,
                |r| matches!(r.mode, ElicitationMode::Form(_)),
            ),
            (
                "url, request scope",
                json!({"message": "Sign in", "mode": "url", "requestId": 1, "elicitationId": "e", "url": "https://x.test"}),
                None,
                |r| matches!(r.mode, ElicitationMode::Url(_)),
            ),
            (
                "unknown mode kept",
                json!({"message": "m", "mode": "qr", "requestId": "r", "code": "x"}),
                None,
                |r| matches!(r.mode, ElicitationMode::Other(_)),
            ),
        ]);
        run_rejects::<CreateElicitationRequest>(vec![
            (
                "both scopes",
                json!({"message": "m", "mode": "url", "sessionId": "s", "requestId": 1, "elicitationId": "e", "url": "u"}),
            ),
            (
                "toolCallId with requestId",
                json!({"message": "m", "mode": "url", "toolCallId": "t", "requestId": 1, "elicitationId": "e", "url": "u"}),
            ),
            (
                "schema without properties",
                json!({"message": "m", "mode": "form", "sessionId": "s", "requestedSchema": {"type": "object"}}),
            ),
            (
                "schema without type",
                json!({"message": "m", "mode": "form", "sessionId": "s", "requestedSchema": {"properties": {}}}),
            ),
        ]);
    }

    #[test]
    fn elicitation_values_and_items() {
        run::<ElicitationContentValue>(vec![
            ("string", json!("a"), None, |v| {
                matches!(v, ElicitationContentValue::String(_))
            }),
            ("integer", json!(4), None, |v| {
                matches!(v, ElicitationContentValue::Integer(4))
            }),
            ("number", json!(1.25), None, |v| {
                matches!(v, ElicitationContentValue::Number(_))
            }),
            ("boolean", json!(false), None, |v| {
                matches!(v, ElicitationContentValue::Boolean(false))
            }),
            ("string array", json!(["x"]), None, |v| {
                matches!(v, ElicitationContentValue::StringArray(_))
            }),
            ("null kept", json!(null), None, |v| {
                matches!(v, ElicitationContentValue::Other(Value::Null))
            }),
            ("object kept", json!({"lat": 1.5, "lon": [2]}), None, |v| {
                matches!(v, ElicitationContentValue::Other(_))
            }),
        ]);
        run_rejects::<ElicitationContentValue>(vec![("array with a number", json!(["a", 1]))]);
        run::<MultiSelectItems>(vec![
            (
                "titled",
                json!({"anyOf": [{"const": "a", "title": "A"}]}),
                None,
                |i| matches!(i, MultiSelectItems::Titled(_)),
            ),
            ("unknown kept", json!({"type": "uri", "x": 1}), None, |i| {
                matches!(i, MultiSelectItems::Other(_))
            }),
        ]);
        run::<CreateElicitationResponse>(vec![
            (
                "accept",
                json!({"action": "accept", "content": {"a": null}}),
                None,
                |r| matches!(r.action, ElicitationAction::Accept(_)),
            ),
            ("unknown", json!({"action": "later"}), None, |r| {
                matches!(r.action, ElicitationAction::Other(_))
            }),
        ]);
        run::<RequestPermissionOutcome>(vec![
            ("cancelled", json!({"outcome": "cancelled"}), None, |o| {
                matches!(o, RequestPermissionOutcome::Cancelled(_))
            }),
            (
                "unknown kept",
                json!({"outcome": "deferred", "until": 3}),
                None,
                |o| matches!(o, RequestPermissionOutcome::Other(_)),
            ),
        ]);
    }

    #[test]
    fn idempotency_key() {
        let max = "é".repeat(IdempotencyKey::MAX_CHARS);
        for (name, key, ok) in [
            ("one char", "k".to_owned(), true),
            ("255 two-byte chars", max.clone(), true),
            ("empty", String::new(), false),
            ("256 chars", format!("{max}x"), false),
        ] {
            assert_eq!(IdempotencyKey::new(key.clone()).is_ok(), ok, "{name}");
            let prompt = json!({"sessionId": "s", "prompt": [{"type": "text", "text": "hi"}], "idempotencyKey": key});
            match serde_json::from_value::<PromptRequest>(prompt.clone()) {
                Ok(decoded) => {
                    assert!(ok, "{name}: should fail");
                    assert_eq!(serde_json::to_value(&decoded).unwrap(), prompt, "{name}");
                }
                Err(error) => {
                    assert!(!ok, "{name}: {error}");
                    assert!(
                        error.to_string().contains("1 to 255 characters"),
                        "{name}: {error}"
                    );
                }
            }
        }
        let error = IdempotencyKey::new("").unwrap_err();
        assert_eq!(error, acp_schema::Error::IdempotencyKeyLength { chars: 0 });
        assert!(error.to_string().contains("must be 1 to 255 characters"));
        run_rejects::<PromptRequest>(vec![(
            "key not a string",
            json!({"sessionId": "s", "prompt": [{"type": "text", "text": "hi"}], "idempotencyKey": 5}),
        )]);
        let prompt: PromptRequest =
            serde_json::from_value(json!({"sessionId": "s", "prompt": [{"type": "text", "text": "hi"}], "idempotencyKey": null})).unwrap();
        assert!(prompt.idempotency_key.is_none());
    }

    #[cfg(feature = "schemars")]
    #[test]
    fn schemas_match_the_reference() {
        check_schemas(
            "acp-v2.schema.json",
            vec![
                ("CreateElicitationRequest", |g| {
                    drop(g.subschema_for::<CreateElicitationRequest>())
                }),
                ("ElicitationFormMode", |g| {
                    drop(g.subschema_for::<ElicitationFormMode>())
                }),
                ("ElicitationUrlMode", |g| {
                    drop(g.subschema_for::<ElicitationUrlMode>())
                }),
                ("ElicitationContentValue", |g| {
                    drop(g.subschema_for::<ElicitationContentValue>())
                }),
                ("MultiSelectItems", |g| {
                    drop(g.subschema_for::<MultiSelectItems>())
                }),
                ("CreateElicitationResponse", |g| {
                    drop(g.subschema_for::<CreateElicitationResponse>())
                }),
                ("SessionConfigOption", |g| {
                    drop(g.subschema_for::<SessionConfigOption>())
                }),
                ("SessionConfigSelectOptions", |g| {
                    drop(g.subschema_for::<SessionConfigSelectOptions>())
                }),
                ("SetSessionConfigOptionRequest", |g| {
                    drop(g.subschema_for::<SetSessionConfigOptionRequest>())
                }),
                ("McpServer", |g| drop(g.subschema_for::<McpServer>())),
                ("RequestPermissionOutcome", |g| {
                    drop(g.subschema_for::<RequestPermissionOutcome>())
                }),
                ("IdempotencyKey", |g| {
                    drop(g.subschema_for::<IdempotencyKey>())
                }),
            ],
        );
    }
}
