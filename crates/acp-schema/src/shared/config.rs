//! Session config options: selectors (model, mode, reasoning level, ...) that an agent offers
//! for a session and the client shows and changes. Parts shared by every protocol version.

#[allow(unused_imports)]
use super::*;

open_enum! {
    /// What a config option is about, so clients can place and style it consistently. Only a
    /// hint: the option works the same without it. Open: unknown categories are kept verbatim.
    pub enum SessionConfigOptionCategory {
        /// How the agent works (for example "ask" or "code").
        Mode = "mode",
        /// Which model the agent uses.
        Model = "model",
        /// A parameter of the chosen model.
        ModelConfig = "model_config",
        /// How much the model reasons before answering.
        ThoughtLevel = "thought_level",
    }
}

wire_struct! {
    /// One value a select option can take.
    pub struct SessionConfigSelectOption {
        /// The identifier sent back in `session/set_config_option`.
        pub value: SessionConfigValueId,
        /// Label shown to the user.
        pub name: String,
        /// Longer explanation of the value; a malformed value is treated as absent.
        #[serde(
            default,
            deserialize_with = "crate::de::lenient_string",
            skip_serializing_if = "Option::is_none",
        )]
        pub description: Option<String>,
    }
}

impl SessionConfigSelectOption {
    /// A value `value` labelled `name`.
    pub fn new(value: impl Into<SessionConfigValueId>, name: impl Into<String>) -> Self {
        Self {
            value: value.into(),
            name: name.into(),
            description: None,
            meta: None,
        }
    }
}

setters!(SessionConfigSelectOption { opt description: String });

wire_struct! {
    no_meta
    /// The payload of a `"type": "select"` config option: a single choice from a list.
    pub struct SessionConfigSelect {
        /// The value currently in effect.
        pub current_value: SessionConfigValueId,
        /// The values to choose from, flat or in groups.
        pub options: SessionConfigSelectOptions,
    }
}

impl SessionConfigSelect {
    /// A select whose current value is `current_value`.
    pub fn new(
        current_value: impl Into<SessionConfigValueId>,
        options: impl Into<SessionConfigSelectOptions>,
    ) -> Self {
        Self {
            current_value: current_value.into(),
            options: options.into(),
        }
    }
}

wire_struct! {
    no_meta
    /// The payload of a `"type": "boolean"` config option: an on/off switch.
    pub struct SessionConfigBoolean {
        /// Whether the option is currently on.
        pub current_value: bool,
    }
}

impl SessionConfigBoolean {
    /// A switch that is currently `current_value`.
    pub fn new(current_value: impl Into<bool>) -> Self {
        Self {
            current_value: current_value.into(),
        }
    }
}
