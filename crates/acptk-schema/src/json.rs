//! JSON text in and out for the wire types that travel on their own, outside a method's
//! params or result (a session's stored history holds bare session updates).
//!
//! Rust compiles a generic function again in every crate that instantiates it, and an optimised
//! build does not merge the copies: `serde_json::from_str::<v1::SessionUpdate>` written in
//! another crate carries a second decoder of every update type. [`Json`] is implemented here,
//! so its code is compiled once, in this crate; the method tables do the same for params and
//! results ([`RequestMethod::decode_params`](crate::method::RequestMethod::decode_params)).
//!
//! ```
//! use acptk_schema::json::Json;
//! use acptk_schema::v1;
//!
//! let update = v1::SessionUpdate::from_json(
//!     r#"{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}"#,
//! )?;
//! assert!(matches!(update, v1::SessionUpdate::AgentMessageChunk(_)));
//! assert_eq!(Json::to_json(&update)?, serde_json::to_vec(&update)?);
//! # Ok::<(), serde_json::Error>(())
//! ```

/// A wire type read from and written as JSON text by code compiled in this crate.
pub trait Json: Sized {
    /// Decodes `text` (one JSON value, whitespace around it allowed).
    fn from_json(text: &str) -> Result<Self, serde_json::Error>;

    /// The value as compact JSON bytes, as `serde_json::to_vec` writes them.
    fn to_json(&self) -> Result<Vec<u8>, serde_json::Error>;
}

/// Implements [`Json`] for each type with `serde_json`'s text decoder and encoder.
macro_rules! json_types {
    ($($ty:ty),+ $(,)?) => {
        $(
            impl Json for $ty {
                fn from_json(text: &str) -> Result<Self, serde_json::Error> {
                    serde_json::from_str(text)
                }

                fn to_json(&self) -> Result<Vec<u8>, serde_json::Error> {
                    serde_json::to_vec(self)
                }
            }
        )+
    };
}

json_types!(crate::v1::SessionUpdate);
#[cfg(feature = "unstable_protocol_v2")]
json_types!(crate::v2::SessionUpdate);
