//! Prompts in v2: the client submits a user message (`session/prompt`) and gets its message
//! id back; the agent's work arrives as `session/update` notifications. The client may cancel
//! the running work (`session/cancel`).

#[allow(unused_imports)]
use super::*;

wire_struct! {
    /// The agent's answer to `session/prompt`: the user message was accepted.
    pub struct PromptResponse {
        /// The id the agent gave the user message (the original id when a retry carried a
        /// known idempotency key).
        pub message_id: MessageId,
    }
}

constructor! {
    /// A response for the accepted message `message_id`.
    PromptResponse(message_id: impl Into<MessageId>) { meta: None }
}

wire_struct! {
    /// `session/prompt` parameters: a user message for a session.
    pub struct PromptRequest {
        /// The session the message is for.
        pub session_id: SessionId,
        /// The message content (at least one block).
        #[cfg_attr(feature = "schemars", schemars(length(min = 1)))]
        pub prompt: Vec<ContentBlock>,
        /// Makes the request safe to retry; absent means a retry may insert the message again.
        #[opt]
        pub idempotency_key: Option<IdempotencyKey>,
    }
}

constructor! {
    /// A prompt of `prompt` for `session_id`, without an idempotency key.
    PromptRequest(session_id: impl Into<SessionId>, prompt: impl Into<Vec<ContentBlock>>)
    { idempotency_key: None, meta: None }
}

setters!(PromptRequest { opt idempotency_key: IdempotencyKey });

wire_struct! {
    /// `session/cancel` notification: the client asks the agent to stop the work running in a
    /// session.
    pub struct CancelSessionNotification {
        /// The session whose work is cancelled.
        pub session_id: SessionId,
    }
}

constructor! {
    /// A cancellation of the work running in `session_id`.
    CancelSessionNotification(session_id: impl Into<SessionId>) { meta: None }
}
