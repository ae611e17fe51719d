//! MCP servers in v1: the Model Context Protocol servers a client asks the agent to connect to
//! when it creates, loads or resumes a session.

#[allow(unused_imports)]
use super::*;

/// How the agent reaches one MCP server, tagged by `type`, where stdio has no tag.
///
/// ```json
/// {"name": "fs", "command": "/usr/bin/mcp-fs", "args": [], "env": []}
/// {"type": "http", "name": "docs", "url": "https://example.com/mcp", "headers": []}
/// ```
///
/// The tag is read first: no `type` (or `"type": "stdio"`) is [`McpServer::Stdio`], `http` and
/// `sse` are the remote transports. A known tag with a malformed payload is an error, and so is
/// any other tag (the union is closed in v1). The HTTP and SSE transports may only be used
/// when the agent advertised them in its MCP capabilities.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(tag = "type")]
#[non_exhaustive]
pub enum McpServer {
    /// Streamable HTTP transport (`"type": "http"`).
    #[serde(rename = "http")]
    Http(McpServerHttp),
    /// Server-sent events transport (`"type": "sse"`).
    #[serde(rename = "sse")]
    Sse(McpServerSse),
    /// A server reached over this ACP connection itself (`"type": "acp"`); only if the agent
    /// advertised `mcpCapabilities.acp`.
    #[cfg(feature = "unstable_mcp_over_acp")]
    #[serde(rename = "acp")]
    Acp(McpServerAcp),
    /// A local process spoken to over stdin/stdout (written without `type`).
    #[serde(untagged)]
    Stdio(McpServerStdio),
}

impl McpServer {
    /// The name of the JSON field holding the tag.
    pub const TAG_KEY: &'static str = "type";

    /// Every tag this union knows with the enabled cargo features. An object without a tag is
    /// [`McpServer::Stdio`].
    pub const TAGS: &'static [&'static str] = &[
        "http",
        "sse",
        #[cfg(feature = "unstable_mcp_over_acp")]
        "acp",
    ];

    /// The tag this value is written with; `None` for [`McpServer::Stdio`].
    pub fn tag(&self) -> Option<&str> {
        match self {
            Self::Http(_) => Some("http"),
            Self::Sse(_) => Some("sse"),
            #[cfg(feature = "unstable_mcp_over_acp")]
            Self::Acp(_) => Some("acp"),
            Self::Stdio(_) => None,
        }
    }

    /// The server's name, whatever the transport.
    pub fn name(&self) -> &str {
        match self {
            Self::Http(server) => &server.name,
            Self::Sse(server) => &server.name,
            #[cfg(feature = "unstable_mcp_over_acp")]
            Self::Acp(server) => &server.name,
            Self::Stdio(server) => &server.name,
        }
    }
}

from_variants!(McpServer { Http(McpServerHttp), Sse(McpServerSse), Stdio(McpServerStdio) });

map_deserialize!(
    McpServer,
    "an object, optionally tagged by `type` (McpServer)",
    |map| {
        let (tag, payload) = crate::de::tagged::read_optional_tag(map, McpServer::TAG_KEY)?;
        match tag.as_deref() {
            None | Some("stdio") => payload.decode().map(McpServer::Stdio),
            Some("http") => payload.decode().map(McpServer::Http),
            Some("sse") => payload.decode().map(McpServer::Sse),
            #[cfg(feature = "unstable_mcp_over_acp")]
            Some("acp") => payload.decode().map(McpServer::Acp),
            Some(other) => Err(serde::de::Error::unknown_variant(
                other,
                &[
                    "http",
                    "sse",
                    #[cfg(feature = "unstable_mcp_over_acp")]
                    "acp",
                    "stdio (or no `type`)",
                ],
            )),
        }
    }
);

schema_impl!(McpServer, |generator| {
    let mut alternatives = vec![
        schema_parts::tagged_payload::<McpServerHttp>(generator, "type", "http"),
        schema_parts::tagged_payload::<McpServerSse>(generator, "type", "sse"),
    ];
    #[cfg(feature = "unstable_mcp_over_acp")]
    alternatives.push(crate::schema_parts::tagged_alternative(
        "type",
        "acp",
        generator.subschema_for::<McpServerAcp>(),
        Some(r#"feature = "unstable_mcp_over_acp""#),
    ));
    alternatives.push(serde_json::json!({
        "title": "stdio",
        "allOf": [generator.subschema_for::<McpServerStdio>()],
    }));
    schema_parts::finish(serde_json::json!({ "anyOf": alternatives }))
});

// The two remote transports take the same fields.
twin_structs! {
    {
        /// Human-readable name of the server.
        pub name: String,
        /// The server's endpoint.
        pub url: String,
        /// HTTP headers to send with every request (for example authorization). Required;
        /// `null` means none.
        #[serde(deserialize_with = "crate::de::null_as_default")]
        pub headers: Vec<HttpHeader>,
    }
    /// A server `name` at `url`.
    new(name: impl Into<String>, url: impl Into<String>, headers: impl Into<Vec<HttpHeader>>)
    { meta: None }
    setters {}
    /// An MCP server reached over streamable HTTP.
    McpServerHttp;
    /// An MCP server reached over server-sent events (the older MCP remote transport).
    McpServerSse;
}

wire_struct! {
    /// An MCP server the agent starts as a local process and talks to over stdin/stdout.
    pub struct McpServerStdio {
        /// Human-readable name of the server.
        pub name: String,
        /// The program to run (a path).
        pub command: String,
        /// Command-line arguments. Required; `null` means none.
        #[serde(deserialize_with = "crate::de::null_as_default")]
        pub args: Vec<String>,
        /// Environment variables to set for the process. Required; `null` means none.
        #[serde(deserialize_with = "crate::de::null_as_default")]
        pub env: Vec<EnvVariable>,
    }
}

constructor! {
    /// A stdio server `name` started with `command args...` and the extra environment `env`.
    McpServerStdio(name: impl Into<String>, command: impl Into<String>, args: impl Into<Vec<String>>, env: impl Into<Vec<EnvVariable>>)
    { meta: None }
}
