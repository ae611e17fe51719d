//! The agent side: implement [`Agent`], serve it with [`AgentServer`].
//!
//! An agent implements one method, [`Agent::prompt`]; every other method of both versions'
//! method tables has a typed handler with a documented default, and the runtime answers what
//! it can itself, from the session store: `initialize` (negotiating v1 or v2), `session/new`,
//! `session/load`, `session/resume` (with the replay of the recorded history, never a
//! notice), `session/list`, `session/close`, `session/delete`, `session/set_mode` and
//! `session/set_config_option` (checked against what the session offers).
//!
//! With the cargo features of the official unstable surface, the unstable methods join in the
//! same way: the runtime answers `session/fork`, `session/archive`, `session/unarchive`,
//! `session/set_title` and `session/status` from the store, and the methods only an agent can
//! answer (`providers/*`, `auth/status`, `session/options`) are answered when
//! [`UnstableFeatures`] declares them.
//!
//! What `initialize` advertises is derived from one place, the agent's [`AgentFeatures`] and
//! the store's [`StoreFeatures`] (see [`Offer`]): a capability is advertised exactly when the
//! methods it implies are answered, and a method that is not advertised answers `-32601`.
//!
//! Prompt turns follow the lifecycle of the negotiated version:
//!
//! * v1: `session/prompt` is answered when [`Agent::prompt`] returns, with its stop reason.
//! * v2: `session/prompt` is answered at once with the user message's `messageId`, the message
//!   is echoed as a `user_message` update with that id, and the turn runs framed by
//!   `state_update` `running` and `idle` (with the stop reason).
//!
//! Typed requests to the client (permission, files, terminals, elicitation) are on
//! [`Session`] and [`ClientConnection`], each behind the one capability gate of
//! [`ConnectedClient::require`]. Tool calls are announced with [`Session::start_tool_call`],
//! which gives each a fresh id and returns a [`ToolCallHandle`] for its updates.
//!
//! # Cancellation
//!
//! The [`Session`] a prompt handler gets belongs to its turn. When the client cancels the turn
//! (`session/cancel`; `session/close` and `session/delete` cancel it too), the runtime ends it
//! at once, whatever the handler is doing:
//!
//! 1. Every call of the turn fails from then on with [`Error::Cancelled`](crate::Error::Cancelled)
//!    and sends nothing: text, notices, tool calls, titles, modes, and requests to the client
//!    (permission, files, terminals, elicitation). So `?` ends the handler; a handler that
//!    goes on anyway cannot send. A request still waiting for the client's answer stops
//!    waiting, fails the same way, and is cancelled with `$/cancel_request`. (Only
//!    [`Terminal::kill`] and [`Terminal::release`] still go out, to clean up.)
//! 2. The runtime waits until no call of the turn is half-way through sending (so that the
//!    cancellations of step 1 are on the wire first), closes the tool calls the turn announced
//!    and did not finish, and sends the stop reason `cancelled`. It does not wait for the
//!    handler to return: a handler that ignores the cancellation delays nothing.
//! 3. Nothing of that turn is sent after the stop. The next prompt of the session may start.
//!    A handler error that is the cancellation (`-32800` from [`Error::Cancelled`](crate::Error::Cancelled))
//!    also ends a turn `cancelled`, never with an error.
//!
//! On the wire, after the client's `{"method":"session/cancel","params":{"sessionId":"S"}}`:
//!
//! * **v1**: `{"method":"$/cancel_request","params":{"requestId":N}}` for each request of the
//!   turn still waiting (a `session/request_permission`, an `fs/read_text_file`, ...);
//!   `session/update` `tool_call_update` `{"toolCallId":"call_...","status":"failed"}` for each
//!   tool call left open (v1 has no `cancelled` status); then the response to
//!   `session/prompt`, `{"stopReason":"cancelled"}`.
//! * **v2**: the same `$/cancel_request`s; `tool_call_update`
//!   `{"toolCallId":"call_...","status":"cancelled"}` for each tool call left open; then
//!   `state_update` `{"state":"idle","stopReason":"cancelled"}`. No `requires_action` is
//!   reported once the turn is cancelled. (The prompt itself was answered with its `messageId`
//!   when it was inserted.)
//!
//! A turn that ends otherwise closes the tool calls it left open too, `failed` in both
//! versions, before its stop (v1 response, v2 idle state).
//!
//! # Recording
//!
//! Every update that belongs to the history is in the session store before the client is sent
//! it; notices and state never are. With a store that groups its writes
//! ([`SessionStore::groups_appends`]: the file, SQLite and PostgreSQL stores), a send call
//! ([`Session::send_text`], [`Session::send_v1`], ...) queues the update and returns: the
//! runtime records the updates a handler sends in a burst with one store write
//! ([`SessionStore::append_batch`]: one transaction for SQLite and PostgreSQL, one file
//! write), then sends them, in the order they were sent, while the handler goes on. At
//! most 1,024 updates of a session wait so; a send call beyond that waits for room. Before a
//! request to the client (a permission, a file, a terminal) and before the end of a turn,
//! the runtime waits until the queue is empty, so the client always sees the updates before
//! the request or the stop that followed them.
//!
//! When a write fails (the store is full, the disk or the database is), the updates of that
//! write are not sent, and the session's next call fails with [`Error::Store`](crate::Error::Store)
//! (or the turn ends with that error, when the handler made no further call), so `?` ends
//! the handler and the history still holds exactly what the client saw.
//! [`Session::flush`] waits for the queue when a handler wants to know at a point of its own.
//! With the memory store, each update is recorded and sent in the call that sends it, and a
//! failure fails that call.
//!
//! Session set-up hooks ([`Agent::session_opened`]) run after the response to `session/new`,
//! v1 `session/load` or v1 `session/resume`, and for a v2 `session/resume` after its replay
//! (`replay_complete`) and state but before its response (nothing for a resumed session may
//! follow that response), so anything they send (notices included) is live and never part of
//! a replay. A v2 resume's hook must therefore not wait for a later event of that session (a
//! prompt, a cancel): the client sends none before the response, and the response waits for
//! the hook, so the two wait for each other.
//!
//! Sessions belong to someone: each connection acts for a [`Principal`] (the local user over
//! stdio; over a remote server, the principal of the bearer token), a session is owned by the
//! principal that created it ([`SessionMeta::owner`]), and a connection sees only its
//! principal's sessions. Another principal's session answers every method exactly as an
//! unknown id does.

mod calls;
mod config;
mod connected_client;
mod dispatch;
mod drain;
mod features;
mod ids;
mod info;
mod lease;
mod listing;
mod open_sessions;
mod outbox;
#[cfg(feature = "remote")]
mod remote;
mod server;
mod session;
mod setup;
mod tool_call;
mod turn;

use std::future::Future;

use acptk_schema::jsonrpc::{ErrorObject, RawValue};
use acptk_schema::method::Extension;

/// Lives in `crate::client_feature`, below the crate's error, which names it.
pub use crate::client_feature::ClientFeature;
#[cfg(feature = "unstable_auth_status")]
pub use crate::draft_payloads::{AuthStatus, AuthStatusQuery, AuthStatusUpdate};
#[cfg(feature = "unstable_llm_providers")]
pub use crate::draft_payloads::{DisableProvider, ListProviders, ProviderList, SetProvider};
#[cfg(feature = "unstable_mcp_over_acp")]
pub use crate::draft_payloads::{McpNotification, McpRequest, McpResponse};
pub use crate::mcp_server::McpServerSpec;
/// Lives in `crate::principal`, below the transports, which name it too.
pub use crate::principal::Principal;
pub use crate::stop_reason::StopReason;
/// The session stores, re-exported where they were first published: they live in
/// [`crate::store`], below the agent.
pub use crate::store::{
    ConfigValue, DEFAULT_LEASE, DEFAULT_MAX_ENTRIES, DEFAULT_MAX_SESSION_BYTES, FileStore,
    HistoryEntry, MemoryStore, SessionMeta, SessionStore, StoreError, StoreFeatures, StoreFuture,
};
/// The session stores, re-exported where they were first published: they live in
/// [`crate::store`], below the agent.
#[cfg(feature = "sqlite")]
pub use crate::store::{DEFAULT_BUSY_TIMEOUT, FileImport, SqliteStore};
/// The session stores, re-exported where they were first published: they live in
/// [`crate::store`], below the agent.
#[cfg(feature = "postgres")]
pub use crate::store::{DEFAULT_POOL_SIZE, PostgresStore};
pub use calls::{
    ExitStatus, PermissionChoice, PermissionKind, PermissionOutcome, PermissionRequest, Terminal,
    TerminalCommand, TerminalOutput,
};
pub use config::{
    ConfigChoice, ConfigKind, ConfigOption, MODE_OPTION_ID, Mode, Modes, SessionConfig,
};
pub use connected_client::{ClientConnection, ConnectedClient, Elicitation};
pub use drain::{CANCEL_WAIT, Drained};
#[cfg(feature = "unstable_session_options")]
pub use features::draft_methods::OptionsQuery;
pub use features::draft_methods::UnstableFeatures;
pub use features::{
    AgentFeatures, AgentMethod, AuthMethodSpec, McpTransports, Offer, PromptContent,
    SystemPromptModes,
};
pub use ids::fresh_id;
pub use info::AgentInfo;
pub use listing::DEFAULT_PAGE_SIZE;
#[cfg(feature = "remote")]
pub use remote::RemoteServer;
pub use server::AgentServer;
pub use session::{CommandSpec, Session};
#[cfg(feature = "unstable_session_archive")]
pub use setup::ArchiveFilter;
pub use setup::{
    ListRequest, Prompt, SessionOrigin, SessionPage, SessionSetup, SessionSummary, SystemPromptSpec,
};
pub use tool_call::{
    Diff, ToolCall, ToolCallChange, ToolCallHandle, ToolCallStatus, ToolContent, ToolKind,
    ToolLocation,
};

use crate::rpc;

/// Declares an [`Agent`] handler of a method only the agent can answer, whose default answers
/// `-32601` (the doc comment gets that sentence).
macro_rules! unanswered {
    (
        $(#[doc = $doc:expr])*
        #[cfg($cfg:meta)]
        fn $name:ident($($arg:ident: $type:ty),+) -> $out:ty = $method:literal;
    ) => {
        $(#[doc = $doc])*
        #[doc = "Default: `-32601`."]
        #[cfg($cfg)]
        fn $name(
            &self,
            $($arg: $type),+
        ) -> impl Future<Output = Result<$out, ErrorObject>> + Send {
            let _ = ($($arg),+);
            async { Err(rpc::method_not_found($method)) }
        }
    };
}

/// An ACP agent. Implement the turn ([`Agent::prompt`]); everything else has a default.
///
/// Methods return `impl Future + Send`; implement them with `async fn`. Handlers that refuse
/// a request return the JSON-RPC error to answer with (see [`crate::rpc`]).
pub trait Agent: Send + Sync + 'static {
    /// Who the agent is (name, title, version), sent in the `initialize` response. Default:
    /// [`AgentInfo::default`], `acptk-runtime-agent` at the runtime's version.
    fn info(&self) -> AgentInfo {
        AgentInfo::default()
    }

    /// What the agent supports beyond the baseline. Read at every `initialize`; it decides,
    /// with the store's features, what is advertised and what is answered. Default: only the
    /// protocol's baseline (text and resource links in prompts, no MCP transport beyond what
    /// v1 requires of every agent, no authentication): nothing is advertised that the agent
    /// did not declare.
    fn features(&self) -> AgentFeatures {
        AgentFeatures::new()
    }

    /// `authenticate` (v1) / `auth/login` (v2) with one of the methods of
    /// [`AgentFeatures::auth_methods`] (the runtime refuses other ids with `-32602`).
    /// Default: accepted.
    fn authenticate(
        &self,
        client: &ClientConnection,
        method_id: &str,
    ) -> impl Future<Output = Result<(), ErrorObject>> + Send {
        let _ = (client, method_id);
        async { Ok(()) }
    }

    /// `logout` (v1) / `auth/logout` (v2), answered when authentication methods are
    /// listed. Default: accepted.
    fn logout(
        &self,
        client: &ClientConnection,
    ) -> impl Future<Output = Result<(), ErrorObject>> + Send {
        let _ = client;
        async { Ok(()) }
    }

    /// `session/new`: accepts (or refuses, for example with [`rpc::auth_required`]) a new
    /// session and gives its modes and options. The runtime then stores it under a fresh
    /// random id. Default: accepted, with no modes and no options.
    fn new_session(
        &self,
        setup: &SessionSetup,
    ) -> impl Future<Output = Result<SessionConfig, ErrorObject>> + Send {
        let _ = setup;
        async { Ok(SessionConfig::new()) }
    }

    /// `session/load` (v1) of a stored session, before its history is replayed. The
    /// returned configuration gets the session's stored current values. Default: the
    /// configuration of a new session ([`Agent::new_session`]).
    fn load_session(
        &self,
        setup: &SessionSetup,
    ) -> impl Future<Output = Result<SessionConfig, ErrorObject>> + Send {
        self.new_session(setup)
    }

    /// `session/resume` of a stored session, before any replay (v2). Default: as
    /// [`Agent::load_session`].
    fn resume_session(
        &self,
        setup: &SessionSetup,
    ) -> impl Future<Output = Result<SessionConfig, ErrorObject>> + Send {
        self.new_session(setup)
    }

    /// Called after a session was created, loaded or resumed on a connection: once the
    /// response (and any replay) has been sent, except for a v2 `session/resume`, where it
    /// runs after the replay's `replay_complete` and the state snapshot but before the
    /// response (everything for a resumed session comes before that response). Notices sent
    /// from here are live events. It counts as part of the request that opened the session
    /// (its in-flight slot stays taken until it returns): spawn work that should run on.
    ///
    /// Because a v2 `session/resume` sends its response only once this hook has returned,
    /// the client has not seen the resume answered while it runs, and nothing it does for
    /// that session (a prompt, a cancel) can arrive before the response: a hook that waits
    /// for such a later event of the same session deadlocks. Spawn a task for the waiting.
    fn session_opened(
        &self,
        session: Session,
        setup: SessionSetup,
    ) -> impl Future<Output = ()> + Send {
        let _ = (session, setup);
        async {}
    }

    /// `session/list`: gets the page the runtime built from the store (the sessions of the
    /// connection's principal and version, filtered by `cwd`, most recent first) and
    /// answers with it or another (which must keep to the sessions of
    /// [`ListRequest::principal`]). Default: the runtime's page.
    fn list_sessions(
        &self,
        request: &ListRequest,
        page: SessionPage,
    ) -> impl Future<Output = Result<SessionPage, ErrorObject>> + Send {
        let _ = request;
        async { Ok(page) }
    }

    /// `session/close`, after the runtime cancelled the running turn and waited for its end;
    /// release what the session holds here. Default: nothing.
    fn close_session(&self, session: Session) -> impl Future<Output = ()> + Send {
        let _ = session;
        async {}
    }

    /// `session/delete` of a stored session, before the runtime closes it and removes it
    /// from the store; an error keeps it. Not called for an id the connection's principal
    /// has no session under: that delete succeeds without changing anything. Default:
    /// accepted.
    fn delete_session(&self, id: &str) -> impl Future<Output = Result<(), ErrorObject>> + Send {
        let _ = id;
        async { Ok(()) }
    }

    /// `session/set_mode` (v1; in v2 the mode option of `session/set_config_option`) with a
    /// mode the session offers (the runtime refuses others with `-32602`). On success the
    /// runtime makes it current and stores it. Default: accepted.
    fn set_mode(
        &self,
        session: &Session,
        mode_id: &str,
    ) -> impl Future<Output = Result<(), ErrorObject>> + Send {
        let _ = (session, mode_id);
        async { Ok(()) }
    }

    /// `session/set_config_option` with an option and a value the session offers (the
    /// runtime refuses others with `-32602`). On success the runtime makes it current,
    /// stores it and answers with the full list. Default: accepted.
    fn set_config_option(
        &self,
        session: &Session,
        option_id: &str,
        value: &ConfigValue,
    ) -> impl Future<Output = Result<(), ErrorObject>> + Send {
        let _ = (session, option_id, value);
        async { Ok(()) }
    }

    /// Runs one prompt turn: stream updates through `session`, return why the turn ended.
    /// An error answers the v1 prompt with it, and ends a v2 turn with an `error` stop reason.
    /// After `session/cancel` the turn ends `cancelled` whatever this returns.
    fn prompt(
        &self,
        session: Session,
        prompt: Prompt,
    ) -> impl Future<Output = Result<StopReason, ErrorObject>> + Send;

    /// Called when the client sends `session/cancel` (or closes the session); the runtime
    /// has already flagged the turn ([`Session::cancelled`]) and released the prompts still
    /// waiting. Default: nothing.
    fn cancel(&self, session: Session) -> impl Future<Output = ()> + Send {
        let _ = session;
        async {}
    }

    /// v2 `tool_call/cancel` of a tool call that advertises `capabilities.cancel` (the
    /// runtime refuses others with `-32602` and has already woken
    /// [`Session::tool_call_cancelled`]). Default: accepted.
    fn cancel_tool_call(
        &self,
        session: Session,
        tool_call_id: &str,
    ) -> impl Future<Output = Result<(), ErrorObject>> + Send {
        let _ = (session, tool_call_id);
        async { Ok(()) }
    }

    /// v2 `terminal/cancel` of an agent terminal that advertises `capabilities.cancel` (as
    /// [`Agent::cancel_tool_call`], with [`Session::terminal_cancelled`]). Default: accepted.
    fn cancel_terminal(
        &self,
        session: Session,
        terminal_id: &str,
    ) -> impl Future<Output = Result<(), ErrorObject>> + Send {
        let _ = (session, terminal_id);
        async { Ok(()) }
    }

    unanswered! {
        /// `providers/list`, answered only when [`UnstableFeatures::providers`] is declared.
        #[cfg(feature = "unstable_llm_providers")]
        fn list_providers(client: &ClientConnection, request: ListProviders) -> ProviderList
            = "providers/list";
    }

    unanswered! {
        /// `providers/set`: replaces the whole configuration of one provider.
        #[cfg(feature = "unstable_llm_providers")]
        fn set_provider(client: &ClientConnection, request: SetProvider) -> () = "providers/set";
    }

    unanswered! {
        /// `providers/disable`: switches one provider off.
        #[cfg(feature = "unstable_llm_providers")]
        fn disable_provider(client: &ClientConnection, request: DisableProvider) -> ()
            = "providers/disable";
    }

    unanswered! {
        /// `auth/status`, answered only when [`UnstableFeatures::auth_status`] is declared: the
        /// current authentication state, changing nothing.
        #[cfg(feature = "unstable_auth_status")]
        fn auth_status(client: &ClientConnection, request: AuthStatusQuery) -> AuthStatus
            = "auth/status";
    }

    unanswered! {
        /// `session/options`, answered only when [`UnstableFeatures::session_options`] is
        /// declared: the modes and options a session would start with. It must have no side
        /// effects (no session, no update, no MCP connection).
        #[cfg(feature = "unstable_session_options")]
        fn session_options(query: &OptionsQuery) -> SessionConfig = "session/options";
    }

    /// `session/fork` of the stored session `source` into the new session of `setup`
    /// (origin [`SessionOrigin::Forked`]), before the runtime copies the history. The
    /// returned configuration gets the source's current values. Default: the configuration
    /// of a new session ([`Agent::new_session`]).
    #[cfg(feature = "unstable_session_fork")]
    fn fork_session(
        &self,
        source: &str,
        setup: &SessionSetup,
    ) -> impl Future<Output = Result<SessionConfig, ErrorObject>> + Send {
        let _ = source;
        self.new_session(setup)
    }

    /// `session/archive` (`archived` true) or `session/unarchive` (false) of a stored
    /// session, before the runtime records the flag; an error leaves it as it was.
    /// Default: accepted.
    #[cfg(feature = "unstable_session_archive")]
    fn archive_session(
        &self,
        id: &str,
        archived: bool,
    ) -> impl Future<Output = Result<(), ErrorObject>> + Send {
        let _ = (id, archived);
        async { Ok(()) }
    }

    /// `session/set_title` of a stored session with a title the runtime already trimmed
    /// (and refused when empty); returns the title to store and report back. Default: the
    /// title as given.
    #[cfg(feature = "unstable_session_set_title")]
    fn set_session_title(
        &self,
        id: &str,
        title: &str,
    ) -> impl Future<Output = Result<String, ErrorObject>> + Send {
        let _ = id;
        let title = title.to_owned();
        async move { Ok(title) }
    }

    /// An `mcp/message` notification from the client, about a request the agent sent to
    /// one of its `acp` MCP servers. Default: ignored.
    #[cfg(feature = "unstable_mcp_over_acp")]
    fn mcp_notification(
        &self,
        client: ClientConnection,
        notification: McpNotification,
    ) -> impl Future<Output = ()> + Send {
        let _ = (client, notification);
        async {}
    }

    /// Handles an extension request (`_`-prefixed method). Default: `-32601`.
    fn extension_request(
        &self,
        client: ClientConnection,
        request: Extension,
    ) -> impl Future<Output = Result<Box<RawValue>, ErrorObject>> + Send {
        let _ = client;
        async move { Err(rpc::method_not_found(&request.method)) }
    }

    /// Handles an extension notification. Default: ignored.
    fn extension_notification(
        &self,
        client: ClientConnection,
        notification: Extension,
    ) -> impl Future<Output = ()> + Send {
        let _ = (client, notification);
        async {}
    }
}
