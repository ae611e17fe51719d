//! The MCP servers a client asks an agent to use when it opens a session, in one form for
//! both versions: the agent reads them, the client checks them against what the agent
//! accepts.

use acptk_schema::{v1, v2};

/// An MCP server the client asked the agent to use, in either version.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum McpServerSpec {
    /// A server started as a local process speaking MCP over stdio.
    Stdio {
        /// Its name.
        name: String,
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Environment variables (name, value).
        env: Vec<(String, String)>,
    },
    /// A server reached over the network (HTTP, SSE, or a kind this runtime does not know).
    Remote {
        /// Its name.
        name: String,
        /// The transport kind (`http`, `sse`, ...).
        kind: String,
        /// Its endpoint; empty when a kind this runtime does not know carried none.
        url: String,
        /// HTTP headers to send with every request (name, value).
        headers: Vec<(String, String)>,
    },
    /// A server the client provides over the ACP connection itself, reached with
    /// `mcp/message` (cargo feature `unstable_mcp_over_acp`).
    #[cfg(feature = "unstable_mcp_over_acp")]
    Acp {
        /// Its name.
        name: String,
        /// The id the client gave it, which every `mcp/message` names.
        server_id: String,
    },
}

/// A network server of `kind` from the wire fields of either version (HTTP, v1's SSE).
macro_rules! network {
    ($server:expr, $kind:expr) => {
        remote(
            &$server.name,
            $kind,
            &$server.url,
            $server.headers.iter().map(|h| (&h.name, &h.value)),
        )
    };
}

/// The servers both versions send alike (stdio, HTTP, `acp`), from the wire types of
/// `$version`; `None` for the others.
macro_rules! shared_kinds {
    ($version:ident, $server:expr) => {
        match $server {
            $version::McpServer::Stdio(stdio) => Some(local(
                &stdio.name,
                stdio.command.as_str(),
                &stdio.args,
                stdio.env.iter().map(|var| (&var.name, &var.value)),
            )),
            $version::McpServer::Http(http) => Some(network!(http, "http")),
            #[cfg(feature = "unstable_mcp_over_acp")]
            $version::McpServer::Acp(acp) => Some(McpServerSpec::Acp {
                name: acp.name.clone(),
                server_id: acp.server_id.to_string(),
            }),
            _ => None,
        }
    };
}

impl McpServerSpec {
    /// The server's name.
    pub fn name(&self) -> &str {
        match self {
            McpServerSpec::Stdio { name, .. } | McpServerSpec::Remote { name, .. } => name,
            #[cfg(feature = "unstable_mcp_over_acp")]
            McpServerSpec::Acp { name, .. } => name,
        }
    }

    /// The id of an `acp` server (the one every `mcp/message` names); `None` for the other
    /// transports.
    pub(crate) fn acp_server_id(&self) -> Option<&str> {
        match self {
            McpServerSpec::Stdio { .. } | McpServerSpec::Remote { .. } => None,
            #[cfg(feature = "unstable_mcp_over_acp")]
            McpServerSpec::Acp { server_id, .. } => Some(server_id),
        }
    }

    /// The transport kind: `stdio`, `http`, `sse`, or the name of an unknown one.
    pub fn kind(&self) -> &str {
        match self {
            McpServerSpec::Stdio { .. } => "stdio",
            McpServerSpec::Remote { kind, .. } => kind,
            #[cfg(feature = "unstable_mcp_over_acp")]
            McpServerSpec::Acp { .. } => "acp",
        }
    }

    pub(crate) fn from_v1(server: &v1::McpServer) -> Self {
        shared_kinds!(v1, server).unwrap_or_else(|| match server {
            v1::McpServer::Sse(sse) => network!(sse, "sse"),
            other => remote(
                other.name(),
                other.tag().unwrap_or_default(),
                "",
                std::iter::empty(),
            ),
        })
    }

    pub(crate) fn from_v2(server: &v2::McpServer) -> Self {
        shared_kinds!(v2, server).unwrap_or_else(|| match server {
            v2::McpServer::Other(unknown) => {
                // A transport this runtime does not know: keep what its fields say.
                let text = |key: &str| {
                    unknown
                        .fields()
                        .get(key)
                        .and_then(serde_json::Value::as_str)
                        .unwrap_or_default()
                };
                remote(text("name"), unknown.tag(), text("url"), std::iter::empty())
            }
            other => remote("", other.tag(), "", std::iter::empty()),
        })
    }
}

/// A local server from its wire fields.
fn local<'a>(
    name: &str,
    command: &str,
    args: &[String],
    env: impl Iterator<Item = (&'a String, &'a String)>,
) -> McpServerSpec {
    McpServerSpec::Stdio {
        name: name.to_owned(),
        command: command.to_owned(),
        args: args.to_vec(),
        env: env.map(|(n, v)| (n.clone(), v.clone())).collect(),
    }
}

/// A network server from its wire fields.
fn remote<'a>(
    name: &str,
    kind: &str,
    url: &str,
    headers: impl Iterator<Item = (&'a String, &'a String)>,
) -> McpServerSpec {
    McpServerSpec::Remote {
        name: name.to_owned(),
        kind: kind.to_owned(),
        url: url.to_owned(),
        headers: headers.map(|(n, v)| (n.clone(), v.clone())).collect(),
    }
}
