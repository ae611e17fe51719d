//! The claim a process takes on a named session while it talks to the agent for it (it holds
//! the session's lock): opening the session (continuing the recorded one when the agent can,
//! else a new one, saying why) and recording each turn in the session's history.

use std::time::Duration;

use acptk_runtime::client::{Client, SessionOptions};

use super::history::{self, TurnRecord};
use super::store::{self, Lock, Record, Scope, Store};
use crate::commands::client::Args;
use crate::commands::client::driver::prompt::{self, TurnEnd};
use crate::commands::client::driver::setup::{self, Opened};
use crate::commands::client::driver::turn_output::TurnOutput;
use crate::commands::client::shared::exit::{Exit, Failure, say};
use crate::commands::client::shared::text::terminal_safe;

/// How a named session was opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum How {
    /// A new session (the first run of the name).
    New,
    /// Continued with `session/resume`.
    Resumed,
    /// Continued with `session/load`.
    Loaded,
    /// A new session, because the agent could not continue the one recorded.
    Restarted,
}

impl How {
    /// The word for it.
    #[must_use]
    pub fn word(self) -> &'static str {
        match self {
            How::New => "new",
            How::Resumed => "resumed",
            How::Loaded => "loaded",
            How::Restarted => "restarted",
        }
    }
}

/// A named session this process holds: its record and its lock.
#[derive(Debug)]
pub struct Claim {
    /// The store.
    pub store: Store,
    /// The record (saved as it changes).
    pub record: Record,
    _lock: Lock,
    /// How the session was opened, once it was.
    pub how: How,
    /// Why the recorded session could not be continued.
    pub note: Option<String>,
}

impl Claim {
    /// The claim on `record`, whose lock this process holds.
    #[must_use]
    pub fn new(store: Store, record: Record, lock: Lock) -> Self {
        Self {
            store,
            record,
            _lock: lock,
            how: How::New,
            note: None,
        }
    }

    /// The claim on the session of `scope`, whose lock this process holds: its record, made
    /// (and saved, so that `acp sessions` knows the name at once) when it is the first run.
    pub fn take(store: Store, scope: &Scope, lock: Lock) -> Result<Self, Failure> {
        let key = scope.key();
        let record = match store.load(&key) {
            Ok(Some(record)) => record,
            Ok(None) => {
                let record = Record::new(scope);
                store
                    .save(&record)
                    .map_err(|error| Failure::new(Exit::Failed, error))?;
                record
            }
            Err(error) => return Err(Failure::new(Exit::Failed, error)),
        };
        Ok(Self::new(store, record, lock))
    }

    /// The line that says which session runs (`acp: session NAME (ID, resumed)`), and the
    /// note when the recorded one could not be continued.
    #[must_use]
    pub fn describe(&self, session: &str) -> String {
        let mut line = format!(
            "acp: session {} ({session}, {})",
            self.record.name,
            self.how.word()
        );
        if let Some(note) = &self.note {
            line.push_str(&format!("\nacp: note: {}", terminal_safe(note)));
        }
        line
    }

    /// The `named_session` event of JSON output.
    pub fn announce(&self, out: &dyn TurnOutput, session: &str) {
        out.named_session(
            &self.record.name,
            session,
            self.how.word(),
            self.note.as_deref(),
        )
    }

    /// Saves the record, warning when it cannot.
    fn save(&self) {
        if let Err(error) = self.store.save(&self.record) {
            say(&format!("acp: warning: {error}"));
        }
    }

    /// Records a turn that ended as `end` in the session's history, and counts it.
    pub fn record_turn(
        &mut self,
        client: &Client,
        session: &str,
        prompt: &str,
        started: &str,
        end: &TurnEnd,
    ) {
        let (stop_reason, error) = match end {
            TurnEnd::Stopped(stop) => (Some(stop.as_str().to_owned()), None),
            TurnEnd::Failed(failure) => (None, Some(failure.message.clone())),
        };
        let turn = TurnRecord {
            turn: self.record.turns + 1,
            session_id: session.to_owned(),
            started_at: started.to_owned(),
            ended_at: store::now(),
            prompt: prompt.to_owned(),
            stop_reason,
            error,
            exit_code: prompt::exit_of(end).code(),
            entries: history::last_turn(client, session),
        };
        let path = self.store.path(&self.record.key, "history.jsonl");
        if let Err(error) = history::append(&path, &turn) {
            say(&format!("acp: warning: the turn was not recorded: {error}"));
        }
        self.record.turns += 1;
        self.record.last_prompt = Some(store::preview(prompt));
        self.record.updated_at = store::now();
        self.save();
    }
}

/// The scope of `--session NAME` with these arguments, and the store.
pub fn prepare(args: &Args) -> Result<(Store, Scope), Failure> {
    let name = args.session.clone().unwrap_or_default();
    store::check_name(&name).map_err(Failure::usage)?;
    let cwd = args.session_options()?.cwd;
    let scope = Scope {
        name,
        agent: if args.url.is_some() {
            Vec::new()
        } else {
            args.agent.clone()
        },
        url: args.url.clone(),
        agent_name: args.agent_name.clone(),
        cwd,
    };
    let store = Store::open().map_err(|error| Failure::new(Exit::Failed, error))?;
    Ok((store, scope))
}

/// Opens the claimed session: continues the recorded one when there is one and the agent can,
/// else opens a new one (saying why when one was recorded), and saves the record.
pub async fn open(
    client: &Client,
    claim: &mut Claim,
    options: &SessionOptions,
    limit: Option<Duration>,
) -> Result<Opened, Failure> {
    if let Some(id) = claim.record.session_id.clone() {
        match reopen(client, &id, options, limit).await? {
            Ok(how) => {
                claim.how = how;
                claim.record.protocol = client.protocol_version().get();
                claim.record.updated_at = store::now();
                claim.save();
                return Ok(Opened { id, loaded: false });
            }
            Err(why) => {
                claim.how = How::Restarted;
                claim.note = Some(format!(
                    "{why}; started a new session (the earlier turns are in `acp sessions history {}`)",
                    claim.record.name
                ));
            }
        }
    }
    let opened = setup::open(client, options, None, limit).await?;
    claim.record.set_session(&opened.id);
    claim.record.protocol = client.protocol_version().get();
    claim.save();
    Ok(opened)
}

/// Continues session `id`: `Ok(Ok(how))`, or `Ok(Err(why))` when the agent cannot or would
/// not (a new session is then opened); a failure that a new session would not cure (sign-in
/// needed, the agent gone, a timeout) is an error.
async fn reopen(
    client: &Client,
    id: &str,
    options: &SessionOptions,
    limit: Option<Duration>,
) -> Result<Result<How, String>, Failure> {
    let agent = client.agent();
    let how = if agent.supports("session/resume") {
        How::Resumed
    } else if agent.can_load_sessions() {
        How::Loaded
    } else {
        return Ok(Err(
            "the agent cannot continue sessions (it advertised neither `session/resume` nor `loadSession`)"
                .to_owned(),
        ));
    };
    let result = setup::bounded(limit, "continuing the session", async {
        Ok(match how {
            How::Resumed => client.resume_session(id, options).await,
            _ => client.load_session_with(id, options).await,
        })
    })
    .await?;
    match result {
        Ok(()) => Ok(Ok(how)),
        Err(error) => {
            let failure = Failure::of(
                &format!("the agent could not continue session {id}"),
                &error,
                Exit::Failed,
            );
            if matches!(failure.exit, Exit::Auth | Exit::AgentGone) {
                return Err(setup::with_sign_in(client, failure));
            }
            Ok(Err(failure.message))
        }
    }
}
