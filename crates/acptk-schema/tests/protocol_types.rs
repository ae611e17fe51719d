//! Round trips, fallbacks and rejections of the hand-written protocol types (request ids,
//! error codes and data, protocol versions, extension payloads, auth methods, command input,
//! idle states, tool kinds and diff changes), and their JSON Schemas against the reference.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};

#[path = "support/wire.rs"]
mod wire;

use wire::{normalises, rejects, round_trip};

#[cfg(feature = "schemars")]
#[path = "support/reference.rs"]
mod reference_files;

#[cfg(feature = "schemars")]
fn reference_def(version: &str, name: &str) -> Value {
    let file = reference_files::surface_file(&format!("acp-{version}.schema.json"));
    let schema = reference_files::read(&file);
    let def = schema["$defs"][name].clone();
    assert!(!def.is_null(), "the reference has no `{name}` ({version})");
    def
}

/// Checks that the schema of `T` equals the reference definition `name` of `version`.
#[cfg(feature = "schemars")]
fn schema_matches<T: schemars::JsonSchema>(version: &str, name: &str) {
    let expected = reference_def(version, name);
    let mut generator =
        schemars::SchemaGenerator::new(schemars::generate::SchemaSettings::draft2020_12());
    let mut actual = serde_json::to_value(T::json_schema(&mut generator)).unwrap();
    reference_files::normalise_ours(&mut actual);
    assert_eq!(actual, expected, "schema of {name} ({version})");
}

/// Checks the schema of each listed type of `version` against the reference's definition of
/// the same name.
#[cfg(feature = "schemars")]
macro_rules! schemas_match {
    ($version:literal: $($name:ident),+ $(,)?) => {
        $(schema_matches::<$name>($version, stringify!($name));)+
    };
}

mod v1 {
    use super::*;
    use acptk_schema::v1::*;

    #[test]
    fn request_id() {
        for input in [
            json!(null),
            json!(1),
            json!(-5),
            json!(i64::MAX),
            json!("abc"),
            json!(""),
        ] {
            round_trip::<RequestId>(&input);
        }
        assert_eq!(round_trip::<RequestId>(&json!(null)), RequestId::Null);
        assert_eq!(round_trip::<RequestId>(&json!(7)), RequestId::Number(7));
        assert_eq!(
            round_trip::<RequestId>(&json!("x")),
            RequestId::Str("x".into())
        );
        for input in [
            json!(1.5),
            json!(true),
            json!(u64::MAX),
            json!([1]),
            json!({}),
        ] {
            rejects::<RequestId>(&input);
        }
        let id: acptk_schema::jsonrpc::Id = RequestId::Number(3).into();
        assert_eq!(RequestId::from(id), RequestId::Number(3));
    }

    #[test]
    fn error_code() {
        let known = [
            (-32700, ErrorCode::ParseError),
            (-32600, ErrorCode::InvalidRequest),
            (-32601, ErrorCode::MethodNotFound),
            (-32602, ErrorCode::InvalidParams),
            (-32603, ErrorCode::InternalError),
            (-32800, ErrorCode::RequestCancelled),
            (-32000, ErrorCode::AuthRequired),
            (-32002, ErrorCode::ResourceNotFound),
        ];
        assert_eq!(ErrorCode::KNOWN.len(), known.len());
        for (code, variant) in known {
            assert_eq!(round_trip::<ErrorCode>(&json!(code)), variant);
            assert!(variant.is_known() && variant.title().is_some());
        }
        // Unknown codes are kept verbatim, including v2-only ones.
        for code in [0, 42, -32022, -32099, i32::MIN] {
            assert_eq!(
                round_trip::<ErrorCode>(&json!(code)),
                ErrorCode::Other(code)
            );
        }
        for input in [
            json!("-32700"),
            json!(1.5),
            json!(i64::from(i32::MAX) + 1),
            json!(null),
        ] {
            rejects::<ErrorCode>(&input);
        }
    }

    #[test]
    fn error_object() {
        let error: Error = round_trip(&json!({"code": -32602, "message": "bad", "data": {"x": 1}}));
        assert_eq!(error.code, ErrorCode::InvalidParams);
        round_trip::<Error>(&json!({"code": 5, "message": "custom"}));
        normalises::<Error>(
            &json!({"code": -32603, "message": "m", "data": null}),
            &json!({"code": -32603, "message": "m"}),
        );
        rejects::<Error>(&json!({"message": "no code"}));
        assert_eq!(
            Error::from(ErrorCode::MethodNotFound).message,
            "Method not found"
        );
    }

    #[test]
    fn protocol_version() {
        for version in [0, 1, 2, 65535] {
            assert_eq!(
                round_trip::<ProtocolVersion>(&json!(version)).get(),
                version
            );
        }
        for input in [json!(-1), json!(65536), json!("1"), json!(1.5), json!(null)] {
            rejects::<ProtocolVersion>(&input);
        }
        assert_eq!(ProtocolVersion::LATEST, ProtocolVersion::V1);
    }

    #[test]
    fn ext_payloads_keep_exact_text() {
        for text in [
            r#"{"b":1,"a":[1.0,2,1e400]}"#,
            "null",
            r#""s""#,
            "[]",
            "12345678901234567890123",
        ] {
            let request: ExtRequest = serde_json::from_str(text).unwrap();
            assert_eq!(request.get(), text);
            assert_eq!(serde_json::to_string(&request).unwrap(), text);
            let response: ExtResponse = serde_json::from_str(text).unwrap();
            assert_eq!(serde_json::to_string(&response).unwrap(), text);
            let notification: ExtNotification = serde_json::from_str(text).unwrap();
            assert_eq!(serde_json::to_string(&notification).unwrap(), text);
        }
        let built = ExtRequest::from_serialize(&json!({"k": [1, 2]})).unwrap();
        assert_eq!(built.parse::<Value>().unwrap(), json!({"k": [1, 2]}));
        // Inside a buffered value too.
        let from_value: ExtNotification = serde_json::from_value(json!({"a": 1})).unwrap();
        assert_eq!(from_value.parse::<Value>().unwrap(), json!({"a": 1}));
    }

    #[test]
    fn auth_method() {
        let agent = round_trip::<AuthMethod>(&json!({"id": "oauth", "name": "Browser"}));
        assert!(matches!(agent, AuthMethod::Agent(_)));
        assert_eq!(agent.tag(), None);
        round_trip::<AuthMethod>(
            &json!({"id": "o", "name": "n", "description": "d", "_meta": {"k": 1}}),
        );
        let terminal = round_trip::<AuthMethod>(&json!({
            "type": "terminal", "id": "tui", "name": "Terminal",
            "args": ["--login"], "env": {"A": "1", "B": "2"}
        }));
        assert!(matches!(terminal, AuthMethod::Terminal(_)));
        assert_eq!(terminal.id().as_str(), "tui");
        round_trip::<AuthMethod>(&json!({"type": "terminal", "id": "t", "name": "n"}));
        // The tag does not have to come first.
        let late = normalises::<AuthMethod>(
            &json!({"id": "t", "name": "n", "type": "terminal", "args": null, "env": null}),
            &json!({"type": "terminal", "id": "t", "name": "n"}),
        );
        assert!(matches!(late, AuthMethod::Terminal(_)));
        // Closed: an unknown or non-string type is an error, and so is a malformed known shape.
        // (An explicit "agent" names the default kind; see `differential_fixes`.)
        for input in [
            json!({"type": "future", "id": "a", "name": "n"}),
            json!({"id": "a", "name": "n", "type": 3}),
            json!({"type": "terminal", "name": "no id"}),
            json!({"type": "terminal", "id": "t", "name": "n", "args": "not a list"}),
            json!({"name": "agent without id"}),
            json!({}),
        ] {
            rejects::<AuthMethod>(&input);
        }
    }

    #[test]
    fn initialize_response_skips_bad_auth_methods() {
        let response: InitializeResponse = serde_json::from_value(json!({
            "protocolVersion": 1,
            "authMethods": [{"id": "a", "name": "A"}, {"type": "weird", "id": "b", "name": "B"}, 5]
        }))
        .unwrap();
        assert_eq!(response.auth_methods.len(), 1);
    }

    #[test]
    fn available_command_input() {
        let input = round_trip::<AvailableCommandInput>(&json!({"hint": "query"}));
        assert!(matches!(input, AvailableCommandInput::Unstructured(_)));
        round_trip::<AvailableCommandInput>(&json!({"hint": "q", "_meta": {"x": true}}));
        for input in [json!({}), json!({"hint": 5}), json!("query")] {
            rejects::<AvailableCommandInput>(&input);
        }
        // Inside a command a malformed input is treated as absent.
        let command: AvailableCommand =
            serde_json::from_value(json!({"name": "web", "description": "d", "input": 5})).unwrap();
        assert_eq!(command.input, None);
    }

    #[test]
    fn idle_state_update() {
        let cases = [
            (json!({"stopReason": "end_turn"}), "end_turn"),
            (json!({"stopReason": "max_tokens"}), "max_tokens"),
            (
                json!({"stopReason": "max_turn_requests"}),
                "max_turn_requests",
            ),
            (json!({"stopReason": "refusal"}), "refusal"),
            (
                json!({"stopReason": "cancelled", "_meta": {"m": 1}}),
                "cancelled",
            ),
            (json!({"stopReason": "error"}), "error"),
            (
                json!({"stopReason": "error", "error": {"code": -32603, "message": "boom"}}),
                "error",
            ),
            (
                json!({"stopReason": "_vendor", "detail": [1, 2], "why": "x"}),
                "_vendor",
            ),
        ];
        for (input, tag) in cases {
            let idle = round_trip::<IdleStateUpdate>(&input);
            assert_eq!(
                idle.stop_reason.as_ref().map(IdleStopReason::tag),
                Some(tag)
            );
        }
        let unknown = round_trip::<IdleStateUpdate>(&json!({"stopReason": "paused", "until": 5}));
        match unknown.stop_reason {
            Some(IdleStopReason::Other(other)) => assert_eq!(other.fields()["until"], json!(5)),
            other => panic!("expected a kept unknown stop reason, got {other:?}"),
        }
        round_trip::<IdleStateUpdate>(&json!({}));
        // Fields that do not belong to a known stop reason are dropped; the order does not
        // matter.
        let cases = [
            (
                json!({"extra": 1, "stopReason": "end_turn"}),
                json!({"stopReason": "end_turn"}),
            ),
            (
                json!({"stopReason": "end_turn", "extra": 1}),
                json!({"stopReason": "end_turn"}),
            ),
            (
                json!({"error": {"code": 1, "message": "m"}, "x": 2, "stopReason": "error"}),
                json!({"stopReason": "error", "error": {"code": 1, "message": "m"}}),
            ),
            (json!({"stopReason": null, "extra": 1}), json!({})),
            (json!({"stopReason": 5}), json!({})),
            (
                json!({"stopReason": "error", "error": "not an error"}),
                json!({"stopReason": "error"}),
            ),
            (json!({"_meta": "not an object"}), json!({})),
        ];
        for (input, expected) in cases {
            normalises::<IdleStateUpdate>(&input, &expected);
        }
        rejects::<IdleStateUpdate>(&json!("idle"));
        let built = IdleStateUpdate::new().stop_reason(IdleStopReason::Cancelled);
        assert_eq!(
            serde_json::to_value(built).unwrap(),
            json!({"stopReason": "cancelled"})
        );
        assert!(IdleStopReason::unknown("end_turn", Default::default()).is_err());
    }

    #[test]
    fn state_update_with_idle() {
        let update = round_trip::<StateUpdate>(&json!({"state": "idle", "stopReason": "refusal"}));
        assert!(matches!(update, StateUpdate::Idle(_)));
        round_trip::<StateUpdate>(&json!({"state": "idle"}));
        round_trip::<StateUpdate>(
            &json!({"state": "idle", "stopReason": "error", "error": {"code": 2, "message": "m"}}),
        );
    }

    #[cfg(feature = "schemars")]
    #[test]
    fn schemas_match_reference() {
        schemas_match! {
            "v1":
            RequestId, ErrorCode, ProtocolVersion, ExtRequest, ExtResponse, ExtNotification,
            AuthMethod, AvailableCommandInput, IdleStateUpdate,
        }
    }
}

#[cfg(feature = "unstable_protocol_v2")]
mod v2 {
    use super::*;
    use acptk_schema::v2::*;

    #[test]
    fn request_id_has_no_null() {
        round_trip::<RequestId>(&json!(1));
        round_trip::<RequestId>(&json!("a"));
        for input in [json!(null), json!(1.5), json!(false)] {
            rejects::<RequestId>(&input);
        }
    }

    #[test]
    fn error_code_knows_unsupported_version() {
        assert_eq!(
            round_trip::<ErrorCode>(&json!(-32022)),
            ErrorCode::UnsupportedProtocolVersion
        );
        assert_eq!(round_trip::<ErrorCode>(&json!(-1)), ErrorCode::Other(-1));
        assert_eq!(ProtocolVersion::LATEST, ProtocolVersion::V2);
    }

    #[test]
    fn error_data() {
        let versions = round_trip::<ErrorData>(&json!({"requested": 3, "supported": [1, 2]}));
        assert!(matches!(versions, ErrorData::UnsupportedProtocolVersion(_)));
        let session = round_trip::<ErrorData>(&json!({"sessionId": "s1"}));
        assert!(matches!(session, ErrorData::SessionNotFound(_)));
        for input in [
            json!({"uri": "file:///x"}),
            json!("text"),
            json!(5),
            json!(null),
            json!({"requested": 3}),
        ] {
            assert!(matches!(
                round_trip::<ErrorData>(&input),
                ErrorData::Other(_)
            ));
        }
        // A known shape that does not fit is an error, never `Other`.
        for input in [
            json!({"requested": "x", "supported": [1]}),
            json!({"sessionId": 5}),
        ] {
            rejects::<ErrorData>(&input);
        }
        // Inside an error, such data is treated as absent.
        let error: Error = serde_json::from_value(
            json!({"code": -32002, "message": "m", "data": {"sessionId": 5}}),
        )
        .unwrap();
        assert_eq!(error.data, None);
        let error = round_trip::<Error>(
            &json!({"code": -32022, "message": "m", "data": {"requested": 9, "supported": [2]}}),
        );
        assert!(matches!(
            error.data,
            Some(ErrorData::UnsupportedProtocolVersion(_))
        ));
    }

    #[test]
    fn auth_method() {
        let cases = [
            (
                json!({"type": "agent", "methodId": "oauth", "name": "Browser"}),
                "agent",
            ),
            (
                json!({"type": "terminal", "methodId": "t", "name": "T", "args": ["-l"], "env": [{"name": "A", "value": "1"}]}),
                "terminal",
            ),
            (
                json!({"type": "api_key", "methodId": "k", "name": "Key", "vars": [{"name": "KEY"}]}),
                "api_key",
            ),
        ];
        for (input, tag) in cases {
            assert_eq!(round_trip::<AuthMethod>(&input).tag(), tag);
        }
        let unknown =
            round_trip::<AuthMethod>(&json!({"methodId": "k", "name": "Key", "type": "_x"}));
        assert!(matches!(unknown, AuthMethod::Other(_)));
        assert_eq!((unknown.method_id(), unknown.name()), ("k", "Key"));
        for input in [
            json!({"type": "agent", "name": "no id"}),
            json!({"type": "terminal", "methodId": "t", "name": "n", "env": {"A": "1"}}),
            json!({"type": "future", "methodId": "x"}),
            json!({"type": "future", "methodId": 1, "name": "n"}),
            json!({"methodId": "x", "name": "n"}),
        ] {
            rejects::<AuthMethod>(&input);
        }
        let fields = |value: serde_json::Value| value.as_object().cloned().unwrap();
        let built =
            AuthMethod::unknown("_x", fields(json!({"methodId": "id", "name": "Name"}))).unwrap();
        assert_eq!(
            serde_json::to_value(built).unwrap(),
            json!({"type": "_x", "methodId": "id", "name": "Name"})
        );
        assert!(
            AuthMethod::unknown("agent", fields(json!({"methodId": "id", "name": "n"}))).is_err()
        );
        // The fallback must still have the fields every method has.
        assert_eq!(
            AuthMethod::unknown("_x", fields(json!({"methodId": "id"}))),
            Err(acptk_schema::Error::FallbackField {
                tag: "_x".into(),
                field: "name"
            })
        );
        assert!(AuthMethod::unknown("_x", fields(json!({"methodId": 7, "name": "n"}))).is_err());
    }

    #[test]
    fn available_commands() {
        let command = round_trip::<AvailableCommand>(&json!({
            "type": "command", "name": "web", "description": "Search",
            "input": {"type": "text", "hint": "query"}
        }));
        assert_eq!(command.name(), "web");
        let unknown = round_trip::<AvailableCommand>(
            &json!({"type": "macro", "name": "m", "description": "d", "steps": 3}),
        );
        assert!(matches!(unknown, AvailableCommand::Other(_)));
        assert_eq!(unknown.description(), "d");
        for input in [
            json!({"type": "macro", "name": "m"}),
            json!({"type": "command", "name": "web"}),
            json!({"name": "web", "description": "d"}),
        ] {
            rejects::<AvailableCommand>(&input);
        }
        let input =
            round_trip::<AvailableCommandInput>(&json!({"type": "choice", "options": ["a"]}));
        assert!(matches!(input, AvailableCommandInput::Other(_)));
        rejects::<AvailableCommandInput>(&json!({"type": "text"}));
        // Bad entries are skipped, but the list itself is required and must be a list.
        let update: AvailableCommandsUpdate = serde_json::from_value(json!({"availableCommands": [
            {"type": "command", "name": "a", "description": "d"}, {"type": "command"}, 7
        ]}))
        .unwrap();
        assert_eq!(update.available_commands.len(), 1);
        rejects::<AvailableCommandsUpdate>(&json!({"availableCommands": "none"}));
        rejects::<AvailableCommandsUpdate>(&json!({}));
    }

    #[test]
    fn idle_state_update_with_background() {
        let idle = round_trip::<IdleStateUpdate>(&json!({
            "stopReason": "end_turn",
            "background": [{"type": "terminal", "terminalId": "t1"}, {"type": "_job", "id": 3}]
        }));
        assert_eq!(idle.background.as_ref().map(Vec::len), Some(2));
        round_trip::<IdleStateUpdate>(&json!({"background": [], "stopReason": "_new", "x": 1}));
        normalises::<IdleStateUpdate>(
            &json!({"background": "bad", "stopReason": "cancelled"}),
            &json!({"stopReason": "cancelled"}),
        );
        let update = round_trip::<StateUpdate>(
            &json!({"state": "idle", "stopReason": "error", "error": {"code": -32603, "message": "m"}}),
        );
        assert!(matches!(update, StateUpdate::Idle(_)));
    }

    #[test]
    fn tool_kind() {
        let kinds = [
            ("read", ToolKind::Read),
            ("edit", ToolKind::Edit),
            ("delete", ToolKind::Delete),
            ("move", ToolKind::Move),
            ("search", ToolKind::Search),
            ("execute", ToolKind::Execute),
            ("think", ToolKind::Think),
            ("fetch", ToolKind::Fetch),
            ("switch_mode", ToolKind::SwitchMode),
            ("other", ToolKind::Other),
        ];
        assert_eq!(ToolKind::KNOWN.len(), kinds.len());
        for (value, kind) in kinds {
            assert_eq!(round_trip::<ToolKind>(&json!(value)), kind);
            assert_eq!(kind.as_str(), value);
        }
        for value in ["browse", "_custom", "Other", ""] {
            let kind = round_trip::<ToolKind>(&json!(value));
            assert!(!kind.is_known());
            assert_eq!(kind.as_str(), value);
        }
        assert!(ToolKind::from("_custom").is_extension());
        assert!(ToolKind::from("browse").is_reserved());
        rejects::<ToolKind>(&json!(1));
    }

    #[test]
    fn diff_change() {
        let cases = [
            json!({"operation": "add", "path": "/a"}),
            json!({"operation": "delete", "path": "/a", "fileType": "binary"}),
            json!({"operation": "modify", "path": "/a", "fileType": "text", "mimeType": "text/x-rust", "_meta": {"k": 1}}),
            json!({"operation": "move", "oldPath": "/a", "path": "/b"}),
            json!({"operation": "copy", "oldPath": "/a", "path": "/b", "fileType": "_sparse"}),
            json!({"operation": "rename_case", "from": "/A", "to": "/a", "fileType": "text"}),
        ];
        for input in cases {
            let change = round_trip::<DiffChange>(&input);
            assert_eq!(change.operation.tag(), input["operation"].as_str().unwrap());
        }
        let moved =
            round_trip::<DiffChange>(&json!({"operation": "move", "oldPath": "/a", "path": "/b"}));
        assert!(matches!(moved.operation, DiffOperation::Move(_)));
        let unknown = round_trip::<DiffChange>(&json!({"operation": "_x", "extra": [1]}));
        match &unknown.operation {
            DiffOperation::Other(other) => assert_eq!(other.fields()["extra"], json!([1])),
            other => panic!("expected a kept unknown operation, got {other:?}"),
        }
        // The tag may come last; malformed common fields are treated as absent.
        normalises::<DiffChange>(
            &json!({"path": "/a", "fileType": 7, "mimeType": false, "_meta": [], "operation": "add"}),
            &json!({"operation": "add", "path": "/a"}),
        );
        for input in [
            json!({"operation": "move", "path": "/b"}),
            json!({"operation": "add"}),
            json!({"operation": 1, "path": "/a"}),
            json!({"path": "/a"}),
        ] {
            rejects::<DiffChange>(&input);
        }
        let built = DiffChange::new(DiffOperation::Add(DiffPathChange::new("/n")))
            .file_type(DiffFileType::Text);
        assert_eq!(
            serde_json::to_value(built).unwrap(),
            json!({"operation": "add", "path": "/n", "fileType": "text"})
        );
    }

    #[test]
    fn diff_skips_bad_changes() {
        let diff: Diff = serde_json::from_value(json!({"changes": [
            {"operation": "add", "path": "/a"}, {"operation": "move", "path": "/b"}
        ]}))
        .unwrap();
        assert_eq!(diff.changes.len(), 1);
        rejects::<Diff>(&json!({"changes": {"operation": "add", "path": "/a"}}));
        rejects::<Diff>(&json!({}));
        let content = round_trip::<ToolCallContent>(
            &json!({"type": "diff", "changes": [{"operation": "modify", "path": "/x"}]}),
        );
        assert!(matches!(content, ToolCallContent::Diff(_)));
    }

    #[test]
    fn tool_call_update_skips_bad_items() {
        let update: ToolCallUpdate = serde_json::from_value(json!({
            "toolCallId": "c", "kind": "mystery", "locations": [{"path": "/a", "line": 3}, {"line": 1}],
            "content": "bad"
        }))
        .unwrap();
        assert_eq!(update.locations.as_set().map(Vec::len), Some(1));
        assert_eq!(
            update.content,
            acptk_schema::Patch::Unchanged,
            "a malformed list is absent"
        );
        assert_eq!(update.kind.as_set().map(ToolKind::as_str), Some("mystery"));
    }

    #[cfg(feature = "schemars")]
    #[test]
    fn schemas_match_reference() {
        schemas_match! {
            "v2":
            RequestId, ErrorCode, ErrorData, ProtocolVersion, ExtRequest, IdleStateUpdate, ToolKind,
            DiffChange, AvailableCommand,
        }
    }

    #[cfg(feature = "schemars")]
    #[test]
    fn auth_method_schema_matches_reference_up_to_order() {
        let expected = reference_def("v2", "AuthMethod");
        let mut generator =
            schemars::SchemaGenerator::new(schemars::generate::SchemaSettings::draft2020_12());
        let mut actual = serde_json::to_value(<AuthMethod as schemars::JsonSchema>::json_schema(
            &mut generator,
        ))
        .unwrap();
        let mut expected = expected;
        for schema in [&mut actual, &mut expected] {
            if let Some(Value::Array(items)) = schema.pointer_mut("/anyOf/2/not/anyOf") {
                items.sort_by_key(|item| item.to_string());
            }
        }
        assert_eq!(actual, expected);
    }
}

/// Fixes found by the differential tests against the official crate.
mod differential_fixes {
    use serde_json::json;

    #[test]
    fn v1_auth_method_with_an_explicit_agent_type_is_the_agent_kind() {
        use acptk_schema::v1::AuthMethod;
        for text in [
            r#"{"type":"agent","id":"a","name":"Agent login"}"#,
            r#"{"id":"a","name":"Agent login","type":"agent"}"#,
            r#"{"id":"a","name":"Agent login"}"#,
        ] {
            let method: AuthMethod = serde_json::from_str(text).unwrap();
            assert!(matches!(method, AuthMethod::Agent(_)), "{text}");
            assert_eq!(
                serde_json::to_value(&method).unwrap(),
                json!({"id": "a", "name": "Agent login"})
            );
        }
        assert!(
            serde_json::from_str::<AuthMethod>(r#"{"type":"oauth","id":"a","name":"x"}"#).is_err()
        );
    }

    #[cfg(feature = "unstable_protocol_v2")]
    #[test]
    fn v2_location_line_below_one_is_absent() {
        use acptk_schema::v2::ToolCallLocation;
        for (line, expected) in [
            (json!(0), None),
            (json!(1), Some(1)),
            (json!(-3), None),
            (json!("7"), None),
        ] {
            let location: ToolCallLocation =
                serde_json::from_value(json!({"path": "/a.rs", "line": line})).unwrap();
            assert_eq!(location.line, expected, "{line}");
        }
    }
}
