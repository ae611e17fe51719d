//! The run state of a session: running, idle (and why it stopped), waiting for the user.

#[allow(unused_imports)]
use super::*;

use serde::de::{self, IgnoredAny, MapAccess};
use serde_json::Value;

tagged_union! {
    /// What a session is doing right now, tagged by `state`.
    ///
    /// Each update replaces the previous state. The union is open: a state this crate does not
    /// know is kept verbatim.
    ///
    /// ```json
    /// {"state": "idle", "stopReason": "end_turn"}
    /// ```
    pub enum StateUpdate("state") open(Other) {
        /// The agent is working on a turn.
        Running(RunningStateUpdate) = "running",
        /// The agent finished its turn and waits for the next prompt.
        Idle(IdleStateUpdate) = "idle",
        /// The agent cannot continue until the user acts (for example answers a permission
        /// request).
        RequiresAction(RequiresActionStateUpdate) = "requires_action",
        /// The agent does not know or does not report its state.
        Unknown(UnknownStateUpdate) = "unknown",
    }
}

wire_struct! {
    no_meta
    /// The fields of an idle state whose stop reason is `error`: the turn ended because of a
    /// failure.
    #[derive(Default)]
    pub struct ErrorStopReason {
        /// What went wrong, if the agent says. A malformed value is treated as absent.
        #[opt("crate::de::lenient_object")]
        pub error: Option<Error>,
    }
}

default_new!(ErrorStopReason, "An error stop reason without details.");

setters!(ErrorStopReason { opt error: Error });

const END_TURN: &str = "end_turn";
const MAX_TOKENS: &str = "max_tokens";
const MAX_TURN_REQUESTS: &str = "max_turn_requests";
const REFUSAL: &str = "refusal";
const CANCELLED: &str = "cancelled";
const ERROR: &str = "error";

/// Why the agent went idle: the `stopReason` of an idle state, together with the fields that
/// belong to it.
///
/// It shares its object with the other fields of [`IdleStateUpdate`]. Open: an unknown stop
/// reason is kept verbatim with the fields of the object that the idle state does not know
/// itself.
///
/// ```json
/// {"state": "idle", "stopReason": "error", "error": {"code": -32603, "message": "Internal error"}}
/// ```
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(tag = "stopReason")]
#[non_exhaustive]
pub enum IdleStopReason {
    /// The turn ended normally.
    #[serde(rename = "end_turn")]
    EndTurn,
    /// The model reached its token limit.
    #[serde(rename = "max_tokens")]
    MaxTokens,
    /// The turn reached the limit of model requests.
    #[serde(rename = "max_turn_requests")]
    MaxTurnRequests,
    /// The model declined to continue.
    #[serde(rename = "refusal")]
    Refusal,
    /// The client cancelled the turn.
    #[serde(rename = "cancelled")]
    Cancelled,
    /// The turn ended because of a failure.
    #[serde(rename = "error")]
    Error(ErrorStopReason),
    /// A stop reason this crate does not know, kept verbatim with its fields.
    #[serde(untagged)]
    Other(crate::UnknownVariant),
}

union_tags! {
    IdleStopReason("stopReason"), what: "stop reason", open(Other) {
        EndTurn = END_TURN,
        MaxTokens = MAX_TOKENS,
        MaxTurnRequests = MAX_TURN_REQUESTS,
        Refusal = REFUSAL,
        Cancelled = CANCELLED,
        Error(_) = ERROR,
    }
}

impl IdleStopReason {
    /// Builds the value for `tag` from the fields of the object that belong to the stop
    /// reason (already without the idle state's own fields).
    fn from_parts<E: de::Error>(tag: String, fields: crate::unknown::Fields) -> Result<Self, E> {
        Ok(match tag.as_str() {
            END_TURN => Self::EndTurn,
            MAX_TOKENS => Self::MaxTokens,
            MAX_TURN_REQUESTS => Self::MaxTurnRequests,
            REFUSAL => Self::Refusal,
            CANCELLED => Self::Cancelled,
            ERROR => Self::Error(
                <ErrorStopReason as serde::Deserialize>::deserialize(Value::Object(fields))
                    .map_err(E::custom)?,
            ),
            _ => Self::Other(crate::UnknownVariant::new(Self::TAG_KEY, tag, fields)),
        })
    }

    /// The `anyOf` alternatives of an idle state's schema: one per stop reason, the fallback,
    /// and "none" (no stop reason).
    #[cfg(feature = "schemars")]
    pub(crate) fn schema_alternatives(generator: &mut schemars::SchemaGenerator) -> Vec<Value> {
        let tagged = |value: &str| {
            serde_json::json!({
                "type": "object",
                "properties": { "stopReason": { "type": "string", "const": value } },
                "required": ["stopReason"],
            })
        };
        let mut alternatives: Vec<Value> = Self::TAGS.iter().map(|value| tagged(value)).collect();
        if let Some(error) = alternatives.last_mut() {
            error["allOf"] = serde_json::json!([generator.subschema_for::<ErrorStopReason>()]);
        }
        alternatives.push(crate::schema_parts::other_alternative(
            Self::TAG_KEY,
            Self::TAGS,
        ));
        alternatives.push(serde_json::json!({
            "title": "none",
            "type": "object",
            "properties": { "stopReason": { "type": "null" } },
        }));
        alternatives
    }
}

/// Gathers the stop reason of an idle state while the object's entries stream by.
///
/// The idle state decodes its own fields and hands every other entry here. Entries are kept
/// only while they may still be needed: once a stop reason without fields is known, further
/// entries are skipped, and for `error` only the `error` entry is kept.
#[derive(Default)]
pub(crate) struct StopReasonParts {
    tag: Option<String>,
    fields: crate::unknown::Fields,
}

impl StopReasonParts {
    /// Takes the entry named `key`, whose value is next in `map`.
    pub(crate) fn entry<'de, A: MapAccess<'de>>(
        &mut self,
        key: String,
        map: &mut A,
    ) -> Result<(), A::Error> {
        if key == IdleStopReason::TAG_KEY {
            // Malformed means absent: anything but a string is no stop reason.
            self.tag = map.next_value::<LenientString>()?.0;
            return Ok(());
        }
        let keep = match self.tag.as_deref() {
            None => true,
            Some(ERROR) => key == ERROR,
            Some(tag) => !IdleStopReason::TAGS.contains(&tag),
        };
        if keep {
            self.fields.insert(key, map.next_value::<Value>()?);
        } else {
            map.next_value::<IgnoredAny>()?;
        }
        Ok(())
    }

    /// The stop reason, or `None` when the object has none.
    pub(crate) fn finish<E: de::Error>(self) -> Result<Option<IdleStopReason>, E> {
        match self.tag {
            None => Ok(None),
            Some(tag) => IdleStopReason::from_parts(tag, self.fields).map(Some),
        }
    }
}

/// A field value that is kept when it is a string and treated as absent otherwise.
#[derive(serde::Deserialize)]
struct LenientString(#[serde(deserialize_with = "crate::de::lenient_string")] Option<String>);

/// A `_meta` value: an object is kept, anything else is absent.
#[derive(serde::Deserialize)]
pub(crate) struct LenientMetaField(
    #[serde(deserialize_with = "crate::de::meta")] pub(crate) Option<crate::Meta>,
);

/// The schema of a `_meta` property.
#[cfg(feature = "schemars")]
pub(crate) fn state_meta_schema() -> Value {
    serde_json::json!({
        "type": ["object", "null"],
        "x-deserialize-default-on-error": true,
        "additionalProperties": true
    })
}
