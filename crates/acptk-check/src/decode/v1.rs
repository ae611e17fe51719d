//! ACP v1: decoding and the facts of v1 messages.

use acptk_schema::v1::{SessionNotification, SessionUpdate};

use crate::decode::{NoticeView, UpdateKind};
use crate::replay::UpdateClass;

version_decoder!(v1);

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

fn notification_facts(notification: AgentNotification) -> Facts {
    match notification {
        AgentNotification::SessionUpdate(update) => update_facts(update),
        _ => Facts::Nothing,
    }
}

fn update_facts(notification: SessionNotification) -> Facts {
    let kind = match notification.update {
        SessionUpdate::Notice(notice) => UpdateKind::Notice(NoticeView {
            reserved: notice.severity.is_reserved(),
            severity: notice.severity.as_str().to_owned(),
            title: notice.title.into_string(),
            description: notice.description,
        }),
        SessionUpdate::ToolCall(call) => UpdateKind::ToolCall {
            id: call.tool_call_id.0,
        },
        // What a replay of history consists of. Anything else (commands, modes, options,
        // metadata, usage) an agent may send at any time, so it proves no replay.
        SessionUpdate::UserMessageChunk(_)
        | SessionUpdate::AgentMessageChunk(_)
        | SessionUpdate::AgentThoughtChunk(_)
        | SessionUpdate::ToolCallUpdate(_)
        | SessionUpdate::Plan(_)
        | SessionUpdate::PlanUpdate(_)
        | SessionUpdate::PlanRemoved(_)
        | SessionUpdate::CompactionUpdate(_)
        | SessionUpdate::CompactionSummaryChunk(_)
        | SessionUpdate::SubagentUpdate(_)
        | SessionUpdate::SessionMessage(_)
        | SessionUpdate::SessionMessageChunk(_) => UpdateKind::Plain(UpdateClass::History),
        _ => UpdateKind::Plain(UpdateClass::Other),
    };
    Facts::Update {
        session: notification.session_id.0,
        kind,
    }
}

fn response_facts(response: AgentResponse) -> Facts {
    match response {
        AgentResponse::Initialize(init) => Facts::Initialized {
            version: init.protocol_version.get(),
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
