//! Authentication status (cargo feature `unstable_auth_status`): the client asks whether the
//! user must sign in (`auth/status`), and the agent reports changes on its own
//! (`auth/status_update`). Same shape in every protocol version.
//!
//! An agent that answers `auth/status` advertises `auth.status` (`{}`) in its capabilities. It
//! must not refuse `auth/status` for lack of authentication: finding that out is the point of
//! the call.

#[allow(unused_imports)]
use super::*;

open_enum! {
    /// Whether the agent can start sessions without the user signing in first. Open: a client
    /// reads a value it does not know as `unknown`.
    pub enum AuthState {
        /// Credentials are configured (which does not prove that they are valid).
        Authenticated = "authenticated",
        /// The user must sign in: credentials are missing, expired or known to be invalid.
        Unauthenticated = "unauthenticated",
        /// No sign-in is needed at all (for example with a local model).
        NotRequired = "not_required",
        /// The agent cannot tell at the moment.
        Unknown = "unknown",
    }
}

marker_capability! {
    /// Agent capability (`auth.status`): the agent answers `auth/status` and may send
    /// `auth/status_update`. Sent as `{}`.
    AuthStatusCapabilities
}

empty_object! {
    /// `auth/status` parameters: asks for the agent's authentication state without changing
    /// it.
    AuthStatusRequest, new: "The request (`{}`)."
}

twin_structs! {
    {
        /// Whether the user must sign in before sessions can start.
        pub state: AuthState,
        /// The accounts the agent has configured, for display; absent means none
        /// reported. A malformed value decodes as empty and accounts that do not
        /// decode are dropped.
        #[list("crate::de::lenient_items")]
        pub accounts: Vec<AuthAccount>,
    }
    /// A status `state` with no accounts.
    new(state: impl Into<AuthState>) { accounts: Vec::new(), meta: None }
    setters { set accounts: Vec<AuthAccount> }
    /// The agent's answer to `auth/status`.
    ///
    /// ```json
    /// {"state": "authenticated", "accounts": [{"label": "Claude Max", "active": true}]}
    /// ```
    AuthStatusResponse;
    /// `auth/status_update` parameters: the agent's authentication state changed (sent only by
    /// agents that advertise `auth.status`, and only when it differs from the last one sent on
    /// the connection).
    AuthStatusUpdateNotification;
}

wire_struct! {
    /// An account or credential the agent has configured (a signed-in user, an API key, ...).
    ///
    /// Display information only: not a stable identifier, and not for logs or telemetry. Every
    /// optional field reads a malformed value as absent.
    pub struct AuthAccount {
        /// A name that can be shown on its own, such as `OpenAI API key`.
        pub label: String,
        /// A short text shown with the label, such as where the credential comes from; never
        /// the credential itself.
        #[opt("crate::de::lenient_string")]
        pub description: Option<String>,
        /// Whether the agent uses this account by default now (several may be, for example
        /// one per provider). Absent: not said.
        #[opt("crate::de::lenient")]
        pub active: Option<bool>,
        /// The user's display name.
        #[opt("crate::de::lenient_string")]
        pub name: Option<String>,
        /// The user's email address.
        #[opt("crate::de::lenient_string")]
        pub email: Option<String>,
        /// The organization, team or workspace the account uses.
        #[opt("crate::de::lenient_string")]
        pub organization: Option<String>,
    }
}

constructor! {
    /// An account shown as `label`.
    AuthAccount(label: impl Into<String>) {
        description: None,
        active: None,
        name: None,
        email: None,
        organization: None,
        meta: None,
    }
}

setters!(AuthAccount {
    opt description: String,
    opt active: bool,
    opt name: String,
    opt email: String,
    opt organization: String,
});
