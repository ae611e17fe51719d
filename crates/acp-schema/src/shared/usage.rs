//! Usage reporting: how full the model's context window is and what the session has cost.

#[allow(unused_imports)]
use super::*;

wire_struct! {
    /// An amount of money.
    ///
    /// ```json
    /// {"amount": 0.42, "currency": "USD"}
    /// ```
    pub struct Cost {
        /// The amount, in units of `currency` (not cents).
        pub amount: f64,
        /// The currency, as an ISO 4217 code such as `USD`.
        pub currency: String,
    }
}

impl Cost {
    /// `amount` in `currency`.
    pub fn new(amount: impl Into<f64>, currency: impl Into<String>) -> Self {
        Self {
            amount: amount.into(),
            currency: currency.into(),
            meta: None,
        }
    }
}

wire_struct! {
    /// The `usage_update` session update: the latest context window usage and, optionally,
    /// the session's cost so far. Each update replaces the previous figures.
    ///
    /// ```json
    /// {"sessionUpdate": "usage_update", "used": 31400, "size": 200000, "cost": {"amount": 0.42, "currency": "USD"}}
    /// ```
    pub struct UsageUpdate {
        /// Tokens currently in the context window.
        pub used: u64,
        /// Total size of the context window, in tokens.
        pub size: u64,
        /// What the whole session has cost so far. Absent: not reported. A malformed value is
        /// treated as absent.
        #[serde(
            default,
            deserialize_with = "crate::de::lenient",
            skip_serializing_if = "Option::is_none",
        )]
        pub cost: Option<Cost>,
    }
}

impl UsageUpdate {
    /// `used` of `size` context tokens, with no cost.
    pub fn new(used: impl Into<u64>, size: impl Into<u64>) -> Self {
        Self {
            used: used.into(),
            size: size.into(),
            cost: None,
            meta: None,
        }
    }
}

setters!(UsageUpdate { opt cost: Cost });
