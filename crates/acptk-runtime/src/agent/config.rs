//! Session modes and configuration options, in one form for both versions.
//!
//! An agent describes what a session offers with a [`SessionConfig`]: an optional set of
//! [`Modes`] and a list of [`ConfigOption`]s. The runtime sends it in the responses that open a
//! session, checks every `session/set_mode` and `session/set_config_option` against it (an
//! unknown id or a value that is not offered is refused with `-32602` and changes nothing),
//! keeps the current values in the session store, and answers with the full list.
//!
//! ACP v1 has modes of their own (`modes` in the session responses, `session/set_mode`). ACP
//! v2 has none: there the modes travel as one more select option, id [`MODE_OPTION_ID`] and
//! category `mode`, placed first.

use acptk_schema::{v1, v2};

use crate::store::ConfigValue;

/// The id of the config option that carries the session modes in ACP v2.
pub const MODE_OPTION_ID: &str = "mode";

/// What a session offers: modes and configuration options, with their current values.
///
/// ```
/// use acptk_runtime::agent::{ConfigOption, Modes, SessionConfig};
/// let config = SessionConfig::new()
///     .modes(Modes::new("ask").mode("ask", "Ask").mode("code", "Code"))
///     .option(ConfigOption::boolean("verbose", "Verbose answers", false));
/// assert_eq!(config.modes.as_ref().map(|m| m.current.as_str()), Some("ask"));
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct SessionConfig {
    /// The session modes, if the session has any.
    pub modes: Option<Modes>,
    /// The configuration options, in the order clients should show them.
    pub options: Vec<ConfigOption>,
}

impl SessionConfig {
    /// No modes and no options.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the modes.
    #[must_use]
    pub fn modes(mut self, modes: Modes) -> Self {
        self.modes = Some(modes);
        self
    }

    /// Adds an option.
    #[must_use]
    pub fn option(mut self, option: ConfigOption) -> Self {
        self.options.push(option);
        self
    }

    /// Whether the session offers neither modes nor options.
    pub fn is_empty(&self) -> bool {
        self.modes.is_none() && self.options.is_empty()
    }

    /// The current value of option `id`.
    pub fn value(&self, id: &str) -> Option<ConfigValue> {
        self.options
            .iter()
            .find(|option| option.id == id)
            .map(ConfigOption::current)
    }

    /// Checks that `value` may be set on option `id`; the error says why not.
    pub(crate) fn check(&self, id: &str, value: &ConfigValue) -> Result<(), String> {
        let Some(option) = self.options.iter().find(|option| option.id == id) else {
            return Err(format!("the session has no config option `{id}`"));
        };
        match (&option.kind, value) {
            (ConfigKind::Boolean { .. }, ConfigValue::Boolean(_)) => Ok(()),
            (ConfigKind::Select { values, .. }, ConfigValue::Id(chosen)) => {
                if values.iter().any(|choice| &choice.value == chosen) {
                    Ok(())
                } else {
                    Err(format!(
                        "`{chosen}` is not one of the values of config option `{id}`"
                    ))
                }
            }
            (ConfigKind::Boolean { .. }, ConfigValue::Id(_)) => Err(format!(
                "config option `{id}` is a boolean; a value id was given"
            )),
            (ConfigKind::Select { .. }, ConfigValue::Boolean(_)) => Err(format!(
                "config option `{id}` is a select option; a boolean was given"
            )),
        }
    }

    /// Sets option `id` to `value` (already checked).
    pub(crate) fn set(&mut self, id: &str, value: &ConfigValue) {
        if let Some(option) = self.options.iter_mut().find(|option| option.id == id) {
            match (&mut option.kind, value) {
                (ConfigKind::Boolean { current }, ConfigValue::Boolean(value)) => *current = *value,
                (ConfigKind::Select { current, .. }, ConfigValue::Id(value)) => {
                    current.clone_from(value);
                }
                _ => {}
            }
        }
    }

    /// Applies stored current values that are still valid (a value the agent no longer
    /// offers is left at the agent's default).
    pub(crate) fn apply_stored(&mut self, mode: Option<&str>, values: &[(String, ConfigValue)]) {
        if let (Some(modes), Some(mode)) = (self.modes.as_mut(), mode)
            && modes.contains(mode)
        {
            mode.clone_into(&mut modes.current);
        }
        for (id, value) in values {
            if self.check(id, value).is_ok() {
                self.set(id, value);
            }
        }
    }

    /// The current option values, for the store.
    pub(crate) fn values(&self) -> Vec<(String, ConfigValue)> {
        self.options
            .iter()
            .map(|option| (option.id.clone(), option.current()))
            .collect()
    }

    pub(crate) fn v1_modes(&self) -> Option<v1::SessionModeState> {
        self.modes.as_ref().map(|modes| {
            v1::SessionModeState::new(
                modes.current.as_str(),
                modes
                    .available
                    .iter()
                    .map(|mode| {
                        let entry = v1::SessionMode::new(mode.id.as_str(), mode.name.as_str());
                        match &mode.description {
                            Some(description) => entry.description(description.as_str()),
                            None => entry,
                        }
                    })
                    .collect::<Vec<_>>(),
            )
        })
    }

    /// The v1 option list, `None` when there are no options.
    pub(crate) fn v1_options(&self) -> Option<Vec<v1::SessionConfigOption>> {
        (!self.options.is_empty()).then(|| self.options.iter().map(ConfigOption::to_v1).collect())
    }

    /// The v2 option list (the modes first, as a select option), `None` when empty.
    pub(crate) fn v2_options(&self) -> Option<Vec<v2::SessionConfigOption>> {
        let mut list: Vec<v2::SessionConfigOption> = Vec::new();
        if let Some(modes) = &self.modes {
            list.push(modes.as_option().to_v2());
        }
        list.extend(self.options.iter().map(ConfigOption::to_v2));
        (!list.is_empty()).then_some(list)
    }
}

/// The modes of a session and the current one.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Modes {
    /// The id of the current mode.
    pub current: String,
    /// The modes, in display order.
    pub available: Vec<Mode>,
}

impl Modes {
    /// No modes yet; `current` names the one to start in (add it with [`Modes::mode`]).
    pub fn new(current: impl Into<String>) -> Self {
        Self {
            current: current.into(),
            available: Vec::new(),
        }
    }

    /// Adds a mode.
    #[must_use]
    pub fn mode(mut self, id: impl Into<String>, name: impl Into<String>) -> Self {
        self.available.push(Mode {
            id: id.into(),
            name: name.into(),
            description: None,
        });
        self
    }

    /// Adds a mode with a description.
    #[must_use]
    pub fn described_mode(
        mut self,
        id: impl Into<String>,
        name: impl Into<String>,
        description: impl Into<String>,
    ) -> Self {
        self.available.push(Mode {
            id: id.into(),
            name: name.into(),
            description: Some(description.into()),
        });
        self
    }

    /// Whether `id` is one of the modes.
    pub fn contains(&self, id: &str) -> bool {
        self.available.iter().any(|mode| mode.id == id)
    }

    /// The modes as the v2 select option.
    fn as_option(&self) -> ConfigOption {
        ConfigOption {
            id: MODE_OPTION_ID.to_owned(),
            name: "Mode".to_owned(),
            description: None,
            category: Some("mode".to_owned()),
            kind: ConfigKind::Select {
                current: self.current.clone(),
                values: self
                    .available
                    .iter()
                    .map(|mode| ConfigChoice {
                        value: mode.id.clone(),
                        name: mode.name.clone(),
                        description: mode.description.clone(),
                    })
                    .collect(),
            },
        }
    }
}

/// One session mode.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Mode {
    /// Its id.
    pub id: String,
    /// Its label.
    pub name: String,
    /// What it does.
    pub description: Option<String>,
}

/// Declares `$to` for [`ConfigOption`] and [`ConfigChoice`]: each as `$version` sends it, the
/// same steps for both versions, whose types only differ.
macro_rules! to_wire {
    ($to:ident, $version:ident) => {
        impl ConfigOption {
            fn $to(&self) -> $version::SessionConfigOption {
                let kind = match &self.kind {
                    ConfigKind::Boolean { current } => $version::SessionConfigKind::Boolean(
                        $version::SessionConfigBoolean::new(*current),
                    ),
                    ConfigKind::Select { current, values } => {
                        $version::SessionConfigKind::Select($version::SessionConfigSelect::new(
                            current.as_str(),
                            values.iter().map(ConfigChoice::$to).collect::<Vec<_>>(),
                        ))
                    }
                };
                let mut option =
                    $version::SessionConfigOption::new(self.id.as_str(), self.name.as_str(), kind);
                if let Some(description) = &self.description {
                    option = option.description(description.as_str());
                }
                if let Some(category) = &self.category {
                    option = option.category(category.as_str());
                }
                option
            }
        }

        impl ConfigChoice {
            fn $to(&self) -> $version::SessionConfigSelectOption {
                let choice = $version::SessionConfigSelectOption::new(
                    self.value.as_str(),
                    self.name.as_str(),
                );
                match &self.description {
                    Some(description) => choice.description(description.as_str()),
                    None => choice,
                }
            }
        }
    };
}

/// One configuration option of a session.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ConfigOption {
    /// The id clients send in `session/set_config_option`.
    pub id: String,
    /// Its label.
    pub name: String,
    /// What it controls.
    pub description: Option<String>,
    /// A presentation hint (`mode`, `model`, `model_config`, `thought_level`, or any other).
    pub category: Option<String>,
    /// Its kind and current value.
    pub kind: ConfigKind,
}

impl ConfigOption {
    /// An on/off option.
    pub fn boolean(id: impl Into<String>, name: impl Into<String>, current: bool) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            description: None,
            category: None,
            kind: ConfigKind::Boolean { current },
        }
    }

    /// A select option; add its values with [`ConfigOption::value`].
    pub fn select(
        id: impl Into<String>,
        name: impl Into<String>,
        current: impl Into<String>,
    ) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            description: None,
            category: None,
            kind: ConfigKind::Select {
                current: current.into(),
                values: Vec::new(),
            },
        }
    }

    /// Adds a value to a select option (ignored on a boolean option).
    #[must_use]
    pub fn value(mut self, value: impl Into<String>, name: impl Into<String>) -> Self {
        if let ConfigKind::Select { values, .. } = &mut self.kind {
            values.push(ConfigChoice {
                value: value.into(),
                name: name.into(),
                description: None,
            });
        }
        self
    }

    /// Sets the description.
    #[must_use]
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Sets the category.
    #[must_use]
    pub fn category(mut self, category: impl Into<String>) -> Self {
        self.category = Some(category.into());
        self
    }

    /// The current value.
    pub fn current(&self) -> ConfigValue {
        match &self.kind {
            ConfigKind::Boolean { current } => ConfigValue::Boolean(*current),
            ConfigKind::Select { current, .. } => ConfigValue::Id(current.clone()),
        }
    }
}

/// The kind of a [`ConfigOption`], with its current value.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConfigKind {
    /// On or off.
    Boolean {
        /// The current state.
        current: bool,
    },
    /// One value out of a list.
    Select {
        /// The current value.
        current: String,
        /// The values, in display order.
        values: Vec<ConfigChoice>,
    },
}

/// One value of a select option.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ConfigChoice {
    /// Its id.
    pub value: String,
    /// Its label.
    pub name: String,
    /// What it means.
    pub description: Option<String>,
}

to_wire!(to_v1, v1);
to_wire!(to_v2, v2);
