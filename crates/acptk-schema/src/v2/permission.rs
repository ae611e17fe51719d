//! Permission requests in v2: the agent asks the user, through the client, to allow or reject
//! an operation (`session/request_permission`).

#[allow(unused_imports)]
use super::*;

wire_struct! {
    /// `session/request_permission` parameters: the agent asks the user whether something may
    /// happen, offering a set of choices.
    pub struct RequestPermissionRequest {
        /// The session the request belongs to.
        pub session_id: SessionId,
        /// Short question or summary shown to the user.
        pub title: String,
        /// Longer explanation; a malformed value is treated as absent.
        #[opt("crate::de::lenient_string")]
        pub description: Option<String>,
        /// What the permission is for (a tool call, a shell command, ...); absent when the
        /// request stands on its own.
        #[opt]
        pub subject: Option<RequestPermissionSubject>,
        /// The choices to offer the user (at least one).
        #[cfg_attr(feature = "schemars", schemars(length(min = 1)))]
        pub options: Vec<PermissionOption>,
    }
}

constructor! {
    /// A permission request titled `title` offering `options`.
    RequestPermissionRequest(session_id: impl Into<SessionId>, title: impl Into<String>, options: impl Into<Vec<PermissionOption>>)
    { description: None, subject: None, meta: None }
}

setters!(RequestPermissionRequest { opt description: String, opt subject: RequestPermissionSubject });

tagged_union! {
    /// What a permission request is about, tagged by `type`.
    ///
    /// Open: an unknown subject is kept verbatim in `Other`; a known `type` with a malformed
    /// payload is an error.
    pub enum RequestPermissionSubject("type") open(Other) {
        /// A tool call, which the client records or updates in the session state.
        /// (Boxed: a tool call is much larger than the other subjects.)
        ToolCall(Box<ToolCallPermissionSubject>) = "tool_call",
        /// A shell command the agent wants to run.
        Command(CommandPermissionSubject) = "command",
    }
}

open_enum! {
    /// What choosing a [`PermissionOption`] means, so clients can style it and remember
    /// "always" choices. Open: an unknown kind is kept verbatim.
    pub enum PermissionOptionKind {
        /// Allow this one operation.
        AllowOnce = "allow_once",
        /// Allow this operation now and remember the choice.
        AllowAlways = "allow_always",
        /// Reject this one operation.
        RejectOnce = "reject_once",
        /// Reject this operation now and remember the choice.
        RejectAlways = "reject_always",
    }
}

tagged_union! {
    /// How a permission request ended, tagged by `outcome`.
    ///
    /// ```json
    /// {"outcome": "selected", "optionId": "allow-once"}
    /// ```
    ///
    /// Open: an unknown outcome is kept verbatim in `Other`.
    pub enum RequestPermissionOutcome("outcome") open(Other) {
        /// The request was cancelled before the user chose.
        Cancelled(CancelledPermissionOutcome) = "cancelled",
        /// The user picked one of the offered options.
        Selected(SelectedPermissionOutcome) = "selected",
    }
}

from_variants!(RequestPermissionOutcome { Selected(SelectedPermissionOutcome), Cancelled(CancelledPermissionOutcome) });

empty_object! {
    /// The payload of a `cancelled` outcome (only `_meta`).
    CancelledPermissionOutcome, new: "An empty cancelled outcome."
}

impl From<ToolCallPermissionSubject> for RequestPermissionSubject {
    fn from(subject: ToolCallPermissionSubject) -> Self {
        Self::ToolCall(Box::new(subject))
    }
}

from_variants!(RequestPermissionSubject { Command(CommandPermissionSubject) });
