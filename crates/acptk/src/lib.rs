//! The commands of the `acp` binary, as a library so that their pure parts (the terminal
//! client's state and views, the plain-text printer) can be tested from `tests/`, and so that
//! the command line itself ([`cli`]) can be turned into completions, man pages and the
//! guide's reference ([`reference`]).

pub mod cli;
pub mod commands;
pub mod reference;

/// The Rust samples of the README and of the user guide (`docs/src`), compiled as doc-tests
/// of this crate, which depends on every crate of the toolkit: a sample that no longer builds
/// fails `cargo test -p acptk --doc`. Samples marked `no_run` (agents serving stdio,
/// clients launching an agent) are compiled only. `tests/docs.rs` checks that every page with
/// a Rust sample is listed here.
#[cfg(doctest)]
mod documentation {
    #[doc = include_str!("../../../README.md")]
    struct Readme;
    #[doc = include_str!("../../../docs/src/getting-started.md")]
    struct GettingStarted;
    #[doc = include_str!("../../../docs/src/writing-an-agent.md")]
    struct WritingAnAgent;
    #[doc = include_str!("../../../docs/src/embedding-a-client.md")]
    struct EmbeddingAClient;
    #[doc = include_str!("../../../docs/src/remote.md")]
    struct Remote;
    #[doc = include_str!("../../../docs/src/cluster.md")]
    struct Cluster;
    #[doc = include_str!("../../../docs/src/notices.md")]
    struct Notices;
}
