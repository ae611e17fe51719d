//! The requirement registry: every requirement the agent suite judges, declared once in
//! [`ALL`], and those of the client suite in [`CLIENT`].
//!
//! Each requirement cites the sentence it comes from, in our own words, with the place to read
//! the original: a requirement is never stronger than that sentence (a `SHOULD` there is a
//! `SHOULD` here).

use std::fmt;

mod client;

pub use client::CLIENT;

/// How strong a requirement is (RFC 2119 words, as the cited sentence uses them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// An absolute requirement: a failure makes `acp conform` exit with 1.
    Must,
    /// A recommendation: a failure is reported but does not fail the run.
    Should,
    /// An option: reported for information.
    May,
}

impl Level {
    /// `MUST`, `SHOULD` or `MAY`.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Must => "MUST",
            Level::Should => "SHOULD",
            Level::May => "MAY",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One requirement of the agent suite ([`ALL`]) or of the client suite ([`CLIENT`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Requirement {
    /// The stable id (`init.version.newer`): what `--only` takes and reports name.
    pub id: &'static str,
    /// How strong it is.
    pub level: Level,
    /// The protocol versions it applies to (`&[1, 2]` for both).
    pub versions: &'static [u16],
    /// What the agent must do, in one line.
    pub summary: &'static str,
    /// The sentence it rests on, paraphrased.
    pub sentence: &'static str,
    /// Where that sentence is: a file and item of a specification or RFD.
    pub source: &'static str,
}

impl Requirement {
    /// Whether the requirement applies to protocol `version`.
    pub fn applies_to(&self, version: u16) -> bool {
        self.versions.contains(&version)
    }
}

/// Every requirement, in the order the suite runs them.
pub const ALL: &[Requirement] = &[
    Requirement {
        id: "init.version.same",
        level: Level::Must,
        versions: &[1, 2],
        summary: "`initialize` with the version under test is answered with that version, or with another one the agent supports",
        sentence: "The response carries the version the client asked for when the agent supports it, else the latest version the agent supports.",
        source: "agent-client-protocol-schema 1.20.0, src/v1/agent.rs and src/v2/agent.rs, InitializeResponse::protocol_version",
    },
    Requirement {
        id: "init.version.newer",
        level: Level::Must,
        versions: &[1, 2],
        summary: "a proposal of a version newer than any (99) is answered with a version the agent supports, not 99",
        sentence: "The response carries the version the client asked for when the agent supports it, else the latest version the agent supports.",
        source: "agent-client-protocol-schema 1.20.0, src/v1/agent.rs, InitializeResponse::protocol_version",
    },
    Requirement {
        id: "init.version.older",
        level: Level::Must,
        versions: &[1, 2],
        summary: "a proposal of a version older than any (0) is answered with a version the agent supports, or with error -32022",
        sentence: "v1: the response carries the latest version the agent supports when it does not support the one asked for. v2: the version is the highest supported at or below the one asked for, and without one initialization fails with -32022. The two disagree for a proposal below every version; either answer passes.",
        source: "agent-client-protocol-schema 1.20.0, src/v1/agent.rs and src/v2/agent.rs, InitializeResponse::protocol_version; src/v2/error.rs, ErrorCode::UnsupportedProtocolVersion",
    },
    Requirement {
        id: "init.capabilities.types",
        level: Level::Must,
        versions: &[1, 2],
        summary: "the agent's capabilities are an object whose known members have the JSON types of the schema",
        sentence: "AgentCapabilities and its members are objects and booleans of the shapes the schema declares.",
        source: "agent-client-protocol-schema 1.20.0, src/v1/agent.rs and src/v2/agent.rs, AgentCapabilities",
    },
    Requirement {
        id: "init.auth-methods",
        level: Level::Must,
        versions: &[1, 2],
        summary: "`authMethods`, when present, is an array of objects each with a string id and a string name",
        sentence: "The agent lists the authentication methods it supports; each has an id and a human-readable name.",
        source: "agent-client-protocol-schema 1.20.0, src/v1/agent.rs and src/v2/agent.rs, InitializeResponse::auth_methods, AuthMethod",
    },
    Requirement {
        id: "rpc.parse-error.survives",
        level: Level::Must,
        versions: &[1, 2],
        summary: "after a line that is not JSON the agent still answers the next valid request",
        sentence: "A server answers a request whose JSON it cannot parse with an error response; the connection goes on.",
        source: "JSON-RPC 2.0 specification, section 5.1 (Parse error)",
    },
    Requirement {
        id: "rpc.parse-error.code",
        level: Level::Should,
        versions: &[1, 2],
        summary: "a line that is not JSON is answered with error -32700 and a null id",
        sentence: "Invalid JSON gets the Parse error code -32700; when the id cannot be read, the response's id is null.",
        source: "JSON-RPC 2.0 specification, sections 5 and 5.1",
    },
    Requirement {
        id: "rpc.method-not-found",
        level: Level::Must,
        versions: &[1, 2],
        summary: "a request for a method the agent does not know is answered with error -32601",
        sentence: "A method that does not exist or is not available gets code -32601 (Method not found).",
        source: "JSON-RPC 2.0 specification, section 5.1; agent-client-protocol-schema 1.20.0, src/v1/error.rs, ErrorCode::MethodNotFound",
    },
    Requirement {
        id: "rpc.invalid-params",
        level: Level::Should,
        versions: &[1, 2],
        summary: "a known method with params of the wrong type is answered with error -32602",
        sentence: "Invalid method parameters get code -32602 (Invalid params).",
        source: "JSON-RPC 2.0 specification, section 5.1; agent-client-protocol-schema 1.20.0, src/v1/error.rs, ErrorCode::InvalidParams",
    },
    Requirement {
        id: "rpc.id.string",
        level: Level::Must,
        versions: &[1, 2],
        summary: "a request with a string id is answered with exactly that id",
        sentence: "The response's id is the same as the request's id.",
        source: "JSON-RPC 2.0 specification, section 5 (Response object, id)",
    },
    Requirement {
        id: "rpc.id.number",
        level: Level::Must,
        versions: &[1, 2],
        summary: "a request with a large number id is answered with exactly that id",
        sentence: "The response's id is the same as the request's id.",
        source: "JSON-RPC 2.0 specification, section 5 (Response object, id)",
    },
    Requirement {
        id: "rpc.notification.unanswered",
        level: Level::Must,
        versions: &[1, 2],
        summary: "a notification (`session/cancel` for an unknown session, no id) gets no response",
        sentence: "The server does not reply to a notification, not even with an error.",
        source: "JSON-RPC 2.0 specification, section 4.1 (Notification)",
    },
    Requirement {
        id: "rpc.notification.unknown-ignored",
        level: Level::Must,
        versions: &[1, 2],
        summary: "an unknown notification gets no response and the agent answers the next request",
        sentence: "The server does not reply to a notification, not even with an error.",
        source: "JSON-RPC 2.0 specification, section 4.1 (Notification)",
    },
    Requirement {
        id: "session.new",
        level: Level::Must,
        versions: &[1, 2],
        summary: "`session/new` is answered with a string `sessionId`",
        sentence: "The agent creates a session and answers with its unique id.",
        source: "agent-client-protocol-schema 1.20.0, src/v1/agent.rs and src/v2/agent.rs, NewSessionResponse::session_id",
    },
    Requirement {
        id: "session.prompt",
        level: Level::Must,
        versions: &[1, 2],
        summary: "`session/prompt` with a short text ends with a string stop reason (v1: in the response; v2: a response with a `messageId`, then an `idle` state update with `stopReason`)",
        sentence: "v1: the prompt's response says why the turn stopped. v2: the response acknowledges the inserted message by id, and completion is reported by state updates.",
        source: "agent-client-protocol-schema 1.20.0, src/v1/agent.rs, PromptResponse::stop_reason; src/v2/agent.rs, PromptResponse and IdleStateUpdate",
    },
    Requirement {
        id: "session.unknown-id",
        level: Level::Should,
        versions: &[1, 2],
        summary: "`session/prompt`, and `session/load` and `session/resume` where advertised, answer an unknown session id with an error, the same code from each",
        sentence: "A resource that does not exist is reported with the ResourceNotFound error; one condition, one code.",
        source: "agent-client-protocol-schema 1.20.0, src/v1/error.rs, ErrorCode::ResourceNotFound",
    },
    Requirement {
        id: "session.methods.advertised",
        level: Level::Must,
        versions: &[1, 2],
        summary: "every session method the agent advertises (v1: `session/load`, `list`, `resume`, `close`, `delete` by its capabilities; v2: `list`, `resume`, `close` always, `delete` by its capability) answers something other than -32601",
        sentence: "A capability tells the client that the agent supports the method; -32601 says the method does not exist or is not available.",
        source: "agent-client-protocol-schema 1.20.0, src/v1/agent.rs (AgentCapabilities::load_session, SessionCapabilities) and src/v2/agent.rs (SessionCapabilities::delete); JSON-RPC 2.0 specification, section 5.1",
    },
    Requirement {
        id: "session.methods.unadvertised",
        level: Level::Should,
        versions: &[1, 2],
        summary: "a session method the agent does not advertise answers -32601",
        sentence: "A method that is not available gets -32601 (Method not found); the capabilities say which optional methods are available.",
        source: "JSON-RPC 2.0 specification, section 5.1; agent-client-protocol-schema 1.20.0, src/v1/agent.rs, SessionCapabilities",
    },
    Requirement {
        id: "session.list",
        level: Level::Must,
        versions: &[1, 2],
        summary: "where `session/list` is available, it answers a `sessions` array of objects with a string `sessionId` and `cwd`, the session just made among them (following `nextCursor`)",
        sentence: "The response lists the sessions the agent knows, each with its id and working directory, a page at a time with a cursor to the next.",
        source: "agent-client-protocol-schema 1.20.0, src/v1/agent.rs and src/v2/agent.rs, ListSessionsResponse, SessionInfo",
    },
    Requirement {
        id: "session.close",
        level: Level::Must,
        versions: &[1, 2],
        summary: "where `session/close` is available, closing the run's own session answers a result",
        sentence: "session/close closes an active session and releases its resources; the response is an object.",
        source: "agent-client-protocol-schema 1.20.0, src/v1/agent.rs and src/v2/agent.rs, CloseSessionRequest, CloseSessionResponse",
    },
    Requirement {
        id: "session.delete",
        level: Level::Must,
        versions: &[1, 2],
        summary: "where `session/delete` is advertised, deleting a session just made answers a result",
        sentence: "An agent that advertises session deletion deletes a session on request; the response is an object.",
        source: "agent-client-protocol-schema 1.20.0, src/v1/agent.rs and src/v2/agent.rs, SessionCapabilities::delete, DeleteSessionResponse",
    },
    Requirement {
        id: "session.fork",
        level: Level::Must,
        versions: &[1, 2],
        summary: "where `session/fork` is advertised (v1 `sessionCapabilities.fork`, v2 `session.fork`; unstable), forking a session that has had a turn answers a new string `sessionId` that answers a prompt, and the original session still answers one",
        sentence: "An agent that advertises forking creates, on request, a new session with the original's context, active as soon as it answers, without changing the original's history.",
        source: "agent-client-protocol-schema 1.20.0, src/v1/agent.rs and src/v2/agent.rs, SessionCapabilities::fork, ForkSessionRequest, ForkSessionResponse::session_id (unstable_session_fork)",
    },
    Requirement {
        id: "turn.stop-reason",
        level: Level::Must,
        versions: &[1],
        summary: "every stop reason of a prompt response is one of `end_turn`, `max_tokens`, `max_turn_requests`, `refusal`, `cancelled` (v2 leaves the set open)",
        sentence: "StopReason is one of the five values the schema lists.",
        source: "agent-client-protocol-schema 1.20.0, src/v1/agent.rs, StopReason",
    },
    Requirement {
        id: "turn.cancel",
        level: Level::Must,
        versions: &[1, 2],
        summary: "`session/cancel` sent while the agent waits for a permission answer (then answered `cancelled`) ends the turn with stop reason `cancelled` within the response timeout; not exercised when the agent asks no permission",
        sentence: "On session/cancel the agent stops the running turn, and the turn ends with the cancelled stop reason; the client answers pending permission requests with the cancelled outcome.",
        source: "agent-client-protocol-schema 1.20.0, src/v1/agent.rs (CancelNotification, StopReason::Cancelled) and src/v1/client.rs (RequestPermissionOutcome::Cancelled), the same in src/v2",
    },
    Requirement {
        id: "turn.cancel.streaming",
        level: Level::Must,
        versions: &[1, 2],
        summary: "`session/cancel` sent once the turn's first content update (a message or thought chunk, a tool call, a plan) came, while no permission request waits, ends the turn with stop reason `cancelled` within the response timeout; not exercised when the turn ends or asks permission first",
        sentence: "The cancelled stop reason must be returned when the client sends session/cancel, even when the cancellation makes underlying operations fail.",
        source: "agent-client-protocol-schema 1.20.0, src/v1/agent.rs (CancelNotification, StopReason::Cancelled), the same in src/v2",
    },
    Requirement {
        id: "turn.cancel.tools-closed",
        level: Level::Should,
        versions: &[1, 2],
        summary: "after a cancelled turn every tool call opened in it was last reported `completed` or `failed` (v2: or `cancelled`)",
        sentence: "A tool call goes from pending or in progress to a final status; a cancelled turn leaves no tool call running.",
        source: "agent-client-protocol-schema 1.20.0, src/v1/tool_call.rs and src/v2/tool_call.rs, ToolCallStatus",
    },
    Requirement {
        id: "turn.tool-call-ids.unique",
        level: Level::Must,
        versions: &[1],
        summary: "no two `tool_call` updates of a session (outside a replay) carry the same `toolCallId`",
        sentence: "The tool call id is unique within the session.",
        source: "agent-client-protocol-schema 1.20.0, src/v1/tool_call.rs, ToolCall::tool_call_id",
    },
    Requirement {
        id: "turn.tool-call-ids.reload",
        level: Level::Must,
        versions: &[1, 2],
        summary: "after a session is reloaded (v1 `session/load` when `loadSession` is advertised, v2 `session/resume`), the tool calls of the next turn carry none of the ids of the turn before the reload; not exercised when either turn makes no tool call",
        sentence: "The tool call id is unique within the session; a reloaded session is the same session.",
        source: "agent-client-protocol-schema 1.20.0, src/v1/tool_call.rs and src/v2/tool_call.rs, ToolCall::tool_call_id and ToolCallUpdate::tool_call_id",
    },
    Requirement {
        id: "turn.permission",
        level: Level::Must,
        versions: &[1, 2],
        summary: "whether its `session/request_permission` is answered allow, reject or `cancelled`, the agent ends the turn with a stop reason (not an error, not silence); not exercised when it asks no permission",
        sentence: "Every request gets a response; a permission answer is either a selected option or the cancelled outcome, and the agent goes on from either.",
        source: "JSON-RPC 2.0 specification, section 4 (Request object); agent-client-protocol-schema 1.20.0, src/v1/client.rs and src/v2/client.rs, RequestPermissionOutcome",
    },
    Requirement {
        id: "requests.advertised-only",
        level: Level::Must,
        versions: &[1, 2],
        summary: "to a client that advertises no file system and no terminal (v1: `fs` false, `terminal` false; v2 has no such methods), the agent sends no `fs/*` or `terminal/*` request",
        sentence: "The agent calls the client's file system and terminal methods only when the client advertised the matching capability.",
        source: "agent-client-protocol-schema 1.20.0, src/v1/client.rs, ClientCapabilities::fs and ::terminal",
    },
    Requirement {
        id: "session.replay.no-notice",
        level: Level::Should,
        versions: &[1, 2],
        summary: "the replay of `session/load` (v1, when `loadSession` is advertised) or `session/resume` from the start (v2) carries no `notice` update",
        sentence: "A notice is a live event and should not be included in session replay.",
        source: "Session notices RFD, the notice variant (replay)",
    },
    Requirement {
        id: "notice.v1.gate",
        level: Level::Must,
        versions: &[1],
        summary: "over a v1 run whose client does not advertise `session.notices`, no `notice` update arrives",
        sentence: "Agents must not send notice updates to a v1 client unless it advertises the capability; an agent message is the allowed fallback.",
        source: "Session notices RFD, the v1 capability (clientCapabilities.session.notices)",
    },
    Requirement {
        id: "notice.well-formed",
        level: Level::Must,
        versions: &[1, 2],
        summary: "every notice received has a string severity, a non-empty string title, and a description and `_meta` that are absent, null or of their type",
        sentence: "severity is required and non-null; title is a required non-empty string; description (a string) and _meta (an object) are optional and nullable.",
        source: "Session notices RFD, the notice fields",
    },
];

/// The agent suite's requirement with this id.
pub fn find(id: &str) -> Option<&'static Requirement> {
    ALL.iter().find(|r| r.id == id)
}

/// The client suite's requirement with this id.
pub fn find_client(id: &str) -> Option<&'static Requirement> {
    CLIENT.iter().find(|r| r.id == id)
}
