//! `acp client --mcp-config FILE`: the MCP servers to give the agent for the session, read
//! from the JSON format that Claude Desktop, Claude Code and Cursor write:
//!
//! ```json
//! {
//!   "mcpServers": {
//!     "files": {"command": "mcp-files", "args": ["--root", "."], "env": {"LOG": "1"}},
//!     "search": {"type": "http", "url": "https://mcp.example/search",
//!                "headers": {"Authorization": "Bearer ..."}},
//!     "events": {"type": "sse", "url": "https://mcp.example/sse"}
//!   }
//! }
//! ```
//!
//! A server with `command` (and no `type`, or `"type": "stdio"`) is started by the agent; one
//! with `url` is reached over `http` (the default without `type`) or `sse`. Keys other tools
//! add (`disabled`, `timeout`, ...) are ignored, and a server with `"disabled": true` is left
//! out. Servers are sent in the order of their names.
//!
//! The agent gets only the servers of the transports it advertised (v1: stdio always, `http`
//! and `sse` with `mcpCapabilities`; v2: each of `stdio` and `http` with `session.mcp`); the
//! others are left out with a warning.

use std::path::Path;

use acptk_runtime::agent::McpServerSpec;
use acptk_runtime::client::Client;
use serde_json::{Map, Value};

/// The servers in the file `path`.
pub fn read(path: &Path) -> Result<Vec<McpServerSpec>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|error| format!("--mcp-config {}: {error}", path.display()))?;
    parse(&text).map_err(|error| format!("--mcp-config {}: {error}", path.display()))
}

/// The servers in the text of an MCP config file, by name (the same order whichever way
/// serde_json keeps an object's members: the `preserve_order` feature may be on in a build).
pub fn parse(text: &str) -> Result<Vec<McpServerSpec>, String> {
    let value: Value = serde_json::from_str(text).map_err(|error| format!("not JSON: {error}"))?;
    let servers = value
        .get("mcpServers")
        .ok_or("expected an object with `mcpServers` (`{\"mcpServers\": {NAME: {...}}}`)")?
        .as_object()
        .ok_or("`mcpServers` must be an object of servers by name")?;
    let mut specs = Vec::new();
    for (name, server) in servers {
        let server = server
            .as_object()
            .ok_or_else(|| format!("server `{name}` must be an object"))?;
        if server.get("disabled").and_then(Value::as_bool) == Some(true) {
            continue;
        }
        specs.push(spec(name, server).map_err(|error| format!("server `{name}`: {error}"))?);
    }
    specs.sort_by(|a, b| a.name().cmp(b.name()));
    Ok(specs)
}

/// One server.
fn spec(name: &str, server: &Map<String, Value>) -> Result<McpServerSpec, String> {
    let kind = match server.get("type") {
        None | Some(Value::Null) => {
            if server.contains_key("command") {
                "stdio"
            } else if server.contains_key("url") {
                "http"
            } else {
                return Err("give `command` (a local server) or `url` (a remote one)".to_owned());
            }
        }
        Some(Value::String(kind)) => kind.as_str(),
        Some(_) => return Err("`type` must be a string".to_owned()),
    };
    match kind {
        "stdio" => Ok(McpServerSpec::Stdio {
            name: name.to_owned(),
            command: string(server, "command")?
                .filter(|command| !command.trim().is_empty())
                .ok_or("`command` must be a non-empty string")?,
            args: match server.get("args") {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Array(args)) => args
                    .iter()
                    .map(|arg| arg.as_str().map(str::to_owned))
                    .collect::<Option<Vec<_>>>()
                    .ok_or("`args` must be a list of strings")?,
                Some(_) => return Err("`args` must be a list of strings".to_owned()),
            },
            env: pairs(server, "env")?,
        }),
        "http" | "sse" => Ok(McpServerSpec::Remote {
            name: name.to_owned(),
            kind: kind.to_owned(),
            url: string(server, "url")?
                .filter(|url| !url.trim().is_empty())
                .ok_or("`url` must be a non-empty string")?,
            headers: pairs(server, "headers")?,
        }),
        other => Err(format!("`type` `{other}` is not one of: stdio, http, sse")),
    }
}

/// The string at `key`, if there is one.
fn string(server: &Map<String, Value>, key: &str) -> Result<Option<String>, String> {
    match server.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text.clone())),
        Some(_) => Err(format!("`{key}` must be a string")),
    }
}

/// The object of strings at `key` as (name, value) pairs.
fn pairs(server: &Map<String, Value>, key: &str) -> Result<Vec<(String, String)>, String> {
    match server.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Object(map)) => map
            .iter()
            .map(|(name, value)| {
                value
                    .as_str()
                    .map(|value| (name.clone(), value.to_owned()))
                    .ok_or_else(|| format!("`{key}.{name}` must be a string"))
            })
            .collect(),
        Some(_) => Err(format!("`{key}` must be an object of strings")),
    }
}

/// The servers the agent takes, and a warning for those it does not (naming what is kept).
#[must_use]
pub fn for_agent(
    client: &Client,
    servers: &[McpServerSpec],
) -> (Vec<McpServerSpec>, Option<String>) {
    let agent = client.agent();
    let (kept, left): (Vec<&McpServerSpec>, Vec<&McpServerSpec>) = servers
        .iter()
        .partition(|server| agent.accepts_mcp_server(server));
    let warning = (!left.is_empty()).then(|| {
        let left: Vec<String> = left
            .iter()
            .map(|server| format!("`{}` ({})", server.name(), server.kind()))
            .collect();
        let kept: Vec<String> = kept
            .iter()
            .map(|server| format!("`{}`", server.name()))
            .collect();
        format!(
            "left out MCP server(s) {}: the agent did not advertise that transport (ACP v{}); {}",
            left.join(", "),
            client.protocol_version(),
            if kept.is_empty() {
                "the session gets no MCP servers".to_owned()
            } else {
                format!("kept {}", kept.join(", "))
            }
        )
    });
    (kept.into_iter().cloned().collect(), warning)
}
