//! The features of a client that an agent may use only when the client advertised them, and
//! the capability that enables each in either protocol version.

use acptk_schema::v1::ProtocolVersion;

/// A feature of the client that an agent may use only when the client advertised it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ClientFeature {
    /// `notice` session updates: v1 `clientCapabilities.session.notices`; always in v2.
    Notices,
    /// `fs/read_text_file`: v1 `clientCapabilities.fs.readTextFile`; v2 has no such method.
    ReadTextFile,
    /// `fs/write_text_file`: v1 `clientCapabilities.fs.writeTextFile`; v2 has no such method.
    WriteTextFile,
    /// The `terminal/*` methods: v1 `clientCapabilities.terminal`; v2 has no such methods.
    Terminal,
    /// `elicitation/create` with a form: `elicitation.form`, both versions.
    ElicitationForm,
    /// `elicitation/create` with a URL: `elicitation.url`, both versions.
    ElicitationUrl,
}

impl ClientFeature {
    /// The capability that enables the feature in `version`, as written in `initialize`;
    /// `None` when the version has no such feature (fs and terminals in v2), and `""` when it
    /// needs no capability (notices in v2).
    pub fn capability(self, version: ProtocolVersion) -> Option<&'static str> {
        let v1 = version == ProtocolVersion::V1;
        match self {
            ClientFeature::Notices if v1 => Some("clientCapabilities.session.notices"),
            ClientFeature::Notices => Some(""),
            ClientFeature::ReadTextFile if v1 => Some("clientCapabilities.fs.readTextFile"),
            ClientFeature::WriteTextFile if v1 => Some("clientCapabilities.fs.writeTextFile"),
            ClientFeature::Terminal if v1 => Some("clientCapabilities.terminal"),
            ClientFeature::ReadTextFile
            | ClientFeature::WriteTextFile
            | ClientFeature::Terminal => None,
            ClientFeature::ElicitationForm if v1 => Some("clientCapabilities.elicitation.form"),
            ClientFeature::ElicitationForm => Some("capabilities.elicitation.form"),
            ClientFeature::ElicitationUrl if v1 => Some("clientCapabilities.elicitation.url"),
            ClientFeature::ElicitationUrl => Some("capabilities.elicitation.url"),
        }
    }

    /// What the feature sends, for messages.
    pub fn what(self) -> &'static str {
        match self {
            ClientFeature::Notices => "`notice` session updates",
            ClientFeature::ReadTextFile => "`fs/read_text_file`",
            ClientFeature::WriteTextFile => "`fs/write_text_file`",
            ClientFeature::Terminal => "client terminals (`terminal/*`)",
            ClientFeature::ElicitationForm => "form elicitations (`elicitation/create`)",
            ClientFeature::ElicitationUrl => "URL elicitations (`elicitation/create`)",
        }
    }

    /// The message of [`Error::NotAdvertised`](crate::Error::NotAdvertised).
    pub(crate) fn refusal(self, version: ProtocolVersion) -> String {
        match self.capability(version) {
            Some(capability) => format!(
                "the client did not advertise `{capability}`, so {} cannot be used (nothing was sent)",
                self.what()
            ),
            None => format!("ACP v{version} has no {}; nothing was sent", self.what()),
        }
    }
}
