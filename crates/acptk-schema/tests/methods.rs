//! Method tables and routing: every method of the reference method lists is in a table, and
//! decoding by method name gives the typed value or a precise error.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;

use acptk_schema::Error;
use serde_json::value::RawValue;

fn raw(text: &str) -> Box<RawValue> {
    RawValue::from_string(text.to_owned()).unwrap()
}

#[path = "support/reference.rs"]
mod reference_files;

use reference_files::{SURFACE, Surface};

/// The method names of one side of a reference method list (`agentMethods`: handled by the
/// agent, `clientMethods`: handled by the client, `protocolMethods`: either).
fn reference_methods(file: &str, group: &str) -> BTreeSet<String> {
    let value = reference_files::read(file);
    value[group]
        .as_object()
        .unwrap()
        .values()
        .map(|method| method.as_str().unwrap().to_owned())
        .collect()
}

/// The methods of the tables of one side; a method may be in a request table and a
/// notification table (`mcp/message`), but not twice in one.
fn side(lists: &[&[&str]]) -> BTreeSet<String> {
    let mut all = BTreeSet::new();
    for list in lists {
        let mut seen = BTreeSet::new();
        for method in *list {
            assert!(
                seen.insert(method.to_string()),
                "{method} is twice in one table"
            );
            all.insert(method.to_string());
        }
    }
    all
}

/// Our tables of each side against the reference lists of the surface this build has: equal
/// to the stable or the unstable list, or between the two for a partial build.
fn check_sides(version: u8, sides: [(&str, BTreeSet<String>); 3]) {
    for (group, ours) in sides {
        let stable = reference_methods(&format!("acp-v{version}.methods.json"), group);
        let unstable = reference_methods(&format!("acp-v{version}.unstable.methods.json"), group);
        match SURFACE {
            Surface::Stable => assert_eq!(ours, stable, "v{version} {group}"),
            Surface::Unstable => assert_eq!(ours, unstable, "v{version} {group}"),
            Surface::Partial => {
                assert!(ours.is_superset(&stable), "v{version} {group}: {ours:?}");
                assert!(ours.is_subset(&unstable), "v{version} {group}: {ours:?}");
            }
        }
    }
}

/// The method groups of the reference, each with the methods of this crate's tables of the
/// version whose names are in scope, for `check_sides`.
macro_rules! sides {
    () => {
        [
            (
                "agentMethods",
                side(&[ClientRequest::METHODS, ClientNotification::METHODS]),
            ),
            (
                "clientMethods",
                side(&[AgentRequest::METHODS, AgentNotification::METHODS]),
            ),
            ("protocolMethods", side(&[ProtocolNotification::METHODS])),
        ]
    };
}

#[test]
fn v1_tables_cover_exactly_the_reference_methods() {
    use acptk_schema::v1::*;
    check_sides(1, sides!());
}

#[cfg(feature = "unstable_protocol_v2")]
#[test]
fn v2_tables_cover_exactly_the_reference_methods() {
    use acptk_schema::v2::*;
    check_sides(2, sides!());
}

#[test]
fn marker_types_carry_the_method_name_and_types() {
    use acptk_schema::method::{NotificationMethod, RequestMethod};
    use acptk_schema::v1::methods;
    assert_eq!(methods::Initialize::METHOD, "initialize");
    assert_eq!(methods::SessionUpdate::METHOD, "session/update");
    assert_eq!(methods::CancelRequest::METHOD, "$/cancel_request");
    let params: <methods::SessionPrompt as RequestMethod>::Params =
        serde_json::from_str(r#"{"sessionId":"s","prompt":[{"type":"text","text":"hi"}]}"#)
            .unwrap();
    assert_eq!(params.session_id.as_str(), "s");
    let _: Option<<methods::SessionUpdate as NotificationMethod>::Params> = None;
}

#[test]
fn decoding_picks_the_variant_from_the_method() {
    use acptk_schema::v1::{AgentNotification, ClientRequest, SessionUpdate};
    let request = ClientRequest::decode(
        "session/prompt",
        Some(&raw(
            r#"{"sessionId":"s","prompt":[{"type":"text","text":"hi"}]}"#,
        )),
    )
    .unwrap();
    assert!(matches!(request, ClientRequest::SessionPrompt(_)));
    assert_eq!(request.method(), "session/prompt");
    assert_eq!(
        serde_json::to_string(&request).unwrap(),
        r#"{"sessionId":"s","prompt":[{"type":"text","text":"hi"}]}"#
    );
    let notification = AgentNotification::decode(
        "session/update",
        Some(&raw(r#"{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}}}"#)),
    )
    .unwrap();
    let AgentNotification::SessionUpdate(params) = notification else {
        panic!("wrong variant")
    };
    assert!(matches!(params.update, SessionUpdate::AgentMessageChunk(_)));
}

#[test]
fn unknown_methods_are_errors_and_extensions_are_kept_raw() {
    use acptk_schema::v1::{AgentRequest, ClientNotification, ClientRequest};
    // A method of the other direction is unknown here.
    let error = ClientRequest::decode("fs/read_text_file", Some(&raw("{}"))).unwrap_err();
    assert_eq!(
        error,
        Error::UnknownMethod {
            method: "fs/read_text_file".into()
        }
    );
    assert!(error.to_string().contains("fs/read_text_file"));
    assert!(matches!(
        AgentRequest::decode("session/nonsense", None),
        Err(Error::UnknownMethod { .. })
    ));
    let params = raw(r#"{"any":["thing",1]}"#);
    let ClientNotification::Extension(extension) =
        ClientNotification::decode("_acme/ping", Some(&params)).unwrap()
    else {
        panic!("not an extension")
    };
    assert_eq!(extension.method, "_acme/ping");
    assert_eq!(extension.payload.get(), r#"{"any":["thing",1]}"#);
    let request = ClientRequest::decode("_acme/ping", None).unwrap();
    assert_eq!(request.method(), "_acme/ping");
    assert_eq!(serde_json::to_string(&request).unwrap(), "null");
}

#[test]
fn invalid_params_name_the_method_and_the_path() {
    use acptk_schema::v1::{AgentNotification, ClientRequest};
    let cases: &[(&str, &str, &str)] = &[
        (
            "session/prompt",
            r#"{"sessionId":"s","prompt":[{"type":"text","text":5}]}"#,
            "prompt[0]",
        ),
        ("session/prompt", r#"{"prompt":[]}"#, "."),
        ("session/new", r#"{"cwd":7,"mcpServers":[]}"#, "cwd"),
        (
            "initialize",
            r#"{"protocolVersion":"one"}"#,
            "protocolVersion",
        ),
    ];
    for &(method, params, path) in cases {
        match ClientRequest::decode(method, Some(&raw(params))) {
            Err(Error::InvalidParams {
                method: m,
                path: p,
                message,
            }) => {
                assert_eq!(m, method);
                assert!(
                    p.starts_with(path),
                    "{method}: path {p:?}, expected {path:?} ({message})"
                );
                assert!(!message.is_empty());
            }
            other => panic!("{method} {params}: {other:?}"),
        }
    }
    let error = AgentNotification::decode(
        "session/update",
        Some(&raw(
            r#"{"sessionId":"s","update":{"sessionUpdate":"notice","severity":"info","title":""}}"#,
        )),
    )
    .unwrap_err();
    assert!(error.to_string().contains("non-empty"), "{error}");
    assert!(matches!(error, Error::InvalidParams { .. }));
}

#[test]
fn responses_decode_by_the_method_of_their_request() {
    use acptk_schema::v1::{AgentResponse, ClientResponse};
    let response =
        AgentResponse::decode("session/prompt", &raw(r#"{"stopReason":"end_turn"}"#)).unwrap();
    assert!(matches!(response, AgentResponse::SessionPrompt(_)));
    assert_eq!(
        serde_json::to_string(&response).unwrap(),
        r#"{"stopReason":"end_turn"}"#
    );
    assert!(matches!(
        AgentResponse::decode("session/prompt", &raw(r#"{"stopReason":42}"#)),
        Err(Error::InvalidParams { .. })
    ));
    assert!(matches!(
        ClientResponse::decode("fs/write_text_file", &raw("{}")),
        Ok(ClientResponse::FsWriteTextFile(_))
    ));
}
