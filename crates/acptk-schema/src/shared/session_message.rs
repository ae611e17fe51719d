//! Messages between sessions, such as between a parent session and its subagents, as they
//! appear in one session's transcript.

#[allow(unused_imports)]
use super::*;

wire_struct! {
    patch_meta
    /// The `session_message` session update: creates or updates a message exchanged between
    /// sessions, keyed by `messageId` within the session the update is sent on.
    ///
    /// Fields that are present replace the stored ones; absent fields leave them as they were.
    /// (ACP also lets `null` clear a field; this type reads `null` like an absent field.)
    /// Malformed optional fields are treated as absent.
    ///
    /// ```json
    /// {"sessionUpdate": "session_message", "messageId": "m7", "senderSessionId": "sess_child_1", "content": [{"type": "text", "text": "Tests pass."}]}
    /// ```
    pub struct SessionMessage {
        /// Identifies the message within this session's transcript.
        pub message_id: MessageId,
        /// The session that sent the message.
        #[patch("crate::de::lenient_patch")]
        pub sender_session_id: crate::Patch<SessionId>,
        /// The session the message is addressed to.
        #[patch("crate::de::lenient_patch")]
        pub recipient_session_id: crate::Patch<SessionId>,
        /// On the receiving side, the id the same message has in the sender's transcript.
        #[patch("crate::de::lenient_patch")]
        pub sender_message_id: crate::Patch<MessageId>,
        /// On the sending side, the id the same message has in the recipient's transcript.
        #[patch("crate::de::lenient_patch")]
        pub recipient_message_id: crate::Patch<MessageId>,
        /// The whole message content, replacing any content shown so far. Blocks that do not
        /// decode are skipped.
        #[patch("crate::de::lenient_patch_items")]
        pub content: crate::Patch<Vec<ContentBlock>>,
    }
}

constructor! {
    /// An update for message `message_id` that changes nothing yet; add fields with the
    /// setters.
    SessionMessage(message_id: impl Into<MessageId>) {
        sender_session_id: crate::Patch::Unchanged,
        recipient_session_id: crate::Patch::Unchanged,
        sender_message_id: crate::Patch::Unchanged,
        recipient_message_id: crate::Patch::Unchanged,
        content: crate::Patch::Unchanged,
        meta: crate::Patch::Unchanged,
    }
}

setters!(SessionMessage {
    patch sender_session_id: SessionId,
    patch recipient_session_id: SessionId,
    patch sender_message_id: MessageId,
    patch recipient_message_id: MessageId,
    patch content: Vec<ContentBlock>,
});

wire_struct! {
    /// The `session_message_chunk` session update: the next piece of a message between
    /// sessions, to be appended to that message's content.
    ///
    /// ```json
    /// {"sessionUpdate": "session_message_chunk", "messageId": "m7", "content": {"type": "text", "text": "Tests "}}
    /// ```
    pub struct SessionMessageChunk {
        /// The message this piece belongs to.
        pub message_id: MessageId,
        /// The piece of content.
        pub content: ContentBlock,
    }
}

constructor! {
    /// A piece of message `message_id`.
    SessionMessageChunk(message_id: impl Into<MessageId>, content: impl Into<ContentBlock>) {
        meta: None,
    }
}
