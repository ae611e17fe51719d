//! Session options (cargo feature `unstable_session_options`): `session/options` tells which
//! config options a session would start with, without creating one, and session setup requests
//! take initial values for them. The request and the initial values are the same in every
//! protocol version; each version's session-operations module has the response.
//!
//! An agent that supports this advertises `sessionCapabilities.options` (`{}`).
//! `session/options` has no side effects: no session is created, resumed, listed or changed,
//! no update is sent, and MCP servers should not be contacted.

#[allow(unused_imports)]
use super::*;

marker_capability! {
    /// Agent capability (`sessionCapabilities.options`): `session/options` is supported and
    /// session setup accepts initial config option values. Sent as `{}`.
    SessionOptionsCapabilities
}

wire_struct! {
    /// `session/options` parameters: the setup whose options the client wants to know.
    pub struct SessionOptionsRequest {
        /// The working directory to resolve options for (an absolute path).
        pub cwd: FsPath,
        /// Further directories to resolve options for; absent or `null` means none.
        #[list("crate::de::null_as_default")]
        pub additional_directories: Vec<FsPath>,
        /// An existing session: the answer is then what loading or resuming it here would
        /// give (only for agents that can load or resume; an unknown session is `-32002`).
        /// Absent or `null`: a new session.
        #[opt]
        pub session_id: Option<SessionId>,
    }
}

constructor! {
    /// The options of a new session in `cwd`.
    SessionOptionsRequest(cwd: impl Into<FsPath>) {
        additional_directories: Vec::new(),
        session_id: None,
        meta: None,
    }
}

setters!(SessionOptionsRequest {
    set additional_directories: Vec<FsPath>,
    opt session_id: SessionId,
});

wire_struct! {
    own_schema
    /// An initial value for one config option, in the `configOptions` of a session setup request:
    /// the shape of `session/set_config_option` without `sessionId`.
    ///
    /// ```json
    /// {"configId": "thinking", "type": "boolean", "value": true}
    /// ```
    ///
    /// The agent applies the list in order, as if the client had set each value after setup. A
    /// malformed entry or a repeated `configId` fails the request with invalid params; an unknown
    /// option, a `type` that does not fit the option or a value it does not allow is ignored.
    pub struct InitialSessionConfigOption {
        /// The option to set: the id of one of the session's [`SessionConfigOption`]s.
        pub config_id: SessionConfigId,
        /// The value (`value`, with its `type` where the version writes one).
        #[serde(flatten)]
        pub value: SessionConfigOptionValue,
    }
}

constructor! {
    /// An initial `value` for the option `config_id`.
    InitialSessionConfigOption(
        config_id: impl Into<SessionConfigId>,
        value: impl Into<SessionConfigOptionValue>,
    ) { meta: None }
}

schema_impl!(InitialSessionConfigOption, |generator| {
    let schema = serde_json::json!({
        "type": "object",
        "properties": {
            "configId": schema_parts::field::<SessionConfigId>(generator),
            "_meta": schema_parts::meta(),
        },
        "required": ["configId"],
    });
    let value = <SessionConfigOptionValue as schemars::JsonSchema>::json_schema(generator);
    with_flattened(schema, &value)
});
