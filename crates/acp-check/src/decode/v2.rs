//! ACP v2: decoding and the facts of v2 messages.

use acp_schema::v2::{SessionUpdate, UpdateSessionNotification};

use crate::decode::{NoticeView, UpdateKind};

version_decoder!(v2);

fn request_facts(request: ClientRequest) -> Facts {
    match request {
        ClientRequest::Initialize(init) => Facts::Initialize {
            proposed: init.protocol_version.get(),
            notices: false,
        },
        ClientRequest::SessionResume(resume) => Facts::Resume {
            session: resume.session_id.as_str().to_owned(),
            replay: resume.replay_from.is_some(),
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

fn update_facts(notification: UpdateSessionNotification) -> Facts {
    let kind = match notification.update {
        SessionUpdate::Notice(notice) => UpdateKind::Notice(NoticeView {
            reserved: notice.severity.is_reserved(),
            severity: notice.severity.as_str().to_owned(),
            title: notice.title.into_string(),
            description: notice.description,
        }),
        SessionUpdate::ReplayComplete(_) => UpdateKind::ReplayComplete,
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
