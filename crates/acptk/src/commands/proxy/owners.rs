//! `acp proxy --listen`: which principal owns which session. Each connection starts its own
//! agent process, but those processes may keep their sessions in one place, so the proxy
//! decides itself which session ids a principal may name: those its connections created
//! (`session/new`, `session/fork`), until one of them deletes it.
//!
//! The map lives as long as the proxy. With `--session-owners FILE` it is kept in FILE too
//! (read at start, then appended to before the client hears of a new session), so it
//! survives a restart: one JSON object per line, `{"principal":"alice","sessionId":"..."}`
//! when a session is created and the same with `"deleted":true` when it is deleted
//! (`"principal":null` for the local user of a listener without tokens).

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use acptk_runtime::agent::Principal;
use serde_json::{Value, json};

/// The owner of every session created through the proxy, by session id.
pub(super) struct Owners {
    owners: Mutex<HashMap<String, Principal>>,
    file: Option<(PathBuf, Mutex<File>)>,
}

impl Owners {
    /// A map that lives in memory only.
    pub(super) fn in_memory() -> Self {
        Self {
            owners: Mutex::new(HashMap::new()),
            file: None,
        }
    }

    /// The map kept in `path` (created when missing; what it holds is read first).
    pub(super) fn open(path: &Path) -> io::Result<Self> {
        let mut owners = HashMap::new();
        match File::open(path) {
            Ok(file) => {
                for (index, line) in BufReader::new(file).lines().enumerate() {
                    let line = line?;
                    if line.trim().is_empty() {
                        continue;
                    }
                    let (session, principal, deleted) = parse_line(&line).ok_or_else(|| {
                        io::Error::new(
                            io::ErrorKind::InvalidData,
                            format!(
                                "{} line {}: expected {{\"principal\":NAME or null,\"sessionId\":ID}}",
                                path.display(),
                                index + 1
                            ),
                        )
                    })?;
                    if deleted {
                        owners.remove(&session);
                    } else {
                        owners.insert(session, principal);
                    }
                }
            }
            Err(error) if error.kind() == io::ErrorKind::NotFound => {}
            Err(error) => return Err(error),
        }
        let file = OpenOptions::new().create(true).append(true).open(path)?;
        Ok(Self {
            owners: Mutex::new(owners),
            file: Some((path.to_owned(), Mutex::new(file))),
        })
    }

    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, Principal>> {
        self.owners.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether `session` is `principal`'s.
    pub(super) fn owns(&self, principal: &Principal, session: &str) -> bool {
        self.map().get(session) == Some(principal)
    }

    /// Records that `principal` created `session`; `false` (and nothing recorded) when the
    /// id is already another principal's.
    pub(super) fn created(&self, principal: &Principal, session: &str) -> io::Result<bool> {
        let mut map = self.map();
        match map.get(session) {
            Some(owner) if owner != principal => return Ok(false),
            Some(_) => return Ok(true),
            None => {}
        }
        self.append(principal, session, false)?;
        map.insert(session.to_owned(), principal.clone());
        Ok(true)
    }

    /// Forgets `session` (deleted by its owner `principal`).
    pub(super) fn deleted(&self, principal: &Principal, session: &str) -> io::Result<()> {
        let mut map = self.map();
        if map.get(session) == Some(principal) {
            map.remove(session);
            self.append(principal, session, true)?;
        }
        Ok(())
    }

    fn append(&self, principal: &Principal, session: &str, deleted: bool) -> io::Result<()> {
        let Some((path, file)) = &self.file else {
            return Ok(());
        };
        let mut line = json!({"principal": principal.name(), "sessionId": session});
        if deleted {
            line["deleted"] = Value::Bool(true);
        }
        let mut text = serde_json::to_vec(&line)?;
        text.push(b'\n');
        let mut file = file.lock().unwrap_or_else(PoisonError::into_inner);
        file.write_all(&text)
            .and_then(|()| file.flush())
            .map_err(|error| io::Error::new(error.kind(), format!("{}: {error}", path.display())))
    }
}

/// The session, its owner and whether it was deleted, from one line of the owners file.
fn parse_line(line: &str) -> Option<(String, Principal, bool)> {
    let value: Value = serde_json::from_str(line).ok()?;
    let session = value.get("sessionId")?.as_str()?.to_owned();
    let principal = match value.get("principal")? {
        Value::Null => Principal::local(),
        Value::String(name) => Principal::named(name.as_str()),
        _ => return None,
    };
    let deleted = value
        .get("deleted")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    Some((session, principal, deleted))
}
