//! Connection set-up shared by both versions: the protocol version number and the
//! description of an implementation.

#[allow(unused_imports)]
use super::*;

/// An ACP protocol version number.
///
/// The client sends the newest version it supports in `initialize`; the agent answers with that
/// version if it supports it, or with the newest one it does support. Versions only change for
/// breaking changes; everything else is negotiated through capabilities. On the wire it is a
/// plain integer from 0 to 65535.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ProtocolVersion(pub u16);

impl ProtocolVersion {
    /// Version 0: pre-release drafts. Peers should treat it as unsupported.
    pub const V0: Self = Self(0);
    /// ACP version 1.
    pub const V1: Self = Self(1);
    /// ACP version 2.
    pub const V2: Self = Self(2);

    /// Wraps a version number.
    pub const fn new(version: u16) -> Self {
        Self(version)
    }

    /// The version number.
    pub const fn get(self) -> u16 {
        self.0
    }
}

impl From<u16> for ProtocolVersion {
    fn from(version: u16) -> Self {
        Self(version)
    }
}

impl From<ProtocolVersion> for u16 {
    fn from(version: ProtocolVersion) -> Self {
        version.0
    }
}

impl std::fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl serde::Serialize for ProtocolVersion {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u16(self.0)
    }
}

impl<'de> serde::Deserialize<'de> for ProtocolVersion {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        <u16 as serde::Deserialize>::deserialize(deserializer).map(Self)
    }
}

schema_impl!(ProtocolVersion, |_| {
    schemars::json_schema!({
        "type": "integer",
        "format": "uint16",
        "minimum": 0,
        "maximum": 65535
    })
});

wire_struct! {
    /// The name and version of an ACP implementation (a client or an agent), exchanged during
    /// `initialize` for display, logs and debugging.
    ///
    /// ```json
    /// {"name": "my-agent", "title": "My Agent", "version": "1.4.0"}
    /// ```
    pub struct Implementation {
        /// A stable, machine-oriented name. Shown to users when `title` is absent.
        pub name: String,
        /// A human-readable name for user interfaces. A non-string value is treated as absent.
        #[opt("crate::de::lenient_string")]
        pub title: Option<String>,
        /// The implementation's version, free-form (for example `"1.0.0"`).
        pub version: String,
    }
}

constructor! {
    /// Describes an implementation by name and version, without a title.
    Implementation(name: impl Into<String>, version: impl Into<String>) { title: None, meta: None }
}

setters!(Implementation { opt title: String });
