//! String identifiers that exist only in ACP v1.

#[allow(unused_imports)]
use super::*;

string_newtype! {
    /// Identifies a session mode (such as `ask` or `code`) among the modes the agent offers
    /// for a session.
    SessionModeId
}
