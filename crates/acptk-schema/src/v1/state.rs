//! The run state of a session in ACP v1: the stop reasons of a prompt turn and the payloads of
//! each state.

#[allow(unused_imports)]
use super::*;

/// Why the agent ended a prompt turn (the `stopReason` of a prompt response).
///
/// Closed: any other value is an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum StopReason {
    /// The turn ended normally.
    EndTurn,
    /// The model reached its token limit.
    MaxTokens,
    /// The turn reached the limit of model requests.
    MaxTurnRequests,
    /// The model declined to continue.
    Refusal,
    /// The client cancelled the turn.
    Cancelled,
}

empty_object! {
    /// The fields of the `running` state: the agent is working on a turn.
    RunningStateUpdate, new: "A running state without extra fields."
}

/// The fields of the `idle` state: the agent finished its turn and waits for the next prompt.
///
/// `stopReason` tells why the turn ended and decides which other fields the object carries
/// (see [`IdleStopReason`]). A missing, `null` or non-string `stopReason` means none is given.
///
/// ```json
/// {"state": "idle", "stopReason": "cancelled"}
/// ```
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize)]
#[non_exhaustive]
pub struct IdleStateUpdate {
    /// Why the turn ended, with the fields that belong to that reason; `None` when not given.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<IdleStopReason>,
    /// Token counts of the finished turn, if reported (cargo feature
    /// `unstable_end_turn_token_usage`). A malformed value is treated as absent; a repeated
    /// snapshot does not count as more usage.
    #[cfg(feature = "unstable_end_turn_token_usage")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<Box<Usage>>,
    /// Extension metadata (`_meta`). Absent when `None`; see [`crate::Meta`].
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<crate::Meta>,
}

#[cfg(feature = "unstable_end_turn_token_usage")]
setters!(IdleStateUpdate { boxed usage: Usage });

default_new!(IdleStateUpdate, "An idle state without a stop reason.");

meta_setter!(IdleStateUpdate);

setters!(IdleStateUpdate { opt stop_reason: IdleStopReason });

map_deserialize!(IdleStateUpdate, "an idle state object", |mut map| {
    #[cfg(feature = "unstable_end_turn_token_usage")]
    let mut usage = None;
    let mut meta = None;
    let mut parts = StopReasonParts::default();
    while let Some(key) = map.next_key::<String>()? {
        match key.as_str() {
            #[cfg(feature = "unstable_end_turn_token_usage")]
            "usage" => usage = map.next_value::<UsageField>()?.0.map(Box::new),
            "_meta" => meta = map.next_value::<LenientMetaField>()?.0,
            _ => parts.entry(key, &mut map)?,
        }
    }
    Ok(IdleStateUpdate {
        stop_reason: parts.finish()?,
        #[cfg(feature = "unstable_end_turn_token_usage")]
        usage,
        meta,
    })
});

hand_schema!(IdleStateUpdate, |generator| {
    let alternatives = IdleStopReason::schema_alternatives(generator);
    #[allow(unused_mut)]
    let mut schema = serde_json::json!({
        "type": "object",
        "properties": {
            "_meta": state_meta_schema(),
            "stopReason": { "type": ["string", "null"], "x-deserialize-default-on-error": true }
        },
        "anyOf": alternatives
    });
    #[cfg(feature = "unstable_end_turn_token_usage")]
    crate::schema_parts::add_property(
        &mut schema,
        "usage",
        serde_json::json!({
            "anyOf": [generator.subschema_for::<Usage>(), { "type": "null" }],
            "x-deserialize-default-on-error": true,
            "x-unstable": "unstable_end_turn_token_usage",
        }),
    );
    schemars::Schema::try_from(schema).unwrap_or_default()
});

empty_object! {
    /// The fields of the `requires_action` state: the agent waits for the user (for example
    /// for an answer to a permission request).
    RequiresActionStateUpdate, new: "A requires-action state without extra fields."
}

empty_object! {
    /// The fields of the `unknown` state: the agent does not know or report what it is doing.
    UnknownStateUpdate, new: "An unknown state without extra fields."
}
