//! The `_meta` extension object carried by most ACP types.

/// Free-form extension metadata (the `_meta` field).
///
/// ACP reserves `_meta` on almost every object for implementation-specific data. It is always a
/// JSON object; a `_meta` that is `null` or not an object decodes as absent, and an absent
/// `_meta` is never written.
pub type Meta = serde_json::Map<String, serde_json::Value>;
