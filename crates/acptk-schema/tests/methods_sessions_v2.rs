//! Round trips of the hand-written session-area types (elicitation, config options,
//! permissions, MCP servers, idempotency keys) in ACP v2. Helpers: `support/sessions.rs`.
//!
//! Run with `cargo test -p acptk-schema --all-features --test methods_sessions_v2`; the schema cases need
//! `schemars` and the whole file `unstable_protocol_v2`.
#![cfg(feature = "unstable_protocol_v2")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/reference.rs"]
mod reference_files;
#[path = "support/sessions.rs"]
mod support;
#[allow(unused_imports)]
use serde_json::{Value, json};
use support::*;

#[cfg(feature = "unstable_protocol_v2")]
mod v2 {
    use super::*;
    use acptk_schema::v2::*;

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
        assert_eq!(
            error,
            acptk_schema::Error::IdempotencyKeyLength { chars: 0 }
        );
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
        check_schemas("acp-v2.schema.json", method_schema_checks![IdempotencyKey]);
    }
}
