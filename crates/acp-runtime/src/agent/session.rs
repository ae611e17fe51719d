//! The agent's handle to one session on one connection: sends updates (recording the
//! replayable ones), delivers notices by the rules of the client's version, and tells a turn
//! whether it was cancelled.

use std::sync::{Arc, Mutex};

use acp_schema::v1::ProtocolVersion;
use acp_schema::{v1, v2};
use tokio::sync::watch;

use super::ConnectedClient;
use super::store::SessionStore;
use crate::connection::{Connection, lock};
use crate::error::Error;
use crate::notice::{FallbackPolicy, Notice, NoticeDelivery};
use crate::version::ByVersion;

/// The status of a tool call, in either version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ToolStatus {
    /// Not started yet.
    Pending,
    /// Running.
    InProgress,
    /// Finished successfully.
    Completed,
    /// Finished with an error.
    Failed,
}

impl ToolStatus {
    fn to_v1(self) -> v1::ToolCallStatus {
        match self {
            ToolStatus::Pending => v1::ToolCallStatus::Pending,
            ToolStatus::InProgress => v1::ToolCallStatus::InProgress,
            ToolStatus::Completed => v1::ToolCallStatus::Completed,
            ToolStatus::Failed => v1::ToolCallStatus::Failed,
        }
    }

    fn to_v2(self) -> v2::ToolCallStatus {
        match self {
            ToolStatus::Pending => v2::ToolCallStatus::Pending,
            ToolStatus::InProgress => v2::ToolCallStatus::InProgress,
            ToolStatus::Completed => v2::ToolCallStatus::Completed,
            ToolStatus::Failed => v2::ToolCallStatus::Failed,
        }
    }
}

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
struct Turn {
    /// The id of the agent message of the running turn (chunks are appended to it).
    message_id: Option<String>,
    running: bool,
}

#[derive(Debug)]
struct Inner {
    id: String,
    connection: Connection,
    client: Arc<ConnectedClient>,
    store: SessionStore,
    fallback: FallbackPolicy,
    turn: Mutex<Turn>,
    cancel: watch::Sender<bool>,
}

/// One session as seen by the agent on one connection. Cheap to clone.
///
/// Every update sent through it that may be history is recorded in the
/// [`SessionStore`], except `state_update`, `replay_complete` and
/// `available_commands_update` (state, not conversation). Notices are never recorded.
#[derive(Debug, Clone)]
pub struct Session {
    inner: Arc<Inner>,
}

/// Marks a turn as running until dropped.
pub(crate) struct TurnGuard {
    session: Session,
}

impl Drop for TurnGuard {
    fn drop(&mut self) {
        let mut turn = lock(&self.session.inner.turn);
        turn.running = false;
        turn.message_id = None;
    }
}

impl Session {
    pub(crate) fn new(
        id: String,
        connection: Connection,
        client: Arc<ConnectedClient>,
        store: SessionStore,
        fallback: FallbackPolicy,
    ) -> Self {
        let (cancel, _) = watch::channel(false);
        Self {
            inner: Arc::new(Inner {
                id,
                connection,
                client,
                store,
                fallback,
                turn: Mutex::new(Turn {
                    message_id: None,
                    running: false,
                }),
                cancel,
            }),
        }
    }

    /// The session id.
    pub fn id(&self) -> &str {
        &self.inner.id
    }

    /// The protocol version of the connection.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.inner.client.protocol_version
    }

    /// The client on the other end: version, capabilities, name.
    pub fn client(&self) -> &ConnectedClient {
        &self.inner.client
    }

    /// The connection, to send requests of your own (for example a permission request).
    pub fn connection(&self) -> &Connection {
        &self.inner.connection
    }

    /// The store holding this session's history.
    pub fn store(&self) -> &SessionStore {
        &self.inner.store
    }

    /// Starts a turn: clears the cancellation flag and picks a fresh agent message id. `None`
    /// when a turn is already running.
    pub(crate) fn begin_turn(&self) -> Option<TurnGuard> {
        let mut turn = lock(&self.inner.turn);
        if turn.running {
            return None;
        }
        turn.running = true;
        turn.message_id = Some(self.inner.store.fresh_id("msg"));
        drop(turn);
        self.inner.cancel.send_replace(false);
        Some(TurnGuard {
            session: self.clone(),
        })
    }

    /// Marks the running turn as cancelled (the client sent `session/cancel`).
    pub(crate) fn cancel_turn(&self) {
        self.inner.cancel.send_replace(true);
    }

    /// Whether the client cancelled the running turn.
    pub fn is_cancelled(&self) -> bool {
        *self.inner.cancel.borrow()
    }

    /// Resolves when the client cancels the running turn (`session/cancel`). Use it in a
    /// `tokio::select!` beside the turn's work.
    pub async fn cancelled(&self) {
        let mut cancel = self.inner.cancel.subscribe();
        let _ = cancel.wait_for(|cancelled| *cancelled).await;
    }

    /// The agent message id for chunks: the running turn's, or a fresh one outside a turn.
    fn message_id(&self) -> String {
        lock(&self.inner.turn)
            .message_id
            .clone()
            .unwrap_or_else(|| self.inner.store.fresh_id("msg"))
    }

    /// Starts a new agent message in the running turn: later [`Self::send_text`] chunks get a
    /// fresh message id (for example for text after a tool call).
    pub fn new_message(&self) {
        let mut turn = lock(&self.inner.turn);
        if turn.running {
            turn.message_id = Some(self.inner.store.fresh_id("msg"));
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
        match &self.inner.client.capabilities {
            ByVersion::V2(_) => {
                self.send_v2(v2::SessionUpdate::Notice(notice.to_v2()?))
                    .await?;
                Ok(NoticeDelivery::Sent)
            }
            ByVersion::V1(capabilities) if capabilities.advertises_notices() => {
                self.send_v1(v1::SessionUpdate::Notice(notice.to_v1()?))
                    .await?;
                Ok(NoticeDelivery::Sent)
            }
            ByVersion::V1(_) => match fallback {
                FallbackPolicy::Drop => Ok(NoticeDelivery::Dropped),
                FallbackPolicy::AgentMessage => {
                    let chunk = v1::ContentChunk::new(notice.fallback_text())
                        .message_id(self.inner.store.fresh_id("msg"));
                    self.send_v1(v1::SessionUpdate::AgentMessageChunk(chunk))
                        .await?;
                    Ok(NoticeDelivery::FellBack)
                }
            },
        }
    }

    /// Sends a v1 session update, recording it in the history when it is replayable.
    ///
    /// A `notice` update to a client that did not advertise `session.notices` fails with
    /// [`Error::NoticesNotAdvertised`] and nothing is sent. On a v2 connection this fails
    /// with [`Error::WrongVersion`].
    pub async fn send_v1(&self, update: v1::SessionUpdate) -> Result<(), Error> {
        let ByVersion::V1(capabilities) = &self.inner.client.capabilities else {
            return Err(self.wrong_version(ProtocolVersion::V1));
        };
        if update.is_live_only() && !capabilities.advertises_notices() {
            return Err(Error::NoticesNotAdvertised);
        }
        let params = v1::SessionNotification::new(self.inner.id.as_str(), update);
        if let Ok(replayable) = v1::ReplayableUpdate::try_from(params.update.clone()) {
            if records_v1(&replayable) {
                self.inner.store.record_v1(&self.inner.id, replayable);
            }
        }
        self.inner
            .connection
            .notify::<v1::methods::SessionUpdate>(&params)
            .await
    }

    /// Sends a v2 session update, recording it in the history when it is replayable. On a v1
    /// connection this fails with [`Error::WrongVersion`].
    pub async fn send_v2(&self, update: v2::SessionUpdate) -> Result<(), Error> {
        if !matches!(self.inner.client.capabilities, ByVersion::V2(_)) {
            return Err(self.wrong_version(ProtocolVersion::V2));
        }
        let params = v2::UpdateSessionNotification::new(self.inner.id.as_str(), update);
        if let Ok(replayable) = v2::ReplayableUpdate::try_from(params.update.clone()) {
            if records_v2(&replayable) {
                self.inner.store.record_v2(&self.inner.id, replayable);
            }
        }
        self.inner
            .connection
            .notify::<v2::methods::SessionUpdate>(&params)
            .await
    }

    fn wrong_version(&self, expected: ProtocolVersion) -> Error {
        Error::WrongVersion {
            expected,
            actual: self.protocol_version(),
        }
    }

    /// Streams a piece of the agent's reply (appended to the turn's agent message).
    pub async fn send_text(&self, text: impl Into<String>) -> Result<(), Error> {
        let id = self.message_id();
        match self.protocol_version() {
            ProtocolVersion::V1 => {
                let chunk = v1::ContentChunk::new(text.into()).message_id(id);
                self.send_v1(v1::SessionUpdate::AgentMessageChunk(chunk))
                    .await
            }
            _ => {
                self.send_v2(v2::SessionUpdate::agent_message_chunk(id, text.into()))
                    .await
            }
        }
    }

    /// Streams a piece of the agent's reasoning.
    pub async fn send_thought(&self, text: impl Into<String>) -> Result<(), Error> {
        let id = format!("{}_thought", self.message_id());
        match self.protocol_version() {
            ProtocolVersion::V1 => {
                let chunk = v1::ContentChunk::new(text.into()).message_id(id);
                self.send_v1(v1::SessionUpdate::AgentThoughtChunk(chunk))
                    .await
            }
            _ => {
                self.send_v2(v2::SessionUpdate::agent_thought_chunk(id, text.into()))
                    .await
            }
        }
    }

    /// Announces a tool call (`tool_call` in v1, `tool_call_update` creating it in v2).
    pub async fn start_tool_call(
        &self,
        id: &str,
        title: &str,
        status: ToolStatus,
    ) -> Result<(), Error> {
        match self.protocol_version() {
            ProtocolVersion::V1 => {
                let call = v1::ToolCall::new(id, title).status(status.to_v1());
                self.send_v1(call.into()).await
            }
            _ => {
                let call = v2::ToolCallUpdate::new(id)
                    .title(title)
                    .status(status.to_v2());
                self.send_v2(call.into()).await
            }
        }
    }

    /// Changes a tool call's status, optionally adding text content to it.
    pub async fn update_tool_call(
        &self,
        id: &str,
        status: ToolStatus,
        text: Option<&str>,
    ) -> Result<(), Error> {
        match self.protocol_version() {
            ProtocolVersion::V1 => {
                let mut update = v1::ToolCallUpdate::new(id).status(status.to_v1());
                if let Some(text) = text {
                    update =
                        update.content(vec![v1::ToolCallContent::Content(v1::Content::new(text))]);
                }
                self.send_v1(update.into()).await
            }
            _ => {
                let mut update = v2::ToolCallUpdate::new(id).status(status.to_v2());
                if let Some(text) = text {
                    update =
                        update.content(vec![v2::ToolCallContent::Content(v2::Content::new(text))]);
                }
                self.send_v2(update.into()).await
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

    /// Records an update in the history without sending it (the user's own message, which
    /// the client already shows).
    pub(crate) fn record(&self, update: ByVersion<v1::ReplayableUpdate, v2::ReplayableUpdate>) {
        match update {
            ByVersion::V1(update) => self.inner.store.record_v1(&self.inner.id, update),
            ByVersion::V2(update) => self.inner.store.record_v2(&self.inner.id, update),
        }
    }
}

/// Whether a replayable v1 update goes into the history.
fn records_v1(update: &v1::ReplayableUpdate) -> bool {
    !matches!(update, v1::ReplayableUpdate::AvailableCommandsUpdate(_))
}

/// Whether a replayable v2 update goes into the history.
fn records_v2(update: &v2::ReplayableUpdate) -> bool {
    !matches!(
        update,
        v2::ReplayableUpdate::AvailableCommandsUpdate(_)
            | v2::ReplayableUpdate::StateUpdate(_)
            | v2::ReplayableUpdate::ReplayComplete(_)
    )
}
