//! The v2 method tables: every method of ACP v2, by the side that handles it.
//!
//! Generated types and routing enums come from the tables below, which are the single
//! source of truth for method names in this version. Each table lists this version's own
//! rows; `with_shared_rows!` (in `shared/method_rows.rs`) adds the rows both versions share
//! (in `ClientRequest`, the shared session methods go between its two groups of rows).

use super::*;

with_shared_rows! { client_requests: request_table! {
    /// Requests handled by the agent (sent by the client).
    ClientRequest -> AgentResponse {
        /// `initialize`: Opens the connection: the client proposes a protocol version and its capabilities; the agent answers with the version it speaks, its capabilities and its authentication methods.
        Initialize = "initialize" (InitializeRequest) -> InitializeResponse;
        /// `auth/login`: Authenticates with one of the methods the agent listed in its `initialize` response.
        AuthLogin = "auth/login" (LoginAuthRequest) -> LoginAuthResponse;
        /// `session/new`: Creates a session for a working directory and a set of MCP servers.
        SessionNew = "session/new" (NewSessionRequest) -> NewSessionResponse;
    } {
        // Here `with_shared_rows!` puts `session/set_config_option` to `session/close`.
        /// `tool_call/cancel`: Asks the agent to cancel one running tool call.
        ToolCallCancel = "tool_call/cancel" (CancelToolCallRequest) -> CancelToolCallResponse;
        /// `terminal/cancel`: Asks the agent to cancel one running terminal command.
        TerminalCancel = "terminal/cancel" (CancelTerminalRequest) -> CancelTerminalResponse;
        /// `auth/logout`: Ends the authenticated state established by `auth/login`.
        AuthLogout = "auth/logout" (LogoutAuthRequest) -> LogoutAuthResponse;
    }
} }

with_shared_rows! { client_notifications: notification_table! {
    /// Notifications handled by the agent (sent by the client).
    ClientNotification {
        /// `session/cancel`: Asks the agent to stop the current turn of a session.
        SessionCancel = "session/cancel" (CancelSessionNotification);
    }
} }

with_shared_rows! { agent_requests: request_table! {
    /// Requests handled by the client (sent by the agent).
    AgentRequest -> ClientResponse {
        /// `session/request_permission`: Asks the user, through the client, to allow or deny an action.
        SessionRequestPermission = "session/request_permission" (RequestPermissionRequest) -> RequestPermissionResponse;
    }
} }

with_shared_rows! { agent_notifications: notification_table! {
    /// Notifications handled by the client (sent by the agent).
    AgentNotification {
        /// `session/update`: Reports progress of a session: messages, thoughts, tool calls, plans, notices and more.
        SessionUpdate = "session/update" (UpdateSessionNotification);
    }
} }

shared_method_tables!();
