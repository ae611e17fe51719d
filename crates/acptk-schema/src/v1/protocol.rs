//! Protocol-level types of ACP v1: request ids and the error object with its codes.

#[allow(unused_imports)]
use super::*;

request_id! {
    /// The id of a JSON-RPC request: `null`, an integer, or a string.
    ///
    /// The sender picks it; the response and any `$/cancel_request` repeat it unchanged. `null`
    /// is allowed by JSON-RPC for a response to a request whose id could not be read; a request
    /// should not use it. Integers are signed 64-bit; a fractional or larger number is rejected.
    null: Null,
    expecting: "a request id (null, a 64-bit integer or a string)",
}

rpc_error_object! {
    /// Any extra information about the error, in a shape that depends on the code. A
    /// `null` is treated as absent.
    #[opt("crate::de::null_as_none")]
    data: serde_json::Value,
}

// v1 names only the codes both versions share.
error_code_enum! {}
