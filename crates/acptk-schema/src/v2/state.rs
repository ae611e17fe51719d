//! The run state of a session in ACP v2 (the `state_update` session update): the payload of
//! each state.

#[allow(unused_imports)]
use super::*;

wire_struct! {
    /// The fields of the `running` state: the agent is working on a turn.
    #[derive(Default)]
    pub struct RunningStateUpdate {
        /// Work that keeps running in the background (terminals, tool calls, subagents).
        /// A malformed list is treated as absent.
        #[opt("crate::de::lenient_object")]
        pub background: Option<Vec<BackgroundWork>>,
    }
}

default_new!(
    RunningStateUpdate,
    "A running state without background work."
);

setters!(RunningStateUpdate { opt background: Vec<BackgroundWork> });

/// The fields of the `idle` state: the agent finished its turn and waits for the next prompt.
///
/// `stopReason` tells why the turn ended and decides which other fields the object carries
/// (see [`IdleStopReason`]). A missing, `null` or non-string `stopReason` means none is given.
///
/// ```json
/// {"state": "idle", "stopReason": "end_turn", "background": [{"type": "terminal", "terminalId": "t1"}]}
/// ```
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize)]
#[non_exhaustive]
pub struct IdleStateUpdate {
    /// Why the turn ended, with the fields that belong to that reason; `None` when not given.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<IdleStopReason>,
    /// Work that keeps running in the background after the turn (terminals, tool calls,
    /// subagents). A malformed list is treated as absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub background: Option<Vec<BackgroundWork>>,
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

default_new!(
    IdleStateUpdate,
    "An idle state without a stop reason or background work."
);

meta_setter!(IdleStateUpdate);

setters!(IdleStateUpdate { opt stop_reason: IdleStopReason, opt background: Vec<BackgroundWork> });

/// The `background` field of an idle state: a malformed value is treated as absent.
#[derive(serde::Deserialize)]
struct BackgroundField(
    #[serde(deserialize_with = "crate::de::lenient")] Option<Vec<BackgroundWork>>,
);

map_deserialize!(IdleStateUpdate, "an idle state object", |mut map| {
    #[cfg(feature = "unstable_end_turn_token_usage")]
    let mut usage = None;
    let mut meta = None;
    let mut background = None;
    let mut parts = StopReasonParts::default();
    while let Some(key) = map.next_key::<String>()? {
        match key.as_str() {
            #[cfg(feature = "unstable_end_turn_token_usage")]
            "usage" => usage = map.next_value::<UsageField>()?.0.map(Box::new),
            "_meta" => meta = map.next_value::<LenientMetaField>()?.0,
            "background" => background = map.next_value::<BackgroundField>()?.0,
            _ => parts.entry(key, &mut map)?,
        }
    }
    Ok(IdleStateUpdate {
        stop_reason: parts.finish()?,
        background,
        #[cfg(feature = "unstable_end_turn_token_usage")]
        usage,
        meta,
    })
});

hand_schema!(IdleStateUpdate, |generator| {
    let background = generator.subschema_for::<BackgroundWork>();
    let alternatives = IdleStopReason::schema_alternatives(generator);
    #[allow(unused_mut)]
    let mut schema = serde_json::json!({
        "type": "object",
        "properties": {
            "background": {
                "type": ["array", "null"],
                "items": background,
                "x-deserialize-default-on-error": true
            },
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

wire_struct! {
    /// The fields of the `requires_action` state: the agent waits for the user (for example
    /// for an answer to a permission request).
    #[derive(Default)]
    pub struct RequiresActionStateUpdate {
        /// Work that keeps running in the background (terminals, tool calls, subagents).
        /// A malformed list is treated as absent.
        #[opt("crate::de::lenient_object")]
        pub background: Option<Vec<BackgroundWork>>,
    }
}

default_new!(
    RequiresActionStateUpdate,
    "A requires-action state without background work."
);

setters!(RequiresActionStateUpdate { opt background: Vec<BackgroundWork> });

wire_struct! {
    /// The fields of the `unknown` state: the agent does not know or report what it is doing.
    #[derive(Default)]
    pub struct UnknownStateUpdate {
        /// Work that keeps running in the background (terminals, tool calls, subagents).
        /// A malformed list is treated as absent.
        #[opt("crate::de::lenient_object")]
        pub background: Option<Vec<BackgroundWork>>,
    }
}

default_new!(
    UnknownStateUpdate,
    "An unknown state without background work."
);

setters!(UnknownStateUpdate { opt background: Vec<BackgroundWork> });
