//! ACP v1: decoding and the facts of v1 messages.

use acp_schema::v1::{SessionNotification, SessionUpdate};

use crate::decode::{NoticeView, UpdateKind};

version_decoder!(v1);

fn request_facts(request: ClientRequest) -> Facts {
    match request {
        ClientRequest::Initialize(init) => Facts::Initialize {
            proposed: init.protocol_version.get(),
            notices: init.client_capabilities.advertises_notices(),
        },
        ClientRequest::SessionLoad(load) => Facts::Load {
            session: load.session_id.as_str().to_owned(),
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
        _ => UpdateKind::Other,
    };
    Facts::Update {
        session: notification.session_id.as_str().to_owned(),
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
