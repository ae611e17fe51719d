//! How a v2 history is replayed: whole messages stay as they are, and the first chunk of a
//! streamed message (`user_message_chunk`, `agent_message_chunk`, `agent_thought_chunk`) is
//! preceded by the message's whole-message update with empty content (`user_message`,
//! `agent_message`, `agent_thought` with `content: []`), as the v2 draft asks of a replay:
//! the client learns of the message before its pieces.

use std::collections::HashSet;

use acptk_schema::v2;

/// The updates of a replay, with the whole-message update before each streamed message.
pub(super) fn primed(
    history: impl Iterator<Item = v2::ReplayableUpdate>,
) -> impl Iterator<Item = v2::SessionUpdate> {
    let mut announced: HashSet<(&'static str, String)> = HashSet::new();
    history.flat_map(move |update| {
        let update = v2::SessionUpdate::from(update);
        let primer = match &update {
            v2::SessionUpdate::UserMessage(message) => {
                announced.insert(("user", message.message_id.to_string()));
                None
            }
            v2::SessionUpdate::AgentMessage(message) => {
                announced.insert(("agent", message.message_id.to_string()));
                None
            }
            v2::SessionUpdate::AgentThought(thought) => {
                announced.insert(("thought", thought.message_id.to_string()));
                None
            }
            v2::SessionUpdate::UserMessageChunk(chunk) => announced
                .insert(("user", chunk.message_id.to_string()))
                .then(|| {
                    v2::UserMessage::new(chunk.message_id.clone())
                        .content(Vec::new())
                        .into()
                }),
            v2::SessionUpdate::AgentMessageChunk(chunk) => announced
                .insert(("agent", chunk.message_id.to_string()))
                .then(|| {
                    v2::AgentMessage::new(chunk.message_id.clone())
                        .content(Vec::new())
                        .into()
                }),
            v2::SessionUpdate::AgentThoughtChunk(chunk) => announced
                .insert(("thought", chunk.message_id.to_string()))
                .then(|| {
                    v2::AgentThought::new(chunk.message_id.clone())
                        .content(Vec::new())
                        .into()
                }),
            _ => None,
        };
        primer.into_iter().chain(std::iter::once(update))
    })
}
