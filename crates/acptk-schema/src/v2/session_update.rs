//! The `session/update` notification (ACP v2): every change to a session's state that the
//! agent reports to the client.
//!
//! v2 describes each update as an operation on the client's model of the session: it
//! *appends* to, *upserts* (creates or updates by id), *replaces* or *removes* one part of it.
//! A client that applies every update in order holds the same state as the agent.

#[allow(unused_imports)]
use super::*;

wire_struct! {
    encoded
    /// The params of the `session/update` notification, sent by the agent to the client.
    ///
    /// Agents send it at any time while a session exists, including while replaying a
    /// session's history on `session/resume`. It has no response.
    ///
    /// ```json
    /// {
    ///   "jsonrpc": "2.0",
    ///   "method": "session/update",
    ///   "params": {
    ///     "sessionId": "sess_abc123",
    ///     "update": {"sessionUpdate": "agent_message_chunk", "messageId": "m1", "content": {"type": "text", "text": "Hello"}}
    ///   }
    /// }
    /// ```
    pub struct UpdateSessionNotification {
        /// The session the update belongs to.
        pub session_id: SessionId,
        /// What changed.
        pub update: SessionUpdate,
    }
}

encode_struct!(UpdateSessionNotification { req session_id, req update, opt meta = "_meta" });

constructor! {
    /// An update for session `session_id`.
    ///
    /// `update` may be a [`SessionUpdate`] or any payload with a single variant, such as a
    /// [`ToolCallUpdate`] or a [`UsageUpdate`].
    UpdateSessionNotification(session_id: impl Into<SessionId>, update: impl Into<SessionUpdate>)
    { meta: None }
}

tagged_union! {
    /// One change to a session, tagged by `sessionUpdate`.
    ///
    /// Open in v2: an update with an unknown tag is kept as [`SessionUpdate::Other`] (tag and
    /// fields, verbatim) and written back unchanged; a known tag with a malformed payload is
    /// still an error. Each variant's doc says what it does to the client's session state.
    ///
    /// ```json
    /// {"sessionUpdate": "tool_call_update", "toolCallId": "call_1", "status": "completed"}
    /// ```
    ///
    /// The large payloads (state, tool call and terminal updates, tool call content chunks,
    /// plan updates, compaction, subagents, session messages) are boxed, so that every update,
    /// a message chunk above all, is only as large as the small variants. Build those variants
    /// with `From` on the unboxed payload (`ToolCallUpdate::new("call_1").into()`); a match
    /// binds the `Box`, whose fields are read through it as usual.
    pub enum SessionUpdate("sessionUpdate") open(Other) replayable(ReplayableUpdate) {
        /// Appends `content` to the content of the user message `messageId`.
        UserMessageChunk(ContentChunk) = "user_message_chunk",
        /// Creates or updates the user message `messageId`.
        UserMessage(UserMessage) = "user_message",
        /// Appends `content` to the content of the agent message `messageId`, as the reply
        /// streams.
        AgentMessageChunk(ContentChunk) = "agent_message_chunk",
        /// Creates or updates the agent message `messageId`.
        AgentMessage(AgentMessage) = "agent_message",
        /// Appends `content` to the agent thought (reasoning) `messageId`.
        AgentThoughtChunk(ContentChunk) = "agent_thought_chunk",
        /// Creates or updates the agent thought `messageId`.
        AgentThought(AgentThought) = "agent_thought",
        /// Replaces the session's activity state (running, idle, waiting for the user, ...).
        StateUpdate(Box<StateUpdate>) = "state_update",
        /// Appends `content` to the content of tool call `toolCallId`.
        ToolCallContentChunk(Box<ToolCallContentChunk>) = "tool_call_content_chunk",
        /// Creates or updates tool call `toolCallId`; fields present replace the stored ones.
        ToolCallUpdate(Box<ToolCallUpdate>) = "tool_call_update",
        /// Creates or updates terminal `terminalId`.
        TerminalUpdate(Box<TerminalUpdate>) = "terminal_update",
        /// Appends `data` to the output of terminal `terminalId`.
        TerminalOutputChunk(TerminalOutputChunk) = "terminal_output_chunk",
        /// Replaces the plan named by `plan.planId` with the new contents (creating it if new).
        PlanUpdate(Box<PlanUpdate>) = "plan_update",
        /// Removes plan `planId`.
        PlanRemoved(PlanRemoved) = "plan_removed",
        /// Replaces the list of slash commands available in the session.
        AvailableCommandsUpdate(AvailableCommandsUpdate) = "available_commands_update",
        /// Replaces the session's configuration options and their current values.
        ConfigOptionUpdate(ConfigOptionUpdate) = "config_option_update",
        /// Updates the session's metadata (title, last activity).
        SessionInfoUpdate(SessionInfoUpdate) = "session_info_update",
        /// Updates the session's context window usage and cost.
        UsageUpdate(UsageUpdate) = "usage_update",
        /// Creates or updates the compaction run `compactionId`.
        CompactionUpdate(Box<CompactionUpdate>) = "compaction_update",
        /// Appends `content` to the summary of compaction run `compactionId`.
        CompactionSummaryChunk(CompactionSummaryChunk) = "compaction_summary_chunk",
        /// Marks the end of a history replay on `session/resume`: later updates are live.
        /// Changes no session state.
        ReplayComplete(ReplayComplete) = "replay_complete",
        /// Replaces the list of prompts the agent expects the user to send next (only to
        /// clients that advertised `session.promptSuggestions`; not history).
        #[cfg(feature = "unstable_prompt_suggestions")]
        PromptSuggestionsUpdate(Box<PromptSuggestionsUpdate>) = "prompt_suggestions_update",
        /// Announces session cursor `cursorId` or changes what it allows.
        #[cfg(feature = "unstable_session_cursors")]
        CursorUpdate(Box<CursorUpdate>) = "cursor_update",
        /// Creates or updates the child (subagent) session `sessionId` of this session.
        SubagentUpdate(Box<SubagentUpdate>) = "subagent_update",
        /// Creates or updates the message `messageId` exchanged with another session.
        SessionMessage(Box<SessionMessage>) = "session_message",
        /// Appends `content` to the content of the session message `messageId`.
        SessionMessageChunk(SessionMessageChunk) = "session_message_chunk",
    } live {
        /// An advisory notice for the user (such as "MCP server unavailable"). Changes no
        /// session state: it is not history and is never replayed.
        Notice(Notice) = "notice",
    }
}

impl SessionUpdate {
    /// A `user_message_chunk` update: `content` appended to user message `message_id`.
    pub fn user_message_chunk(
        message_id: impl Into<MessageId>,
        content: impl Into<ContentBlock>,
    ) -> Self {
        Self::UserMessageChunk(ContentChunk::new(message_id, content))
    }

    /// An `agent_message_chunk` update: `content` appended to agent message `message_id`,
    /// as in `SessionUpdate::agent_message_chunk("m1", "Hello")`.
    pub fn agent_message_chunk(
        message_id: impl Into<MessageId>,
        content: impl Into<ContentBlock>,
    ) -> Self {
        Self::AgentMessageChunk(ContentChunk::new(message_id, content))
    }

    /// An `agent_thought_chunk` update: `content` appended to agent thought `message_id`.
    pub fn agent_thought_chunk(
        message_id: impl Into<MessageId>,
        content: impl Into<ContentBlock>,
    ) -> Self {
        Self::AgentThoughtChunk(ContentChunk::new(message_id, content))
    }
}

// `From<Payload>` for every payload type used by exactly one variant.
from_variants!(SessionUpdate {
    UserMessage(UserMessage),
    AgentMessage(AgentMessage),
    AgentThought(AgentThought),
    StateUpdate(StateUpdate),
    ToolCallContentChunk(ToolCallContentChunk),
    ToolCallUpdate(ToolCallUpdate),
    TerminalUpdate(TerminalUpdate),
    TerminalOutputChunk(TerminalOutputChunk),
    PlanUpdate(PlanUpdate),
    PlanRemoved(PlanRemoved),
    AvailableCommandsUpdate(AvailableCommandsUpdate),
    ConfigOptionUpdate(ConfigOptionUpdate),
    SessionInfoUpdate(SessionInfoUpdate),
    UsageUpdate(UsageUpdate),
    Notice(Notice),
    CompactionUpdate(CompactionUpdate),
    CompactionSummaryChunk(CompactionSummaryChunk),
    ReplayComplete(ReplayComplete),
    #[cfg(feature = "unstable_prompt_suggestions")]
    PromptSuggestionsUpdate(PromptSuggestionsUpdate),
    #[cfg(feature = "unstable_session_cursors")]
    CursorUpdate(CursorUpdate),
    SubagentUpdate(SubagentUpdate),
    SessionMessage(SessionMessage),
    SessionMessageChunk(SessionMessageChunk),
});

wire_struct! {
    encoded
    /// A streamed piece of a user message, agent message or agent thought: the payload of
    /// the three `*_chunk` message updates, appended to the message `messageId`.
    ///
    /// ```json
    /// {"sessionUpdate": "agent_message_chunk", "messageId": "m1", "content": {"type": "text", "text": "Hel"}}
    /// ```
    pub struct ContentChunk {
        /// The message this piece belongs to.
        pub message_id: MessageId,
        /// The piece of content.
        pub content: ContentBlock,
    }
}

encode_struct!(ContentChunk { req message_id, req content, opt meta = "_meta" });

impl ContentChunk {
    /// A piece of message `message_id`.
    pub fn new(message_id: impl Into<MessageId>, content: impl Into<ContentBlock>) -> Self {
        Self {
            message_id: message_id.into(),
            content: content.into(),
            meta: None,
        }
    }
}

wire_struct! {
    patch_meta
    /// The `user_message` session update: creates the user message `messageId` or updates
    /// it. Fields present replace the stored ones; absent fields stay as they were.
    pub struct UserMessage {
        /// The message being created or updated.
        pub message_id: MessageId,
        /// The whole message content, replacing any content stored so far. Absent:
        /// unchanged. Blocks that do not decode are skipped; a malformed value is treated as
        /// absent.
        #[patch("crate::de::lenient_patch_items")]
        pub content: crate::Patch<Vec<ContentBlock>>,
    }
}

constructor! {
    /// An update for user message `message_id` that changes nothing yet.
    UserMessage(message_id: impl Into<MessageId>)
    { content: crate::Patch::Unchanged, meta: crate::Patch::Unchanged }
}

setters!(UserMessage { patch content: Vec<ContentBlock> });

wire_struct! {
    patch_meta
    /// The `agent_message` session update: creates the agent message `messageId` or updates
    /// it. Fields present replace the stored ones; absent fields stay as they were.
    pub struct AgentMessage {
        /// The message being created or updated.
        pub message_id: MessageId,
        /// The whole message content, replacing any content stored so far. Absent:
        /// unchanged. Blocks that do not decode are skipped; a malformed value is treated as
        /// absent.
        #[patch("crate::de::lenient_patch_items")]
        pub content: crate::Patch<Vec<ContentBlock>>,
    }
}

constructor! {
    /// An update for agent message `message_id` that changes nothing yet.
    AgentMessage(message_id: impl Into<MessageId>)
    { content: crate::Patch::Unchanged, meta: crate::Patch::Unchanged }
}

setters!(AgentMessage { patch content: Vec<ContentBlock> });

wire_struct! {
    patch_meta
    /// The `agent_thought` session update: creates the agent thought (reasoning) `messageId`
    /// or updates it. Fields present replace the stored ones; absent fields stay as they were.
    pub struct AgentThought {
        /// The thought being created or updated.
        pub message_id: MessageId,
        /// The whole thought content, replacing any content stored so far. Absent:
        /// unchanged. Blocks that do not decode are skipped; a malformed value is treated as
        /// absent.
        #[patch("crate::de::lenient_patch_items")]
        pub content: crate::Patch<Vec<ContentBlock>>,
    }
}

constructor! {
    /// An update for agent thought `message_id` that changes nothing yet.
    AgentThought(message_id: impl Into<MessageId>)
    { content: crate::Patch::Unchanged, meta: crate::Patch::Unchanged }
}

setters!(AgentThought { patch content: Vec<ContentBlock> });

wire_struct! {
    patch_meta
    /// The `session_info_update` session update: updates session metadata the client shows,
    /// such as the session's title in a session list.
    ///
    /// Fields that are present replace the stored ones; absent fields stay as they were. (ACP
    /// also lets `null` clear a field; this type reads `null` like an absent field.) Malformed
    /// fields are treated as absent.
    ///
    /// ```json
    /// {"sessionUpdate": "session_info_update", "title": "Fix the login bug"}
    /// ```
    #[derive(Default)]
    pub struct SessionInfoUpdate {
        /// The session's new human-readable title.
        #[patch("crate::de::lenient_patch")]
        pub title: crate::Patch<String>,
        /// When the session was last active, as an RFC 3339 timestamp.
        #[cfg_attr(feature = "schemars", schemars(extend("format" = "date-time")))]
        #[patch("crate::de::lenient_patch")]
        pub updated_at: crate::Patch<String>,
    }
}

default_new!(
    SessionInfoUpdate,
    "An update that changes nothing yet; add fields with the setters."
);

setters!(SessionInfoUpdate { patch title: String, patch updated_at: String });

wire_struct! {
    /// The `replay_complete` session update: the agent has finished replaying the session's
    /// history (requested with `session/resume`); every update after it is live. It changes
    /// no session state.
    ///
    /// ```json
    /// {"sessionUpdate": "replay_complete"}
    /// ```
    #[derive(Default)]
    pub struct ReplayComplete {
    }
}

default_new!(ReplayComplete, "The marker (`{}` besides its tag).");

encode_union!(SessionUpdate {
    UserMessageChunk,
    AgentMessageChunk,
    AgentThoughtChunk,
    ToolCallContentChunk,
    ToolCallUpdate,
    PlanUpdate,
    UsageUpdate,
    Notice,
});
