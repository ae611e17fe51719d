//! Authentication in ACP v2: the methods an agent offers, `auth/login` and `auth/logout`.
//!
//! The conversions from each kind of method into [`AuthMethod`] are in the shared auth module.

#[allow(unused_imports)]
use super::*;

tagged_union! {
    /// A way for the user to authenticate with the agent, listed in
    /// [`InitializeResponse::auth_methods`].
    ///
    /// Tagged by `type`. The union is open: a method of a kind this crate does not know is kept
    /// verbatim as [`AuthMethod::Other`], but it must still carry a string `methodId` and `name`
    /// so that a client can list it. A known `type` whose fields do not fit is an error.
    ///
    /// ```json
    /// {"type": "agent", "methodId": "oauth", "name": "Sign in with a browser"}
    /// ```
    pub enum AuthMethod("type") open(Other requires("methodId": AuthMethodId, "name": String)) {
        /// The client runs the agent's login flow in an interactive terminal.
        Terminal(AuthMethodTerminal) = "terminal",
        /// The agent handles authentication itself once the client calls `auth/login`.
        Agent(AuthMethodAgent) = "agent",
    }
}

impl AuthMethod {
    /// The method's id, to pass to `auth/login`.
    pub fn method_id(&self) -> &str {
        match self {
            Self::Terminal(method) => method.method_id.as_str(),
            Self::Agent(method) => method.method_id.as_str(),
            Self::Other(unknown) => unknown.str_field("methodId"),
        }
    }

    /// The method's display name.
    pub fn name(&self) -> &str {
        match self {
            Self::Terminal(method) => &method.name,
            Self::Agent(method) => &method.name,
            Self::Other(unknown) => unknown.str_field("name"),
        }
    }
}

wire_struct! {
    /// An auth method where the client starts the agent's own program in an interactive
    /// terminal so that the user can log in there (for example a TUI login flow).
    ///
    /// The client runs the same agent command it launched the agent with, adding `args` and
    /// `env`.
    pub struct AuthMethodTerminal {
        /// The method's id, passed to `auth/login`.
        pub method_id: AuthMethodId,
        /// A short name to show to the user.
        pub name: String,
        /// A longer explanation for the user. A non-string value is treated as absent.
        #[opt("crate::de::lenient_string")]
        pub description: Option<String>,
        /// Extra command-line arguments for the login run. `null` means none.
        #[list("crate::de::null_as_default")]
        pub args: Vec<String>,
        /// Extra environment variables for the login run (names should be unique). `null`
        /// means none.
        #[list("crate::de::null_as_default")]
        pub env: Vec<EnvVariable>,
    }
}

constructor! {
    /// Builds a terminal method with an id and a display name, and no extra arguments.
    AuthMethodTerminal(method_id: impl Into<AuthMethodId>, name: impl Into<String>)
    { description: None, args: Vec::new(), env: Vec::new(), meta: None }
}

setters!(AuthMethodTerminal {
    opt description: String,
    set args: Vec<String>,
    set env: Vec<EnvVariable>,
});

wire_struct! {
    /// An auth method that the agent carries out itself (for example by opening a browser)
    /// when the client calls `auth/login` with its id.
    pub struct AuthMethodAgent {
        /// The method's id, passed to `auth/login`.
        pub method_id: AuthMethodId,
        /// A short name to show to the user.
        pub name: String,
        /// A longer explanation for the user. A non-string value is treated as absent.
        #[opt("crate::de::lenient_string")]
        pub description: Option<String>,
    }
}

impl AuthMethodAgent {
    /// Builds an agent-handled method with an id and a display name.
    pub fn new(method_id: impl Into<AuthMethodId>, name: impl Into<String>) -> Self {
        Self {
            method_id: method_id.into(),
            name: name.into(),
            description: None,
            meta: None,
        }
    }
}

setters!(AuthMethodAgent { opt description: String });

empty_object! {
    /// The agent's answer to `auth/login`: the user is now authenticated.
    LoginAuthResponse, new: "An empty success response."
}

empty_object! {
    /// The agent's answer to `auth/logout`: the credentials are gone.
    LogoutAuthResponse, new: "An empty success response."
}

wire_struct! {
    /// Asks the agent to authenticate the user with one of the methods it advertised in
    /// `initialize` (`auth/login`).
    ///
    /// ```json
    /// {"methodId": "oauth"}
    /// ```
    pub struct LoginAuthRequest {
        /// The id of the chosen [`AuthMethod`].
        pub method_id: AuthMethodId,
    }
}

constructor! {
    /// Asks to log in with the method `method_id`.
    LoginAuthRequest(method_id: impl Into<AuthMethodId>) { meta: None }
}

empty_object! {
    /// Asks the agent to forget the user's credentials (`auth/logout`).
    LogoutAuthRequest, new: "An empty logout request."
}
