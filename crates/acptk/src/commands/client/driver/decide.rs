//! How `acp client --prompt` decides without the terminal UI: the permission policy first;
//! what it leaves open (`ask`) is asked y/N on the terminal, and without a terminal follows
//! `--non-interactive-permissions` (`deny`, or `fail`: refuse, then cancel the turn and exit
//! with 6).

use std::io::{BufRead, BufReader, IsTerminal, Write};
use std::sync::{Arc, Mutex};

use tokio::sync::watch;

use super::policy::{Policy, Subject, Verdict};
use crate::commands::client::shared::events::DecidedBy;
use crate::commands::client::shared::lock;

/// What to do with a question the policy leaves open when there is no terminal to ask.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum NonInteractive {
    /// Refuse it.
    #[default]
    Deny,
    /// Refuse it, cancel the turn and exit with 6.
    Fail,
}

/// A decision and who made it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decision {
    /// Whether it is allowed.
    pub allowed: bool,
    /// Who decided.
    pub by: DecidedBy,
}

/// Asks y/N questions on the controlling terminal (`/dev/tty`), one at a time.
#[derive(Debug, Clone, Default)]
pub struct TtyAsker {
    busy: Arc<Mutex<()>>,
}

impl TtyAsker {
    /// An asker when there is a terminal to ask on: a controlling terminal, and standard
    /// input or standard error on it.
    #[must_use]
    pub fn detect() -> Option<Self> {
        let on_terminal = std::io::stdin().is_terminal() || std::io::stderr().is_terminal();
        let tty = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/tty");
        (on_terminal && tty.is_ok()).then(Self::default)
    }

    /// Asks `question` and waits for the answer (blocking): `y` or `yes` allows, anything
    /// else (an empty line included) refuses.
    #[must_use]
    pub fn ask(&self, question: &str) -> bool {
        let _one_at_a_time = lock(&self.busy);
        let Ok(mut tty) = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/tty")
        else {
            return false;
        };
        if write!(tty, "{question} [y/N] ")
            .and_then(|()| tty.flush())
            .is_err()
        {
            return false;
        }
        let mut answer = String::new();
        if BufReader::new(tty).read_line(&mut answer).is_err() {
            return false;
        }
        matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes")
    }
}

/// What runs before a question is asked.
type Hook = Arc<dyn Fn() + Send + Sync>;

/// The decisions of one-shot mode.
#[derive(Clone)]
pub struct OneShot {
    policy: Arc<Policy>,
    asker: Option<TtyAsker>,
    fallback: NonInteractive,
    /// Set when a question could not be asked under `--non-interactive-permissions fail`.
    failed: watch::Sender<bool>,
    /// Called before a question is asked (to print what is pending first).
    before_asking: Arc<Mutex<Option<Hook>>>,
}

impl std::fmt::Debug for OneShot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OneShot")
            .field("policy", &self.policy)
            .field("asker", &self.asker.is_some())
            .field("fallback", &self.fallback)
            .finish_non_exhaustive()
    }
}

impl OneShot {
    /// Decisions by `policy`, asking with `asker` (when there is a terminal), else by
    /// `fallback`.
    #[must_use]
    pub fn new(policy: Policy, asker: Option<TtyAsker>, fallback: NonInteractive) -> Self {
        Self {
            policy: Arc::new(policy),
            asker,
            fallback,
            failed: watch::channel(false).0,
            before_asking: Arc::new(Mutex::new(None)),
        }
    }

    /// Runs `hook` before each question on the terminal (in this and every clone), until
    /// [`OneShot::clear_before_asking`].
    pub fn set_before_asking(&self, hook: impl Fn() + Send + Sync + 'static) {
        *lock(&self.before_asking) = Some(Arc::new(hook));
    }

    /// Forgets the hook (which may hold what holds this: the cycle ends here).
    pub fn clear_before_asking(&self) {
        lock(&self.before_asking).take();
    }

    /// Forgets that a question could not be asked (before the next turn of a session's
    /// owner).
    pub fn reset_failures(&self) {
        self.failed.send_replace(false);
    }

    /// Changes to `true` when a question could not be asked and `--non-interactive-permissions
    /// fail` is in force.
    #[must_use]
    pub fn failures(&self) -> watch::Receiver<bool> {
        self.failed.subscribe()
    }

    /// Decides about `subject`; `question` is what the user is asked when the policy says
    /// `ask`.
    pub async fn decide(&self, subject: Subject<'_>, question: String) -> Decision {
        match self.policy.decide(subject) {
            Verdict::Allow => Decision {
                allowed: true,
                by: DecidedBy::Policy,
            },
            Verdict::Deny => Decision {
                allowed: false,
                by: DecidedBy::Policy,
            },
            Verdict::Ask => match &self.asker {
                Some(asker) => {
                    let hook = lock(&self.before_asking).clone();
                    if let Some(hook) = hook {
                        hook();
                    }
                    let asker = asker.clone();
                    let allowed = tokio::task::spawn_blocking(move || asker.ask(&question))
                        .await
                        .unwrap_or(false);
                    Decision {
                        allowed,
                        by: DecidedBy::User,
                    }
                }
                None => {
                    if self.fallback == NonInteractive::Fail {
                        self.failed.send_replace(true);
                    }
                    Decision {
                        allowed: false,
                        by: DecidedBy::NoTerminal,
                    }
                }
            },
        }
    }
}
