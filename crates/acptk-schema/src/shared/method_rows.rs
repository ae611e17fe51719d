//! The method-table rows both versions share: the session methods in the middle of the
//! client's requests, the unstable methods at the end of each table,
//! and the tables that are the same in both (protocol notifications, proxy chains).
//!
//! A version's `methods.rs` writes each of its tables through `with_shared_rows!`, naming
//! which table it is; the shared rows of that table go after the version's own (the shared
//! session methods of `ClientRequest` between two groups of them), so the order of the methods,
//! which the JSON Schema output follows, stays the one each version's table always had.
//! The type names in the rows resolve in the version's `methods` module.

/// Adds the rows both versions share to one of a version's method tables and hands it to
/// `request_table!` or `notification_table!`:
///
/// ```text
/// with_shared_rows! { agent_requests: request_table! {
///     /// docs of the enum
///     AgentRequest -> ClientResponse { ...the version's own rows... }
/// } }
/// ```
///
/// The kinds are `client_requests`, `client_notifications`, `agent_requests` and
/// `agent_notifications` (the side that sends them). The shared rows go after the version's
/// own, except that `client_requests` takes the version's rows in two groups,
/// `{ ...before... } { ...after... }`, and puts the session methods both versions share
/// (`session/set_config_option` to `session/close`) between them.
macro_rules! with_shared_rows {
    (
        $kind:ident: $table:ident! {
            $(#[doc = $doc:expr])*
            $name:ident $(-> $responses:ident)? $({ $($rows:tt)* })+
        }
    ) => {
        with_shared_rows! {
            @$kind $table [$(#[doc = $doc])* $name $(-> $responses)?] [$([$($rows)*])+]
        }
    };
    (@emit $table:ident [$($head:tt)*] [$($rows:tt)*]) => {
        $table! { $($head)* { $($rows)* } }
    };
    (@client_requests $table:ident [$($head:tt)*] [[$($rows:tt)*] [$($later_rows:tt)*]]) => {
        with_shared_rows! { @emit $table [$($head)*] [
            $($rows)*
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
            $($later_rows)*
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
        ] }
    };
    (@client_notifications $table:ident [$($head:tt)*] [[$($rows:tt)*]]) => {
        with_shared_rows! { @emit $table [$($head)*] [
            $($rows)*
            /// `mcp/message`: Carries an inner MCP message about an active request on an `acp` MCP server (client to agent).
            #[cfg(feature = "unstable_mcp_over_acp")]
            McpMessageNotify = "mcp/message" (MessageMcpNotification);
        ] }
    };
    (@agent_requests $table:ident [$($head:tt)*] [[$($rows:tt)*]]) => {
        with_shared_rows! { @emit $table [$($head)*] [
            $($rows)*
            /// `elicitation/create`: Asks the user, through the client, for structured input.
            ElicitationCreate = "elicitation/create" (CreateElicitationRequest) -> CreateElicitationResponse;
            /// `mcp/message`: Sends an inner MCP request to an `acp` MCP server that the client provides.
            #[cfg(feature = "unstable_mcp_over_acp")]
            McpMessage = "mcp/message" (MessageMcpRequest) -> MessageMcpResponse;
        ] }
    };
    (@agent_notifications $table:ident [$($head:tt)*] [[$($rows:tt)*]]) => {
        with_shared_rows! { @emit $table [$($head)*] [
            $($rows)*
            /// `elicitation/complete`: Tells the client that an elicitation finished outside the protocol (for example in a browser).
            ElicitationComplete = "elicitation/complete" (CompleteElicitationNotification);
            /// `auth/status_update`: Reports a change of the agent's authentication state.
            #[cfg(feature = "unstable_auth_status")]
            AuthStatusUpdate = "auth/status_update" (AuthStatusUpdateNotification);
        ] }
    };
}

/// The tables that are the same in both versions: protocol notifications and, with
/// `unstable_proxy_chains`, the conductor-proxy methods.
macro_rules! shared_method_tables {
    () => {
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
    };
}
