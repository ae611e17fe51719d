//! The v2 method tables: every method of ACP v2, by the side that handles it.
//!
//! Generated types and routing enums come from the tables below, which are the single
//! source of truth for method names in this version.

use super::*;

request_table! {
    /// Requests handled by the agent (sent by the client).
    ClientRequest -> AgentResponse {
        /// `initialize`: Opens the connection: the client proposes a protocol version and its capabilities; the agent answers with the version it speaks, its capabilities and its authentication methods.
        Initialize = "initialize" (InitializeRequest) -> InitializeResponse;
        /// `auth/login`: Authenticates with one of the methods the agent listed in its `initialize` response.
        AuthLogin = "auth/login" (LoginAuthRequest) -> LoginAuthResponse;
        /// `session/new`: Creates a session for a working directory and a set of MCP servers.
        SessionNew = "session/new" (NewSessionRequest) -> NewSessionResponse;
        /// `session/set_config_option`: Sets one of the session configuration options the agent offered.
        SessionSetConfigOption = "session/set_config_option" (SetSessionConfigOptionRequest) -> SetSessionConfigOptionResponse;
        /// `session/prompt`: Sends a user prompt to the session.
        SessionPrompt = "session/prompt" (PromptRequest) -> PromptResponse;
        /// `session/list`: Lists the sessions the agent knows.
        SessionList = "session/list" (ListSessionsRequest) -> ListSessionsResponse;
        /// `session/delete`: Deletes a session.
        SessionDelete = "session/delete" (DeleteSessionRequest) -> DeleteSessionResponse;
        /// `session/resume`: Resumes an existing session, optionally replaying its history.
        SessionResume = "session/resume" (ResumeSessionRequest) -> ResumeSessionResponse;
        /// `session/close`: Closes a session and releases its resources.
        SessionClose = "session/close" (CloseSessionRequest) -> CloseSessionResponse;
        /// `tool_call/cancel`: Asks the agent to cancel one running tool call.
        ToolCallCancel = "tool_call/cancel" (CancelToolCallRequest) -> CancelToolCallResponse;
        /// `terminal/cancel`: Asks the agent to cancel one running terminal command.
        TerminalCancel = "terminal/cancel" (CancelTerminalRequest) -> CancelTerminalResponse;
        /// `auth/logout`: Ends the authenticated state established by `auth/login`.
        AuthLogout = "auth/logout" (LogoutAuthRequest) -> LogoutAuthResponse;
    }
}

notification_table! {
    /// Notifications handled by the agent (sent by the client).
    ClientNotification {
        /// `session/cancel`: Asks the agent to stop the current turn of a session.
        SessionCancel = "session/cancel" (CancelSessionNotification);
    }
}

request_table! {
    /// Requests handled by the client (sent by the agent).
    AgentRequest -> ClientResponse {
        /// `session/request_permission`: Asks the user, through the client, to allow or deny an action.
        SessionRequestPermission = "session/request_permission" (RequestPermissionRequest) -> RequestPermissionResponse;
        /// `elicitation/create`: Asks the user, through the client, for structured input.
        ElicitationCreate = "elicitation/create" (CreateElicitationRequest) -> CreateElicitationResponse;
    }
}

notification_table! {
    /// Notifications handled by the client (sent by the agent).
    AgentNotification {
        /// `session/update`: Reports progress of a session: messages, thoughts, tool calls, plans, notices and more.
        SessionUpdate = "session/update" (UpdateSessionNotification);
        /// `elicitation/complete`: Tells the client that an elicitation finished outside the protocol (for example in a browser).
        ElicitationComplete = "elicitation/complete" (CompleteElicitationNotification);
    }
}

notification_table! {
    /// Protocol-level notifications, which either side may send.
    ProtocolNotification {
        /// `$/cancel_request`: Asks the peer to cancel a request that is still in flight (either direction).
        CancelRequest = "$/cancel_request" (CancelRequestNotification);
    }
}
