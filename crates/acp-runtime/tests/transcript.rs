//! The client's transcript stays bounded under floods.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use acp_runtime::client::transcript::{MESSAGE_TEXT_LIMIT, Role, TRUNCATION_MARK, Transcript};

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
