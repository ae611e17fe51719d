//! Fresh identifiers for sessions and messages.
//!
//! Every id carries a random (version 4) UUID: 122 random bits, so two agent processes, or
//! one agent before and after a restart, never hand out the same id, and a message id of a
//! reloaded session never collides with one in its replayed history.

/// A fresh id: `prefix` and a random UUID in simple form (`sess_3f2a...`, 32 hex digits).
pub fn fresh_id(prefix: &str) -> String {
    let mut id = String::with_capacity(prefix.len() + 33);
    id.push_str(prefix);
    id.push('_');
    id.push_str(
        uuid::Uuid::new_v4()
            .simple()
            .encode_lower(&mut uuid::Uuid::encode_buffer()),
    );
    id
}
