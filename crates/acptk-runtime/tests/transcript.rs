//! The client's transcript stays bounded under floods.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use acptk_runtime::client::transcript::{MESSAGE_TEXT_LIMIT, Role, TRUNCATION_MARK, Transcript};

#[test]
fn entries_per_session_never_exceed_the_limit_and_keep_the_newest() {
    let mut transcript = Transcript::new(64);
    for i in 0..10_000 {
        transcript.push_user_message("s", &format!("message {i}"));
        let len = transcript.session("s").unwrap().entries.len();
        assert!(len <= 64, "{len} entries after {i} messages");
    }
    let session = transcript.session("s").unwrap();
    let last = session.messages(Role::User).last().unwrap();
    assert_eq!(last.text, "message 9999");
}

#[test]
fn one_streamed_message_stops_growing_at_the_text_limit() {
    let mut transcript = Transcript::new(16);
    let chunk = "x".repeat(64 * 1024);
    for _ in 0..(2 * MESSAGE_TEXT_LIMIT / chunk.len()) {
        transcript.append_chunk("s", Role::Agent, Some("m1"), &chunk);
    }
    let session = transcript.session("s").unwrap();
    let message = session.messages(Role::Agent).next().unwrap();
    assert!(message.truncated);
    assert!(message.text.ends_with(TRUNCATION_MARK));
    assert!(message.text.len() <= MESSAGE_TEXT_LIMIT + TRUNCATION_MARK.len());
    // A new message starts fresh.
    transcript.append_chunk("s", Role::Agent, Some("m2"), "next");
    let session = transcript.session("s").unwrap();
    assert_eq!(session.messages(Role::Agent).last().unwrap().text, "next");
}

fn revisions(transcript: &Transcript) -> Vec<u64> {
    transcript
        .session("s")
        .unwrap()
        .entries
        .iter()
        .map(acptk_runtime::client::transcript::Entry::revision)
        .collect()
}

#[test]
fn every_change_of_an_entry_gives_it_a_new_revision() {
    use acptk_schema::v1;
    let mut transcript = Transcript::default();
    transcript.push_user_message("s", "hi");
    transcript.append_chunk("s", Role::Agent, Some("m1"), "Hel");
    let first = revisions(&transcript);
    assert_eq!(first.len(), 2);
    assert_ne!(first[0], first[1], "two entries never share a revision");
    // More text: only that message changes.
    transcript.append_chunk("s", Role::Agent, Some("m1"), "lo");
    let second = revisions(&transcript);
    assert_eq!(second[0], first[0]);
    assert!(second[1] > first[1]);
    // A tool call, then an update of it: its revision moves, the others stay.
    let call = v1::ReplayableUpdate::ToolCall(Box::new(v1::ToolCall::new("t1", "Edit")));
    transcript.apply_v1("s", &call);
    let third = revisions(&transcript);
    let update = v1::ReplayableUpdate::ToolCallUpdate(Box::new(
        v1::ToolCallUpdate::new("t1").status(v1::ToolCallStatus::Completed),
    ));
    transcript.apply_v1("s", &update);
    let fourth = revisions(&transcript);
    assert_eq!(fourth[..2], third[..2]);
    assert!(fourth[2] > third[2]);
    // Nothing else moves them.
    assert_eq!(revisions(&transcript), fourth);
}

#[test]
fn tool_calls_keep_their_diffs_and_terminals() {
    use acptk_runtime::client::transcript::{DIFF_TEXT_LIMIT, Entry};
    use acptk_schema::{v1, v2};
    let mut transcript = Transcript::default();
    let content = vec![
        v1::ToolCallContent::Diff(v1::Diff::new("/r/a.rs", "new\n").old_text("old\n")),
        v1::ToolCallContent::Diff(v1::Diff::new("/r/b.rs", "x".repeat(DIFF_TEXT_LIMIT + 1))),
        v1::ToolCallContent::Terminal(v1::Terminal::new("term-1")),
    ];
    transcript.apply_v1(
        "s",
        &v1::ReplayableUpdate::ToolCall(Box::new(v1::ToolCall::new("t1", "Edit").content(content))),
    );
    let Some(Entry::ToolCall(call)) = transcript.session("s").unwrap().entries.last() else {
        panic!("no tool call");
    };
    // Diffs are kept apart from the text content, with their line counts.
    assert!(call.content.is_empty(), "{:?}", call.content);
    assert_eq!(call.diffs[0].summaries[0].added, Some(1));
    assert_eq!(call.diffs[0].summaries[0].removed, Some(1));
    assert_eq!(call.diffs[1].summaries[0].added, Some(1));
    assert_eq!(call.diffs[0].paths[0].path, "/r/a.rs");
    assert_eq!(call.diffs[0].paths[0].operation, "modify");
    assert_eq!(call.diffs[0].old_text.as_deref(), Some("old\n"));
    assert_eq!(call.diffs[0].new_text.as_deref(), Some("new\n"));
    assert!(!call.diffs[0].too_large);
    assert_eq!(call.diffs[1].paths[0].operation, "add");
    assert!(call.diffs[1].too_large && call.diffs[1].new_text.is_none());
    assert_eq!(call.terminals, ["term-1"]);

    // v2: the changed paths and the patch, streamed in a content chunk.
    let diff = v2::Diff::new(vec![
        v2::DiffChange::new(v2::DiffOperation::Modify(v2::DiffPathChange::new(
            "/r/c.rs",
        ))),
        v2::DiffChange::new(v2::DiffOperation::Move(v2::DiffPathPairChange::new(
            "/r/old.rs",
            "/r/new.rs",
        ))),
    ])
    .patch(v2::DiffPatch::new(
        v2::DiffPatchFormat::GitPatch,
        "@@ -1 +1 @@\n-a\n+b\n",
    ));
    let chunk = v2::ReplayableUpdate::ToolCallContentChunk(Box::new(
        v2::ToolCallContentChunk::new("t2", v2::ToolCallContent::Diff(diff)),
    ));
    transcript.apply_v2("s", &chunk);
    let Some(Entry::ToolCall(call)) = transcript.session("s").unwrap().entries.last() else {
        panic!("no tool call");
    };
    let diff = &call.diffs[0];
    assert_eq!(diff.paths[0].operation, "modify");
    assert_eq!(diff.paths[1].operation, "move");
    assert_eq!(diff.paths[1].from.as_deref(), Some("/r/old.rs"));
    assert_eq!(diff.patch.as_deref(), Some("@@ -1 +1 @@\n-a\n+b\n"));
}

/// A tool call update finds the newest call with its id, through evictions from the front,
/// exactly as a search of the transcript from its end would (the model).
#[test]
fn tool_call_updates_find_their_call_as_a_search_would() {
    use acptk_runtime::client::transcript::Entry;
    use acptk_schema::v1;
    let mut transcript = Transcript::new(24);
    let mut state = 0x2545_f491_u64;
    let mut next = |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % n
    };
    let statuses = [
        v1::ToolCallStatus::Pending,
        v1::ToolCallStatus::InProgress,
        v1::ToolCallStatus::Completed,
        v1::ToolCallStatus::Failed,
    ];
    for step in 0..5_000u64 {
        let id = format!("call_{}", next(40));
        let status = statuses[next(4) as usize];
        // What a search from the end finds before the change.
        let before: Option<(usize, String)> = transcript.session("s").and_then(|session| {
            session
                .entries
                .iter()
                .enumerate()
                .rev()
                .find_map(|(at, entry)| match entry {
                    Entry::ToolCall(call) if call.id == id => Some((at, call.title.clone())),
                    _ => None,
                })
        });
        match next(4) {
            0 => transcript.append_chunk("s", Role::Agent, Some(&format!("m{step}")), "text"),
            1 => transcript.apply_v1(
                "s",
                &v1::ReplayableUpdate::ToolCall(Box::new(v1::ToolCall::new(
                    id.as_str(),
                    format!("title {step}"),
                ))),
            ),
            _ => {
                let len = transcript.session("s").map_or(0, |s| s.entries.len());
                transcript.apply_v1(
                    "s",
                    &v1::ReplayableUpdate::ToolCallUpdate(Box::new(
                        v1::ToolCallUpdate::new(id.as_str()).status(status),
                    )),
                );
                let session = transcript.session("s").unwrap();
                let word = match status {
                    v1::ToolCallStatus::Pending => "pending",
                    v1::ToolCallStatus::InProgress => "in_progress",
                    v1::ToolCallStatus::Completed => "completed",
                    _ => "failed",
                };
                match before {
                    // Updated in place: the same entry, the new status.
                    Some((at, title)) => {
                        let Entry::ToolCall(call) = &session.entries[at] else {
                            panic!("step {step}: entry {at} is not a tool call");
                        };
                        assert_eq!(
                            (call.id.as_str(), call.title.as_str()),
                            (id.as_str(), title.as_str())
                        );
                        assert_eq!(call.status, word, "step {step}");
                        assert_eq!(session.entries.len(), len, "step {step}: nothing added");
                    }
                    // Unknown (never sent, or evicted): a new entry at the end.
                    None => {
                        let Some(Entry::ToolCall(call)) = session.entries.last() else {
                            panic!("step {step}: no new tool call");
                        };
                        assert_eq!(call.id, id);
                        assert_eq!(call.status, word);
                    }
                }
            }
        }
        assert!(transcript.session("s").unwrap().entries.len() <= 24);
    }
}
