//! MCP server configuration parts whose shape is the same in every protocol version.

#[allow(unused_imports)]
use super::*;

wire_struct! {
    /// One HTTP header sent to a remote MCP server.
    pub struct HttpHeader {
        /// Header name.
        pub name: String,
        /// Header value.
        pub value: String,
    }
}

constructor! {
    /// A header `name: value`.
    HttpHeader(name: impl Into<String>, value: impl Into<String>) { meta: None }
}
