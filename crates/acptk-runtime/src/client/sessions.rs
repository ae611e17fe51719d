//! Typed calls that open, list and manage sessions, and change their controls.
//!
//! | call | v1 | v2 |
//! |---|---|---|
//! | [`Client::open_session`] | `session/new` | `session/new` |
//! | [`Client::load_session_with`] | `session/load` (history replayed) | `session/resume` replaying from the start |
//! | [`Client::resume_session`] | `session/resume` (no replay) | `session/resume` (no replay) |
//! | [`Client::list_sessions`] | `session/list` | `session/list` |
//! | [`Client::close_session`] | `session/close` | `session/close` |
//! | [`Client::delete_session`] | `session/delete` | `session/delete` |
//! | [`Client::set_mode`] | `session/set_mode` | `session/set_config_option` on the `mode` option |
//! | [`Client::set_config_option`] | `session/set_config_option` | `session/set_config_option` |
//!
//! A call the agent did not advertise (see [`ConnectedAgent::supports`](super::ConnectedAgent::supports))
//! fails before anything is sent.

use std::path::PathBuf;
use std::sync::Arc;

use acptk_schema::jsonrpc::RawValue;
use acptk_schema::method::RequestMethod;
use acptk_schema::v1::ProtocolVersion;
use acptk_schema::{v1, v2};

use super::Client;
use super::controls::{ConfigOption, ConfigValue, SessionControls};
use super::handler::SessionScope;
use super::mcp::{mcp_v1, mcp_v2};
use crate::connection::decode_result_with;
use crate::error::Error;
use crate::lock::lock;
use crate::mcp_server::McpServerSpec;

/// How to open (create, load or resume) a session.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SessionOptions {
    /// The working directory (absolute).
    pub cwd: String,
    /// Further directories the session may use (sent only to agents that advertise
    /// `additionalDirectories`).
    pub additional_directories: Vec<String>,
    /// The MCP servers the agent should connect to.
    pub mcp_servers: Vec<McpServerSpec>,
}

impl SessionOptions {
    /// A session in `cwd` without additional directories or MCP servers.
    pub fn new(cwd: impl Into<String>) -> Self {
        Self {
            cwd: cwd.into(),
            additional_directories: Vec::new(),
            mcp_servers: Vec::new(),
        }
    }

    /// Sets the additional directories.
    #[must_use]
    pub fn additional_directories(mut self, directories: Vec<String>) -> Self {
        self.additional_directories = directories;
        self
    }

    /// Sets the MCP servers.
    #[must_use]
    pub fn mcp_servers(mut self, servers: Vec<McpServerSpec>) -> Self {
        self.mcp_servers = servers;
        self
    }
}

/// A session as `session/list` reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SessionSummary {
    /// Its id.
    pub id: String,
    /// Its working directory.
    pub cwd: String,
    /// Its further directories.
    pub additional_directories: Vec<String>,
    /// Its title, if it has one.
    pub title: Option<String>,
    /// When it last changed (as the agent wrote it, normally RFC 3339), if the agent says.
    pub updated_at: Option<String>,
    /// Whether it is archived, if the agent says (cargo feature `unstable_session_archive`).
    pub archived: Option<bool>,
}

/// One page of `session/list`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct SessionPage {
    /// The sessions on this page.
    pub sessions: Vec<SessionSummary>,
    /// The cursor for the next page, when there is one.
    pub next_cursor: Option<String>,
}

/// The `archived` flag of a listed session, when the build knows it.
macro_rules! archived_flag {
    ($info:expr) => {{
        #[cfg(feature = "unstable_session_archive")]
        let flag = $info.archived;
        #[cfg(not(feature = "unstable_session_archive"))]
        let flag = None;
        flag
    }};
}

impl Client {
    /// The additional directories of `options` that this agent accepts (with a warning in the
    /// log when some are left out).
    pub(super) fn directories(&self, options: &SessionOptions) -> Vec<String> {
        if options.additional_directories.is_empty() {
            return Vec::new();
        }
        if self.agent().accepts_additional_directories() {
            return options.additional_directories.clone();
        }
        self.inner.connection.logger().log(
            crate::log::Level::Warn,
            "left out the additional directories: the agent did not advertise `additionalDirectories`",
        );
        Vec::new()
    }

    /// Records the directories a session was opened with, for the file and terminal requests
    /// the agent makes in it.
    pub(super) fn remember_scope(
        &self,
        session: &str,
        options: &SessionOptions,
        directories: &[String],
    ) {
        let scope = SessionScope::new(session, &options.cwd)
            .additional_directories(directories.iter().map(PathBuf::from).collect());
        lock(&self.inner.state.scopes).insert(session.to_owned(), scope);
    }

    /// Creates a session and returns its id (`session/new`).
    pub async fn new_session(
        &self,
        cwd: &str,
        mcp_servers: &[McpServerSpec],
    ) -> Result<String, Error> {
        self.open_session(&SessionOptions::new(cwd).mcp_servers(mcp_servers.to_vec()))
            .await
    }

    /// Creates a session with `options` and returns its id (`session/new`). Its modes and
    /// config options are in [`Client::session_controls`].
    pub async fn open_session(&self, options: &SessionOptions) -> Result<String, Error> {
        let connection = &self.inner.connection;
        let directories = self.directories(options);
        let opened = if self.protocol_version() == ProtocolVersion::V1 {
            let servers: Vec<v1::McpServer> = self.servers(&options.mcp_servers, mcp_v1);
            let request = v1::NewSessionRequest::new(options.cwd.as_str(), servers)
                .additional_directories(directories.clone());
            let response = connection
                .request::<v1::methods::SessionNew>(&request)
                .await?;
            Opened::parts(response)
        } else {
            let servers: Vec<v2::McpServer> = self.servers(&options.mcp_servers, mcp_v2);
            let request = v2::NewSessionRequest::new(options.cwd.as_str())
                .mcp_servers(servers)
                .additional_directories(v2_dirs(&directories));
            let response = connection
                .request::<v2::methods::SessionNew>(&request)
                .await?;
            Opened::parts(response)
        };
        Ok(self.opened(opened, options, &directories))
    }

    /// Notes a session the agent just opened for us (new or forked): its scope, controls and
    /// commands; returns its id.
    pub(super) fn opened(
        &self,
        (id, controls, commands): OpenedParts,
        options: &SessionOptions,
        directories: &[String],
    ) -> String {
        self.remember_scope(&id, options, directories);
        self.with_transcript(|transcript| {
            if let Some(commands) = commands {
                let update = v2::AvailableCommandsUpdate::new(commands);
                transcript.apply_v2(&id, &v2::ReplayableUpdate::AvailableCommandsUpdate(update));
            }
            transcript.set_running(&id, false);
            transcript.set_controls(&id, controls);
        });
        self.inner.state.changed();
        id
    }

    /// Reopens a session with its history: `session/load` in v1, `session/resume` with a
    /// replay from the start in v2.
    pub async fn load_session(
        &self,
        session: &str,
        cwd: &str,
        mcp_servers: &[McpServerSpec],
    ) -> Result<(), Error> {
        self.load_session_with(
            session,
            &SessionOptions::new(cwd).mcp_servers(mcp_servers.to_vec()),
        )
        .await
    }

    /// Reopens a session with its history: `session/load` in v1, `session/resume` with a
    /// replay from the start in v2. The session's transcript is rebuilt from the replay (a
    /// notice during the replay is not shown: it is counted in [`Client::violations`]).
    /// Returns when the agent has answered; the replay is then in the transcript.
    pub async fn load_session_with(
        &self,
        session: &str,
        options: &SessionOptions,
    ) -> Result<(), Error> {
        if !self.agent().can_load_sessions() {
            return Err(Error::Protocol(
                "the agent did not advertise `loadSession`, so sessions cannot be loaded"
                    .to_owned(),
            ));
        }
        let directories = self.directories(options);
        let state = Arc::clone(&self.inner.state);
        self.with_transcript(|transcript| transcript.clear_session(session));
        lock(&state.replaying).insert(session.to_owned());
        // The scope is known before the replay, in case the agent reads files meanwhile.
        self.remember_scope(session, options, &directories);
        let ended = {
            let state = Arc::clone(&state);
            let session = session.to_owned();
            Box::new(move || state.end_replay(&session)) as Box<dyn FnOnce() + Send>
        };
        let (method, params): (&str, Box<RawValue>) =
            if self.protocol_version() == ProtocolVersion::V1 {
                let servers: Vec<v1::McpServer> = self.servers(&options.mcp_servers, mcp_v1);
                let request = v1::LoadSessionRequest::new(servers, options.cwd.as_str(), session)
                    .additional_directories(directories.clone());
                (
                    "session/load",
                    v1::methods::SessionLoad::encode_params(&request).map_err(Error::Encode)?,
                )
            } else {
                let servers: Vec<v2::McpServer> = self.servers(&options.mcp_servers, mcp_v2);
                let request = v2::ResumeSessionRequest::new(session, options.cwd.as_str())
                    .mcp_servers(servers)
                    .additional_directories(v2_dirs(&directories))
                    .replay_from(v2::ReplayFrom::Start(v2::ReplayFromStart::new()));
                (
                    "session/resume",
                    v2::methods::SessionResume::encode_params(&request).map_err(Error::Encode)?,
                )
            };
        let result = self
            .inner
            .connection
            .request_hooked(method, Some(params), Some(ended))
            .await;
        state.end_replay(session);
        let result = result?;
        let controls = if self.protocol_version() == ProtocolVersion::V1 {
            let response =
                decode_result_with(method, &result, v1::methods::SessionLoad::decode_result)?;
            v1_controls(response.modes.as_ref(), response.config_options.as_deref())
        } else {
            let response =
                decode_result_with(method, &result, v2::methods::SessionResume::decode_result)?;
            v2_controls(&response.config_options)
        };
        self.with_transcript(|transcript| {
            transcript.set_running(session, false);
            transcript.set_controls(session, controls);
        });
        state.changed();
        Ok(())
    }

    /// Reattaches to a session without replaying its history (`session/resume`).
    pub async fn resume_session(
        &self,
        session: &str,
        options: &SessionOptions,
    ) -> Result<(), Error> {
        self.agent().check("session/resume")?;
        let directories = self.directories(options);
        let connection = &self.inner.connection;
        let controls = if self.protocol_version() == ProtocolVersion::V1 {
            let servers: Vec<v1::McpServer> = self.servers(&options.mcp_servers, mcp_v1);
            let request = v1::ResumeSessionRequest::new(session, options.cwd.as_str())
                .mcp_servers(servers)
                .additional_directories(directories.clone());
            let response = connection
                .request::<v1::methods::SessionResume>(&request)
                .await?;
            v1_controls(response.modes.as_ref(), response.config_options.as_deref())
        } else {
            let servers: Vec<v2::McpServer> = self.servers(&options.mcp_servers, mcp_v2);
            let request = v2::ResumeSessionRequest::new(session, options.cwd.as_str())
                .mcp_servers(servers)
                .additional_directories(v2_dirs(&directories));
            let response = connection
                .request::<v2::methods::SessionResume>(&request)
                .await?;
            v2_controls(&response.config_options)
        };
        self.remember_scope(session, options, &directories);
        self.with_transcript(|transcript| transcript.set_controls(session, controls));
        self.inner.state.changed();
        Ok(())
    }

    /// One page of the agent's sessions (`session/list`), optionally only those in `cwd`.
    pub async fn list_sessions(
        &self,
        cwd: Option<&str>,
        cursor: Option<&str>,
    ) -> Result<SessionPage, Error> {
        self.list_page(cwd, cursor, None).await
    }

    /// One page of `session/list`, with an archive filter (`exclude`, `include`, `only`) when
    /// `archived` is given (only with the cargo feature `unstable_session_archive`).
    #[allow(unused_variables)]
    pub(super) async fn list_page(
        &self,
        cwd: Option<&str>,
        cursor: Option<&str>,
        archived: Option<&str>,
    ) -> Result<SessionPage, Error> {
        self.agent().check("session/list")?;
        if self.protocol_version() == ProtocolVersion::V1 {
            list_page!(self, v1, cwd, cursor, archived)
        } else {
            list_page!(self, v2, cwd, cursor, archived)
        }
    }

    /// Every session of the agent, following the cursors (at most `max_pages` pages).
    pub async fn all_sessions(
        &self,
        cwd: Option<&str>,
        max_pages: usize,
    ) -> Result<Vec<SessionSummary>, Error> {
        let mut sessions = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..max_pages.max(1) {
            let page = self.list_sessions(cwd, cursor.as_deref()).await?;
            sessions.extend(page.sessions);
            match page.next_cursor {
                Some(next) if Some(&next) != cursor.as_ref() => cursor = Some(next),
                _ => break,
            }
        }
        Ok(sessions)
    }

    /// Closes a session on the agent's side (`session/close`); its transcript stays here.
    pub async fn close_session(&self, session: &str) -> Result<(), Error> {
        self.agent().check("session/close")?;
        request_in_version!(self, SessionClose, v::CloseSessionRequest::new(session))?;
        lock(&self.inner.state.scopes).remove(session);
        Ok(())
    }

    /// Deletes a session from the agent's list (`session/delete`).
    pub async fn delete_session(&self, session: &str) -> Result<(), Error> {
        self.agent().check("session/delete")?;
        request_in_version!(self, SessionDelete, v::DeleteSessionRequest::new(session))
    }

    /// The modes and config options of a session, as last reported.
    pub fn session_controls(&self, session: &str) -> Option<SessionControls> {
        self.with_transcript(|transcript| {
            transcript
                .session(session)
                .map(|session| session.controls.clone())
        })
    }

    /// Switches a session to the mode `mode_id`: `session/set_mode` in v1 (when the agent
    /// offered modes), otherwise the session's `mode` config option is set to it.
    pub async fn set_mode(&self, session: &str, mode_id: &str) -> Result<(), Error> {
        let controls = self.session_controls(session).unwrap_or_default();
        if self.protocol_version() == ProtocolVersion::V1
            && let Some(modes) = &controls.modes
        {
            if !modes.available.iter().any(|mode| mode.id == mode_id) {
                let ids: Vec<&str> = modes.available.iter().map(|m| m.id.as_str()).collect();
                return Err(Error::Protocol(format!(
                    "the agent offers no mode `{mode_id}`; its modes are: {}",
                    ids.join(", ")
                )));
            }
            self.inner
                .connection
                .request::<v1::methods::SessionSetMode>(&v1::SetSessionModeRequest::new(
                    session, mode_id,
                ))
                .await?;
            self.with_transcript(|transcript| {
                transcript.update_controls(session, |controls| {
                    controls.set_current_mode(mode_id);
                });
            });
            self.inner.state.changed();
            return Ok(());
        }
        let option = controls.option_of_category("mode").ok_or_else(|| {
            Error::Protocol("the agent offers no modes for this session".to_owned())
        })?;
        let value = option.parse_value(mode_id).map_err(Error::Protocol)?;
        let id = option.id.clone();
        self.set_config_option(session, &id, &value)
            .await
            .map(|_| ())
    }

    /// Sets one config option (`session/set_config_option`) and returns the whole updated
    /// list, which is also recorded for the session.
    pub async fn set_config_option(
        &self,
        session: &str,
        config_id: &str,
        value: &ConfigValue,
    ) -> Result<Vec<ConfigOption>, Error> {
        let connection = &self.inner.connection;
        let options = if self.protocol_version() == ProtocolVersion::V1 {
            let request = v1::SetSessionConfigOptionRequest::new(session, config_id, value.to_v1());
            let response = connection
                .request::<v1::methods::SessionSetConfigOption>(&request)
                .await?;
            SessionControls::options_from_v1(&response.config_options)
        } else {
            let request = v2::SetSessionConfigOptionRequest::new(session, config_id, value.to_v2());
            let response = connection
                .request::<v2::methods::SessionSetConfigOption>(&request)
                .await?;
            SessionControls::options_from_v2(&response.config_options)
        };
        self.with_transcript(|transcript| {
            transcript.update_controls(session, |controls| {
                controls.config_options.clone_from(&options);
            });
        });
        self.inner.state.changed();
        Ok(options)
    }
}

/// A new session's id, controls and (v2) commands, as the agent answered.
pub(super) type OpenedParts = (String, SessionControls, Option<Vec<v2::AvailableCommand>>);

/// The answer to a request that opens a new session (`session/new`, `session/fork`).
pub(super) trait Opened {
    /// The new session's id, controls and (v2) commands.
    fn parts(self) -> OpenedParts;
}

/// [`Opened`] for the answers of one version (they differ by version, not by method).
macro_rules! opened {
    (v1: $($response:ty),+) => {$(
        impl Opened for $response {
            fn parts(self) -> OpenedParts {
                let controls = v1_controls(self.modes.as_ref(), self.config_options.as_deref());
                (self.session_id.as_str().to_owned(), controls, None)
            }
        }
    )+};
    (v2: $($response:ty),+) => {$(
        impl Opened for $response {
            fn parts(self) -> OpenedParts {
                let controls = v2_controls(&self.config_options);
                (
                    self.session_id.as_str().to_owned(),
                    controls,
                    Some(self.available_commands),
                )
            }
        }
    )+};
}

opened!(v1: v1::NewSessionResponse);
opened!(v2: v2::NewSessionResponse);
#[cfg(feature = "unstable_session_fork")]
opened!(v1: v1::ForkSessionResponse);
#[cfg(feature = "unstable_session_fork")]
opened!(v2: v2::ForkSessionResponse);

/// One page of `session/list` in one version (the types differ by version only).
macro_rules! list_page {
    ($client:expr, $version:ident, $cwd:expr, $cursor:expr, $archived:expr) => {{
        let mut request = $version::ListSessionsRequest::new();
        if let Some(cwd) = $cwd {
            request = request.cwd(cwd);
        }
        if let Some(cursor) = $cursor {
            request = request.cursor(cursor);
        }
        #[cfg(feature = "unstable_session_archive")]
        if let Some(filter) = $archived {
            request = request.archived(filter);
        }
        let response = $client
            .inner
            .connection
            .request::<$version::methods::SessionList>(&request)
            .await?;
        Ok(SessionPage {
            sessions: response
                .sessions
                .iter()
                .map(|info| SessionSummary {
                    id: info.session_id.as_str().to_owned(),
                    cwd: info.cwd.as_str().to_owned(),
                    additional_directories: info
                        .additional_directories
                        .iter()
                        .map(|dir| dir.as_str().to_owned())
                        .collect(),
                    title: info.title.clone(),
                    updated_at: info.updated_at.clone(),
                    archived: archived_flag!(info),
                })
                .collect(),
            next_cursor: response
                .next_cursor
                .map(|cursor| cursor.as_str().to_owned()),
        })
    }};
}
use list_page;

pub(super) fn v1_controls(
    modes: Option<&v1::SessionModeState>,
    options: Option<&[v1::SessionConfigOption]>,
) -> SessionControls {
    SessionControls {
        modes: modes.map(SessionControls::modes_from_v1),
        config_options: options
            .map(SessionControls::options_from_v1)
            .unwrap_or_default(),
    }
}

pub(super) fn v2_controls(options: &[v2::SessionConfigOption]) -> SessionControls {
    SessionControls {
        modes: None,
        config_options: SessionControls::options_from_v2(options),
    }
}

pub(super) fn v2_dirs(directories: &[String]) -> Vec<v2::AbsolutePath> {
    directories.iter().map(|dir| dir.as_str().into()).collect()
}
