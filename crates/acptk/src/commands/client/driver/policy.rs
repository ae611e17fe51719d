//! Permission policies of `acp client --prompt`: what is allowed, refused, or asked on the
//! terminal, for the agent's permission requests and for what the client itself would do on
//! the machine (run a command, write a file).
//!
//! A policy is a list of rules, the first that matches decides, and a default for what no
//! rule matches. The built-in policies are rule lists too:
//!
//! | flag | rules |
//! |---|---|
//! | `--approve-all` (alias `--allow`) | default `allow`: every permission request, command and write |
//! | `--approve-reads` (the default) | permission requests of kind `read` `allow`; default `ask` |
//! | `--deny-all` | default `deny` |
//!
//! `--policy FILE` reads a JSON file of the same shape:
//!
//! ```json
//! {
//!   "rules": [
//!     {"kind": ["read", "search"], "decision": "allow"},
//!     {"title": "Run cargo *", "decision": "allow"},
//!     {"run": "cargo test*", "decision": "allow"},
//!     {"write": "*/notes/*", "decision": "allow"},
//!     {"kind": "delete", "decision": "deny"}
//!   ],
//!   "default": "ask"
//! }
//! ```
//!
//! A rule with `run` is about commands the agent wants to run (`terminal/create`; the pattern
//! is matched against the command and its arguments joined by spaces), a rule with `write` is
//! about files it wants written (the pattern against the path); any other rule is about
//! permission requests, matched by tool `kind` (one or a list) and by `title` pattern (both
//! must match when both are given; neither: every request). Patterns are globs: `*` any text,
//! `?` one character, everything else itself. `decision` is `allow`, `deny` or `ask`;
//! `default` (default `ask`) decides what no rule matched. `ask` asks y/N on the terminal, and
//! without one follows `--non-interactive-permissions` (`deny`, or `fail`: cancel the turn and
//! exit 6).

use std::path::Path;

use serde::Deserialize;

/// What a policy decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Do it (answer with an "allow" option).
    Allow,
    /// Do not (answer with a "reject" option).
    Deny,
    /// Ask the user.
    Ask,
}

impl Verdict {
    /// The word for it.
    #[must_use]
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Allow => "allow",
            Verdict::Deny => "deny",
            Verdict::Ask => "ask",
        }
    }
}

/// What the policy is asked about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Subject<'a> {
    /// A permission request: its tool kind (when known) and title.
    Permission {
        /// The tool kind.
        kind: Option<&'a str>,
        /// The title.
        title: &'a str,
    },
    /// A command to run, as one line.
    Run(&'a str),
    /// A file to write.
    Write(&'a str),
}

/// One or several strings (`"read"` or `["read", "search"]`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

impl OneOrMany {
    fn contains(&self, word: &str) -> bool {
        match self {
            OneOrMany::One(one) => one == word,
            OneOrMany::Many(many) => many.iter().any(|item| item == word),
        }
    }
}

/// One rule of a policy file.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    kind: Option<OneOrMany>,
    title: Option<String>,
    run: Option<String>,
    write: Option<String>,
    decision: Verdict,
}

impl Rule {
    fn matches(&self, subject: Subject<'_>) -> bool {
        match subject {
            Subject::Run(line) => self.run.as_deref().is_some_and(|p| glob(p, line)),
            Subject::Write(path) => self.write.as_deref().is_some_and(|p| glob(p, path)),
            Subject::Permission { kind, title } => {
                self.run.is_none()
                    && self.write.is_none()
                    && self
                        .kind
                        .as_ref()
                        .is_none_or(|kinds| kind.is_some_and(|kind| kinds.contains(kind)))
                    && self.title.as_deref().is_none_or(|p| glob(p, title))
            }
        }
    }
}

/// A permission policy: rules, first match wins, then the default.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Policy {
    #[serde(default)]
    rules: Vec<Rule>,
    #[serde(default = "ask")]
    default: Verdict,
}

fn ask() -> Verdict {
    Verdict::Ask
}

/// The built-in policies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BuiltIn {
    /// Everything allowed.
    ApproveAll,
    /// Reads allowed, the rest asked.
    ApproveReads,
    /// Everything refused.
    DenyAll,
}

impl Policy {
    /// A built-in policy.
    #[must_use]
    pub fn built_in(which: BuiltIn) -> Self {
        match which {
            BuiltIn::ApproveAll => Self {
                rules: Vec::new(),
                default: Verdict::Allow,
            },
            BuiltIn::ApproveReads => Self {
                rules: vec![Rule {
                    kind: Some(OneOrMany::One("read".to_owned())),
                    title: None,
                    run: None,
                    write: None,
                    decision: Verdict::Allow,
                }],
                default: Verdict::Ask,
            },
            BuiltIn::DenyAll => Self {
                rules: Vec::new(),
                default: Verdict::Deny,
            },
        }
    }

    /// A policy from the JSON text of a policy file.
    pub fn parse(text: &str) -> Result<Self, String> {
        serde_json::from_str(text).map_err(|error| {
            format!(
                "{error} (expected {{\"rules\": [{{\"kind\"|\"title\"|\"run\"|\"write\": ..., \"decision\": \"allow\"|\"deny\"|\"ask\"}}], \"default\": \"ask\"}})"
            )
        })
    }

    /// The policy in the file `path`.
    pub fn read(path: &Path) -> Result<Self, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|error| format!("--policy {}: {error}", path.display()))?;
        Self::parse(&text).map_err(|error| format!("--policy {}: {error}", path.display()))
    }

    /// This policy with writes allowed first (`--allow-write`).
    #[must_use]
    pub fn allowing_writes(mut self) -> Self {
        self.rules.insert(
            0,
            Rule {
                kind: None,
                title: None,
                run: None,
                write: Some("*".to_owned()),
                decision: Verdict::Allow,
            },
        );
        self
    }

    /// What the policy says about `subject`.
    #[must_use]
    pub fn decide(&self, subject: Subject<'_>) -> Verdict {
        self.rules
            .iter()
            .find(|rule| rule.matches(subject))
            .map_or(self.default, |rule| rule.decision)
    }
}

/// Whether `text` matches the glob `pattern` (`*` any text, `?` one character).
#[must_use]
pub fn glob(pattern: &str, text: &str) -> bool {
    let pattern: Vec<char> = pattern.chars().collect();
    let text: Vec<char> = text.chars().collect();
    let (mut p, mut t) = (0, 0);
    // Where the last `*` was, and the text position it has taken up to.
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        match pattern.get(p) {
            Some('*') => {
                star = Some((p, t));
                p += 1;
            }
            Some(&c) if c == '?' || c == text[t] => {
                p += 1;
                t += 1;
            }
            _ => match star {
                Some((star_p, star_t)) => {
                    p = star_p + 1;
                    t = star_t + 1;
                    star = Some((star_p, star_t + 1));
                }
                None => return false,
            },
        }
    }
    pattern[p..].iter().all(|c| *c == '*')
}
