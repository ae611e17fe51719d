//! The agent's handle to one session on one connection: sends updates (recording the
//! replayable ones), delivers notices by the rules of the client's version, changes the
//! session's title, mode and options, and tells a turn whether it was cancelled.
//!
//! Typed requests to the client (permission, files, terminals, elicitation) are in
//! [`calls`](super::calls).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use acptk_schema::method::NotificationMethod;
use acptk_schema::v1::ProtocolVersion;
use acptk_schema::{v1, v2};

use super::config::MODE_OPTION_ID;
use super::connected_client::{ClientConnection, ConnectedClient};
use super::ids::fresh_id;
use super::open_sessions::{Cancellable, SessionState};
use super::outbox::Outbox;
use super::turn::{Busy, Turn};
use crate::client_feature::ClientFeature;
use crate::connection::Connection;
use crate::error::Error;
use crate::notice::{FallbackPolicy, Notice, NoticeDelivery};
use crate::store::ConfigValue;
use crate::store::{HistoryEntry, SessionStore};
use crate::version::ByVersion;

/// A slash command the agent offers (`/name`), with the hint shown for its input.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CommandSpec {
    /// The name, without the `/`.
    pub name: String,
    /// What it does.
    pub description: String,
    /// What to type after it, if it takes input.
    pub hint: Option<String>,
}

impl CommandSpec {
    /// A command without input.
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            hint: None,
        }
    }

    /// Sets the input hint.
    #[must_use]
    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
}

#[derive(Debug)]
struct Inner {
    state: Arc<SessionState>,
    client: ClientConnection,
    fallback: FallbackPolicy,
    /// `session/close` arrived on this connection: nothing more is sent.
    closed: AtomicBool,
    /// Updates waiting to be recorded and sent, in order.
    outbox: Outbox,
}

/// One session as seen by the agent on one connection. Cheap to clone.
///
/// The session a prompt handler gets belongs to its turn: once the client cancels the turn
/// (`session/cancel`, or closes or deletes the session), every call through it (and its
/// clones) fails with [`Error::Cancelled`] and sends nothing, so `?` ends the handler. See
/// [the agent module](super#cancellation) for the exact sequence on the wire.
///
/// Every update sent through it that may be history is recorded in the session store, except
/// state (`state_update`, `replay_complete`, `available_commands_update`,
/// `current_mode_update`, `config_option_update`: the session responses carry the current
/// values). Notices are never recorded. When recording fails (the store is full, the disk
/// is), the update is not sent either and the call fails with [`Error::Store`], so the
/// history always holds what the client saw.
#[derive(Debug, Clone)]
pub struct Session {
    inner: Arc<Inner>,
    /// The prompt turn this handle belongs to (the handler's session), if any.
    turn: Option<Arc<Turn>>,
}

impl Session {
    pub(crate) fn new(
        state: Arc<SessionState>,
        client: ClientConnection,
        fallback: FallbackPolicy,
    ) -> Self {
        let outbox = Outbox::new(
            Arc::clone(&state.store),
            state.id.clone(),
            client.connection().clone(),
        );
        Self {
            inner: Arc::new(Inner {
                state,
                client,
                fallback,
                closed: AtomicBool::new(false),
                outbox,
            }),
            turn: None,
        }
    }

    /// The same session, bound to `turn` (what a prompt handler gets).
    pub(crate) fn for_turn(&self, turn: Arc<Turn>) -> Self {
        Self {
            inner: Arc::clone(&self.inner),
            turn: Some(turn),
        }
    }

    /// The turn this handle belongs to, while it runs.
    pub(crate) fn turn(&self) -> Option<&Arc<Turn>> {
        self.turn.as_ref().filter(|turn| !turn.is_ended())
    }

    /// Admits one call: fails with [`Error::Cancelled`] once this handle's turn was
    /// cancelled, and otherwise keeps the turn's stop waiting until the guard is dropped.
    pub(crate) fn admit(&self) -> Result<Option<Busy<'_>>, Error> {
        match &self.turn {
            Some(turn) if turn.is_cancelled() || !turn.is_ended() => turn.enter().map(Some),
            _ => Ok(None),
        }
    }

    pub(crate) fn state(&self) -> &Arc<SessionState> {
        &self.inner.state
    }

    /// The session id.
    pub fn id(&self) -> &str {
        &self.inner.state.id
    }

    /// The protocol version of the connection.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.inner.client.protocol_version()
    }

    /// The client on the other end: version, capabilities, name.
    pub fn client(&self) -> &ConnectedClient {
        self.inner.client.info()
    }

    /// The client with its typed calls that need no session.
    pub fn client_connection(&self) -> &ClientConnection {
        &self.inner.client
    }

    /// The connection, to send requests of your own.
    pub fn connection(&self) -> &Connection {
        self.inner.client.connection()
    }

    /// The store holding this session.
    pub fn store(&self) -> &Arc<dyn SessionStore> {
        &self.inner.state.store
    }

    /// Whether `session/close` arrived for this session on this connection (or it was
    /// deleted); sends then fail with [`Error::SessionClosed`].
    pub fn is_closed(&self) -> bool {
        self.inner.closed.load(Ordering::Relaxed) || self.inner.state.is_deleted()
    }

    pub(crate) fn mark_closed(&self) {
        self.inner.closed.store(true, Ordering::Relaxed);
    }

    fn check_open(&self) -> Result<(), Error> {
        if self.is_closed() {
            Err(Error::SessionClosed(self.id().to_owned()))
        } else {
            Ok(())
        }
    }

    /// The turn this handle's calls count against: its own, or (outside a handler) the one
    /// running now.
    fn running_turn(&self) -> Option<Arc<Turn>> {
        match &self.turn {
            Some(turn) => Some(Arc::clone(turn)),
            None => self.inner.state.current_turn(),
        }
    }

    /// Whether the client cancelled the turn (the handler's own; outside a handler, the one
    /// running now).
    pub fn is_cancelled(&self) -> bool {
        self.running_turn().is_some_and(|turn| turn.is_cancelled())
    }

    /// Resolves when the client cancels the turn (`session/cancel`, `session/close`, or a
    /// deletion): the handler's own, or outside a handler the one running now (never, when
    /// none runs). Use it in a `tokio::select!` beside work that makes no runtime call.
    pub async fn cancelled(&self) {
        match self.running_turn() {
            Some(turn) => turn.cancelled().await,
            None => std::future::pending().await,
        }
    }

    /// Whether a turn is running: the handler's own (until its stop was sent), or outside a
    /// handler any turn of the session.
    pub fn is_turn_running(&self) -> bool {
        match &self.turn {
            Some(turn) => !turn.is_ended(),
            None => self.inner.state.is_running(),
        }
    }

    /// The agent message id for chunks: the turn's, or a fresh one outside a turn.
    fn message_id(&self) -> String {
        match self.running_turn() {
            Some(turn) if !turn.is_ended() => turn.message_id(),
            _ => fresh_id("msg"),
        }
    }

    /// Starts a new agent message in the turn: later [`Self::send_text`] chunks get a fresh
    /// message id (for example for text after a tool call).
    pub fn new_message(&self) {
        if let Some(turn) = self.running_turn() {
            turn.new_message();
        }
    }

    /// Sends one notice, by the rules of the client's version, and says what happened.
    ///
    /// * v2, or v1 when the client advertised `session.notices`: a `notice` update
    ///   ([`NoticeDelivery::Sent`]); never recorded in the history.
    /// * v1 without `session.notices`: with the default [`FallbackPolicy::AgentMessage`], an
    ///   `agent_message_chunk` carrying [`Notice::fallback_text`] (its own message id), which is
    ///   recorded in the history like any message ([`NoticeDelivery::FellBack`]); with
    ///   [`FallbackPolicy::Drop`], nothing ([`NoticeDelivery::Dropped`]).
    pub async fn notice(&self, notice: &Notice) -> Result<NoticeDelivery, Error> {
        self.notice_with(notice, self.inner.fallback).await
    }

    /// Like [`Self::notice`] with an explicit fallback policy for this notice.
    pub async fn notice_with(
        &self,
        notice: &Notice,
        fallback: FallbackPolicy,
    ) -> Result<NoticeDelivery, Error> {
        if self.client().supports(ClientFeature::Notices) {
            match self.protocol_version() {
                ProtocolVersion::V1 => {
                    self.send_v1(v1::SessionUpdate::Notice(notice.to_v1()))
                        .await?;
                }
                _ => {
                    self.send_v2(v2::SessionUpdate::Notice(notice.to_v2()))
                        .await?;
                }
            }
            return Ok(NoticeDelivery::Sent);
        }
        match fallback {
            FallbackPolicy::Drop => Ok(NoticeDelivery::Dropped),
            FallbackPolicy::AgentMessage => {
                let chunk =
                    v1::ContentChunk::new(notice.fallback_text()).message_id(fresh_id("msg"));
                self.send_v1(v1::SessionUpdate::AgentMessageChunk(chunk))
                    .await?;
                Ok(NoticeDelivery::FellBack)
            }
        }
    }

    /// Sends a v1 session update, recording it in the history when it is replayable.
    ///
    /// A `notice` update to a client that did not advertise `session.notices` fails with
    /// [`Error::NotAdvertised`] and nothing is sent. On a v2 connection this fails with
    /// [`Error::WrongVersion`].
    pub async fn send_v1(&self, update: v1::SessionUpdate) -> Result<(), Error> {
        if self.protocol_version() != ProtocolVersion::V1 {
            return Err(self.wrong_version(ProtocolVersion::V1));
        }
        let _busy = self.admit()?;
        if update.is_live_only() {
            self.client().require(ClientFeature::Notices)?;
        }
        if let Some(turn) = self.turn() {
            turn.track_v1(&update);
        }
        self.send_v1_unchecked(update).await
    }

    /// Sends and records a v1 update whatever the turn: the runtime's own updates.
    pub(crate) async fn send_v1_unchecked(&self, update: v1::SessionUpdate) -> Result<(), Error> {
        self.check_open()?;
        let entry = recorded::<v1::ReplayableUpdate, _>(&update, records_v1, HistoryEntry::V1);
        let params = v1::SessionNotification::new(self.id(), update);
        self.queue::<v1::methods::SessionUpdate>(entry, &params)
            .await
    }

    /// Queues notification `M` in the outbox, to be sent once `entry` (if any) is recorded.
    async fn queue<M: NotificationMethod>(
        &self,
        entry: Option<HistoryEntry>,
        params: &M::Params,
    ) -> Result<(), Error> {
        let line = Connection::encode_notification::<M>(params)?;
        self.inner.outbox.push(entry, line).await
    }

    /// Sends a v2 session update, recording it in the history when it is replayable. On a v1
    /// connection this fails with [`Error::WrongVersion`].
    ///
    /// A `tool_call_update` or `terminal_update` that advertises `capabilities.cancel` makes
    /// the runtime answer the client's `tool_call/cancel` or `terminal/cancel` for it (until an
    /// update takes the capability away or reports a final status); see
    /// [`Self::tool_call_cancelled`].
    pub async fn send_v2(&self, update: v2::SessionUpdate) -> Result<(), Error> {
        if self.protocol_version() == ProtocolVersion::V1 {
            return Err(self.wrong_version(ProtocolVersion::V2));
        }
        let _busy = self.admit()?;
        if let Some(turn) = self.turn() {
            turn.track_v2(&update);
        }
        self.send_v2_unchecked(update).await
    }

    /// Sends and records a v2 update whatever the turn: the runtime's own updates.
    pub(crate) async fn send_v2_unchecked(&self, update: v2::SessionUpdate) -> Result<(), Error> {
        self.check_open()?;
        self.track_cancellable(&update);
        let entry = recorded::<v2::ReplayableUpdate, _>(&update, records_v2, HistoryEntry::V2);
        let params = v2::UpdateSessionNotification::new(self.id(), update);
        self.queue::<v2::methods::SessionUpdate>(entry, &params)
            .await
    }

    /// Sends a v2 update without recording it (the echo of a user message that is already
    /// history, state snapshots).
    pub(crate) async fn send_v2_live(&self, update: v2::SessionUpdate) -> Result<(), Error> {
        self.check_open()?;
        let params = v2::UpdateSessionNotification::new(self.id(), update);
        self.queue::<v2::methods::SessionUpdate>(None, &params)
            .await
    }

    /// Waits until every update sent through this session on this connection so far is
    /// recorded in the store and handed to the connection.
    ///
    /// Send calls return once the update is queued: the runtime records the updates of a
    /// burst in the store together and sends them once recorded (see [the agent
    /// module](super#recording)). A failure to record is reported by the next call on the
    /// session, or here. The runtime flushes before every request to the client and before
    /// it ends a turn, so a handler needs this only to learn of a failure at a point of its
    /// choosing.
    pub async fn flush(&self) -> Result<(), Error> {
        self.inner.outbox.flush().await
    }

    /// Reports the v2 foreground state (not recorded).
    pub(crate) async fn send_state(&self, state: v2::StateUpdate) -> Result<(), Error> {
        self.send_v2_live(state.into()).await
    }

    /// Closes the tool calls `turn` left open with a final status: `cancelled` in v2 when the
    /// turn was cancelled, `failed` otherwise (v1 has no `cancelled`). Recorded like any
    /// update, so that a replay shows them closed.
    pub(crate) async fn close_open_tools(&self, turn: &Turn) {
        let cancelled = turn.is_cancelled();
        for id in turn.take_open_tools() {
            let sent = match self.protocol_version() {
                ProtocolVersion::V1 => {
                    let update = v1::ToolCallUpdate::new(id).status(v1::ToolCallStatus::Failed);
                    self.send_v1_unchecked(update.into()).await
                }
                _ => {
                    let status = if cancelled {
                        v2::ToolCallStatus::Cancelled
                    } else {
                        v2::ToolCallStatus::Failed
                    };
                    let update = v2::ToolCallUpdate::new(id).status(status);
                    self.send_v2_unchecked(update.into()).await
                }
            };
            if let Err(error) = sent {
                self.connection().logger().log(
                    crate::log::Level::Warn,
                    format!(
                        "session `{}`: a tool call the turn left open was not closed: {error}",
                        self.id()
                    ),
                );
            }
        }
    }

    /// Whether `item` can be cancelled by the client after an update: not once it has `ended`;
    /// else as the update's capabilities say (with a cancel capability, `cancel`), and as
    /// before when the update leaves them as they were.
    fn set_cancellable<C>(
        &self,
        item: Cancellable,
        ended: bool,
        capabilities: &acptk_schema::Patch<C>,
        cancel: impl Fn(&C) -> bool,
    ) {
        match capabilities {
            _ if ended => self.inner.state.set_cancellable(item, false),
            acptk_schema::Patch::Set(capabilities) => {
                self.inner.state.set_cancellable(item, cancel(capabilities));
            }
            acptk_schema::Patch::Clear => self.inner.state.set_cancellable(item, false),
            _ => {}
        }
    }

    /// Keeps the set of client-cancellable tool calls and terminals up to date.
    fn track_cancellable(&self, update: &v2::SessionUpdate) {
        match update {
            v2::SessionUpdate::ToolCallUpdate(call) => {
                let item = Cancellable::ToolCall(call.tool_call_id.to_string());
                let finished = super::turn::finished(&call.status);
                self.set_cancellable(item, finished, &call.capabilities, |capabilities| {
                    capabilities.cancel.is_some()
                });
            }
            v2::SessionUpdate::TerminalUpdate(terminal) => {
                let item = Cancellable::Terminal(terminal.terminal_id.to_string());
                let exited = matches!(terminal.exit_status, acptk_schema::Patch::Set(_));
                self.set_cancellable(item, exited, &terminal.capabilities, |capabilities| {
                    capabilities.cancel.is_some()
                });
            }
            _ => {}
        }
    }

    /// Resolves when the client cancels tool call `id` (v2 `tool_call/cancel`, once the tool
    /// call advertised `capabilities.cancel`) or the running turn is cancelled. The agent
    /// then stops the work and reports the tool call's final status.
    pub async fn tool_call_cancelled(&self, id: &str) {
        self.inner
            .state
            .item_cancelled(Cancellable::ToolCall(id.to_owned()), self.running_turn())
            .await;
    }

    /// Resolves when the client cancels agent terminal `id` (v2 `terminal/cancel`) or the
    /// running turn is cancelled.
    pub async fn terminal_cancelled(&self, id: &str) {
        self.inner
            .state
            .item_cancelled(Cancellable::Terminal(id.to_owned()), self.running_turn())
            .await;
    }

    fn wrong_version(&self, expected: ProtocolVersion) -> Error {
        Error::WrongVersion {
            expected,
            actual: self.protocol_version(),
        }
    }

    /// Streams a piece of the agent's reply (appended to the turn's agent message).
    pub async fn send_text(&self, text: impl Into<String>) -> Result<(), Error> {
        self.send_chunk(false, self.message_id(), text.into()).await
    }

    /// Streams a piece of the agent's reasoning.
    pub async fn send_thought(&self, text: impl Into<String>) -> Result<(), Error> {
        let id = format!("{}_thought", self.message_id());
        self.send_chunk(true, id, text.into()).await
    }

    /// An agent message chunk (or, with `thought`, a thought chunk) of message `id`.
    async fn send_chunk(&self, thought: bool, id: String, text: String) -> Result<(), Error> {
        match self.protocol_version() {
            ProtocolVersion::V1 => {
                let chunk = v1::ContentChunk::new(text).message_id(id);
                self.send_v1(if thought {
                    v1::SessionUpdate::AgentThoughtChunk(chunk)
                } else {
                    v1::SessionUpdate::AgentMessageChunk(chunk)
                })
                .await
            }
            _ => {
                self.send_v2(if thought {
                    v2::SessionUpdate::agent_thought_chunk(id, text)
                } else {
                    v2::SessionUpdate::agent_message_chunk(id, text)
                })
                .await
            }
        }
    }

    /// Replaces the list of slash commands the client offers for this session.
    pub async fn set_commands(&self, commands: &[CommandSpec]) -> Result<(), Error> {
        match self.protocol_version() {
            ProtocolVersion::V1 => {
                let list: Vec<v1::AvailableCommand> = commands
                    .iter()
                    .map(|command| {
                        let entry = v1::AvailableCommand::new(
                            command.name.as_str(),
                            command.description.as_str(),
                        );
                        match &command.hint {
                            Some(hint) => {
                                entry.input(v1::UnstructuredCommandInput::new(hint.as_str()))
                            }
                            None => entry,
                        }
                    })
                    .collect();
                self.send_v1(v1::AvailableCommandsUpdate::new(list).into())
                    .await
            }
            _ => {
                let list: Vec<v2::AvailableCommand> = commands
                    .iter()
                    .map(|command| {
                        let entry =
                            v2::Command::new(command.name.as_str(), command.description.as_str());
                        v2::AvailableCommand::Command(match &command.hint {
                            Some(hint) => entry.input(v2::AvailableCommandInput::Text(
                                v2::TextCommandInput::new(hint.as_str()),
                            )),
                            None => entry,
                        })
                    })
                    .collect();
                self.send_v2(v2::AvailableCommandsUpdate::new(list).into())
                    .await
            }
        }
    }

    /// Gives the session a title: stored (it shows in `session/list`) and sent as a
    /// `session_info_update`, which is history, so a replay restores it.
    pub async fn set_title(&self, title: impl Into<String>) -> Result<(), Error> {
        let _busy = self.admit()?;
        self.check_open()?;
        let title = title.into();
        self.inner
            .state
            .update_meta(|meta| meta.title = Some(title.clone()))
            .await?;
        match self.protocol_version() {
            ProtocolVersion::V1 => {
                self.send_v1(v1::SessionInfoUpdate::new().title(title).into())
                    .await
            }
            _ => {
                self.send_v2(v2::SessionInfoUpdate::new().title(title).into())
                    .await
            }
        }
    }

    /// The session's title, if it has one.
    pub fn title(&self) -> Option<String> {
        self.inner.state.meta().title
    }

    /// The session's working directory (as last opened).
    pub fn cwd(&self) -> String {
        self.inner.state.meta().cwd
    }

    /// The id of the current mode, if the session has modes: as stored when this request (a
    /// prompt: its turn) started, or as last changed by this process since. Another process
    /// sharing the store may change it meanwhile; its change is seen at the next request.
    pub fn mode(&self) -> Option<String> {
        self.inner.state.config().modes.map(|modes| modes.current)
    }

    /// The current value of config option `id`, read as [`Self::mode`] is.
    pub fn config_value(&self, id: &str) -> Option<ConfigValue> {
        self.inner.state.config_value(id)
    }

    /// Switches the session to mode `id` on the agent's own initiative, and tells the client
    /// (`current_mode_update` in v1, `config_option_update` in v2). Fails with
    /// [`Error::Protocol`] when the session has no such mode.
    pub async fn set_mode(&self, id: &str) -> Result<(), Error> {
        let _busy = self.admit()?;
        self.check_open()?;
        let has_mode = self
            .inner
            .state
            .config()
            .modes
            .is_some_and(|modes| modes.contains(id));
        if !has_mode {
            return Err(Error::Protocol(format!(
                "session `{}` has no mode `{id}`",
                self.id()
            )));
        }
        let config = self
            .inner
            .state
            .update_config(|config| {
                if let Some(modes) = config.modes.as_mut() {
                    id.clone_into(&mut modes.current);
                }
            })
            .await?;
        match self.protocol_version() {
            ProtocolVersion::V1 => self.send_v1(v1::CurrentModeUpdate::new(id).into()).await,
            _ => {
                let options = config.v2_options().unwrap_or_default();
                self.send_v2(v2::ConfigOptionUpdate::new(options).into())
                    .await
            }
        }
    }

    /// Sets config option `id` on the agent's own initiative and sends the client the full
    /// list (`config_option_update`). Fails with [`Error::Protocol`] when the session has no
    /// such option or the value does not fit it.
    pub async fn set_config_value(&self, id: &str, value: ConfigValue) -> Result<(), Error> {
        let _busy = self.admit()?;
        self.check_open()?;
        if id == MODE_OPTION_ID
            && self.protocol_version() != ProtocolVersion::V1
            && let Some(mode) = value.as_id()
        {
            return self.set_mode(mode).await;
        }
        self.inner
            .state
            .config()
            .check(id, &value)
            .map_err(Error::Protocol)?;
        let config = self
            .inner
            .state
            .update_config(|config| config.set(id, &value))
            .await?;
        match self.protocol_version() {
            ProtocolVersion::V1 => {
                let options = config.v1_options().unwrap_or_default();
                self.send_v1(v1::ConfigOptionUpdate::new(options).into())
                    .await
            }
            _ => {
                let options = config.v2_options().unwrap_or_default();
                self.send_v2(v2::ConfigOptionUpdate::new(options).into())
                    .await
            }
        }
    }

    /// Records an update in the history without sending it (the user's own message, which
    /// the client already shows).
    pub(crate) async fn record(
        &self,
        update: ByVersion<v1::ReplayableUpdate, v2::ReplayableUpdate>,
    ) -> Result<(), Error> {
        let entry = match update {
            ByVersion::V1(update) => HistoryEntry::V1(update),
            ByVersion::V2(update) => HistoryEntry::V2(update),
        };
        self.flush().await?;
        self.inner.state.record(entry).await.map_err(Error::from)
    }
}

/// Declares `$name`: whether a replayable update of `$version` goes into the history, which
/// is every update but the `$state` ones (state is carried by responses, and in v2 by
/// snapshots).
macro_rules! records {
    ($name:ident, $version:ident, $($state:ident)|+) => {
        fn $name(update: &$version::ReplayableUpdate) -> bool {
            !matches!(update, $($version::ReplayableUpdate::$state(_))|+)
        }
    };
}

records!(
    records_v1,
    v1,
    AvailableCommandsUpdate | CurrentModeUpdate | ConfigOptionUpdate
);
records!(
    records_v2,
    v2,
    AvailableCommandsUpdate | StateUpdate | ReplayComplete | ConfigOptionUpdate
);

/// The history entry for an update of either version: its replayable form `R`, when it
/// has one and `records` keeps it.
fn recorded<R: TryFrom<U>, U: Clone>(
    update: &U,
    records: impl FnOnce(&R) -> bool,
    entry: impl FnOnce(R) -> HistoryEntry,
) -> Option<HistoryEntry> {
    R::try_from(update.clone()).ok().filter(records).map(entry)
}
