//! The listed differences between acptk-schema and the official crate (see `differences.md`):
//! each entry recognises one class by its inputs and the deltas of the two verdicts.

use super::*;

/// One class of expected disagreement between the two crates.
pub(super) struct KnownDifference {
    /// The id of its section in `differences.md`.
    pub(super) id: &'static str,
    /// Whether a disagreement on this case belongs to the class.
    pub(super) applies: fn(&Case, &Verdict, &Verdict) -> bool,
}

/// The `update` object of a `session/update` payload.
fn update_of(case: &Case) -> Option<Value> {
    (case.method == "session/update").then(|| case.payload_value().get("update").cloned())?
}

/// Both accepted; the differences of the re-encoded JSON (empty when both did not accept).
fn accepted_deltas(ours: &Verdict, theirs: &Verdict) -> Vec<Delta> {
    match (ours.accepted(), theirs.accepted()) {
        (Some(a), Some(b)) => deltas(a, b),
        _ => Vec::new(),
    }
}

/// Fields that the official crate types as "absent / null / value" (null clears a stored value
/// in an update), by session update tag. Ours keeps "absent / value" only.
fn tri_state_fields(version: Version, tag: &str) -> &'static [&'static str] {
    const SESSION_MESSAGE: &[&str] = &[
        "senderSessionId",
        "recipientSessionId",
        "senderMessageId",
        "recipientMessageId",
        "content",
        "_meta",
    ];
    const SUBAGENT: &[&str] = &[
        "additionalDirectories",
        "capabilities",
        "cwd",
        "description",
        "state",
        "title",
        "_meta",
    ];
    match (version, tag) {
        (Version::V1, "session_info_update") => &["title", "updatedAt"],
        (Version::V1, "compaction_update") => &["error", "summary", "_meta"],
        (Version::V2, "session_info_update") => &["title", "updatedAt", "_meta"],
        (Version::V2, "compaction_update") => &["error", "status", "summary", "_meta"],
        (Version::V2, "agent_message" | "agent_thought" | "user_message") => &["content", "_meta"],
        (Version::V2, "usage_update") => &["cost", "_meta"],
        (Version::V2, "terminal_update") => &[
            "capabilities",
            "command",
            "cwd",
            "exitStatus",
            "output",
            "size",
            "_meta",
        ],
        (Version::V2, "tool_call_update") => &[
            "capabilities",
            "content",
            "kind",
            "locations",
            "name",
            "rawInput",
            "rawOutput",
            "status",
            "title",
            "_meta",
        ],
        (_, "session_message") => SESSION_MESSAGE,
        (_, "subagent_update") => SUBAGENT,
        _ => &[],
    }
}

const V1_TOOL_KINDS: &[&str] = &[
    "read",
    "edit",
    "delete",
    "move",
    "search",
    "execute",
    "think",
    "fetch",
    "switch_mode",
    "other",
];

pub(super) const KNOWN_DIFFERENCES: &[KnownDifference] = &[
    KnownDifference {
        id: "D1",
        // Ours rejects a notice whose title is the empty string; the official crate accepts it.
        applies: |case, ours, theirs| {
            let empty_title = update_of(case)
                .is_some_and(|update| update["sessionUpdate"] == "notice" && update["title"] == "");
            empty_title && ours.rejected().is_some() && theirs.accepted().is_some()
        },
    },
    KnownDifference {
        id: "D2",
        // An explicit `null` in a patch-style update field: official keeps it, ours drops it.
        applies: |case, ours, theirs| {
            let found = accepted_deltas(ours, theirs);
            !found.is_empty()
                && found.iter().all(|delta| {
                    let Some((parent, field)) = delta.pointer.rsplit_once('/') else {
                        return false;
                    };
                    let tag = match (case.method.as_str(), parent) {
                        ("session/update", "/update") => update_of(case)
                            .and_then(|update| update["sessionUpdate"].as_str().map(str::to_owned)),
                        ("session/request_permission", "/subject/toolCall") => {
                            Some("tool_call_update".to_owned())
                        }
                        _ => None,
                    };
                    delta.ours.is_none()
                        && delta.theirs == Some(Value::Null)
                        && tag.is_some_and(|tag| {
                            tri_state_fields(case.version, &tag).contains(&field)
                        })
                })
        },
    },
    KnownDifference {
        id: "D3",
        // A duplicated object key: ours rejects it, official (decoding a parsed Value) keeps the last.
        applies: |_, ours, theirs| {
            ours.rejected()
                .is_some_and(|message| message.contains("duplicate field"))
                && theirs.accepted().is_some()
        },
    },
    KnownDifference {
        id: "D5",
        // A positional JSON array in place of an object: accepted by one crate only (the
        // `terminal/wait_for_exit` result by ours, a session update by official).
        applies: |case, ours, theirs| {
            let result_array = case.method == "terminal/wait_for_exit"
                && case.payload_value().is_array()
                && ours.accepted().is_some()
                && theirs.rejected().is_some();
            let update_array = update_of(case).is_some_and(|update| update.is_array())
                && ours.rejected().is_some()
                && theirs.accepted().is_some();
            result_array || update_array
        },
    },
    KnownDifference {
        id: "D6",
        // v1: an unknown tool kind in a lenient field: official reads `other`, ours reads "absent".
        applies: |case, ours, theirs| {
            let payload = case.payload_value();
            let found = accepted_deltas(ours, theirs);
            case.version == Version::V1
                && !found.is_empty()
                && found.iter().all(|delta| {
                    let sent = payload.pointer(&delta.pointer).and_then(Value::as_str);
                    delta.field() == "kind"
                        && delta.ours.is_none()
                        && delta.theirs == Some(Value::from("other"))
                        && sent.is_some_and(|sent| !V1_TOOL_KINDS.contains(&sent))
                })
        },
    },
    KnownDifference {
        id: "D7",
        // v1 `tool_call`: official omits `kind: "other"` / `status: "pending"` when encoding.
        applies: |case, ours, theirs| {
            let found = accepted_deltas(ours, theirs);
            case.version == Version::V1
                && !found.is_empty()
                && found.iter().all(|delta| {
                    let default = match delta.field() {
                        "kind" => "other",
                        "status" => "pending",
                        _ => return false,
                    };
                    delta.theirs.is_none() && delta.ours == Some(Value::from(default))
                })
        },
    },
    KnownDifference {
        id: "D9",
        // v2 `elicitation/create` with an unknown mode: ours keeps the payload verbatim
        // (including explicit nulls), official decodes its scope and drops them.
        applies: |case, ours, theirs| {
            let mode = case.payload_value()["mode"].as_str().map(str::to_owned);
            let found = accepted_deltas(ours, theirs);
            case.version == Version::V2
                && case.method == "elicitation/create"
                && mode.is_some_and(|mode| mode != "form" && mode != "url")
                && !found.is_empty()
                && found
                    .iter()
                    .all(|delta| delta.ours == Some(Value::Null) && delta.theirs.is_none())
        },
    },
    KnownDifference {
        id: "D10",
        // v1 `AuthMethod` with an unknown explicit `type` (not `agent` or `terminal`): official
        // reads it as the agent method (dropping `type`), ours rejects the item (skipped from
        // `authMethods`).
        applies: |case, ours, theirs| {
            let payload = case.payload_value();
            let typed_non_terminal = payload["authMethods"].as_array().is_some_and(|methods| {
                methods.iter().any(|method| {
                    method["type"]
                        .as_str()
                        .is_some_and(|kind| kind != "terminal" && kind != "agent")
                })
            });
            let found = accepted_deltas(ours, theirs);
            case.version == Version::V1
                && case.method == "initialize"
                && typed_non_terminal
                && !found.is_empty()
                && found
                    .iter()
                    .all(|delta| delta.pointer.starts_with("/authMethods"))
        },
    },
    KnownDifference {
        id: "D11",
        // An `mcp/message` result with both `result` and `error`: official keeps the result,
        // ours rejects it.
        applies: |case, ours, theirs| {
            let payload = case.payload_value();
            case.method == "mcp/message"
                && case.kind == Kind::ClientResponse
                && payload.get("result").is_some()
                && payload.get("error").is_some()
                && ours.rejected().is_some()
                && theirs.accepted().is_some()
        },
    },
];

// ---------------------------------------------------------------------------------------------
// The test
// ---------------------------------------------------------------------------------------------
