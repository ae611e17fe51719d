//! The v1 client capability that advertises session notices.

use serde::de::IgnoredAny;

/// The client can present session notices (`clientCapabilities.session.notices`).
///
/// On the wire this is an object, normally `{}`. A v1 agent must not send a `notice` session
/// update unless the client's `initialize` request carried it; without it the agent may send an
/// ordinary agent message instead, which then is conversation content like any other message.
///
/// Only an object counts: decoding `true`, `"yes"` or `[]` fails here, which makes the
/// enclosing [`ClientSessionCapabilities::notices`](super::ClientSessionCapabilities::notices) field decode as "not advertised". Unknown
/// keys inside the object are ignored.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
#[non_exhaustive]
pub struct NoticeCapabilities {
    /// Extension metadata (`_meta`). Absent when `None`; see [`crate::Meta`].
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<crate::Meta>,
}

default_new!(
    NoticeCapabilities,
    "The capability with no metadata (`{}` on the wire)."
);

meta_setter!(NoticeCapabilities);

map_deserialize!(
    NoticeCapabilities,
    "an object (NoticeCapabilities)",
    |mut map| {
        let mut meta = None;
        while let Some(key) = map.next_key::<String>()? {
            if key == "_meta" {
                meta = match map.next_value::<serde_json::Value>()? {
                    serde_json::Value::Object(object) => Some(crate::Meta::from(object)),
                    _ => None,
                };
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(NoticeCapabilities { meta })
    }
);

schema_impl! {
    /// The schema is a bare object, as in the ACP schema: any keys are allowed, `_meta` included.
    NoticeCapabilities, |_| {
        schemars::json_schema!({ "type": "object" })
    }
}

impl ClientCapabilities {
    /// Whether these capabilities advertise session notices, that is whether
    /// `session.notices` is present as an object. Only then may a v1 agent send `notice`
    /// session updates to this client.
    pub fn advertises_notices(&self) -> bool {
        self.session
            .as_ref()
            .is_some_and(|session| session.notices.is_some())
    }

    /// Sets `session.notices`, keeping any other session capabilities already set.
    #[must_use]
    pub fn with_notices(mut self) -> Self {
        let session = self.session.take().unwrap_or_default();
        self.session = Some(session.notices(NoticeCapabilities::new()));
        self
    }
}

use super::ClientCapabilities;
