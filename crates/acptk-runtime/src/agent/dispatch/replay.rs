//! How a v2 history is replayed: whole messages stay as they are, and the first chunk of a
//! streamed message (`user_message_chunk`, `agent_message_chunk`, `agent_thought_chunk`) is
//! preceded by the message's whole-message update with empty content (`user_message`,
//! `agent_message`, `agent_thought` with `content: []`), as the v2 draft asks of a replay:
//! the client learns of the message before its pieces.

use std::collections::HashSet;

use acptk_schema::v2;

/// Which kind of message an update belongs to.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Kind {
    User,
    Agent,
    Thought,
}

/// The updates of a replay, with the whole-message update before each streamed message.
pub(super) fn primed(
    history: impl Iterator<Item = v2::ReplayableUpdate>,
) -> impl Iterator<Item = v2::SessionUpdate> {
    use v2::SessionUpdate as U;
    let mut announced: HashSet<(Kind, String)> = HashSet::new();
    history.flat_map(move |update| {
        let update = v2::SessionUpdate::from(update);
        // The message an update belongs to, and whether it is a chunk of it.
        let message = match &update {
            U::UserMessage(message) => Some((Kind::User, &message.message_id, false)),
            U::AgentMessage(message) => Some((Kind::Agent, &message.message_id, false)),
            U::AgentThought(thought) => Some((Kind::Thought, &thought.message_id, false)),
            U::UserMessageChunk(chunk) => Some((Kind::User, &chunk.message_id, true)),
            U::AgentMessageChunk(chunk) => Some((Kind::Agent, &chunk.message_id, true)),
            U::AgentThoughtChunk(chunk) => Some((Kind::Thought, &chunk.message_id, true)),
            _ => None,
        };
        let primer = message.and_then(|(kind, id, chunk)| {
            let first = announced.insert((kind, id.to_string()));
            (chunk && first).then(|| {
                let id = id.clone();
                match kind {
                    Kind::User => v2::UserMessage::new(id).content(Vec::new()).into(),
                    Kind::Agent => v2::AgentMessage::new(id).content(Vec::new()).into(),
                    Kind::Thought => v2::AgentThought::new(id).content(Vec::new()).into(),
                }
            })
        });
        primer.into_iter().chain(std::iter::once(update))
    })
}
