//! ACP v2: decoding and the facts of v2 messages.

use acptk_schema::v2::StateUpdate;

version_decoder! {
    v2,
    notification: UpdateSessionNotification,
    // Commands, options, metadata, usage and unknown updates prove no replay.
    history: [
        UserMessageChunk, UserMessage, AgentMessageChunk, AgentMessage, AgentThoughtChunk,
        AgentThought, ToolCallContentChunk, ToolCallUpdate, TerminalUpdate, TerminalOutputChunk,
        PlanUpdate, PlanRemoved, CompactionUpdate, CompactionSummaryChunk, SubagentUpdate,
        SessionMessage, SessionMessageChunk,
    ],
    others: {
        SessionUpdate::ReplayComplete(_) => UpdateKind::Plain(UpdateClass::ReplayComplete),
        SessionUpdate::StateUpdate(state) => UpdateKind::Plain(UpdateClass::State {
            idle: matches!(*state, StateUpdate::Idle(_)),
        }),
    },
}

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
