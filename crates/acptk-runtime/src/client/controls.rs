//! A session's controls as the client shows them: the agent's modes (v1) and its config
//! options (model, mode, reasoning level, ...), in one form for both versions.
//!
//! They arrive with the response that opened the session, change with `current_mode_update`
//! and `config_option_update` session updates, and come back whole from
//! `session/set_config_option`.

use acptk_schema::{v1, v2};

use super::permission::json_word;

/// Config options as `$version` sends them, the same steps for both versions: `$id` names
/// the id field, `$choices` converts select values, `$other` names a kind this runtime does
/// not know.
macro_rules! options_from {
    ($options:expr, $version:ident, $id:ident, $choices:ident, $other:expr) => {
        $options
            .iter()
            .map(|option| ConfigOption {
                id: option.$id.as_str().to_owned(),
                name: option.name.clone(),
                description: option.description.clone(),
                category: option.category.as_ref().map(json_word),
                kind: match &option.kind {
                    $version::SessionConfigKind::Select(select) => ConfigKind::Select {
                        current: select.current_value.as_str().to_owned(),
                        choices: $choices(&select.options),
                    },
                    $version::SessionConfigKind::Boolean(boolean) => ConfigKind::Boolean {
                        current: boolean.current_value,
                    },
                    other => ConfigKind::Other(($other)(other)),
                },
            })
            .collect()
    };
}

/// One mode an agent offers (v1 `availableModes`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SessionMode {
    /// Its id, for `session/set_mode`.
    pub id: String,
    /// Its label.
    pub name: String,
    /// What it does, if the agent says.
    pub description: Option<String>,
}

/// The modes of a session and the current one.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ModeState {
    /// The id of the current mode.
    pub current: String,
    /// Every mode offered.
    pub available: Vec<SessionMode>,
}

/// One value of a select config option.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ConfigChoice {
    /// The value id, for `session/set_config_option`.
    pub value: String,
    /// Its label.
    pub name: String,
    /// What it means, if the agent says.
    pub description: Option<String>,
    /// The label of its group, for grouped options.
    pub group: Option<String>,
}

/// What kind of value a config option holds.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConfigKind {
    /// One of a list of values.
    Select {
        /// The current value id.
        current: String,
        /// The values offered.
        choices: Vec<ConfigChoice>,
    },
    /// On or off.
    Boolean {
        /// The current value.
        current: bool,
    },
    /// A kind this runtime does not know (v2), by its `type`.
    Other(String),
}

/// One config option of a session.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ConfigOption {
    /// Its id, for `session/set_config_option`.
    pub id: String,
    /// Its label.
    pub name: String,
    /// What it does, if the agent says.
    pub description: Option<String>,
    /// Its category as sent (`mode`, `model`, `thought_level`, ...), if any.
    pub category: Option<String>,
    /// Its kind and current value.
    pub kind: ConfigKind,
}

impl ConfigOption {
    /// The current value as text: the label of the chosen value, `on`/`off`, or `?`.
    pub fn current_label(&self) -> String {
        match &self.kind {
            ConfigKind::Select { current, choices } => choices
                .iter()
                .find(|choice| &choice.value == current)
                .map_or_else(|| current.clone(), |choice| choice.name.clone()),
            ConfigKind::Boolean { current: true } => "on".to_owned(),
            ConfigKind::Boolean { current: false } => "off".to_owned(),
            ConfigKind::Other(_) => "?".to_owned(),
        }
    }

    /// Reads `text` as a value for this option: a value id (or, failing that, a value's label,
    /// ignoring case) of a select option; `true`/`false`/`on`/`off`/`yes`/`no` of a boolean.
    pub fn parse_value(&self, text: &str) -> Result<ConfigValue, String> {
        let text = text.trim();
        match &self.kind {
            ConfigKind::Select { choices, .. } => {
                if let Some(choice) = choices.iter().find(|choice| choice.value == text) {
                    return Ok(ConfigValue::Id(choice.value.clone()));
                }
                if let Some(choice) = choices
                    .iter()
                    .find(|choice| choice.name.eq_ignore_ascii_case(text))
                {
                    return Ok(ConfigValue::Id(choice.value.clone()));
                }
                let known: Vec<&str> = choices.iter().map(|choice| choice.value.as_str()).collect();
                Err(format!(
                    "`{text}` is not a value of `{}`; it takes one of: {}",
                    self.id,
                    known.join(", ")
                ))
            }
            ConfigKind::Boolean { .. } => match text.to_ascii_lowercase().as_str() {
                "true" | "on" | "yes" | "1" => Ok(ConfigValue::Boolean(true)),
                "false" | "off" | "no" | "0" => Ok(ConfigValue::Boolean(false)),
                _ => Err(format!(
                    "`{}` is on or off; `{text}` is neither (use true or false)",
                    self.id
                )),
            },
            ConfigKind::Other(kind) => Err(format!(
                "`{}` is of a kind this client cannot set (`{kind}`)",
                self.id
            )),
        }
    }
}

/// A value to set with `session/set_config_option`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConfigValue {
    /// A value id of a select option.
    Id(String),
    /// A boolean option's value.
    Boolean(bool),
}

impl ConfigValue {
    pub(crate) fn to_v1(&self) -> v1::SessionConfigOptionValue {
        match self {
            ConfigValue::Id(id) => v1::SessionConfigValueId::new(id.as_str()).into(),
            ConfigValue::Boolean(value) => (*value).into(),
        }
    }

    pub(crate) fn to_v2(&self) -> v2::SessionConfigOptionValue {
        match self {
            ConfigValue::Id(id) => v2::SessionConfigValueId::new(id.as_str()).into(),
            ConfigValue::Boolean(value) => (*value).into(),
        }
    }
}

/// A session's modes and config options.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct SessionControls {
    /// The modes (v1), if the agent offers any.
    pub modes: Option<ModeState>,
    /// The config options, in the agent's order.
    pub config_options: Vec<ConfigOption>,
}

impl SessionControls {
    /// The config option with this id.
    pub fn option(&self, id: &str) -> Option<&ConfigOption> {
        self.config_options.iter().find(|option| option.id == id)
    }

    /// The first config option of `category` (`mode`, `model`, ...).
    pub fn option_of_category(&self, category: &str) -> Option<&ConfigOption> {
        self.config_options
            .iter()
            .find(|option| option.category.as_deref() == Some(category))
    }

    /// The current mode's label: from the modes, else from a `mode` config option.
    pub fn current_mode(&self) -> Option<String> {
        if let Some(modes) = &self.modes {
            let mode = modes.available.iter().find(|mode| mode.id == modes.current);
            return Some(mode.map_or_else(|| modes.current.clone(), |mode| mode.name.clone()));
        }
        self.option_of_category("mode")
            .map(ConfigOption::current_label)
    }

    /// The current model's label, from a `model` config option.
    pub fn current_model(&self) -> Option<String> {
        self.option_of_category("model")
            .map(ConfigOption::current_label)
    }

    /// Records that the current mode changed.
    pub fn set_current_mode(&mut self, id: &str) {
        if let Some(modes) = &mut self.modes {
            id.clone_into(&mut modes.current);
        }
    }

    pub(crate) fn modes_from_v1(modes: &v1::SessionModeState) -> ModeState {
        ModeState {
            current: modes.current_mode_id.as_str().to_owned(),
            available: modes
                .available_modes
                .iter()
                .map(|mode| SessionMode {
                    id: mode.id.as_str().to_owned(),
                    name: mode.name.clone(),
                    description: mode.description.clone(),
                })
                .collect(),
        }
    }

    pub(crate) fn options_from_v1(options: &[v1::SessionConfigOption]) -> Vec<ConfigOption> {
        options_from!(options, v1, id, v1_choices, |_| "unknown".to_owned())
    }

    pub(crate) fn options_from_v2(options: &[v2::SessionConfigOption]) -> Vec<ConfigOption> {
        options_from!(
            options,
            v2,
            config_id,
            v2_choices,
            |other: &v2::SessionConfigKind| { other.tag().to_owned() }
        )
    }
}

/// Declares the conversion of one version's select values (ungrouped or grouped).
macro_rules! choices_fn {
    ($name:ident, $version:ident) => {
        fn $name(options: &$version::SessionConfigSelectOptions) -> Vec<ConfigChoice> {
            let choice =
                |option: &$version::SessionConfigSelectOption, group: Option<&str>| ConfigChoice {
                    value: option.value.as_str().to_owned(),
                    name: option.name.clone(),
                    description: option.description.clone(),
                    group: group.map(str::to_owned),
                };
            match options {
                $version::SessionConfigSelectOptions::Ungrouped(options) => {
                    options.iter().map(|option| choice(option, None)).collect()
                }
                $version::SessionConfigSelectOptions::Grouped(groups) => groups
                    .iter()
                    .flat_map(|group| {
                        group
                            .options
                            .iter()
                            .map(move |option| choice(option, Some(group.name.as_str())))
                    })
                    .collect(),
                _ => Vec::new(),
            }
        }
    };
}

choices_fn!(v1_choices, v1);
choices_fn!(v2_choices, v2);
