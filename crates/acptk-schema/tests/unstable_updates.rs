//! The session updates and the changes to existing types of the official crate's unstable
//! features: prompt suggestions, session cursors, token usage, the `speed` category, agent
//! skills (v2), and the v2 plan contents whose fallback still needs a plan id. Also what a
//! build without a feature does with the same message (v1 unions are closed, v2 ones open).
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/wire.rs"]
mod wire;

#[allow(unused_imports)]
use serde_json::{Value, json};
#[allow(unused_imports)]
use wire::{fields, normalises, rejects, round_trip};

/// `session/update` params around `update`.
#[allow(dead_code)]
fn params(update: Value) -> Value {
    json!({"sessionId": "s1", "update": update})
}

#[cfg(feature = "unstable_prompt_suggestions")]
mod prompt_suggestions {
    use super::*;
    use acptk_schema::v1;

    #[test]
    fn a_suggestion_that_does_not_decode_is_skipped_but_the_list_is_required() {
        let notification = normalises::<v1::SessionNotification>(
            &params(
                json!({"sessionUpdate": "prompt_suggestions_update", "suggestions": [
                    {"prompt": [{"type": "text", "text": "Run the tests"}]}, {"prompt": "bad"}
                ]}),
            ),
            &params(
                json!({"sessionUpdate": "prompt_suggestions_update", "suggestions": [
                    {"prompt": [{"type": "text", "text": "Run the tests"}]}
                ]}),
            ),
        );
        assert!(matches!(
            notification.update,
            v1::SessionUpdate::PromptSuggestionsUpdate(_)
        ));
        rejects::<v1::SessionNotification>(&params(
            json!({"sessionUpdate": "prompt_suggestions_update"}),
        ));
        rejects::<v1::SessionNotification>(&params(
            json!({"sessionUpdate": "prompt_suggestions_update", "suggestions": "none"}),
        ));
        let update: v1::SessionUpdate = v1::PromptSuggestionsUpdate::new(vec![]).into();
        assert_eq!(update.tag(), "prompt_suggestions_update");
    }

    #[test]
    fn the_client_capability_is_lenient() {
        let capabilities = normalises::<v1::ClientSessionCapabilities>(
            &json!({"promptSuggestions": {"image": {}, "audio": true}}),
            &json!({"promptSuggestions": {"image": {}}}),
        );
        assert!(capabilities.prompt_suggestions.unwrap().image.is_some());
    }
}

#[cfg(all(
    not(feature = "unstable_prompt_suggestions"),
    feature = "unstable_protocol_v2"
))]
#[test]
fn without_the_feature_v1_rejects_a_prompt_suggestion_update_and_v2_keeps_it() {
    let input = params(json!({"sessionUpdate": "prompt_suggestions_update", "suggestions": []}));
    rejects::<acptk_schema::v1::SessionNotification>(&input);
    let kept = round_trip::<acptk_schema::v2::UpdateSessionNotification>(&input);
    assert!(matches!(
        kept.update,
        acptk_schema::v2::SessionUpdate::Other(_)
    ));
}

#[cfg(feature = "unstable_session_cursors")]
mod cursors {
    use super::*;
    use acptk_schema::Patch;
    use acptk_schema::v1;

    fn cursor(update: Value) -> v1::CursorUpdate {
        let notification = round_trip::<v1::SessionNotification>(&params(update));
        match notification.update {
            v1::SessionUpdate::CursorUpdate(update) => *update,
            other => panic!("not a cursor update: {other:?}"),
        }
    }

    #[test]
    fn capabilities_and_meta_are_patches() {
        let absent = cursor(json!({"sessionUpdate": "cursor_update", "cursorId": "c1"}));
        assert_eq!(absent.capabilities, Patch::Unchanged);
        let cleared = cursor(
            json!({"sessionUpdate": "cursor_update", "cursorId": "c1", "capabilities": null, "_meta": null}),
        );
        assert_eq!(
            (cleared.capabilities, cleared.meta),
            (Patch::Clear, Patch::Clear)
        );
        let set =
            cursor(json!({"sessionUpdate": "cursor_update", "cursorId": "c1", "capabilities": {}}));
        assert!(matches!(set.capabilities, Patch::Set(_)));
        normalises::<v1::SessionNotification>(
            &params(
                json!({"sessionUpdate": "cursor_update", "cursorId": "c1", "capabilities": "fork"}),
            ),
            &params(json!({"sessionUpdate": "cursor_update", "cursorId": "c1"})),
        );
    }

    #[test]
    fn anchors_are_an_open_union_and_positions_an_open_enum() {
        let known = cursor(json!({"sessionUpdate": "cursor_update", "cursorId": "c1",
            "anchor": {"type": "tool_call", "toolCallId": "call_1", "position": "_middle"}}));
        let Some(v1::CursorAnchor::ToolCall(anchor)) = known.anchor else {
            panic!("not a tool call anchor")
        };
        assert!(anchor.position.is_extension());
        let unknown = cursor(json!({"sessionUpdate": "cursor_update", "cursorId": "c2",
            "anchor": {"type": "_bookmark", "at": 3}}));
        assert!(matches!(unknown.anchor, Some(v1::CursorAnchor::Other(_))));
        rejects::<v1::SessionNotification>(&params(
            json!({"sessionUpdate": "cursor_update", "cursorId": "c2",
            "anchor": {"type": "compaction", "position": "after"}}),
        ));
        let built = v1::CursorUpdate::new("c3").anchor(v1::CursorAnchor::AgentMessage(
            v1::CursorMessageAnchor::new("m1", v1::CursorAnchorPosition::After),
        ));
        assert_eq!(
            serde_json::to_value(built).unwrap(),
            json!({"cursorId": "c3", "anchor": {"type": "agent_message", "messageId": "m1", "position": "after"}})
        );
    }

    #[cfg(feature = "unstable_session_fork")]
    #[test]
    fn a_cursor_may_allow_forking() {
        let update = cursor(
            json!({"sessionUpdate": "cursor_update", "cursorId": "c1", "capabilities": {"fork": {}}}),
        );
        let Patch::Set(capabilities) = update.capabilities else {
            panic!("capabilities not set")
        };
        assert!(capabilities.fork.is_some());
    }

    #[cfg(not(feature = "unstable_session_fork"))]
    #[test]
    fn without_the_fork_feature_a_fork_capability_is_ignored() {
        normalises::<v1::CursorCapabilities>(&json!({"fork": {}}), &json!({}));
    }

    #[test]
    fn the_v1_client_capability_is_an_object() {
        let capabilities = round_trip::<v1::ClientSessionCapabilities>(&json!({"cursors": {}}));
        assert!(capabilities.cursors.is_some());
        normalises::<v1::ClientSessionCapabilities>(&json!({"cursors": true}), &json!({}));
    }
}

#[cfg(feature = "unstable_end_turn_token_usage")]
mod token_usage {
    use super::*;
    use acptk_schema::v1;

    #[test]
    fn a_v1_turn_reports_its_usage() {
        let response = normalises::<v1::PromptResponse>(
            &json!({"stopReason": "end_turn", "usage": {"totalTokens": 3, "inputTokens": 2, "outputTokens": 1, "thoughtTokens": "x"}}),
            &json!({"stopReason": "end_turn", "usage": {"totalTokens": 3, "inputTokens": 2, "outputTokens": 1}}),
        );
        assert_eq!(response.usage.unwrap().total_tokens, 3);
        normalises::<v1::PromptResponse>(
            &json!({"stopReason": "cancelled", "usage": {"totalTokens": -1}}),
            &json!({"stopReason": "cancelled"}),
        );
    }

    #[test]
    fn an_idle_state_carries_usage_beside_any_stop_reason() {
        let usage =
            json!({"totalTokens": 5, "inputTokens": 3, "outputTokens": 2, "cachedWriteTokens": 1});
        let idle =
            round_trip::<v1::IdleStateUpdate>(&json!({"stopReason": "max_tokens", "usage": usage}));
        assert_eq!(idle.usage.as_ref().unwrap().cached_write_tokens, Some(1));
        // With an unknown stop reason, `usage` is still the usage, not a field of the reason.
        let unknown = round_trip::<v1::IdleStateUpdate>(
            &json!({"stopReason": "_paused", "why": "user", "usage": usage}),
        );
        assert!(unknown.usage.is_some());
        normalises::<v1::IdleStateUpdate>(
            &json!({"stopReason": "end_turn", "usage": 7}),
            &json!({"stopReason": "end_turn"}),
        );
        let built = v1::IdleStateUpdate::new().usage(v1::Usage::new(3, 2, 1).thought_tokens(1u64));
        assert_eq!(
            serde_json::to_value(built).unwrap(),
            json!({"usage": {"totalTokens": 3, "inputTokens": 2, "outputTokens": 1, "thoughtTokens": 1}})
        );
    }

    #[cfg(feature = "unstable_protocol_v2")]
    #[test]
    fn a_v2_idle_state_too() {
        let idle =
            round_trip::<acptk_schema::v2::IdleStateUpdate>(&json!({"stopReason": "end_turn",
            "background": [], "usage": {"totalTokens": 1, "inputTokens": 1, "outputTokens": 0}}));
        assert!(idle.usage.is_some());
    }
}

#[cfg(feature = "unstable_speed_config_category")]
#[test]
fn speed_is_a_known_config_category() {
    use acptk_schema::v1::SessionConfigOptionCategory;
    assert!(SessionConfigOptionCategory::KNOWN.contains(&"speed"));
    assert_eq!(
        SessionConfigOptionCategory::from("speed"),
        SessionConfigOptionCategory::Speed
    );
}

#[cfg(not(feature = "unstable_speed_config_category"))]
#[test]
fn without_the_feature_speed_is_an_unknown_category_kept_verbatim() {
    use acptk_schema::v1::SessionConfigOptionCategory;
    let category = SessionConfigOptionCategory::from("speed");
    assert!(category.is_reserved());
    assert_eq!(category.as_str(), "speed");
}

#[cfg(all(feature = "unstable_agent_skills", feature = "unstable_protocol_v2"))]
mod skills {
    use super::*;
    use acptk_schema::v2;

    #[test]
    fn skills_in_the_command_list_and_in_prompts() {
        let skill = normalises::<v2::AvailableCommand>(
            &json!({"type": "skill", "name": "pdf", "description": "PDF tools", "path": 7}),
            &json!({"type": "skill", "name": "pdf", "description": "PDF tools"}),
        );
        assert_eq!((skill.name(), skill.description()), ("pdf", "PDF tools"));
        rejects::<v2::AvailableCommand>(&json!({"type": "skill", "name": "x"}));
        let block =
            round_trip::<v2::ContentBlock>(&json!({"type": "skill", "name": "pdf-processing"}));
        assert!(matches!(block, v2::ContentBlock::Skill(_)));
        rejects::<v2::ContentBlock>(&json!({"type": "skill"}));
        assert_eq!(
            serde_json::to_value(v2::ContentBlock::from(v2::SkillReference::new("pdf"))).unwrap(),
            json!({"type": "skill", "name": "pdf"})
        );
    }

    #[test]
    fn capability_levels() {
        // A malformed `inline` leaves the first level in place.
        let prompt = normalises::<v2::PromptCapabilities>(
            &json!({"skill": {"inline": true}}),
            &json!({"skill": {}}),
        );
        assert!(prompt.skill.unwrap().inline.is_none());
        normalises::<v2::PromptCapabilities>(&json!({"skill": false}), &json!({}));
        let client =
            round_trip::<v2::ClientCapabilities>(&json!({"session": {"commands": {"skill": {}}}}));
        assert!(client.session.unwrap().commands.unwrap().skill.is_some());
    }

    #[test]
    fn unknown_command_kinds_still_need_a_name_and_description() {
        let other = round_trip::<v2::AvailableCommand>(
            &json!({"type": "recipe", "name": "r", "description": "d", "steps": 2}),
        );
        assert!(matches!(other, v2::AvailableCommand::Other(_)));
        let message = rejects::<v2::AvailableCommand>(&json!({"type": "recipe", "name": "r"}));
        assert!(message.contains("description"), "{message}");
        assert!(
            v2::AvailableCommand::unknown(
                "skill",
                fields(json!({"name": "a", "description": "b"}))
            )
            .is_err()
        );
    }
}

#[cfg(all(
    not(feature = "unstable_agent_skills"),
    feature = "unstable_protocol_v2"
))]
#[test]
fn without_the_feature_a_skill_entry_is_an_unknown_command_kind() {
    let other = round_trip::<acptk_schema::v2::AvailableCommand>(
        &json!({"type": "skill", "name": "pdf", "description": "d"}),
    );
    assert!(matches!(
        other,
        acptk_schema::v2::AvailableCommand::Other(_)
    ));
}

#[cfg(feature = "unstable_protocol_v2")]
#[test]
fn v2_plan_contents_of_an_unknown_type_still_name_their_plan() {
    use acptk_schema::v2::PlanUpdateContent;
    let kept = round_trip::<PlanUpdateContent>(
        &json!({"type": "_checklist", "planId": "p1", "items": [1]}),
    );
    assert_eq!(kept.plan_id(), "p1");
    let message = rejects::<PlanUpdateContent>(&json!({"type": "_checklist", "items": [1]}));
    assert!(message.contains("planId"), "{message}");
    rejects::<PlanUpdateContent>(&json!({"type": "_checklist", "planId": 3}));
    assert_eq!(
        PlanUpdateContent::unknown("_checklist", fields(json!({"items": []}))),
        Err(acptk_schema::Error::FallbackField {
            tag: "_checklist".into(),
            field: "planId"
        })
    );
    assert!(PlanUpdateContent::unknown("_checklist", fields(json!({"planId": "p"}))).is_ok());
}
