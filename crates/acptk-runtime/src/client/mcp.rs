//! MCP servers as each version sends them in session set-up requests.

use acptk_schema::{v1, v2};

use crate::mcp_server::McpServerSpec;

/// A server as v1 sends it; `None` for a transport v1 does not have.
pub(super) fn mcp_v1(server: &McpServerSpec) -> Option<v1::McpServer> {
    match server {
        McpServerSpec::Stdio {
            name,
            command,
            args,
            env,
        } => Some(v1::McpServer::Stdio(v1::McpServerStdio::new(
            name.as_str(),
            command.as_str(),
            args.clone(),
            env.iter()
                .map(|(k, v)| v1::EnvVariable::new(k.as_str(), v.as_str()))
                .collect::<Vec<_>>(),
        ))),
        McpServerSpec::Remote {
            name,
            kind,
            url,
            headers,
        } => {
            let headers: Vec<v1::HttpHeader> = headers
                .iter()
                .map(|(k, v)| v1::HttpHeader::new(k.as_str(), v.as_str()))
                .collect();
            match kind.as_str() {
                "http" => Some(v1::McpServerHttp::new(name.as_str(), url.as_str(), headers).into()),
                "sse" => Some(v1::McpServerSse::new(name.as_str(), url.as_str(), headers).into()),
                _ => None,
            }
        }
        #[cfg(feature = "unstable_mcp_over_acp")]
        McpServerSpec::Acp { name, server_id } => Some(v1::McpServer::Acp(v1::McpServerAcp::new(
            name.as_str(),
            server_id.as_str(),
        ))),
    }
}

/// A server as v2 sends it; `None` for a transport v2 does not have.
pub(super) fn mcp_v2(server: &McpServerSpec) -> Option<v2::McpServer> {
    match server {
        McpServerSpec::Stdio {
            name,
            command,
            args,
            env,
        } => Some(v2::McpServer::Stdio(
            v2::McpServerStdio::new(name.as_str(), command.as_str())
                .args(args.clone())
                .env(
                    env.iter()
                        .map(|(k, v)| v2::EnvVariable::new(k.as_str(), v.as_str()))
                        .collect::<Vec<_>>(),
                ),
        )),
        McpServerSpec::Remote {
            name,
            kind,
            url,
            headers,
        } if kind == "http" => Some(
            v2::McpServerHttp::new(name.as_str(), url.as_str())
                .headers(
                    headers
                        .iter()
                        .map(|(k, v)| v2::HttpHeader::new(k.as_str(), v.as_str()))
                        .collect::<Vec<_>>(),
                )
                .into(),
        ),
        McpServerSpec::Remote { .. } => None,
        #[cfg(feature = "unstable_mcp_over_acp")]
        McpServerSpec::Acp { name, server_id } => Some(v2::McpServer::Acp(v2::McpServerAcp::new(
            name.as_str(),
            server_id.as_str(),
        ))),
    }
}
