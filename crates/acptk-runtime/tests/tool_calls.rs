//! Tool calls as a handle: the builder's fields on the wire in both versions (kind, raw input,
//! locations, text, diffs, terminals), a fresh id per call, content kept across updates, and
//! the agent's identity in `initialize`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use acptk_runtime::agent::{
    AgentServer, Diff, ToolCall, ToolCallChange, ToolCallStatus, ToolContent, ToolKind,
};
use acptk_runtime::prelude::*;
use common::wire::Wire;
use serde_json::{Value, json};

struct Editor;

impl Agent for Editor {
    fn info(&self) -> AgentInfo {
        AgentInfo::new("editor", "2.1.0").title("The Editor")
    }

    async fn prompt(&self, session: Session, _prompt: Prompt) -> Result<StopReason, ErrorObject> {
        let call = ToolCall::new("Fix main.rs")
            .kind(ToolKind::Edit)
            .raw_input(json!({"file": "main.rs"}))
            .location_at("/repo/main.rs", 3)
            .diff(
                Diff::new("/repo/main.rs", "fn main() {\n    run();\n}\n")
                    .old_text("fn main() {\n}\n"),
            );
        let first = session.start_tool_call(call).await?;
        let change = ToolCallChange::new()
            .status(ToolCallStatus::InProgress)
            .content(ToolContent::Terminal("term_1".into()));
        first.update(change).await?;
        first.complete("applied").await?;
        let second = session.start_tool_call(ToolCall::new("Read")).await?;
        second.fail("").await?;
        Ok(StopReason::EndTurn)
    }
}

fn tool_updates(wire: &mut Wire) -> Vec<Value> {
    wire.take_updates()
        .into_iter()
        .filter(|u| {
            matches!(
                u["sessionUpdate"].as_str(),
                Some("tool_call" | "tool_call_update")
            )
        })
        .collect()
}

#[tokio::test]
async fn a_tool_call_reads_the_same_in_both_versions_with_a_fresh_id() {
    for version in [1u16, 2] {
        let server = AgentServer::new(Editor);
        let (mut wire, init) = Wire::start(&server, version, json!({})).await;
        let info = if version == 1 {
            &init["agentInfo"]
        } else {
            &init["info"]
        };
        assert_eq!(
            info,
            &json!({"name": "editor", "title": "The Editor", "version": "2.1.0"})
        );
        let id = wire.new_session("/repo").await;
        wire.prompt(&id, "go").await;
        let updates = tool_updates(&mut wire);
        assert_eq!(updates.len(), 5, "v{version}: {updates:?}");
        let first = &updates[0];
        let call_id = first["toolCallId"].as_str().unwrap();
        assert!(call_id.starts_with("call_"), "{call_id}");
        assert_ne!(updates[3]["toolCallId"], first["toolCallId"]);
        let kind = if version == 1 {
            "tool_call"
        } else {
            "tool_call_update"
        };
        assert_eq!(first["sessionUpdate"], kind);
        assert_eq!(first["title"], "Fix main.rs");
        assert_eq!(first["kind"], "edit");
        assert_eq!(first["status"], "pending");
        assert_eq!(first["rawInput"], json!({"file": "main.rs"}));
        assert_eq!(
            first["locations"],
            json!([{"path": "/repo/main.rs", "line": 3}])
        );
        let diff = &first["content"][0];
        assert_eq!(diff["type"], "diff");
        if version == 1 {
            assert_eq!(diff["path"], "/repo/main.rs");
            assert_eq!(diff["oldText"], "fn main() {\n}\n");
            assert_eq!(diff["newText"], "fn main() {\n    run();\n}\n");
        } else {
            assert_eq!(
                diff["changes"],
                json!([{"operation": "modify", "path": "/repo/main.rs", "fileType": "text"}])
            );
            let patch = diff["patch"]["text"].as_str().unwrap();
            assert_eq!(diff["patch"]["format"], "git_patch");
            assert!(
                patch.starts_with("diff --git a/repo/main.rs b/repo/main.rs\n--- a/repo/main.rs\n+++ b/repo/main.rs\n@@"),
                "{patch}"
            );
            assert!(patch.contains("+    run();\n"), "{patch}");
        }
        // The update replaced the content with the terminal; `complete` added its text to it.
        assert_eq!(updates[1]["status"], "in_progress");
        assert_eq!(
            updates[1]["content"],
            json!([{"type": "terminal", "terminalId": "term_1"}])
        );
        assert_eq!(updates[2]["status"], "completed");
        assert_eq!(
            updates[2]["content"],
            json!([{"type": "terminal", "terminalId": "term_1"},
                   {"type": "content", "content": {"type": "text", "text": "applied"}}])
        );
        // `fail("")` only sets the status.
        assert_eq!(updates[4]["status"], "failed");
        assert!(updates[4].get("content").is_none(), "{}", updates[4]);
    }
}

#[test]
fn notices_carry_meta_and_open_severities() {
    let mut meta = acptk_runtime::acptk_schema::Meta::new();
    meta.insert("acme.dev/trace".into(), json!("t1"));
    let notice = Notice::new("_acme_quota", "Quota at 90%").meta(meta.clone());
    let wire = serde_json::to_value(notice.to_v2()).unwrap();
    assert_eq!(
        wire,
        json!({"severity": "_acme_quota", "title": "Quota at 90%", "_meta": {"acme.dev/trace": "t1"}})
    );
    assert_eq!(serde_json::to_value(notice.to_v1()).unwrap(), wire);
    assert!(notice.severity.is_extension());
    assert!(Notice::new("critical", "x").severity.is_reserved());
}
