//! Usage reporting: how full the model's context window is and what the session has cost.

#[allow(unused_imports)]
use super::*;

wire_struct! {
    encoded
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

encode_struct!(Cost { req amount, req currency, opt meta = "_meta" });

constructor! {
    /// `amount` in `currency`.
    Cost(amount: impl Into<f64>, currency: impl Into<String>) { meta: None }
}

wire_struct! {
    encoded
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
        #[opt("crate::de::lenient_object")]
        pub cost: Option<Cost>,
    }
}

encode_struct!(UsageUpdate { req used, req size, opt cost, opt meta = "_meta" });

constructor! {
    /// `used` of `size` context tokens, with no cost.
    UsageUpdate(used: impl Into<u64>, size: impl Into<u64>) { cost: None, meta: None }
}

setters!(UsageUpdate { opt cost: Cost });

#[cfg(feature = "unstable_end_turn_token_usage")]
wire_struct! {
    /// Token counts of finished work (cargo feature `unstable_end_turn_token_usage`): carried by
    /// the end of a turn (the v1 prompt response, and an idle state in both versions).
    ///
    /// ```json
    /// {"totalTokens": 1200, "inputTokens": 1000, "outputTokens": 200, "cachedReadTokens": 800}
    /// ```
    ///
    /// A repeated snapshot (for example on resume) does not add to the counts already seen.
    pub struct Usage {
        /// All tokens, of every kind.
        pub total_tokens: u64,
        /// Input tokens.
        pub input_tokens: u64,
        /// Output tokens.
        pub output_tokens: u64,
        /// Reasoning tokens, if reported. A malformed value is treated as absent.
        #[opt("crate::de::lenient")]
        pub thought_tokens: Option<u64>,
        /// Tokens read from the prompt cache, if reported. A malformed value is treated as
        /// absent.
        #[opt("crate::de::lenient")]
        pub cached_read_tokens: Option<u64>,
        /// Tokens written to the prompt cache, if reported. A malformed value is treated as
        /// absent.
        #[opt("crate::de::lenient")]
        pub cached_write_tokens: Option<u64>,
    }
}

#[cfg(feature = "unstable_end_turn_token_usage")]
constructor! {
    /// Counts of `total_tokens`, split into `input_tokens` and `output_tokens`.
    Usage(total_tokens: u64, input_tokens: u64, output_tokens: u64) {
        thought_tokens: None,
        cached_read_tokens: None,
        cached_write_tokens: None,
        meta: None,
    }
}

#[cfg(feature = "unstable_end_turn_token_usage")]
setters!(Usage { opt thought_tokens: u64, opt cached_read_tokens: u64, opt cached_write_tokens: u64 });

/// The `usage` field of a hand-decoded object (an idle state): a malformed value is treated as
/// absent.
#[cfg(feature = "unstable_end_turn_token_usage")]
#[derive(serde::Deserialize)]
pub(crate) struct UsageField(
    #[serde(deserialize_with = "crate::de::lenient_object")] pub(crate) Option<Usage>,
);
