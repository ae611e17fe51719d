//! The `session/update` notification (ACP v1): everything the agent streams to the client
//! about a session, from message chunks and tool calls to plans, usage and notices.

#[allow(unused_imports)]
use super::*;

wire_struct! {
    encoded
    /// The params of the `session/update` notification, sent by the agent to the client.
    ///
    /// Agents send it at any time while a session exists: while answering a prompt, while
    /// replaying history during `session/load`, or on their own. It has no response.
    ///
    /// ```json
    /// {
    ///   "jsonrpc": "2.0",
    ///   "method": "session/update",
    ///   "params": {
    ///     "sessionId": "sess_abc123",
    ///     "update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "Hello"}}
    ///   }
    /// }
    /// ```
    pub struct SessionNotification {
        /// The session the update belongs to.
        pub session_id: SessionId,
        /// What changed.
        pub update: SessionUpdate,
    }
}

encode_struct!(SessionNotification { req session_id, req update, opt meta = "_meta" });

constructor! {
    /// An update for session `session_id`.
    ///
    /// `update` may be a [`SessionUpdate`] or any payload with a single variant, such as a
    /// [`ToolCall`] or a [`UsageUpdate`].
    SessionNotification(session_id: impl Into<SessionId>, update: impl Into<SessionUpdate>)
    { meta: None }
}

tagged_union! {
    /// One change to a session, tagged by `sessionUpdate`.
    ///
    /// Closed in v1: an update with an unknown `sessionUpdate` tag is an error. Agents send
    /// the newer kinds (plan operations, compaction, subagents, notices) only to clients that
    /// advertised support for them.
    ///
    /// ```json
    /// {"sessionUpdate": "tool_call", "toolCallId": "call_1", "title": "Read main.rs", "status": "pending"}
    /// ```
    ///
    /// The large payloads (tool calls, plan updates, compaction, subagents, session messages)
    /// are boxed, so that every update, a message chunk above all, is only as large as the
    /// small variants. Build those variants with `From` on the unboxed payload
    /// (`ToolCallUpdate::new("call_1").into()`); a match binds the `Box`, whose fields are read
    /// through it as usual.
    pub enum SessionUpdate("sessionUpdate") replayable(ReplayableUpdate) {
        /// A piece of a user message, appended to the current user message. Sent mainly when
        /// replaying history during `session/load`.
        UserMessageChunk(ContentChunk) = "user_message_chunk",
        /// A piece of the agent's reply, appended to the current agent message as it streams.
        AgentMessageChunk(ContentChunk) = "agent_message_chunk",
        /// A piece of the agent's reasoning, appended to its current thought. Clients usually
        /// show thoughts apart from, or folded under, the reply.
        AgentThoughtChunk(ContentChunk) = "agent_thought_chunk",
        /// A new tool call: the client starts showing it, with its title, kind and status.
        ToolCall(Box<ToolCall>) = "tool_call",
        /// A change to an existing tool call: the fields present replace the shown ones
        /// (status, content, locations, ...); absent fields stay as they were.
        ToolCallUpdate(Box<ToolCallUpdate>) = "tool_call_update",
        /// The agent's whole plan: replaces the plan the client shows.
        Plan(Plan) = "plan",
        /// Creates or replaces the identified plan named in the update.
        PlanUpdate(Box<PlanUpdate>) = "plan_update",
        /// Removes the identified plan with this id.
        PlanRemoved(PlanRemoved) = "plan_removed",
        /// Replaces the list of slash commands the client offers for this session.
        AvailableCommandsUpdate(AvailableCommandsUpdate) = "available_commands_update",
        /// The agent switched the session to another mode; the client updates its selection.
        CurrentModeUpdate(CurrentModeUpdate) = "current_mode_update",
        /// Replaces the session's configuration options and their current values.
        ConfigOptionUpdate(ConfigOptionUpdate) = "config_option_update",
        /// Changes session metadata shown by the client, such as the title.
        SessionInfoUpdate(SessionInfoUpdate) = "session_info_update",
        /// Replaces the context window usage (and cost) figures shown for the session.
        UsageUpdate(UsageUpdate) = "usage_update",
        /// Announces a context compaction run or reports its new status.
        CompactionUpdate(Box<CompactionUpdate>) = "compaction_update",
        /// A piece of a compaction summary, appended to that run's summary.
        CompactionSummaryChunk(CompactionSummaryChunk) = "compaction_summary_chunk",
        /// Replaces the list of prompts the agent expects the user to send next (only to
        /// clients that advertised `session.promptSuggestions`; not history).
        #[cfg(feature = "unstable_prompt_suggestions")]
        PromptSuggestionsUpdate(Box<PromptSuggestionsUpdate>) = "prompt_suggestions_update",
        /// Announces session cursor `cursorId` or changes what it allows.
        #[cfg(feature = "unstable_session_cursors")]
        CursorUpdate(Box<CursorUpdate>) = "cursor_update",
        /// Announces a child (subagent) session of this session or updates its details.
        SubagentUpdate(Box<SubagentUpdate>) = "subagent_update",
        /// Creates or updates a message exchanged with another session.
        SessionMessage(Box<SessionMessage>) = "session_message",
        /// A piece of a message exchanged with another session, appended to its content.
        SessionMessageChunk(SessionMessageChunk) = "session_message_chunk",
    } live {
        /// An advisory notice for the user (such as "MCP server unavailable"). It is not
        /// conversation history, is never replayed, and changes no session state. Sent only to
        /// clients that advertised `clientCapabilities.session.notices`.
        Notice(Notice) = "notice",
    }
}

impl SessionUpdate {
    /// A `user_message_chunk` update carrying `content`.
    pub fn user_message_chunk(content: impl Into<ContentBlock>) -> Self {
        Self::UserMessageChunk(ContentChunk::new(content))
    }

    /// An `agent_message_chunk` update carrying `content`:
    /// `SessionUpdate::agent_message_chunk("Hello")`.
    pub fn agent_message_chunk(content: impl Into<ContentBlock>) -> Self {
        Self::AgentMessageChunk(ContentChunk::new(content))
    }

    /// An `agent_thought_chunk` update carrying `content`.
    pub fn agent_thought_chunk(content: impl Into<ContentBlock>) -> Self {
        Self::AgentThoughtChunk(ContentChunk::new(content))
    }
}

// `From<Payload>` for every payload type used by exactly one variant.
from_variants!(SessionUpdate {
    ToolCall(ToolCall),
    ToolCallUpdate(ToolCallUpdate),
    Plan(Plan),
    PlanUpdate(PlanUpdate),
    PlanRemoved(PlanRemoved),
    AvailableCommandsUpdate(AvailableCommandsUpdate),
    CurrentModeUpdate(CurrentModeUpdate),
    ConfigOptionUpdate(ConfigOptionUpdate),
    SessionInfoUpdate(SessionInfoUpdate),
    UsageUpdate(UsageUpdate),
    Notice(Notice),
    CompactionUpdate(CompactionUpdate),
    CompactionSummaryChunk(CompactionSummaryChunk),
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
    /// the three `*_chunk` message updates.
    ///
    /// ```json
    /// {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "Hel"}, "messageId": "m1"}
    /// ```
    pub struct ContentChunk {
        /// The piece of content.
        pub content: ContentBlock,
        /// The message this piece belongs to, so that pieces of different messages can be
        /// told apart. Absent: the current message of that kind. A malformed value is treated
        /// as absent.
        #[opt("crate::de::lenient_string")]
        pub message_id: Option<MessageId>,
    }
}

encode_struct!(ContentChunk { req content, opt message_id, opt meta = "_meta" });

impl ContentChunk {
    /// A piece of content with no message id.
    pub fn new(content: impl Into<ContentBlock>) -> Self {
        Self {
            content: content.into(),
            message_id: None,
            meta: None,
        }
    }
}

setters!(ContentChunk { opt message_id: MessageId });

wire_struct! {
    /// The `session_info_update` session update: changes session metadata the client shows,
    /// such as the session's title in a session list.
    ///
    /// Fields that are present replace the shown ones; absent fields stay as they were. (ACP
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
        /// When the session was last active, as an ISO 8601 timestamp.
        #[patch("crate::de::lenient_patch")]
        pub updated_at: crate::Patch<String>,
    }
}

default_new!(
    SessionInfoUpdate,
    "An update that changes nothing yet; add fields with the setters."
);

setters!(SessionInfoUpdate { patch title: String, patch updated_at: String });

encode_union!(SessionUpdate {
    UserMessageChunk,
    AgentMessageChunk,
    AgentThoughtChunk,
    ToolCall,
    ToolCallUpdate,
    Plan,
    PlanUpdate,
    UsageUpdate,
    Notice,
});
