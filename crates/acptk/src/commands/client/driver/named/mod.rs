//! Named sessions (`acp client --session NAME`) below the runs that use them: the client's
//! record of each ([`store`], [`history`]), the [`claim`] a process takes on one, and the
//! socket of a session's owner ([`socket`], [`protocol`], [`submit`]).

pub mod claim;
pub mod history;
pub mod protocol;
pub mod socket;
pub mod store;
pub mod submit;
