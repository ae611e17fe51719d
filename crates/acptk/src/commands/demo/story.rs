//! The scripted story and the three clients that go through it.

use acptk_runtime::agent::McpServerSpec;
use acptk_schema::v1::ProtocolVersion;

/// The name of the MCP server the session is configured with.
pub const MCP_NAME: &str = "docs";

/// Its command, which does not exist, so the agent cannot start it.
pub const MCP_COMMAND: &str = "/nonexistent/acp-demo/docs-mcp-server";

/// The working directory the sessions are opened in (nothing is read from it).
pub const CWD: &str = "/tmp/acp-demo";

/// The session's MCP servers.
#[must_use]
pub fn mcp_servers() -> Vec<McpServerSpec> {
    vec![McpServerSpec::Stdio {
        name: MCP_NAME.to_owned(),
        command: MCP_COMMAND.to_owned(),
        args: Vec::new(),
        env: Vec::new(),
    }]
}

/// The title of the notice the agent sends about the MCP server.
#[must_use]
pub fn mcp_title() -> String {
    format!("MCP server {MCP_NAME} unavailable")
}

/// One prompt of the story, with what it stands for.
#[derive(Debug, Clone, Copy)]
pub struct Step {
    /// What happens, for the story's summary.
    pub label: &'static str,
    /// The prompt sent.
    pub prompt: &'static str,
}

/// The prompts, in order (the session is opened before and reloaded after them).
pub const STEPS: [Step; 4] = [
    Step {
        label: "an ordinary prompt: a streamed reply and a tool call",
        prompt: "Summarise the project",
    },
    Step {
        label: "a fallback to defaults (info)",
        prompt: "/notice info Using default settings -- no project configuration was found",
    },
    Step {
        label: "a rerouted model (info)",
        prompt: "/notice info Model rerouted -- the requested model is busy; the backup model answered",
    },
    Step {
        label: "a degraded provider (warning)",
        prompt: "/notice warning Provider degraded -- replies may be slow or fail",
    },
];

/// The titles of the notices of the story, to look for them in the histories.
#[must_use]
pub fn notice_titles() -> Vec<String> {
    vec![
        mcp_title(),
        "Using default settings".to_owned(),
        "Model rerouted".to_owned(),
        "Provider degraded".to_owned(),
    ]
}

/// The story as numbered lines for the report.
#[must_use]
pub fn outline() -> Vec<String> {
    let mut lines = vec![format!(
        "open a session with the stdio MCP server `{MCP_NAME}`, whose command `{MCP_COMMAND}` does not exist"
    )];
    lines.extend(
        STEPS
            .iter()
            .map(|step| format!("{}: `{}`", step.label, step.prompt)),
    );
    lines.push(
        "hang up, reconnect and reopen the session with a replay of its history \
         (v1 `session/load`, v2 `session/resume`)"
            .to_owned(),
    );
    lines
}

/// One of the demo's clients.
#[derive(Debug, Clone, Copy)]
pub struct ClientSpec {
    /// Its short name.
    pub name: &'static str,
    /// What kind of client it is.
    pub kind: &'static str,
    /// The protocol version it speaks.
    pub protocol: ProtocolVersion,
    /// Whether it has a notice center (and so, in v1, advertises `session.notices`).
    pub notices: bool,
    /// How it reopens the session.
    pub reconnect: &'static str,
}

/// The three clients.
pub const CLIENTS: [ClientSpec; 3] = [
    ClientSpec {
        name: "A",
        kind: "ACP v1, advertises session.notices",
        protocol: ProtocolVersion::V1,
        notices: true,
        reconnect: "session/load",
    },
    ClientSpec {
        name: "B",
        kind: "ACP v1, does not advertise session.notices",
        protocol: ProtocolVersion::V1,
        notices: false,
        reconnect: "session/load",
    },
    ClientSpec {
        name: "C",
        kind: "ACP v2 (notices need no capability)",
        protocol: ProtocolVersion::V2,
        notices: true,
        reconnect: "session/resume with",
    },
];
