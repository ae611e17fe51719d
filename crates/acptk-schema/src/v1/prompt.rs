//! Prompt turns in v1: the client sends a user message (`session/prompt`), the agent streams
//! `session/update` notifications while it works and answers with why the turn stopped; the
//! client may cancel the turn (`session/cancel`).

#[allow(unused_imports)]
use super::*;

wire_struct! {
    /// The agent's answer to `session/prompt`, sent when the turn is over.
    pub struct PromptResponse {
        /// Why the turn ended.
        pub stop_reason: StopReason,
        /// Token counts of the turn, if reported. A malformed value is treated as absent.
        #[unstable("unstable_end_turn_token_usage")]
        #[opt("crate::de::lenient_object")]
        pub usage: Option<Usage>,
    }
}

constructor! {
    /// A response for a turn that ended for `stop_reason`.
    PromptResponse(stop_reason: impl Into<StopReason>)
    { #[cfg(feature = "unstable_end_turn_token_usage")] usage: None, meta: None }
}

#[cfg(feature = "unstable_end_turn_token_usage")]
setters!(PromptResponse { opt usage: Usage });

wire_struct! {
    /// `session/prompt` parameters: the user's message, which starts a prompt turn.
    pub struct PromptRequest {
        /// The session the message is for.
        pub session_id: SessionId,
        /// The message content (text, and other blocks the agent's prompt capabilities allow).
        pub prompt: Vec<ContentBlock>,
    }
}

impl PromptRequest {
    /// A prompt of `prompt` for `session_id`.
    pub fn new(session_id: impl Into<SessionId>, prompt: impl Into<Vec<ContentBlock>>) -> Self {
        Self {
            session_id: session_id.into(),
            prompt: prompt.into(),
            meta: None,
        }
    }
}

wire_struct! {
    /// `session/cancel` notification: the client asks the agent to stop the running prompt
    /// turn; the turn then ends with the `cancelled` stop reason.
    pub struct CancelNotification {
        /// The session whose turn is cancelled.
        pub session_id: SessionId,
    }
}

constructor! {
    /// A cancellation of the turn running in `session_id`.
    CancelNotification(session_id: impl Into<SessionId>) { meta: None }
}
