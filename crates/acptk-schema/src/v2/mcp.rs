//! MCP servers in v2: the Model Context Protocol servers a client asks the agent to connect
//! to when it creates or resumes a session.

#[allow(unused_imports)]
use super::*;

tagged_union! {
    /// How the agent reaches one MCP server, tagged by `type`.
    ///
    /// ```json
    /// {"type": "stdio", "name": "fs", "command": "/usr/bin/mcp-fs"}
    /// ```
    ///
    /// Open: an unknown transport is kept verbatim in `Other`; a known `type` with a malformed
    /// payload is an error.
    pub enum McpServer("type") open(Other) {
        /// Streamable HTTP transport; only if the agent advertised HTTP support.
        Http(McpServerHttp) = "http",
        /// A server reached over this ACP connection itself; only if the agent advertised
        /// `mcp.acp`.
        #[cfg(feature = "unstable_mcp_over_acp")]
        Acp(McpServerAcp) = "acp",
        /// A local process spoken to over stdin/stdout.
        Stdio(McpServerStdio) = "stdio",
    }
}

wire_struct! {
    /// An MCP server reached over streamable HTTP.
    pub struct McpServerHttp {
        /// Human-readable name of the server.
        pub name: String,
        /// The server's endpoint (a URI).
        #[cfg_attr(feature = "schemars", schemars(url))]
        pub url: String,
        /// HTTP headers to send with every request; absent or `null` means none.
        #[list("crate::de::null_as_default")]
        pub headers: Vec<HttpHeader>,
    }
}

constructor! {
    /// An HTTP server `name` at `url`, without headers.
    McpServerHttp(name: impl Into<String>, url: impl Into<String>)
    { headers: Vec::new(), meta: None }
}

setters!(McpServerHttp { set headers: Vec<HttpHeader> });

wire_struct! {
    /// An MCP server the agent starts as a local process and talks to over stdin/stdout.
    pub struct McpServerStdio {
        /// Human-readable name of the server.
        pub name: String,
        /// Absolute path of the program to run.
        pub command: AbsolutePath,
        /// Command-line arguments; absent or `null` means none.
        #[list("crate::de::null_as_default")]
        pub args: Vec<String>,
        /// Environment variables to set for the process; absent or `null` means none.
        #[list("crate::de::null_as_default")]
        pub env: Vec<EnvVariable>,
    }
}

impl McpServerStdio {
    /// A stdio server `name` started with `command`, without arguments or extra environment.
    pub fn new(name: impl Into<String>, command: impl Into<AbsolutePath>) -> Self {
        Self {
            name: name.into(),
            command: command.into(),
            args: Vec::new(),
            env: Vec::new(),
            meta: None,
        }
    }
}

setters!(McpServerStdio { set args: Vec<String>, set env: Vec<EnvVariable> });

from_variants!(McpServer { Http(McpServerHttp), Stdio(McpServerStdio) });
