//! Capability objects whose shape is the same in both versions.
//!
//! ACP capabilities are mostly empty objects: sending `{}` advertises the feature, and an
//! omitted or `null` field means it is not supported. A malformed capability value is treated
//! as absent.

#[allow(unused_imports)]
use super::*;

wire_struct! {
    /// Agent capability: `session/delete` is supported, so clients may delete stored sessions.
    /// Sent as `{}`.
    #[derive(Default)]
    pub struct SessionDeleteCapabilities {
    }
}

impl SessionDeleteCapabilities {
    /// The capability object (`{}`).
    pub fn new() -> Self {
        Self { meta: None }
    }
}

wire_struct! {
    /// Agent capability: session setup accepts `additionalDirectories`, extra workspace roots
    /// beside the working directory. Sent as `{}`.
    #[derive(Default)]
    pub struct SessionAdditionalDirectoriesCapabilities {
    }
}

impl SessionAdditionalDirectoriesCapabilities {
    /// The capability object (`{}`).
    pub fn new() -> Self {
        Self { meta: None }
    }
}

wire_struct! {
    /// Agent capability: session setup accepts a system prompt supplied by the client.
    ///
    /// `mode` says which ways of applying it are supported; appending to the agent's own
    /// prompt is the baseline.
    #[derive(Default)]
    pub struct SessionSystemPromptCapabilities {
        /// Extra ways of applying the client's system prompt. Absent: append only.
        #[serde(
            default,
            deserialize_with = "crate::de::lenient_object",
            skip_serializing_if = "Option::is_none",
        )]
        pub mode: Option<SessionSystemPromptModeCapabilities>,
    }
}

impl SessionSystemPromptCapabilities {
    /// The capability with no extra modes.
    pub fn new() -> Self {
        Self {
            mode: None,
            meta: None,
        }
    }
}

setters!(SessionSystemPromptCapabilities { opt mode: SessionSystemPromptModeCapabilities });

wire_struct! {
    /// The ways, beyond appending, in which an agent can apply a client system prompt.
    #[derive(Default)]
    pub struct SessionSystemPromptModeCapabilities {
        /// Present when the client's prompt may replace the agent's own system prompt
        /// entirely (mode `override`).
        #[serde(
            default,
            deserialize_with = "crate::de::lenient",
            skip_serializing_if = "Option::is_none",
        )]
        pub r#override: Option<SessionSystemPromptOverrideCapabilities>,
    }
}

impl SessionSystemPromptModeCapabilities {
    /// No extra modes.
    pub fn new() -> Self {
        Self {
            r#override: None,
            meta: None,
        }
    }
}

setters!(SessionSystemPromptModeCapabilities {
    opt r#override: SessionSystemPromptOverrideCapabilities,
});

wire_struct! {
    /// Marks support for the `override` system prompt mode. Sent as `{}`.
    #[derive(Default)]
    pub struct SessionSystemPromptOverrideCapabilities {
    }
}

impl SessionSystemPromptOverrideCapabilities {
    /// The capability object (`{}`).
    pub fn new() -> Self {
        Self { meta: None }
    }
}

wire_struct! {
    /// What the client may do with a subagent session, as announced in a subagent update.
    #[derive(Default)]
    pub struct SubagentSessionCapabilities {
        /// Present when the client may cancel the subagent session's ongoing work. Absent: it
        /// may not.
        #[serde(
            default,
            deserialize_with = "crate::de::lenient_object",
            skip_serializing_if = "Option::is_none",
        )]
        pub cancel: Option<SessionCancelCapabilities>,
    }
}

impl SubagentSessionCapabilities {
    /// No operations allowed.
    pub fn new() -> Self {
        Self {
            cancel: None,
            meta: None,
        }
    }
}

setters!(SubagentSessionCapabilities { opt cancel: SessionCancelCapabilities });

wire_struct! {
    /// Marks that a session can be cancelled by the client. Sent as `{}`.
    #[derive(Default)]
    pub struct SessionCancelCapabilities {
    }
}

impl SessionCancelCapabilities {
    /// The capability object (`{}`).
    pub fn new() -> Self {
        Self { meta: None }
    }
}

wire_struct! {
    /// Client capability: the client can answer `elicitation/create`, asking the user for
    /// input on the agent's behalf. Each field enables one kind of elicitation.
    #[derive(Default)]
    pub struct ElicitationCapabilities {
        /// Present when the client can show a form built from a schema of fields.
        #[serde(
            default,
            deserialize_with = "crate::de::lenient_object",
            skip_serializing_if = "Option::is_none",
        )]
        pub form: Option<ElicitationFormCapabilities>,
        /// Present when the client can send the user to a URL (for example to sign in) and
        /// report back when that is done.
        #[serde(
            default,
            deserialize_with = "crate::de::lenient_object",
            skip_serializing_if = "Option::is_none",
        )]
        pub url: Option<ElicitationUrlCapabilities>,
    }
}

impl ElicitationCapabilities {
    /// No kind of elicitation enabled.
    pub fn new() -> Self {
        Self {
            form: None,
            url: None,
            meta: None,
        }
    }
}

setters!(ElicitationCapabilities {
    opt form: ElicitationFormCapabilities,
    opt url: ElicitationUrlCapabilities,
});

wire_struct! {
    /// Marks support for form elicitation. Sent as `{}`.
    #[derive(Default)]
    pub struct ElicitationFormCapabilities {
    }
}

impl ElicitationFormCapabilities {
    /// The capability object (`{}`).
    pub fn new() -> Self {
        Self { meta: None }
    }
}

wire_struct! {
    /// Marks support for URL elicitation. Sent as `{}`.
    #[derive(Default)]
    pub struct ElicitationUrlCapabilities {
    }
}

impl ElicitationUrlCapabilities {
    /// The capability object (`{}`).
    pub fn new() -> Self {
        Self { meta: None }
    }
}
