//! The requirements of the client suite (`acp conform client`): what a client under test must
//! do on the wire when an agent plays the scenarios of [`crate::client_suite`].

use super::{Level, Requirement};

/// Every requirement of the client suite, in the order the report lists them.
pub const CLIENT: &[Requirement] = &[
    Requirement {
        id: "client.init.first",
        level: Level::Must,
        versions: &[1, 2],
        summary: "the first message is an `initialize` request with an integer `protocolVersion` (v1: and `clientCapabilities` an object when present; v2: and an `info` object with a string name and version)",
        sentence: "The client initializes the connection before anything else, proposing a protocol version; v2 requires the client's implementation info.",
        source: "agent-client-protocol-schema 1.20.0, src/v1/client.rs and src/v2/client.rs, InitializeRequest",
    },
    Requirement {
        id: "client.init.capabilities.types",
        level: Level::Must,
        versions: &[1, 2],
        summary: "the client's capabilities have the JSON types of the schema (v1: `fs` an object of booleans, `terminal` a boolean, `session.notices` an object or null; v2: `auth` and `elicitation` objects or null)",
        sentence: "ClientCapabilities and its members are objects and booleans of the shapes the schema declares; `session.notices` is an object, `{}` advertising notices.",
        source: "agent-client-protocol-schema 1.20.0, ClientCapabilities; Session notices RFD, the v1 capability",
    },
    Requirement {
        id: "client.prompt.shape",
        level: Level::Must,
        versions: &[1, 2],
        summary: "`session/prompt` names the session the agent created and carries a `prompt` array of content blocks, each an object with a string `type`",
        sentence: "A prompt request carries the session id and the user's message as content blocks.",
        source: "agent-client-protocol-schema 1.20.0, src/v1/agent.rs and src/v2/agent.rs, PromptRequest",
    },
    Requirement {
        id: "client.rpc.method-not-found",
        level: Level::Must,
        versions: &[1, 2],
        summary: "a request for a method the client does not know (`_acp_conform/probe`) is answered with error -32601",
        sentence: "A method that does not exist or is not available gets code -32601 (Method not found); an extension request the receiver does not recognize is answered so.",
        source: "JSON-RPC 2.0 specification, section 5.1; ACP extensibility (custom requests)",
    },
    Requirement {
        id: "client.rpc.response-ids",
        level: Level::Must,
        versions: &[1, 2],
        summary: "every request of the agent (string and number ids) is answered once, with exactly its id",
        sentence: "The response's id is the same as the request's id; a request gets one response.",
        source: "JSON-RPC 2.0 specification, section 5 (Response object, id)",
    },
    Requirement {
        id: "client.rpc.notification-unanswered",
        level: Level::Must,
        versions: &[1, 2],
        summary: "no response answers a notification (a session update, a notice): every response names a request the agent sent, or answers the malformed line with -32700",
        sentence: "The receiver does not reply to a notification, not even with an error; a notice has no response or acknowledgement.",
        source: "JSON-RPC 2.0 specification, section 4.1; Session notices RFD, the notice variant",
    },
    Requirement {
        id: "client.rpc.parse-error.survives",
        level: Level::Must,
        versions: &[1, 2],
        summary: "after a line that is not JSON, the client still answers the agent's next request",
        sentence: "Invalid JSON is answered with a parse error at most; the connection goes on.",
        source: "JSON-RPC 2.0 specification, section 5.1 (Parse error)",
    },
    Requirement {
        id: "client.notice.survives",
        level: Level::Must,
        versions: &[1, 2],
        summary: "after notices of each severity, an unknown and an `_`-prefixed severity, null and absent description and `_meta`, and two identical notices, the client still answers the agent's next request",
        sentence: "NoticeSeverity is open: clients keep an unknown string and present it generically; description and _meta may be omitted or null; repeated notices are independent events.",
        source: "Session notices RFD, the notice fields and NoticeSeverity",
    },
    Requirement {
        id: "client.update.unknown-kind.survives",
        level: Level::Must,
        versions: &[2],
        summary: "after a session update of a kind it does not know, the client still answers the agent's next request",
        sentence: "v2 clients keep unknown session updates through the unknown session-update fallback, then ignore or present them generically.",
        source: "Session notices RFD, the version-specific capability (v2 unknown session-update fallback); agent-client-protocol-schema 1.20.0, src/v2, SessionUpdate (other)",
    },
    Requirement {
        id: "client.permission.answer",
        level: Level::Must,
        versions: &[1, 2],
        summary: "`session/request_permission` is answered with the outcome `selected` and one of the offered option ids, or `cancelled`",
        sentence: "The client answers a permission request with the option the user selected, or cancelled when the turn was cancelled.",
        source: "agent-client-protocol-schema 1.20.0, RequestPermissionResponse and RequestPermissionOutcome",
    },
    Requirement {
        id: "client.fs.read.answer",
        level: Level::Must,
        versions: &[1],
        summary: "where `fs.readTextFile` is advertised, `fs/read_text_file` of an existing file is answered with its text in `content`, or with an error carrying an integer code",
        sentence: "A client that advertises readTextFile lets the agent read text files through fs/read_text_file; the response carries the file's content.",
        source: "agent-client-protocol-schema 1.20.0, src/v1/client.rs, ReadTextFileRequest and ReadTextFileResponse; FileSystemCapabilities",
    },
    Requirement {
        id: "client.cancel.notification",
        level: Level::Must,
        versions: &[1, 2],
        summary: "a cancellation from the client is a `session/cancel` notification (no id) naming the session of the running turn",
        sentence: "The client cancels a turn by sending the session/cancel notification with the session id.",
        source: "agent-client-protocol-schema 1.20.0, src/v1/agent.rs and src/v2/agent.rs, CancelNotification",
    },
];
