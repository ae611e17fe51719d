//! Capability objects whose shape is the same in both versions.
//!
//! ACP capabilities are mostly empty objects: sending `{}` advertises the feature, and an
//! omitted or `null` field means it is not supported. A malformed capability value is treated
//! as absent.

#[allow(unused_imports)]
use super::*;

marker_capability! {
    /// Agent capability: `session/delete` is supported, so clients may delete stored sessions.
    /// Sent as `{}`.
    SessionDeleteCapabilities
}

marker_capability! {
    /// Agent capability: session setup accepts `additionalDirectories`, extra workspace roots
    /// beside the working directory. Sent as `{}`.
    SessionAdditionalDirectoriesCapabilities
}

wire_struct! {
    /// Agent capability: session setup accepts a system prompt supplied by the client.
    ///
    /// `mode` says which ways of applying it are supported; appending to the agent's own
    /// prompt is the baseline.
    #[derive(Default)]
    pub struct SessionSystemPromptCapabilities {
        /// Extra ways of applying the client's system prompt. Absent: append only.
        #[opt("crate::de::lenient_object")]
        pub mode: Option<SessionSystemPromptModeCapabilities>,
    }
}

default_new!(
    SessionSystemPromptCapabilities,
    "The capability with no extra modes."
);

setters!(SessionSystemPromptCapabilities { opt mode: SessionSystemPromptModeCapabilities });

wire_struct! {
    /// The ways, beyond appending, in which an agent can apply a client system prompt.
    #[derive(Default)]
    pub struct SessionSystemPromptModeCapabilities {
        /// Present when the client's prompt may replace the agent's own system prompt
        /// entirely (mode `override`).
        #[opt("crate::de::lenient")]
        pub r#override: Option<SessionSystemPromptOverrideCapabilities>,
    }
}

constructor! {
    /// No extra modes.
    SessionSystemPromptModeCapabilities() { r#override: None, meta: None }
}

setters!(SessionSystemPromptModeCapabilities {
    opt r#override: SessionSystemPromptOverrideCapabilities,
});

marker_capability! {
    /// Marks support for the `override` system prompt mode. Sent as `{}`.
    SessionSystemPromptOverrideCapabilities
}

wire_struct! {
    /// What the client may do with a subagent session, as announced in a subagent update.
    #[derive(Default)]
    pub struct SubagentSessionCapabilities {
        /// Present when the client may cancel the subagent session's ongoing work. Absent: it
        /// may not.
        #[opt("crate::de::lenient_object")]
        pub cancel: Option<SessionCancelCapabilities>,
    }
}

default_new!(SubagentSessionCapabilities, "No operations allowed.");

setters!(SubagentSessionCapabilities { opt cancel: SessionCancelCapabilities });

marker_capability! {
    /// Marks that a session can be cancelled by the client. Sent as `{}`.
    SessionCancelCapabilities
}

wire_struct! {
    /// Client capability: the client can answer `elicitation/create`, asking the user for
    /// input on the agent's behalf. Each field enables one kind of elicitation.
    #[derive(Default)]
    pub struct ElicitationCapabilities {
        /// Present when the client can show a form built from a schema of fields.
        #[opt("crate::de::lenient_object")]
        pub form: Option<ElicitationFormCapabilities>,
        /// Present when the client can send the user to a URL (for example to sign in) and
        /// report back when that is done.
        #[opt("crate::de::lenient_object")]
        pub url: Option<ElicitationUrlCapabilities>,
    }
}

default_new!(ElicitationCapabilities, "No kind of elicitation enabled.");

setters!(ElicitationCapabilities {
    opt form: ElicitationFormCapabilities,
    opt url: ElicitationUrlCapabilities,
});

marker_capability! {
    /// Marks support for form elicitation. Sent as `{}`.
    ElicitationFormCapabilities
}

marker_capability! {
    /// Marks support for URL elicitation. Sent as `{}`.
    ElicitationUrlCapabilities
}

/// Declares a version's `SessionCapabilities` from its own fields (the struct's docs and the
/// fields the versions type differently, in wire order, each an optional capability object
/// written `pub name: Option<Type>`, decoded leniently and given an `opt` setter): the optional
/// session methods behind unstable features, the same in both versions, follow them, with
/// their setters, and `new`.
macro_rules! session_capabilities {
    (
        $(#[$attr:meta])*
        pub struct SessionCapabilities {
            $($(#[doc = $doc:expr])* pub $field:ident: Option<$ty:ident>,)*
        }
    ) => {
        wire_struct! {
            $(#[$attr])*
            #[derive(Default)]
            pub struct SessionCapabilities {
                $(
                    $(#[doc = $doc])*
                    #[opt("crate::de::lenient_object")]
                    pub $field: Option<$ty>,
                )*
                /// `session/fork` is supported.
                #[unstable("unstable_session_fork")]
                #[opt("crate::de::lenient_object")]
                pub fork: Option<SessionForkCapabilities>,
                /// `session/archive` and `session/unarchive` are supported, with the `archived` filter of
                /// `session/list` and [`SessionInfo::archived`]. Requires `list` too.
                #[unstable("unstable_session_archive")]
                #[opt("crate::de::lenient_object")]
                pub archive: Option<SessionArchiveCapabilities>,
                /// `session/status` is supported.
                #[unstable("unstable_session_status")]
                #[opt("crate::de::lenient_object")]
                pub status: Option<SessionStatusCapabilities>,
                /// `session/options` is supported, and session setup accepts initial config option values.
                #[unstable("unstable_session_options")]
                #[opt("crate::de::lenient_object")]
                pub options: Option<SessionOptionsCapabilities>,
                /// `session/set_title` is supported (clients may rename sessions; agents report titles
                /// without it).
                #[unstable("unstable_session_set_title")]
                #[opt("crate::de::lenient_object")]
                pub title: Option<SessionTitleCapabilities>,
            }
        }

        impl SessionCapabilities {
            /// No optional session features.
            pub fn new() -> Self {
                Self::default()
            }
        }

        setters!(SessionCapabilities { $(opt $field: $ty),* });

        #[cfg(feature = "unstable_session_fork")]
        setters!(SessionCapabilities { opt fork: SessionForkCapabilities });

        #[cfg(feature = "unstable_session_archive")]
        setters!(SessionCapabilities { opt archive: SessionArchiveCapabilities });

        #[cfg(feature = "unstable_session_status")]
        setters!(SessionCapabilities { opt status: SessionStatusCapabilities });

        #[cfg(feature = "unstable_session_options")]
        setters!(SessionCapabilities { opt options: SessionOptionsCapabilities });

        #[cfg(feature = "unstable_session_set_title")]
        setters!(SessionCapabilities { opt title: SessionTitleCapabilities });
    };
}
pub(crate) use session_capabilities;
