//! The plain-text output of `acp client --prompt` and `acp demo`: the follower that prints
//! what is new in a session, and the terminal-safe text helpers.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing test may panic

use std::time::Duration;

use acptk::commands::client::render::follow::Follower;
use acptk::commands::client::render::plain::PlainPrinter;
use acptk::commands::client::shared::text::{terminal_safe, wrap};
use acptk_notice_center::{IncomingNotice, NoticeCenter, Severity};
use acptk_runtime::client::Transcript;
use acptk_runtime::client::transcript::Role;
use acptk_schema::v1;

/// Runs `look` with a printer writing to memory and returns what it printed.
fn printed(look: impl FnOnce(&mut PlainPrinter<Vec<u8>>)) -> String {
    let mut printer = PlainPrinter::new(Vec::new());
    look(&mut printer);
    printer.finish().unwrap();
    String::from_utf8(printer.into_inner()).unwrap()
}

fn tool_update(id: &str, status: v1::ToolCallStatus) -> v1::ReplayableUpdate {
    v1::ReplayableUpdate::ToolCallUpdate(Box::new(v1::ToolCallUpdate::new(id).status(status)))
}

#[test]
fn a_turn_is_printed_as_it_grows_without_repeating_anything() {
    let mut transcript = Transcript::default();
    let mut center = NoticeCenter::default();
    let mut follower = Follower::new("s1");
    let mut printer = PlainPrinter::new(Vec::new());
    let mut look = |transcript: &Transcript, center: &NoticeCenter| {
        follower.transcript(transcript, &mut printer).unwrap();
        follower.notices(center, &mut printer).unwrap();
    };

    transcript.push_user_message("s1", "do it");
    transcript.append_chunk("s1", Role::Thought, None, "Thinking ");
    look(&transcript, &center);
    transcript.append_chunk("s1", Role::Thought, None, "hard.");
    transcript.append_chunk("s1", Role::Agent, Some("m1"), "Hel");
    look(&transcript, &center);
    transcript.append_chunk("s1", Role::Agent, Some("m1"), "lo.");
    transcript.apply_v1(
        "s1",
        &v1::ReplayableUpdate::ToolCall(Box::new(
            v1::ToolCall::new("t1", "Read a file").status(v1::ToolCallStatus::InProgress),
        )),
    );
    center.push(
        "s1",
        IncomingNotice::new(Severity::Warning, "Disk almost full").with_description("95% used"),
        Duration::ZERO,
    );
    look(&transcript, &center);
    // Nothing new: nothing printed.
    look(&transcript, &center);
    transcript.apply_v1("s1", &tool_update("t1", v1::ToolCallStatus::Completed));
    center.push(
        "s1",
        IncomingNotice::new(Severity::Warning, "Disk almost full").with_description("95% used"),
        Duration::from_secs(1),
    );
    // Another session's notice is not this session's business.
    center.push(
        "s2",
        IncomingNotice::new(Severity::Error, "Other"),
        Duration::ZERO,
    );
    transcript.append_chunk("s1", Role::Agent, Some("m2"), "Done.");
    look(&transcript, &center);

    printer.finish().unwrap();
    let out = String::from_utf8(printer.into_inner()).unwrap();
    assert_eq!(
        out,
        "You: do it\n\
         Thinking: Thinking hard.\n\
         Agent: Hello.\n\
         [tool] Read a file (in progress)\n\
         [notice] Warning: Disk almost full - 95% used\n\
         [tool] Read a file (completed)\n\
         Agent: Done.\n\
         [notice] Warning x2: Disk almost full - 95% used\n"
    );
}

#[test]
fn skipping_the_transcript_prints_only_later_entries() {
    let mut transcript = Transcript::default();
    transcript.push_user_message("s1", "old");
    let mut follower = Follower::new("s1");
    follower.skip_transcript(&transcript);
    transcript.append_chunk("s1", Role::Agent, None, "new");
    let out = printed(|p| follower.transcript(&transcript, p).unwrap());
    assert_eq!(out, "Agent: new\n");
}

#[test]
fn agent_text_is_made_terminal_safe() {
    let mut transcript = Transcript::default();
    transcript.append_chunk("s1", Role::Agent, None, "a\u{1b}[2Jb\u{9b}c\u{202E}d\te\r");
    let out = printed(|p| Follower::new("s1").transcript(&transcript, p).unwrap());
    assert_eq!(out, "Agent: a[2Jbcd e\n");
}

#[test]
fn terminal_safe_table() {
    let cases = [
        ("plain text", "plain text"),
        ("line\nbreak", "line\nbreak"),
        ("\u{7}bell", "bell"),
        ("zero\u{200B}width", "zerowidth"),
        ("tag\u{E0041}s", "tags"),
        ("isolate\u{2066}x\u{2069}", "isolatex"),
        ("", ""),
    ];
    for (input, expected) in cases {
        assert_eq!(terminal_safe(input), expected, "input {input:?}");
    }
}

#[test]
fn wrap_table() {
    let cases: [(&str, usize, &[&str]); 6] = [
        ("", 5, &[""]),
        ("short", 10, &["short"]),
        ("two words", 4, &["two", "word", "s"]),
        ("a b c d", 3, &["a b", "c d"]),
        ("wide 日本語", 6, &["wide", "日本語"]),
        ("x", 0, &["x"]),
    ];
    for (text, width, expected) in cases {
        assert_eq!(wrap(text, width), expected, "{text:?} at {width}");
    }
}
