//! Getting to a session, for both modes of `acp client`: launching the agent (or connecting
//! to a remote one), signing in,
//! opening or loading the session, applying `--mode` and `--set`, and ending the agent.

use std::future::Future;
use std::time::Duration;

use acptk_runtime::Error;
use acptk_runtime::client::{AuthKind, Client, ClientBuilder, ConfigKind, SessionOptions};
use acptk_runtime::rpc::{AUTH_REQUIRED, RESOURCE_NOT_FOUND};
use acptk_runtime::transport::remote::ClientOptions;
use acptk_runtime::transport::remote::RemoteError;
use acptk_runtime::transport::{AgentCommand, AgentProcess};

use crate::commands::client::shared::exit::{Exit, Failure, say};
use crate::commands::client::shared::text::terminal_safe;

/// Runs `work`, failing with [`Exit::Timeout`] after `limit` (when there is one).
pub async fn bounded<T>(
    limit: Option<Duration>,
    what: &str,
    work: impl Future<Output = Result<T, Failure>>,
) -> Result<T, Failure> {
    match limit {
        None => work.await,
        Some(limit) => tokio::time::timeout(limit, work).await.unwrap_or_else(|_| {
            Err(Failure::new(
                Exit::Timeout,
                format!(
                    "{what}: no answer within {} s (--timeout)",
                    limit.as_secs_f64()
                ),
            ))
        }),
    }
}

/// Where the agent is.
#[derive(Debug, Clone)]
pub enum Target {
    /// A command to launch, talking over its stdio.
    Command(AgentCommand),
    /// A remote agent (`--url`).
    Url {
        /// Its URL.
        url: String,
        /// Token and limits.
        options: ClientOptions,
    },
}

impl Target {
    /// The same target, with a launched agent's standard error not shown (the terminal UI
    /// owns the terminal).
    #[must_use]
    pub fn quiet(self) -> Self {
        match self {
            Target::Command(command) => Target::Command(command.inherit_stderr(false)),
            other => other,
        }
    }
}

/// Launches the agent (or connects to it) and runs `initialize`. A remote agent has no
/// process.
pub async fn launch(
    builder: ClientBuilder,
    target: &Target,
    limit: Option<Duration>,
) -> Result<(Client, Option<AgentProcess>), Failure> {
    let command = match target {
        Target::Command(command) => command,
        Target::Url { url, options } => {
            return bounded(limit, "connecting to the agent", async {
                builder
                    .connect_url(url, options)
                    .await
                    .map(|client| (client, None))
                    .map_err(|error| match error {
                        Error::ConnectionClosed => Failure::new(
                            Exit::AgentGone,
                            format!("the agent at {url} closed the connection before it answered `initialize`"),
                        ),
                        Error::Remote(RemoteError::Unreachable { status: Some(401 | 403), .. }) => {
                            Failure::new(
                                Exit::Auth,
                                format!("{error} (pass the server's token with --token or $ACP_TOKEN)"),
                            )
                        }
                        Error::Remote(_) => Failure::new(Exit::AgentGone, error.to_string()),
                        other => Failure::of("the agent could not be initialized", &other, Exit::Failed),
                    })
            })
            .await;
        }
    };
    let program = command.program().to_string_lossy().into_owned();
    bounded(limit, "starting the agent", async {
        builder
            .spawn(command)
            .await
            .map(|(client, process)| (client, Some(process)))
            .map_err(|error| match error {
                // The error names the program already ("cannot start `x`: ...").
                Error::Io(error) => Failure::new(Exit::AgentGone, error.to_string()),
                Error::ConnectionClosed => Failure::new(
                    Exit::AgentGone,
                    format!("the agent `{program}` exited before it answered `initialize`"),
                ),
                other => Failure::of("the agent could not be initialized", &other, Exit::Failed),
            })
    })
    .await
}

/// The sign-in methods the agent offered, one per line, and how to pick one.
#[must_use]
pub fn auth_help(client: &Client) -> String {
    let methods = client.auth_methods();
    if methods.is_empty() {
        return "the agent offered no sign-in methods in `initialize`".to_owned();
    }
    let mut text = String::from("the agent offers these sign-in methods:");
    for method in methods {
        text.push_str(&format!(
            "\n  {}  {}",
            terminal_safe(&method.id),
            terminal_safe(&method.name)
        ));
        if let Some(description) = &method.description {
            text.push_str(&format!(" - {}", terminal_safe(description)));
        }
        match &method.kind {
            AuthKind::Terminal { .. } => text.push_str(" [runs a login in this terminal]"),
            AuthKind::EnvVar { vars } if !vars.is_empty() => {
                text.push_str(&format!(" [set {} for the agent]", vars.join(", ")));
            }
            _ => {}
        }
    }
    text.push_str("\npick one with --auth METHOD_ID");
    text
}

/// Signs in with `method_id` (`--auth`).
pub async fn authenticate(
    client: &Client,
    method_id: &str,
    limit: Option<Duration>,
) -> Result<(), Failure> {
    let Some(method) = client.auth_methods().iter().find(|m| m.id == method_id) else {
        return Err(Failure::usage(format!(
            "--auth {}: the agent offers no such method; {}",
            terminal_safe(method_id),
            auth_help(client)
        )));
    };
    // The agent reads an `env_var` method's variables from its environment, which is ours
    // when we launched it: name the ones that are not set rather than fail later.
    if let (AuthKind::EnvVar { vars }, Some(command)) = (&method.kind, client.agent_command()) {
        // Set here, or given to the agent's command (the terminal UI's masked input).
        let given = |var: &String| {
            command
                .environment()
                .iter()
                .any(|(name, value)| name == var.as_str() && !value.is_empty())
        };
        let missing: Vec<String> = vars
            .iter()
            .filter(|var| std::env::var_os(var).is_none_or(|value| value.is_empty()))
            .filter(|var| !given(var))
            .cloned()
            .collect();
        if !missing.is_empty() {
            let mut failure = Failure::new(
                Exit::Auth,
                format!(
                    "--auth {}: set {} for the agent (not set in this environment), for example `{}=... acp client --auth {} ...`",
                    terminal_safe(method_id),
                    missing.join(", "),
                    missing[0],
                    terminal_safe(method_id)
                ),
            );
            failure.auth_methods = client.auth_methods().to_vec();
            failure.missing_vars = missing;
            return Err(failure);
        }
    }
    // A terminal login is interactive: no time limit.
    let limit = match method.kind {
        AuthKind::Terminal { .. } => None,
        _ => limit,
    };
    bounded(limit, "signing in", async {
        client.authenticate(method_id).await.map_err(|error| {
            let mut failure = Failure::of(
                &format!("signing in with `{}` failed", terminal_safe(method_id)),
                &error,
                Exit::Auth,
            );
            if failure.exit == Exit::Failed {
                failure.exit = Exit::Auth;
            }
            failure
        })
    })
    .await
}

/// A session that is open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Opened {
    /// Its id.
    pub id: String,
    /// Whether it was loaded with its history (`--load`).
    pub loaded: bool,
}

/// The failure for a setup step the agent refused, with the sign-in methods when it asked for
/// authentication.
fn setup_failure(client: &Client, what: &str, error: &Error) -> Failure {
    with_sign_in(client, Failure::of(what, error, Exit::Failed))
}

/// `failure` with the sign-in methods the agent offers (named in the message and listed for
/// JSON output) and exit code 3, when the agent's error was `-32000` (authentication
/// required), whichever request it answered (`session/new`, `session/load`,
/// `session/resume`, `session/prompt`, ...).
#[must_use]
pub fn with_sign_in(client: &Client, mut failure: Failure) -> Failure {
    if failure
        .rpc
        .as_ref()
        .is_some_and(|e| e.code == AUTH_REQUIRED)
        && failure.auth_methods.is_empty()
    {
        failure.exit = Exit::Auth;
        failure.message = format!("{}\n{}", failure.message, auth_help(client));
        failure.auth_methods = client.auth_methods().to_vec();
    }
    failure
}

/// Creates the session, or loads `load` with its history.
pub async fn open(
    client: &Client,
    options: &SessionOptions,
    load: Option<&str>,
    limit: Option<Duration>,
) -> Result<Opened, Failure> {
    match load {
        None => {
            bounded(limit, "creating a session", async {
                client
                    .open_session(options)
                    .await
                    .map(|id| Opened { id, loaded: false })
                    .map_err(|error| {
                        setup_failure(client, "the agent could not create a session", &error)
                    })
            })
            .await
        }
        Some(id) => {
            if !client.agent().can_load_sessions() {
                return Err(Failure::usage(
                    "--load: the agent cannot load sessions (it did not advertise `loadSession`)",
                ));
            }
            bounded(limit, "loading the session", async {
                client
                    .load_session_with(id, options)
                    .await
                    .map(|()| Opened {
                        id: id.to_owned(),
                        loaded: true,
                    })
                    .map_err(|error| {
                        let mut failure = setup_failure(
                            client,
                            &format!("the agent could not load session `{}`", terminal_safe(id)),
                            &error,
                        );
                        if error.rpc().is_some_and(|e| e.code == RESOURCE_NOT_FOUND) {
                            failure.exit = Exit::Usage;
                        }
                        failure
                    })
            })
            .await
        }
    }
}

/// `options` fitted to the agent: only the MCP servers of transports it advertised, and the
/// further directories only when it takes them. What is left out is said on standard error,
/// naming what is kept.
#[must_use]
pub fn fit_to_agent(client: &Client, options: &SessionOptions) -> SessionOptions {
    let mut fitted = options.clone();
    let (servers, warning) = super::mcp_config::for_agent(client, &options.mcp_servers);
    if let Some(warning) = warning {
        say(&format!("acp: warning: {warning}"));
    }
    fitted.mcp_servers = servers;
    if !options.additional_directories.is_empty()
        && !client.agent().accepts_additional_directories()
    {
        say(&format!(
            "acp: warning: the agent takes no further directories (it did not advertise `additionalDirectories`): left out --add-dir {}; the session keeps only its working directory {}",
            options
                .additional_directories
                .iter()
                .map(|dir| terminal_safe(dir).into_owned())
                .collect::<Vec<_>>()
                .join(", "),
            terminal_safe(&options.cwd)
        ));
        fitted.additional_directories = Vec::new();
    }
    fitted
}

/// Applies `--mode` and every `--set CONFIG_ID=VALUE`, in that order.
pub async fn apply_controls(
    client: &Client,
    session: &str,
    mode: Option<&str>,
    settings: &[(String, String)],
    limit: Option<Duration>,
) -> Result<(), Failure> {
    if let Some(mode) = mode {
        let controls = client.session_controls(session).unwrap_or_default();
        let offered = controls
            .modes
            .as_ref()
            .map(|modes| modes.available.iter().any(|m| m.id == mode))
            .unwrap_or_else(|| {
                controls
                    .option_of_category("mode")
                    .is_some_and(|option| option.parse_value(mode).is_ok())
            });
        if !offered {
            return Err(Failure::usage(format!(
                "--mode {}: {}",
                terminal_safe(mode),
                modes_help(client, session)
            )));
        }
        bounded(limit, "setting the mode", async {
            client.set_mode(session, mode).await.map_err(|error| {
                Failure::of(
                    &format!("--mode {}", terminal_safe(mode)),
                    &error,
                    Exit::Failed,
                )
            })
        })
        .await?;
    }
    for (id, text) in settings {
        let controls = client.session_controls(session).unwrap_or_default();
        let Some(option) = controls.option(id) else {
            return Err(Failure::usage(format!(
                "--set {}: the agent offers no config option `{}`; {}",
                terminal_safe(id),
                terminal_safe(id),
                options_help(client, session)
            )));
        };
        let value = option
            .parse_value(text)
            .map_err(|reason| Failure::usage(format!("--set {}={}: {reason}", id, text)))?;
        bounded(limit, "setting a config option", async {
            client
                .set_config_option(session, id, &value)
                .await
                .map(|_| ())
                .map_err(|error| Failure::of(&format!("--set {id}"), &error, Exit::Failed))
        })
        .await?;
    }
    Ok(())
}

/// The modes a session offers, for messages.
#[must_use]
pub fn modes_help(client: &Client, session: &str) -> String {
    let controls = client.session_controls(session).unwrap_or_default();
    if let Some(modes) = &controls.modes {
        let ids: Vec<String> = modes
            .available
            .iter()
            .map(|m| terminal_safe(&m.id).into_owned())
            .collect();
        return format!("the agent's modes are: {}", ids.join(", "));
    }
    match controls.option_of_category("mode") {
        // v2 agents offer their modes as a config option: name its values, as for v1 modes.
        Some(option) => match &option.kind {
            ConfigKind::Select { choices, .. } => {
                let ids: Vec<String> = choices
                    .iter()
                    .map(|choice| terminal_safe(&choice.value).into_owned())
                    .collect();
                format!(
                    "the agent's modes are: {} (its `{}` option)",
                    ids.join(", "),
                    terminal_safe(&option.id)
                )
            }
            _ => format!(
                "the agent's modes are set with its `{}` option",
                terminal_safe(&option.id)
            ),
        },
        None => "the agent offers no modes for this session".to_owned(),
    }
}

/// The config options a session offers, for messages.
#[must_use]
pub fn options_help(client: &Client, session: &str) -> String {
    let controls = client.session_controls(session).unwrap_or_default();
    if controls.config_options.is_empty() {
        return "the agent offers no config options for this session".to_owned();
    }
    let ids: Vec<String> = controls
        .config_options
        .iter()
        .map(|option| terminal_safe(&option.id).into_owned())
        .collect();
    format!("its options are: {}", ids.join(", "))
}

/// Ends the agent: closes the connection (the agent sees the end of its input), then, for a
/// launched agent, waits the grace period, sends `SIGTERM` to its process group and
/// `SIGKILL` to what is left.
pub async fn shutdown(client: &Client, process: &mut Option<AgentProcess>) {
    // Never wait forever on a connection whose writer is stuck.
    let _ = tokio::time::timeout(Duration::from_secs(5), client.close()).await;
    if let Some(process) = process {
        let _ = process.shutdown().await;
    }
}
