//! The methods of the official crate's unstable features, in both versions: LLM providers, auth
//! status, MCP over ACP, the session operations (fork, archive, status, options, title) and proxy
//! chains. Builders against the wire, lenient fields, routing through the method tables, and
//! what a build without the feature does with the same message. Each module needs its feature.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/wire.rs"]
mod wire;

#[allow(unused_imports)]
use serde_json::{Value, json};
#[allow(unused_imports)]
use wire::{fields, normalises, rejects, round_trip};

/// The raw JSON text of `value`, as the routing decoders take it.
#[allow(dead_code)]
fn raw(value: &Value) -> Box<serde_json::value::RawValue> {
    serde_json::value::RawValue::from_string(value.to_string()).unwrap()
}

#[cfg(feature = "unstable_llm_providers")]
mod providers {
    use super::*;
    use acptk_schema::v1::{self, methods};

    #[test]
    fn builders_match_the_wire() {
        use std::collections::BTreeMap;
        let request =
            v1::SetProviderRequest::new("main", v1::LlmProtocol::Anthropic, "https://x").headers(
                BTreeMap::from([("Authorization".to_owned(), "Bearer t".to_owned())]),
            );
        assert_eq!(
            serde_json::to_value(&request).unwrap(),
            json!({"providerId": "main", "apiType": "anthropic", "baseUrl": "https://x",
                   "headers": {"Authorization": "Bearer t"}})
        );
        let info = v1::ProviderInfo::new("main", vec!["openai".into()], true)
            .current(v1::ProviderCurrentConfig::new("openai", "https://y"));
        assert_eq!(
            serde_json::to_value(v1::ListProvidersResponse::new(vec![info])).unwrap(),
            json!({"providers": [{"providerId": "main", "supported": ["openai"], "required": true,
                                  "current": {"apiType": "openai", "baseUrl": "https://y"}}]})
        );
    }

    #[test]
    fn protocols_are_open_and_the_supported_list_is_lenient() {
        let info = normalises::<v1::ProviderInfo>(
            &json!({"providerId": "p", "supported": ["bedrock", "_local", 7], "required": false}),
            &json!({"providerId": "p", "supported": ["bedrock", "_local"], "required": false}),
        );
        assert!(info.supported[1].is_extension());
        normalises::<v1::ProviderInfo>(
            &json!({"providerId": "p", "supported": "all", "required": false, "current": null}),
            &json!({"providerId": "p", "supported": [], "required": false}),
        );
        rejects::<v1::ProviderInfo>(&json!({"providerId": "p", "required": false}));
        rejects::<v1::ProviderInfo>(
            &json!({"providerId": "p", "supported": [], "required": false, "current": {"apiType": 1}}),
        );
    }

    #[test]
    fn routed_by_method() {
        use acptk_schema::method::RequestMethod;
        assert_eq!(methods::ProvidersList::METHOD, "providers/list");
        let request =
            v1::ClientRequest::decode("providers/disable", Some(&raw(&json!({"providerId": "p"}))))
                .unwrap();
        assert!(
            matches!(request, v1::ClientRequest::ProvidersDisable(ref params) if params.provider_id.as_str() == "p")
        );
        let request = v1::ClientRequest::decode("providers/list", None).unwrap();
        assert_eq!(request.method(), "providers/list");
        let response = v1::AgentResponse::decode("providers/set", &raw(&Value::Null)).unwrap();
        assert!(matches!(response, v1::AgentResponse::ProvidersSet(_)));
        for method in ["providers/list", "providers/set", "providers/disable"] {
            assert!(v1::ClientRequest::METHODS.contains(&method));
        }
    }

    #[cfg(feature = "unstable_protocol_v2")]
    #[test]
    fn v2_has_the_same_methods() {
        use acptk_schema::v2;
        let request = v2::ClientRequest::decode(
            "providers/set",
            Some(&raw(
                &json!({"providerId": "main", "apiType": "_custom", "baseUrl": "https://x"}),
            )),
        )
        .unwrap();
        assert!(matches!(request, v2::ClientRequest::ProvidersSet(_)));
        let capabilities = round_trip::<v2::AgentCapabilities>(&json!({"providers": {}}));
        assert!(capabilities.providers.is_some());
    }
}

#[cfg(not(feature = "unstable_llm_providers"))]
#[test]
fn without_the_provider_feature_the_methods_are_unknown() {
    let error = acptk_schema::v1::ClientRequest::decode("providers/list", None).unwrap_err();
    assert!(matches!(error, acptk_schema::Error::UnknownMethod { .. }));
}

#[cfg(feature = "unstable_auth_status")]
mod auth_status {
    use super::*;
    use acptk_schema::v1;

    #[test]
    fn status_and_update_share_their_fields() {
        let status = normalises::<v1::AuthStatusResponse>(
            &json!({"state": "authenticated", "accounts": [
                {"label": "Claude Max", "active": true, "email": 5},
                {"description": "no label"},
                {"label": "API key", "active": "yes"}
            ]}),
            &json!({"state": "authenticated", "accounts": [
                {"label": "Claude Max", "active": true}, {"label": "API key"}
            ]}),
        );
        assert_eq!(status.accounts.len(), 2);
        let update = round_trip::<v1::AuthStatusUpdateNotification>(&json!({"state": "_sso"}));
        assert!(update.state.is_extension());
        rejects::<v1::AuthStatusResponse>(&json!({"accounts": []}));
        let built = v1::AuthStatusResponse::new(v1::AuthState::NotRequired)
            .accounts(vec![v1::AuthAccount::new("Local").active(true)]);
        assert_eq!(
            serde_json::to_value(built).unwrap(),
            json!({"state": "not_required", "accounts": [{"label": "Local", "active": true}]})
        );
    }

    #[test]
    fn the_notification_is_routed_to_the_client() {
        let notification = v1::AgentNotification::decode(
            "auth/status_update",
            Some(&raw(&json!({"state": "unauthenticated"}))),
        )
        .unwrap();
        assert!(matches!(
            notification,
            v1::AgentNotification::AuthStatusUpdate(_)
        ));
        let capabilities = round_trip::<v1::AgentAuthCapabilities>(&json!({"status": {}}));
        assert!(capabilities.status.is_some());
        normalises::<v1::AgentAuthCapabilities>(&json!({"status": true}), &json!({}));
    }
}

#[cfg(feature = "unstable_mcp_over_acp")]
mod mcp_over_acp {
    use super::*;
    use acptk_schema::v1;

    #[test]
    fn the_inner_result_is_opaque_and_kept_even_when_null() {
        for result in [
            json!(null),
            json!(0),
            json!("x"),
            json!([1, null]),
            json!({"k": {}}),
        ] {
            let response = round_trip::<v1::MessageMcpResponse>(&json!({"result": result}));
            assert_eq!(response.outcome, v1::McpOutcome::Result(result));
        }
        let routed =
            v1::ClientResponse::decode("mcp/message", &raw(&json!({"result": null}))).unwrap();
        assert!(matches!(routed, v1::ClientResponse::McpMessage(_)));
    }

    #[test]
    fn inner_errors_keep_null_data_apart_from_absent_data() {
        let with_null =
            round_trip::<v1::McpError>(&json!({"code": -32000, "message": "m", "data": null}));
        assert_eq!(with_null.data, Some(Value::Null));
        let without =
            round_trip::<v1::McpError>(&json!({"code": -32000, "message": "m", "retry": true}));
        assert_eq!(without.data, None);
        assert_eq!(without.extra["retry"], json!(true));
        round_trip::<v1::MessageMcpResponse>(
            &json!({"error": {"code": 1, "message": "m", "data": {"a": [1]}}, "_meta": {"hop": 1}}),
        );
        assert_eq!(
            serde_json::to_value(v1::MessageMcpResponse::error(
                v1::McpError::new(1, "m").data(Value::Null)
            ))
            .unwrap(),
            json!({"error": {"code": 1, "message": "m", "data": null}})
        );
    }

    #[test]
    fn an_answer_needs_exactly_one_outcome() {
        let both = rejects::<v1::MessageMcpResponse>(
            &json!({"result": 1, "error": {"code": 1, "message": "m"}}),
        );
        assert!(both.contains("not both"), "{both}");
        rejects::<v1::MessageMcpResponse>(&json!({"_meta": {}}));
        rejects::<v1::MessageMcpResponse>(&json!({"error": null}));
        normalises::<v1::MessageMcpResponse>(
            &json!({"result": 2, "extra": true}),
            &json!({"result": 2}),
        );
    }

    #[test]
    fn messages_and_servers() {
        let request = v1::MessageMcpRequest::new("tools-1", "r1", "tools/call")
            .params(fields(json!({"name": "grep"})));
        let wire = json!({"serverId": "tools-1", "requestId": "r1", "method": "tools/call", "params": {"name": "grep"}});
        assert_eq!(serde_json::to_value(&request).unwrap(), wire);
        assert!(matches!(
            v1::AgentRequest::decode("mcp/message", Some(&raw(&wire))).unwrap(),
            v1::AgentRequest::McpMessage(_)
        ));
        assert!(matches!(
            v1::ClientNotification::decode("mcp/message", Some(&raw(&wire))).unwrap(),
            v1::ClientNotification::McpMessageNotify(_)
        ));
        normalises::<v1::MessageMcpNotification>(
            &json!({"serverId": "s", "requestId": "r", "method": "m", "params": null}),
            &json!({"serverId": "s", "requestId": "r", "method": "m"}),
        );
        rejects::<v1::MessageMcpRequest>(
            &json!({"serverId": "s", "requestId": "r", "method": "m", "params": [1]}),
        );
        let server = round_trip::<v1::McpServer>(
            &json!({"type": "acp", "name": "tools", "serverId": "tools-1"}),
        );
        assert_eq!((server.tag(), server.name()), (Some("acp"), "tools"));
        rejects::<v1::McpServer>(&json!({"type": "acp", "name": "tools"}));
    }

    #[test]
    fn the_v1_transport_flag_is_always_written() {
        assert_eq!(
            serde_json::to_value(v1::McpCapabilities::new()).unwrap(),
            json!({"http": false, "sse": false, "acp": false})
        );
        normalises::<v1::McpCapabilities>(
            &json!({"acp": "yes"}),
            &json!({"http": false, "sse": false, "acp": false}),
        );
    }

    #[cfg(feature = "unstable_protocol_v2")]
    #[test]
    fn v2_advertises_the_transport_as_an_object() {
        use acptk_schema::v2;
        let capabilities = round_trip::<v2::McpCapabilities>(&json!({"acp": {}, "stdio": {}}));
        assert!(capabilities.acp.is_some());
        normalises::<v2::McpCapabilities>(&json!({"acp": true}), &json!({}));
        round_trip::<v2::McpServer>(&json!({"type": "acp", "name": "t", "serverId": "s"}));
    }
}

#[cfg(all(
    not(feature = "unstable_mcp_over_acp"),
    feature = "unstable_protocol_v2"
))]
#[test]
fn without_mcp_over_acp_an_acp_server_is_unknown_in_v2_and_an_error_in_v1() {
    rejects::<acptk_schema::v1::McpServer>(&json!({"type": "acp", "name": "t", "serverId": "s"}));
    let server = round_trip::<acptk_schema::v2::McpServer>(
        &json!({"type": "acp", "name": "t", "serverId": "s"}),
    );
    assert!(matches!(server, acptk_schema::v2::McpServer::Other(_)));
}

#[cfg(feature = "unstable_session_fork")]
mod session_fork {
    use super::*;
    use acptk_schema::v1;

    #[test]
    fn fork_request_and_response() {
        let request = round_trip::<v1::ForkSessionRequest>(
            &json!({"sessionId": "s1", "cwd": "/p", "mcpServers": [{"name": "fs", "command": "fs", "args": [], "env": []}]}),
        );
        assert_eq!(request.mcp_servers.len(), 1);
        normalises::<v1::ForkSessionRequest>(
            &json!({"sessionId": "s1", "cwd": "/p", "additionalDirectories": null, "mcpServers": null, "systemPrompt": null}),
            &json!({"sessionId": "s1", "cwd": "/p"}),
        );
        rejects::<v1::ForkSessionRequest>(&json!({"sessionId": "s1"}));
        normalises::<v1::ForkSessionResponse>(
            &json!({"sessionId": "s2", "configOptions": "bad", "modes": 7}),
            &json!({"sessionId": "s2"}),
        );
        assert!(matches!(
            v1::ClientRequest::decode(
                "session/fork",
                Some(&raw(&json!({"sessionId": "s", "cwd": "/p"})))
            )
            .unwrap(),
            v1::ClientRequest::SessionFork(_)
        ));
    }

    #[cfg(feature = "unstable_session_cursors")]
    #[test]
    fn fork_at_a_cursor() {
        let request = v1::ForkSessionRequest::new("s1", "/p").cursor_id("cur_3");
        assert_eq!(
            serde_json::to_value(request).unwrap(),
            json!({"sessionId": "s1", "cursorId": "cur_3", "cwd": "/p"})
        );
    }

    #[cfg(feature = "unstable_protocol_v2")]
    #[test]
    fn v2_answers_with_lists() {
        use acptk_schema::v2;
        normalises::<v2::ForkSessionResponse>(
            &json!({"sessionId": "s2", "configOptions": "bad", "availableCommands": [{"type": "command", "name": "a", "description": "d"}, 3]}),
            &json!({"sessionId": "s2", "availableCommands": [{"type": "command", "name": "a", "description": "d"}]}),
        );
        rejects::<v2::ForkSessionRequest>(&json!({"sessionId": "s1", "cwd": 7}));
    }
}

#[cfg(feature = "unstable_session_options")]
mod session_options {
    use super::*;
    use acptk_schema::v1;

    #[test]
    fn initial_values_have_the_shape_of_set_config_option() {
        let request = round_trip::<v1::NewSessionRequest>(&json!({"cwd": "/p", "mcpServers": [],
            "configOptions": [{"configId": "model", "value": "fast"}, {"configId": "t", "type": "boolean", "value": true}]}));
        assert_eq!(request.config_options.len(), 2);
        assert_eq!(
            request.config_options[1].value,
            v1::SessionConfigOptionValue::Boolean(true)
        );
        normalises::<v1::LoadSessionRequest>(
            &json!({"sessionId": "s", "cwd": "/p", "mcpServers": [], "configOptions": null}),
            &json!({"sessionId": "s", "cwd": "/p", "mcpServers": []}),
        );
        rejects::<v1::InitialSessionConfigOption>(&json!({"configId": "model"}));
        rejects::<v1::InitialSessionConfigOption>(
            &json!({"configId": "x", "type": "_slider", "value": 3}),
        );
    }

    #[test]
    fn options_request_and_response() {
        normalises::<v1::SessionOptionsRequest>(
            &json!({"cwd": "/p", "additionalDirectories": null, "sessionId": null}),
            &json!({"cwd": "/p"}),
        );
        normalises::<v1::SessionOptionsResponse>(
            &json!({"configOptions": null, "modes": "bad"}),
            &json!({}),
        );
        let routed = v1::AgentResponse::decode("session/options", &raw(&Value::Null)).unwrap();
        assert!(matches!(routed, v1::AgentResponse::SessionOptions(_)));
    }

    #[cfg(feature = "unstable_protocol_v2")]
    #[test]
    fn v2_initial_values_are_tagged_and_open() {
        use acptk_schema::v2;
        let option = round_trip::<v2::InitialSessionConfigOption>(
            &json!({"configId": "x", "type": "_slider", "value": 3}),
        );
        assert!(matches!(
            option.value,
            v2::SessionConfigOptionValue::Other(_)
        ));
        round_trip::<v2::ResumeSessionRequest>(
            &json!({"sessionId": "s", "cwd": "/p", "configOptions": [{"configId": "m", "type": "id", "value": "fast"}]}),
        );
    }
}

#[cfg(feature = "unstable_session_archive")]
mod session_archive {
    use super::*;
    use acptk_schema::v1;

    #[test]
    fn filter_flag_and_methods() {
        let request = round_trip::<v1::ListSessionsRequest>(&json!({"archived": "_recent"}));
        assert!(request.archived.as_ref().unwrap().is_extension());
        normalises::<v1::ListSessionsRequest>(&json!({"archived": null}), &json!({}));
        rejects::<v1::ListSessionsRequest>(&json!({"archived": true}));
        normalises::<v1::SessionInfo>(
            &json!({"sessionId": "a", "cwd": "/p", "archived": "no"}),
            &json!({"sessionId": "a", "cwd": "/p"}),
        );
        assert_eq!(
            serde_json::to_value(v1::SessionInfo::new("a", "/p").archived(true)).unwrap(),
            json!({"sessionId": "a", "cwd": "/p", "archived": true})
        );
        for method in ["session/archive", "session/unarchive"] {
            assert!(
                v1::ClientRequest::decode(method, Some(&raw(&json!({"sessionId": "s"})))).is_ok()
            );
            assert!(v1::AgentResponse::decode(method, &raw(&Value::Null)).is_ok());
        }
    }
}

#[cfg(feature = "unstable_session_status")]
mod session_status {
    use super::*;
    use acptk_schema::v1;

    #[test]
    fn status_is_open() {
        let response = round_trip::<v1::SessionStatusResponse>(&json!({"status": "_evicting"}));
        assert!(response.status.is_extension());
        rejects::<v1::SessionStatusResponse>(&json!({}));
    }

    #[cfg(feature = "unstable_protocol_v2")]
    #[test]
    fn v2_reports_the_foreground_state() {
        use acptk_schema::v2;
        let response = round_trip::<v2::SessionStatusResponse>(
            &json!({"status": "open", "state": {"state": "running"}}),
        );
        assert!(matches!(response.state, Some(v2::StateUpdate::Running(_))));
        normalises::<v2::SessionStatusResponse>(
            &json!({"status": "saved", "state": {"state": 7}}),
            &json!({"status": "saved"}),
        );
    }
}

#[cfg(feature = "unstable_session_set_title")]
mod session_title {
    use super::*;
    use acptk_schema::v1;

    #[test]
    fn the_title_is_required_both_ways() {
        assert_eq!(
            serde_json::to_value(v1::SetSessionTitleRequest::new("s1", "T")).unwrap(),
            json!({"sessionId": "s1", "title": "T"})
        );
        rejects::<v1::SetSessionTitleRequest>(&json!({"sessionId": "s1", "title": null}));
        rejects::<v1::SetSessionTitleResponse>(&json!({}));
        let capabilities = round_trip::<v1::SessionCapabilities>(&json!({"title": {}, "list": {}}));
        assert!(capabilities.title.is_some());
    }
}

#[cfg(feature = "unstable_proxy_chains")]
mod proxy_chains {
    use super::*;
    use acptk_schema::v1;

    #[test]
    fn proxy_initialize_is_initialize() {
        let params = json!({"protocolVersion": 1, "clientCapabilities": {"fs": {"readTextFile": true, "writeTextFile": false}, "terminal": false}});
        let request = v1::ProxyRequest::decode("proxy/initialize", Some(&raw(&params))).unwrap();
        let v1::ProxyRequest::ProxyInitialize(initialize) = &request else {
            panic!("wrong variant: {request:?}")
        };
        assert_eq!(
            serde_json::to_value(&initialize.initialize).unwrap(),
            serde_json::to_value(&request).unwrap()
        );
        let response =
            v1::ProxyResponse::decode("proxy/initialize", &raw(&json!({"protocolVersion": 1})))
                .unwrap();
        assert_eq!(response.method(), "proxy/initialize");
    }

    #[test]
    fn successor_envelopes_keep_the_wrapped_payload_byte_for_byte() {
        let text = r#"{"method":"session/prompt","params":{"sessionId":"s1", "prompt":[]},"_meta":{"hop":1}}"#;
        let request: v1::ProxySuccessorRequest = serde_json::from_str(text).unwrap();
        assert_eq!(
            request.params.as_ref().unwrap().get(),
            r#"{"sessionId":"s1", "prompt":[]}"#
        );
        let notification = normalises::<v1::ProxySuccessorNotification>(
            &json!({"method": "session/cancel", "params": null}),
            &json!({"method": "session/cancel"}),
        );
        assert!(notification.params.is_none());
        rejects::<v1::ProxySuccessorNotification>(&json!({"params": {}}));
        let routed =
            v1::ProxyNotification::decode("proxy/successor", Some(&raw(&json!({"method": "m"}))))
                .unwrap();
        assert!(matches!(
            routed,
            v1::ProxyNotification::ProxySuccessorNotify(_)
        ));
    }

    #[test]
    fn a_successor_result_is_any_json_null_included() {
        for result in [
            json!(null),
            json!({"stopReason": "end_turn"}),
            json!([1]),
            json!("x"),
        ] {
            let response = v1::ProxyResponse::decode("proxy/successor", &raw(&result)).unwrap();
            assert_eq!(serde_json::to_value(&response).unwrap(), result);
        }
    }
}

#[cfg(not(feature = "unstable_session_fork"))]
#[test]
fn without_the_fork_feature_session_fork_is_unknown() {
    let params = raw(&json!({"sessionId": "s1", "cwd": "/p"}));
    let error = acptk_schema::v1::ClientRequest::decode("session/fork", Some(&params)).unwrap_err();
    assert!(matches!(error, acptk_schema::Error::UnknownMethod { .. }));
}
