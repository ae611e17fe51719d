//! Authentication from the client's side: the methods the agent offered in `initialize`, read
//! leniently so that none is lost, and signing in and out (`authenticate`/`logout` in v1,
//! `auth/login`/`auth/logout` in v2).
//!
//! The offered methods are read from the raw `authMethods` list rather than through the typed
//! response, because agents offer kinds the schema does not know (codex-acp's `env_var`), and
//! a client must still be able to name every one of them. An entry without a string id and
//! name cannot be chosen and is left out.

use std::ffi::OsString;

use acptk_schema::jsonrpc::RawValue;
use acptk_schema::v1::ProtocolVersion;
use acptk_schema::{v1, v2};
use serde_json::Value;

use super::Client;
use super::handler::LoginCommand;
use crate::error::Error;
use crate::transport::AgentCommand;

/// What kind of sign-in a method is.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum AuthKind {
    /// The agent signs the user in itself when asked (`authenticate` / `auth/login`), for
    /// example through a browser.
    Agent,
    /// The client runs the agent's own program with these extra arguments and variables in the
    /// user's terminal; exit status 0 means signed in. Never passed to `authenticate`.
    Terminal {
        /// Arguments appended to the agent's command line.
        args: Vec<String>,
        /// Environment variables added (name, value).
        env: Vec<(String, String)>,
    },
    /// The agent reads credentials from these environment variables (codex-acp's `env_var`);
    /// set them for the agent, then authenticate with the method.
    EnvVar {
        /// The variable names.
        vars: Vec<String>,
    },
    /// A kind this runtime does not know, by its `type`; authenticating sends the method id as
    /// for [`AuthKind::Agent`].
    Other(String),
}

/// One way to sign in that the agent offered.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct AuthMethod {
    /// The method id (what `--auth` takes).
    pub id: String,
    /// Its label.
    pub name: String,
    /// What it does, if the agent says.
    pub description: Option<String>,
    /// Its kind.
    pub kind: AuthKind,
}

impl AuthMethod {
    /// A method of the agent kind.
    pub fn new(id: impl Into<String>, name: impl Into<String>) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            description: None,
            kind: AuthKind::Agent,
        }
    }

    /// The kind as a word: `agent`, `terminal`, `env_var` or the unknown `type`.
    pub fn kind_word(&self) -> &str {
        match &self.kind {
            AuthKind::Agent => "agent",
            AuthKind::Terminal { .. } => "terminal",
            AuthKind::EnvVar { .. } => "env_var",
            AuthKind::Other(kind) => kind,
        }
    }

    /// The command a terminal method runs: `agent` with the method's arguments appended and
    /// its variables added. `None` for other kinds.
    pub fn login_command(&self, agent: &AgentCommand) -> Option<LoginCommand> {
        let AuthKind::Terminal { args, env } = &self.kind else {
            return None;
        };
        let mut all_env: Vec<(OsString, OsString)> = agent.environment().to_vec();
        all_env.extend(env.iter().map(|(k, v)| (k.into(), v.into())));
        Some(LoginCommand {
            method_id: self.id.clone(),
            program: agent.program().to_owned(),
            args: agent
                .arguments()
                .iter()
                .cloned()
                .chain(args.iter().map(OsString::from))
                .collect(),
            env: all_env,
            cwd: agent.working_dir().map(ToOwned::to_owned),
        })
    }
}

/// Reads the `authMethods` of an `initialize` result (either version), keeping every entry
/// with a string id and name.
pub(crate) fn offered_methods(result: &RawValue) -> Vec<AuthMethod> {
    let Ok(value) = serde_json::from_str::<Value>(result.get()) else {
        return Vec::new();
    };
    let Some(methods) = value.get("authMethods").and_then(Value::as_array) else {
        return Vec::new();
    };
    methods.iter().filter_map(read_method).collect()
}

fn text(value: &Value, key: &str) -> Option<String> {
    value.get(key).and_then(Value::as_str).map(str::to_owned)
}

fn read_method(entry: &Value) -> Option<AuthMethod> {
    // v1 names the id `id`, v2 `methodId`.
    let id = text(entry, "id").or_else(|| text(entry, "methodId"))?;
    let name = text(entry, "name")?;
    let strings = |key: &str| -> Vec<String> {
        entry
            .get(key)
            .and_then(Value::as_array)
            .map(|items| {
                items
                    .iter()
                    .filter_map(|item| item.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    };
    let kind = match entry.get("type").and_then(Value::as_str) {
        None | Some("agent") => AuthKind::Agent,
        Some("terminal") => AuthKind::Terminal {
            args: strings("args"),
            env: read_env(entry.get("env")),
        },
        Some("env_var") => AuthKind::EnvVar {
            vars: entry
                .get("vars")
                .and_then(Value::as_array)
                .map(|vars| {
                    vars.iter()
                        .filter_map(|var| var.get("name").and_then(Value::as_str))
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default(),
        },
        Some(other) => AuthKind::Other(other.to_owned()),
    };
    Some(AuthMethod {
        id,
        name,
        description: text(entry, "description"),
        kind,
    })
}

/// A terminal method's variables: an object by name (v1) or a list of `{name, value}` (v2).
fn read_env(env: Option<&Value>) -> Vec<(String, String)> {
    match env {
        Some(Value::Object(vars)) => vars
            .iter()
            .filter_map(|(name, value)| Some((name.clone(), value.as_str()?.to_owned())))
            .collect(),
        Some(Value::Array(vars)) => vars
            .iter()
            .filter_map(|var| Some((text(var, "name")?, text(var, "value")?)))
            .collect(),
        _ => Vec::new(),
    }
}

impl Client {
    /// The sign-in methods the agent offered in `initialize`, every kind included.
    pub fn auth_methods(&self) -> &[AuthMethod] {
        &self.inner.agent.auth_methods
    }

    /// Signs in with the offered method `method_id`.
    ///
    /// A `terminal` method runs the agent's login command through the handler's
    /// [`TerminalLogin`](super::TerminalLogin) (it is never sent to the agent); any other kind
    /// is sent as `authenticate` (v1) or `auth/login` (v2). Fails when the agent did not offer
    /// the method, when a terminal login is not possible here or did not succeed, or with the
    /// agent's error.
    pub async fn authenticate(&self, method_id: &str) -> Result<(), Error> {
        let method = self
            .auth_methods()
            .iter()
            .find(|method| method.id == method_id)
            .ok_or_else(|| {
                Error::Protocol(format!("the agent offers no auth method `{method_id}`"))
            })?;
        if let AuthKind::Terminal { .. } = method.kind {
            let login = self
                .inner
                .agent_command
                .as_ref()
                .and_then(|command| method.login_command(command))
                .ok_or_else(|| {
                    Error::Protocol(format!(
                        "`{method_id}` is a terminal login, which needs the agent's command; this client did not launch the agent"
                    ))
                })?;
            let runner = self.inner.state.handler.terminal_login().ok_or_else(|| {
                Error::Protocol(format!(
                    "`{method_id}` is a terminal login, and this client cannot run one"
                ))
            })?;
            return runner.run(login).await.map_err(|reason| {
                Error::Protocol(format!("the terminal login `{method_id}` failed: {reason}"))
            });
        }
        let connection = &self.inner.connection;
        if self.protocol_version() == ProtocolVersion::V1 {
            connection
                .request::<v1::methods::Authenticate>(&v1::AuthenticateRequest::new(method_id))
                .await
                .map(|_| ())
        } else {
            connection
                .request::<v2::methods::AuthLogin>(&v2::LoginAuthRequest::new(method_id))
                .await
                .map(|_| ())
        }
    }

    /// Signs out: `logout` (v1) or `auth/logout` (v2).
    pub async fn logout(&self) -> Result<(), Error> {
        let connection = &self.inner.connection;
        if self.protocol_version() == ProtocolVersion::V1 {
            connection
                .request::<v1::methods::Logout>(&v1::LogoutRequest::new())
                .await
                .map(|_| ())
        } else {
            connection
                .request::<v2::methods::AuthLogout>(&v2::LogoutAuthRequest::new())
                .await
                .map(|_| ())
        }
    }
}
