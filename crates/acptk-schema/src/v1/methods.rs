//! The v1 method tables: every method of ACP v1, by the side that handles it.
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
        /// `authenticate`: Authenticates with one of the methods the agent listed in its `initialize` response.
        Authenticate = "authenticate" (AuthenticateRequest) -> AuthenticateResponse;
        /// `session/new`: Creates a session for a working directory and a set of MCP servers.
        SessionNew = "session/new" (NewSessionRequest) -> NewSessionResponse;
        /// `session/load`: Loads an existing session: the agent replays its history as `session/update` notifications before it answers.
        SessionLoad = "session/load" (LoadSessionRequest) -> LoadSessionResponse;
        /// `session/set_mode`: Switches the session to another of the modes the agent offered.
        SessionSetMode = "session/set_mode" (SetSessionModeRequest) -> SetSessionModeResponse;
    } {
        // Here `with_shared_rows!` puts `session/set_config_option` to `session/close`.
        /// `logout`: Ends the authenticated state established by `authenticate`.
        Logout = "logout" (LogoutRequest) -> LogoutResponse;
    }
} }

with_shared_rows! { client_notifications: notification_table! {
    /// Notifications handled by the agent (sent by the client).
    ClientNotification {
        /// `session/cancel`: Asks the agent to stop the current turn of a session.
        SessionCancel = "session/cancel" (CancelNotification);
    }
} }

with_shared_rows! { agent_requests: request_table! {
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
    }
} }

with_shared_rows! { agent_notifications: notification_table! {
    /// Notifications handled by the client (sent by the agent).
    AgentNotification {
        /// `session/update`: Reports progress of a session: messages, thoughts, tool calls, plans, notices and more.
        SessionUpdate = "session/update" (SessionNotification);
    }
} }

shared_method_tables!();
