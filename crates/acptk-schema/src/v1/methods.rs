//! The v1 method tables: every method of ACP v1, by the side that handles it.
//!
//! Generated types and routing enums come from the tables below, which are the single
//! source of truth for method names in this version.

use super::*;

request_table! {
    /// Requests handled by the agent (sent by the client).
    ClientRequest -> AgentResponse {
        /// `initialize`: Opens the connection: the client proposes a protocol version and its capabilities; the agent answers with the version it speaks, its capabilities and its authentication methods.
        Initialize = "initialize" (InitializeRequest) -> InitializeResponse;
        /// `authenticate`: Authenticates with one of the methods the agent listed in its `initialize` response.
        Authenticate = "authenticate" (AuthenticateRequest) -> AuthenticateResponse;
        /// `session/new`: Creates a session for a working directory and a set of MCP servers.
        SessionNew = "session/new" (NewSessionRequest) -> NewSessionResponse;
        /// `session/load`: Loads an existing session: the agent replays its history as `session/update` notifications before it answers.
        SessionLoad = "session/load" (LoadSessionRequest) -> LoadSessionResponse;
        /// `session/set_mode`: Switches the session to another of the modes the agent offered.
        SessionSetMode = "session/set_mode" (SetSessionModeRequest) -> SetSessionModeResponse;
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
        /// `logout`: Ends the authenticated state established by `authenticate`.
        Logout = "logout" (LogoutRequest) -> LogoutResponse;
        /// `providers/list`: Lists the LLM providers the client may configure.
        #[cfg(feature = "unstable_llm_providers")]
        ProvidersList = "providers/list" (ListProvidersRequest) -> ListProvidersResponse;
        /// `providers/set`: Replaces the configuration of one LLM provider.
        #[cfg(feature = "unstable_llm_providers")]
        ProvidersSet = "providers/set" (SetProviderRequest) -> SetProviderResponse;
        /// `providers/disable`: Switches one LLM provider off.
        #[cfg(feature = "unstable_llm_providers")]
        ProvidersDisable = "providers/disable" (DisableProviderRequest) -> DisableProviderResponse;
        /// `auth/status`: Asks whether the user must sign in, without changing anything.
        #[cfg(feature = "unstable_auth_status")]
        AuthStatus = "auth/status" (AuthStatusRequest) -> AuthStatusResponse;
        /// `session/fork`: Starts a new session with a copy of an existing session's history.
        #[cfg(feature = "unstable_session_fork")]
        SessionFork = "session/fork" (ForkSessionRequest) -> ForkSessionResponse;
        /// `session/archive`: Hides a session from the default session list.
        #[cfg(feature = "unstable_session_archive")]
        SessionArchive = "session/archive" (ArchiveSessionRequest) -> ArchiveSessionResponse;
        /// `session/unarchive`: Returns an archived session to the default session list.
        #[cfg(feature = "unstable_session_archive")]
        SessionUnarchive = "session/unarchive" (UnarchiveSessionRequest) -> UnarchiveSessionResponse;
        /// `session/status`: Asks whether the agent has a session in memory, without side effects.
        #[cfg(feature = "unstable_session_status")]
        SessionStatus = "session/status" (SessionStatusRequest) -> SessionStatusResponse;
        /// `session/options`: Asks which config options a session would start with, without creating one.
        #[cfg(feature = "unstable_session_options")]
        SessionOptions = "session/options" (SessionOptionsRequest) -> SessionOptionsResponse;
        /// `session/set_title`: Renames a session.
        #[cfg(feature = "unstable_session_set_title")]
        SessionSetTitle = "session/set_title" (SetSessionTitleRequest) -> SetSessionTitleResponse;
    }
}

notification_table! {
    /// Notifications handled by the agent (sent by the client).
    ClientNotification {
        /// `session/cancel`: Asks the agent to stop the current turn of a session.
        SessionCancel = "session/cancel" (CancelNotification);
        /// `mcp/message`: Carries an inner MCP message about an active request on an `acp` MCP server (client to agent).
        #[cfg(feature = "unstable_mcp_over_acp")]
        McpMessageNotify = "mcp/message" (MessageMcpNotification);
    }
}

request_table! {
    /// Requests handled by the client (sent by the agent).
    AgentRequest -> ClientResponse {
        /// `session/request_permission`: Asks the user, through the client, to allow or deny an action.
        SessionRequestPermission = "session/request_permission" (RequestPermissionRequest) -> RequestPermissionResponse;
        /// `fs/write_text_file`: Writes a text file through the client (which may include unsaved editor state).
        FsWriteTextFile = "fs/write_text_file" (WriteTextFileRequest) -> WriteTextFileResponse;
        /// `fs/read_text_file`: Reads a text file through the client (which may include unsaved editor state).
        FsReadTextFile = "fs/read_text_file" (ReadTextFileRequest) -> ReadTextFileResponse;
        /// `terminal/create`: Starts a command in a new terminal managed by the client.
        TerminalCreate = "terminal/create" (CreateTerminalRequest) -> CreateTerminalResponse;
        /// `terminal/output`: Reads the output captured so far from a client terminal.
        TerminalOutput = "terminal/output" (TerminalOutputRequest) -> TerminalOutputResponse;
        /// `terminal/release`: Releases a client terminal, killing its command if it still runs.
        TerminalRelease = "terminal/release" (ReleaseTerminalRequest) -> ReleaseTerminalResponse;
        /// `terminal/wait_for_exit`: Waits until the command of a client terminal exits.
        TerminalWaitForExit = "terminal/wait_for_exit" (WaitForTerminalExitRequest) -> WaitForTerminalExitResponse;
        /// `terminal/kill`: Kills the command of a client terminal, keeping the terminal.
        TerminalKill = "terminal/kill" (KillTerminalRequest) -> KillTerminalResponse;
        /// `elicitation/create`: Asks the user, through the client, for structured input.
        ElicitationCreate = "elicitation/create" (CreateElicitationRequest) -> CreateElicitationResponse;
        /// `mcp/message`: Sends an inner MCP request to an `acp` MCP server that the client provides.
        #[cfg(feature = "unstable_mcp_over_acp")]
        McpMessage = "mcp/message" (MessageMcpRequest) -> MessageMcpResponse;
    }
}

notification_table! {
    /// Notifications handled by the client (sent by the agent).
    AgentNotification {
        /// `session/update`: Reports progress of a session: messages, thoughts, tool calls, plans, notices and more.
        SessionUpdate = "session/update" (SessionNotification);
        /// `elicitation/complete`: Tells the client that an elicitation finished outside the protocol (for example in a browser).
        ElicitationComplete = "elicitation/complete" (CompleteElicitationNotification);
        /// `auth/status_update`: Reports a change of the agent's authentication state.
        #[cfg(feature = "unstable_auth_status")]
        AuthStatusUpdate = "auth/status_update" (AuthStatusUpdateNotification);
    }
}

notification_table! {
    /// Protocol-level notifications, which either side may send.
    ProtocolNotification {
        /// `$/cancel_request`: Asks the peer to cancel a request that is still in flight (either direction).
        CancelRequest = "$/cancel_request" (CancelRequestNotification);
    }
}

#[cfg(feature = "unstable_proxy_chains")]
request_table! {
    /// Requests between a conductor and the proxies it runs (cargo feature
    /// `unstable_proxy_chains`): the conductor sends both methods to a proxy, a proxy sends
    /// `proxy/successor` to its conductor.
    ProxyRequest -> ProxyResponse {
        /// `proxy/initialize`: Starts a component as a proxy (the conductor's `initialize` for every component that has a successor).
        ProxyInitialize = "proxy/initialize" (InitializeProxyRequest) -> InitializeProxyResponse;
        /// `proxy/successor`: Passes a request to or from a proxy's successor; the wrapped request's result comes back unchanged.
        ProxySuccessor = "proxy/successor" (ProxySuccessorRequest) -> ProxySuccessorResponse;
    }
}

#[cfg(feature = "unstable_proxy_chains")]
notification_table! {
    /// Notifications between a conductor and the proxies it runs (cargo feature
    /// `unstable_proxy_chains`), in either direction.
    ProxyNotification {
        /// `proxy/successor`: Passes a notification to or from a proxy's successor.
        ProxySuccessorNotify = "proxy/successor" (ProxySuccessorNotification);
    }
}
