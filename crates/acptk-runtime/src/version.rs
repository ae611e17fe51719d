//! Protocol versions the runtime speaks, and a pair type for values that differ per version.

use acptk_schema::v1::ProtocolVersion;

/// The protocol versions this runtime implements, oldest first.
pub const SUPPORTED_VERSIONS: &[ProtocolVersion] = &[ProtocolVersion::V1, ProtocolVersion::V2];

/// A value whose type depends on the negotiated protocol version.
///
/// ACP v1 and v2 have distinct types for the same concept (capabilities, requests, updates);
/// this enum carries whichever one the connection uses.
#[derive(Debug, Clone, PartialEq)]
pub enum ByVersion<A, B> {
    /// The ACP v1 form.
    V1(A),
    /// The ACP v2 form.
    V2(B),
}

impl<A, B> ByVersion<A, B> {
    /// The protocol version of the value.
    pub fn version(&self) -> ProtocolVersion {
        match self {
            ByVersion::V1(_) => ProtocolVersion::V1,
            ByVersion::V2(_) => ProtocolVersion::V2,
        }
    }

    /// The v1 form, if it is one.
    pub fn as_v1(&self) -> Option<&A> {
        match self {
            ByVersion::V1(value) => Some(value),
            ByVersion::V2(_) => None,
        }
    }

    /// The v2 form, if it is one.
    pub fn as_v2(&self) -> Option<&B> {
        match self {
            ByVersion::V1(_) => None,
            ByVersion::V2(value) => Some(value),
        }
    }
}

/// Reads only the `protocolVersion` field of `initialize` params or results.
pub(crate) fn peek_version(raw: &str) -> Option<ProtocolVersion> {
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Peek {
        protocol_version: ProtocolVersion,
    }
    serde_json::from_str::<Peek>(raw)
        .ok()
        .map(|peek| peek.protocol_version)
}

/// `1 and 2` for the given versions, for messages.
pub(crate) fn describe(versions: &[ProtocolVersion]) -> String {
    let names: Vec<String> = versions.iter().map(ToString::to_string).collect();
    match names.split_last() {
        None => "none".to_owned(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    }
}
