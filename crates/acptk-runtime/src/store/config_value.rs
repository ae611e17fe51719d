//! The value of a session's config option, as a store records it.

use acptk_schema::{v1, v2};

/// A value of a config option.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ConfigValue {
    /// The id of a select option's value.
    Id(String),
    /// The state of a boolean option.
    Boolean(bool),
}

impl ConfigValue {
    /// The value as a select id, if it is one.
    pub fn as_id(&self) -> Option<&str> {
        match self {
            ConfigValue::Id(id) => Some(id),
            ConfigValue::Boolean(_) => None,
        }
    }

    /// The value as a boolean, if it is one.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            ConfigValue::Boolean(value) => Some(*value),
            ConfigValue::Id(_) => None,
        }
    }

    pub(crate) fn from_v1(value: &v1::SessionConfigOptionValue) -> Option<Self> {
        match value {
            v1::SessionConfigOptionValue::Boolean(value) => Some(ConfigValue::Boolean(*value)),
            v1::SessionConfigOptionValue::ValueId(id) => Some(ConfigValue::Id(id.to_string())),
            #[allow(unreachable_patterns)]
            _ => None,
        }
    }

    pub(crate) fn from_v2(value: &v2::SessionConfigOptionValue) -> Option<Self> {
        match value {
            v2::SessionConfigOptionValue::Boolean(value) => Some(ConfigValue::Boolean(*value)),
            v2::SessionConfigOptionValue::Id(id) => Some(ConfigValue::Id(id.to_string())),
            _ => None,
        }
    }
}
