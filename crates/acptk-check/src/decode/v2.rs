//! ACP v2: decoding and the facts of v2 messages.

use acptk_schema::v2::{SessionUpdate, UpdateSessionNotification};

use acptk_schema::v2::StateUpdate;

use crate::decode::{NoticeView, UpdateKind};
use crate::replay::UpdateClass;

version_decoder!(v2);

fn request_facts(request: ClientRequest) -> Facts {
    match request {
        ClientRequest::Initialize(init) => Facts::Initialize {
            proposed: init.protocol_version.get(),
            notices: false,
        },
        ClientRequest::SessionResume(resume) => Facts::Resume {
            session: resume.session_id.0,
            replay: resume.replay_from.is_some(),
        },
        ClientRequest::SessionPrompt(_) => Facts::Prompt,
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
        SessionUpdate::ReplayComplete(_) => UpdateKind::Plain(UpdateClass::ReplayComplete),
        SessionUpdate::StateUpdate(state) => UpdateKind::Plain(UpdateClass::State {
            idle: matches!(*state, StateUpdate::Idle(_)),
        }),
        // What a replay of history consists of. Anything else (commands, options, metadata,
        // usage, unknown updates) an agent may send at any time, so it proves no replay.
        SessionUpdate::UserMessageChunk(_)
        | SessionUpdate::UserMessage(_)
        | SessionUpdate::AgentMessageChunk(_)
        | SessionUpdate::AgentMessage(_)
        | SessionUpdate::AgentThoughtChunk(_)
        | SessionUpdate::AgentThought(_)
        | SessionUpdate::ToolCallContentChunk(_)
        | SessionUpdate::ToolCallUpdate(_)
        | SessionUpdate::TerminalUpdate(_)
        | SessionUpdate::TerminalOutputChunk(_)
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
