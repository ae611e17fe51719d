//! MCP servers as each version sends them in session set-up requests.

use acptk_schema::{v1, v2};

use crate::mcp_server::McpServerSpec;

/// A server as v1 sends it; `None` for a transport v1 does not have.
pub(super) fn mcp_v1(server: &McpServerSpec) -> Option<v1::McpServer> {
    to_wire(server)
}

/// A server as v2 sends it; `None` for a transport v2 does not have.
pub(super) fn mcp_v2(server: &McpServerSpec) -> Option<v2::McpServer> {
    to_wire(server)
}

/// How one version writes each kind of server.
trait WireServer: Sized {
    fn stdio(name: &str, command: &str, args: &[String], env: &[(String, String)]) -> Self;
    /// `None` for a network kind the version does not have.
    fn network(name: &str, kind: &str, url: &str, headers: &[(String, String)]) -> Option<Self>;
    #[cfg(feature = "unstable_mcp_over_acp")]
    fn acp(name: &str, server_id: &str) -> Self;
}

/// `server` in the wire form `W`, the same steps for both versions.
fn to_wire<W: WireServer>(server: &McpServerSpec) -> Option<W> {
    match server {
        McpServerSpec::Stdio {
            name,
            command,
            args,
            env,
        } => Some(W::stdio(name, command, args, env)),
        McpServerSpec::Remote {
            name,
            kind,
            url,
            headers,
        } => W::network(name, kind, url, headers),
        #[cfg(feature = "unstable_mcp_over_acp")]
        McpServerSpec::Acp { name, server_id } => Some(W::acp(name, server_id)),
    }
}

/// `(name, value)` pairs as wire items (environment variables, HTTP headers).
fn pairs<T>(pairs: &[(String, String)], item: impl Fn(&str, &str) -> T) -> Vec<T> {
    pairs.iter().map(|(k, v)| item(k, v)).collect()
}

impl WireServer for v1::McpServer {
    fn stdio(name: &str, command: &str, args: &[String], env: &[(String, String)]) -> Self {
        let env = pairs(env, |k, v| v1::EnvVariable::new(k, v));
        v1::McpServer::Stdio(v1::McpServerStdio::new(name, command, args.to_vec(), env))
    }

    fn network(name: &str, kind: &str, url: &str, headers: &[(String, String)]) -> Option<Self> {
        let headers = pairs(headers, |k, v| v1::HttpHeader::new(k, v));
        match kind {
            "http" => Some(v1::McpServerHttp::new(name, url, headers).into()),
            "sse" => Some(v1::McpServerSse::new(name, url, headers).into()),
            _ => None,
        }
    }

    #[cfg(feature = "unstable_mcp_over_acp")]
    fn acp(name: &str, server_id: &str) -> Self {
        v1::McpServer::Acp(v1::McpServerAcp::new(name, server_id))
    }
}

impl WireServer for v2::McpServer {
    fn stdio(name: &str, command: &str, args: &[String], env: &[(String, String)]) -> Self {
        let env = pairs(env, |k, v| v2::EnvVariable::new(k, v));
        v2::McpServer::Stdio(
            v2::McpServerStdio::new(name, command)
                .args(args.to_vec())
                .env(env),
        )
    }

    fn network(name: &str, kind: &str, url: &str, headers: &[(String, String)]) -> Option<Self> {
        let headers = pairs(headers, |k, v| v2::HttpHeader::new(k, v));
        (kind == "http").then(|| v2::McpServerHttp::new(name, url).headers(headers).into())
    }

    #[cfg(feature = "unstable_mcp_over_acp")]
    fn acp(name: &str, server_id: &str) -> Self {
        v2::McpServer::Acp(v2::McpServerAcp::new(name, server_id))
    }
}
