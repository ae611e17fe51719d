//! The groups of `acp client`'s flags, in the order its `--help` and the CLI reference show
//! them. Include it with `#[path = "support/client_sections.rs"] mod client_sections;`.

/// The headings of `acp client --help` and of its section of the CLI reference.
pub const CLIENT_SECTIONS: [&str; 8] = [
    "Arguments",
    "Options",
    "Prompt and output",
    "Session",
    "Permissions (one-shot mode)",
    "Remote agent (--url)",
    "Agent and configuration",
    "Terminal UI",
];
