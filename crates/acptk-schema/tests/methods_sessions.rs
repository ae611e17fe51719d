//! Round trips of the hand-written session-area types (elicitation, config options,
//! permissions, MCP servers, idempotency keys) in ACP v1. Helpers: `support/sessions.rs`.
//!
//! Run with `cargo test -p acptk-schema --all-features --test methods_sessions`; the schema cases need
//! `schemars`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/reference.rs"]
mod reference_files;
#[path = "support/sessions.rs"]
mod support;
#[allow(unused_imports)]
use serde_json::{Value, json};
use support::*;

mod v1 {
    use super::*;
    use acptk_schema::v1::*;

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
            (
                "mixed options, group first",
                json!({"id": "x", "name": "X", "type": "select", "currentValue": "a",
                       "options": [{"group": "g", "name": "G", "options": []}, {"value": "a", "name": "A"}]}),
            ),
            (
                "a malformed group",
                json!({"id": "x", "name": "X", "type": "select", "currentValue": "a",
                       "options": [{"group": "g", "name": "G", "options": []}, {"group": "h", "name": 5, "options": []}]}),
            ),
        ]);
        // The error names what was wrong with the entry, not a place in a text of its own.
        let error = serde_json::from_str::<SessionConfigOption>(
            r#"{"id": "x", "name": "X", "type": "select", "currentValue": "a",
                "options": [{"group": "g", "name": "G", "options": []}, {"value": "a", "name": "A"}]}"#,
        )
        .unwrap_err()
        .to_string();
        assert!(
            error.starts_with("missing field `group` at line ")
                && error.matches(" at line ").count() == 1,
            "{error}"
        );
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
            Err(acptk_schema::Error::KnownTag { .. })
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
        check_schemas("acp-v1.schema.json", method_schema_checks![]);
    }
}
