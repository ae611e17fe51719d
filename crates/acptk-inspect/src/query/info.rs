//! Session info: versions, capabilities of both sides, auth methods, and per ACP session its
//! modes, models, config options and commands, read from the frames that carry them.

use serde::Serialize;
use serde_json::Value;

use crate::Store;
use crate::error::Result;

/// What one ACP session offered, as last seen in the capture.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct AcpSession {
    /// The session id.
    pub id: String,
    /// The method that opened it here (`session/new`, `session/load`, `session/resume`, ...).
    pub opened_by: Option<String>,
    /// The modes (v1 `modes`: `currentModeId`, `availableModes`), as sent.
    pub modes: Option<Value>,
    /// The current mode, after `current_mode_update`s.
    pub current_mode: Option<String>,
    /// The models (`models`), as sent.
    pub models: Option<Value>,
    /// The config options (`configOptions`), last sent.
    pub config_options: Option<Value>,
    /// The commands (`available_commands_update`), last sent.
    pub commands: Option<Value>,
}

/// The session info drawer of a capture.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct SessionInfo {
    /// The version the client asked for.
    pub proposed_version: Option<i64>,
    /// The version the agent answered.
    pub protocol_version: Option<i64>,
    /// `clientInfo` of `initialize`.
    pub client_info: Option<Value>,
    /// `clientCapabilities` of `initialize`.
    pub client_capabilities: Option<Value>,
    /// `agentInfo` of the `initialize` result.
    pub agent_info: Option<Value>,
    /// `agentCapabilities` of the `initialize` result.
    pub agent_capabilities: Option<Value>,
    /// `authMethods` of the `initialize` result (redacted when read through
    /// [`crate::redact`]).
    pub auth_methods: Option<Value>,
    /// The ACP sessions, in the order they were opened.
    pub sessions: Vec<AcpSession>,
}

/// The methods whose frames carry session info.
const METHODS: &str = "'initialize', 'session/new', 'session/load', 'session/resume', 'session/fork', 'session/set_mode', 'session/set_config_option'";
/// The session updates that carry it.
const UPDATES: &str = "'available_commands_update', 'current_mode_update', 'config_option_update'";

/// The frames that carry session info: requests and responses by method (index
/// `frames_by_method`), the rare updates by tag (index `frames_by_update`).
fn info_query() -> String {
    format!(
        "SELECT seq, kind, method, session, raw FROM frames WHERE capture = ?1 AND kind <> 'notification' AND method IN ({METHODS})
         UNION ALL
         SELECT seq, kind, method, session, raw FROM frames WHERE capture = ?1 AND {RARE} AND update_tag IN ({UPDATES})",
        RARE = crate::db::schema::rare_update!()
    )
}

impl Store {
    /// The session info of capture `id`.
    pub fn session_info(&self, id: i64) -> Result<SessionInfo> {
        let summary = self.capture(id)?;
        let mut info = SessionInfo {
            proposed_version: summary.proposed_version,
            protocol_version: summary.protocol_version,
            ..SessionInfo::default()
        };
        let mut statement = self.conn.prepare_cached(&info_query())?;
        // In frame order; sorted here, since asking SQLite to sort makes it walk every frame
        // of the capture in order instead of the two indexes.
        let mut rows = statement
            .query_map([id], |row| {
                let raw = row.get_ref(4)?.as_bytes_or_null()?.unwrap_or_default();
                Ok((
                    row.get::<_, i64>(0)?,
                    row.get::<_, String>(1)?,
                    row.get::<_, Option<String>>(2)?,
                    row.get::<_, Option<String>>(3)?,
                    serde_json::from_slice::<Value>(raw).ok(),
                ))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        rows.sort_by_key(|row| row.0);
        for (_, kind, method, session, value) in rows {
            let Some(mut value) = value else {
                continue;
            };
            let method = method.unwrap_or_default();
            match (kind.as_str(), method.as_str()) {
                ("request", "initialize") => {
                    let params = value["params"].take();
                    info.client_info = non_null(&params["clientInfo"]);
                    info.client_capabilities = non_null(&params["clientCapabilities"]);
                }
                ("response", "initialize") => {
                    let result = value["result"].take();
                    info.agent_info = non_null(&result["agentInfo"]);
                    info.agent_capabilities = non_null(&result["agentCapabilities"]);
                    info.auth_methods = non_null(&result["authMethods"]);
                }
                ("response", opened) if opened != "session/set_mode" => {
                    let Some(session) = session else { continue };
                    let result = value["result"].take();
                    let entry = session_entry(&mut info.sessions, &session);
                    if opened != "session/set_config_option" {
                        entry.opened_by.get_or_insert_with(|| opened.to_owned());
                        if let Some(modes) = non_null(&result["modes"]) {
                            entry.current_mode = modes["currentModeId"].as_str().map(str::to_owned);
                            entry.modes = Some(modes);
                        }
                        if let Some(models) = non_null(&result["models"]) {
                            entry.models = Some(models);
                        }
                    }
                    if let Some(options) = non_null(&result["configOptions"]) {
                        entry.config_options = Some(options);
                    }
                }
                ("request", "session/set_mode") => {
                    // The mode is current once the agent says so (current_mode_update) or
                    // answers; the request alone is a wish.
                }
                ("notification", _) => {
                    let Some(session) = session else { continue };
                    let update = value["params"]["update"].take();
                    let entry = session_entry(&mut info.sessions, &session);
                    match update["sessionUpdate"].as_str() {
                        Some("available_commands_update") => {
                            entry.commands = non_null(&update["availableCommands"]);
                        }
                        Some("current_mode_update") => {
                            entry.current_mode =
                                update["currentModeId"].as_str().map(str::to_owned);
                        }
                        Some("config_option_update") => {
                            entry.config_options = non_null(&update["configOptions"]);
                        }
                        _ => {}
                    }
                }
                _ => {}
            }
        }
        Ok(info)
    }
}

fn non_null(value: &Value) -> Option<Value> {
    (!value.is_null()).then(|| value.clone())
}

fn session_entry<'a>(sessions: &'a mut Vec<AcpSession>, id: &str) -> &'a mut AcpSession {
    let at = match sessions.iter().position(|s| s.id == id) {
        Some(at) => at,
        None => {
            sessions.push(AcpSession {
                id: id.to_owned(),
                ..AcpSession::default()
            });
            sessions.len() - 1
        }
    };
    &mut sessions[at]
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    #[test]
    fn the_info_query_reads_both_partial_indexes() {
        let store = crate::Store::in_memory().unwrap();
        let mut statement = store
            .conn
            .prepare(&format!("EXPLAIN QUERY PLAN {}", super::info_query()))
            .unwrap();
        let plan: Vec<String> = statement
            .query_map([1], |row| row.get::<_, String>(3))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let plan = plan.join("\n");
        assert!(plan.contains("frames_by_method"), "{plan}");
        assert!(plan.contains("frames_by_update"), "{plan}");
    }
}
