//! ACP v1: decoding and the facts of v1 messages.

version_decoder! {
    v1,
    notification: SessionNotification,
    // Commands, modes, options, metadata and usage prove no replay.
    history: [
        UserMessageChunk, AgentMessageChunk, AgentThoughtChunk, ToolCallUpdate, Plan, PlanUpdate,
        PlanRemoved, CompactionUpdate, CompactionSummaryChunk, SubagentUpdate, SessionMessage,
        SessionMessageChunk,
    ],
    others: {
        SessionUpdate::ToolCall(call) => UpdateKind::ToolCall {
            id: call.tool_call_id.0,
        },
    },
}

fn request_facts(request: ClientRequest) -> Facts {
    match request {
        ClientRequest::Initialize(init) => Facts::Initialize {
            proposed: init.protocol_version.get(),
            notices: init.client_capabilities.advertises_notices(),
        },
        ClientRequest::SessionLoad(load) => Facts::Load {
            session: load.session_id.0,
        },
        _ => Facts::Nothing,
    }
}

/// Whether a v1 `initialize` request advertises `session.notices` (false when the params do
/// not decode as v1). Used when the version negotiated is v1 but the client proposed another.
pub(crate) fn advertises_notices(params: Option<&RawValue>) -> bool {
    matches!(
        ClientRequest::decode("initialize", params),
        Ok(ClientRequest::Initialize(init)) if init.client_capabilities.advertises_notices()
    )
}
