//! How every persistent store writes a history entry and a session's option values: one
//! encoding, so that the file store's lines, the databases' rows and a migration between them
//! hold the same JSON.
//!
//! An entry is `{"update": {...}}` (the session update exactly as it was sent) or
//! `{"promptKey": {"key": ..., "messageId": ...}}` (the idempotency key of a v2 prompt). Option
//! values are `[{"id": ..., "type": "id"|"boolean", "value": ...}]`.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use acptk_schema::json::Json;
use acptk_schema::v1::ProtocolVersion;
use acptk_schema::{v1, v2};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::ConfigValue;
use super::HistoryEntry;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
use super::SessionMeta;

/// One history entry as stored. The update is kept as written here and decoded by
/// [`Json::from_json`], compiled once in `acptk_schema` (naming its type in this enum would
/// compile every update decoder again in this crate).
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
enum Record<'a> {
    #[serde(borrow)]
    Update(&'a RawValue),
    PromptKey {
        key: String,
        #[serde(rename = "messageId")]
        message_id: String,
    },
}

/// The JSON text of each entry of session `id`, for a database row, and their total length.
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(super) fn encode_rows(
    id: &str,
    entries: impl IntoIterator<Item = HistoryEntry>,
) -> Result<(Vec<String>, u64), super::StoreError> {
    let encoding = |error: Box<dyn std::error::Error + Send + Sync>| {
        super::StoreError::database(id, "encoding an entry", error)
    };
    let mut rows = Vec::new();
    let mut bytes = 0u64;
    for entry in entries {
        let json = encode_entry(entry).map_err(|error| encoding(Box::new(error)))?;
        let json = String::from_utf8(json).map_err(|error| encoding(Box::new(error)))?;
        bytes += json.len() as u64;
        rows.push(json);
    }
    Ok((rows, bytes))
}

/// The JSON of `entry`: `{"update":...}` or `{"promptKey":{...}}`.
pub(super) fn encode_entry(entry: HistoryEntry) -> Result<Vec<u8>, serde_json::Error> {
    let update = match entry {
        HistoryEntry::V1(update) => v1::SessionUpdate::from(update).to_json()?,
        HistoryEntry::V2(update) => v2::SessionUpdate::from(update).to_json()?,
        HistoryEntry::PromptKey { key, message_id } => {
            return serde_json::to_vec(&Record::PromptKey { key, message_id });
        }
    };
    const START: &[u8] = br#"{"update":"#;
    let mut record = Vec::with_capacity(START.len() + update.len() + 1);
    record.extend_from_slice(START);
    record.extend_from_slice(&update);
    record.push(b'}');
    Ok(record)
}

/// Decodes the JSON of one entry of a session of `version`; the error says what is wrong.
pub(super) fn decode_entry(version: ProtocolVersion, text: &str) -> Result<HistoryEntry, String> {
    if version == ProtocolVersion::V1 {
        decode::<v1::SessionUpdate, _>(text, HistoryEntry::V1)
    } else {
        decode::<v2::SessionUpdate, _>(text, HistoryEntry::V2)
    }
}

/// Decodes one entry whose updates are `U` (the session's version), replayable as `R`.
fn decode<U: Json, R: TryFrom<U>>(
    text: &str,
    entry: impl FnOnce(R) -> HistoryEntry,
) -> Result<HistoryEntry, String> {
    const NOTICE: &str = "a notice is never history, but one was recorded";
    match serde_json::from_str::<Record<'_>>(text).map_err(|e| e.to_string())? {
        Record::Update(update) => {
            let update = U::from_json(update.get()).map_err(|e| format!("update: {e}"))?;
            R::try_from(update)
                .map(entry)
                .map_err(|_| NOTICE.to_owned())
        }
        Record::PromptKey { key, message_id } => Ok(HistoryEntry::PromptKey { key, message_id }),
    }
}

/// One option value as stored.
#[derive(Serialize, Deserialize)]
pub(super) struct StoredOption {
    id: String,
    #[serde(flatten)]
    value: StoredValue,
}

#[derive(Serialize, Deserialize)]
#[serde(tag = "type", content = "value", rename_all = "lowercase")]
enum StoredValue {
    Id(String),
    Boolean(bool),
}

/// The stored form of a session's option values.
pub(super) fn stored_options(config: &[(String, ConfigValue)]) -> Vec<StoredOption> {
    config
        .iter()
        .map(|(id, value)| StoredOption {
            id: id.clone(),
            value: match value {
                ConfigValue::Id(value) => StoredValue::Id(value.clone()),
                ConfigValue::Boolean(value) => StoredValue::Boolean(*value),
            },
        })
        .collect()
}

/// A session's option values from their stored form.
pub(super) fn options_from(stored: Vec<StoredOption>) -> Vec<(String, ConfigValue)> {
    stored
        .into_iter()
        .map(|option| {
            let value = match option.value {
                StoredValue::Id(value) => ConfigValue::Id(value),
                StoredValue::Boolean(value) => ConfigValue::Boolean(value),
            };
            (option.id, value)
        })
        .collect()
}

/// Milliseconds since the Unix epoch (0 before it, saturated far after it).
pub(super) fn millis(time: SystemTime) -> u64 {
    time.duration_since(UNIX_EPOCH).map_or(0, |since| {
        u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
    })
}

/// The time `ms` milliseconds after the Unix epoch.
pub(super) fn from_millis(ms: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_millis(ms)
}

/// A session's metadata as the database stores keep it: one column per field, the lists as
/// JSON text. The same row for SQLite and PostgreSQL.
#[cfg(any(feature = "sqlite", feature = "postgres"))]
#[derive(Debug, Clone)]
pub(super) struct MetaRow {
    pub(super) id: String,
    pub(super) protocol_version: i32,
    pub(super) cwd: String,
    /// A JSON array of strings.
    pub(super) additional_directories: String,
    pub(super) title: Option<String>,
    pub(super) created_at_ms: i64,
    pub(super) updated_at_ms: i64,
    pub(super) mode: Option<String>,
    /// A JSON array of [`StoredOption`]s.
    pub(super) config: String,
    pub(super) archived: bool,
    pub(super) owner: Option<String>,
}

/// References to the values of a [`MetaRow`]'s columns, in the order of the backends'
/// column lists (`id` first), as an array of the backend's parameter type.
#[cfg(any(feature = "sqlite", feature = "postgres"))]
macro_rules! meta_values {
    ($row:expr) => {
        [
            &$row.id,
            &$row.protocol_version,
            &$row.cwd,
            &$row.additional_directories,
            &$row.title,
            &$row.created_at_ms,
            &$row.updated_at_ms,
            &$row.mode,
            &$row.config,
            &$row.archived,
            &$row.owner,
        ]
    };
}
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(super) use meta_values;

#[cfg(any(feature = "sqlite", feature = "postgres"))]
impl MetaRow {
    /// The row of `meta`.
    pub(super) fn of(meta: &SessionMeta) -> Self {
        let ms = |time| i64::try_from(millis(time)).unwrap_or(i64::MAX);
        Self {
            id: meta.id.clone(),
            protocol_version: i32::from(meta.protocol_version.get()),
            cwd: meta.cwd.clone(),
            additional_directories: serde_json::to_string(&meta.additional_directories)
                .unwrap_or_else(|_| "[]".to_owned()),
            title: meta.title.clone(),
            created_at_ms: ms(meta.created_at),
            updated_at_ms: ms(meta.updated_at),
            mode: meta.mode.clone(),
            config: serde_json::to_string(&stored_options(&meta.config))
                .unwrap_or_else(|_| "[]".to_owned()),
            archived: meta.archived,
            owner: meta.owner.clone(),
        }
    }

    /// The metadata this row holds; the error says which column does not read.
    pub(super) fn into_meta(self) -> Result<SessionMeta, String> {
        let version = u16::try_from(self.protocol_version).map_err(|_| {
            format!(
                "protocol_version {} is not a version",
                self.protocol_version
            )
        })?;
        let additional_directories: Vec<String> =
            serde_json::from_str(&self.additional_directories)
                .map_err(|error| format!("additional_directories: {error}"))?;
        let config: Vec<StoredOption> =
            serde_json::from_str(&self.config).map_err(|error| format!("config: {error}"))?;
        let time = |ms: i64| from_millis(u64::try_from(ms).unwrap_or(0));
        Ok(SessionMeta {
            id: self.id,
            protocol_version: ProtocolVersion::new(version),
            cwd: self.cwd,
            additional_directories,
            title: self.title,
            created_at: time(self.created_at_ms),
            updated_at: time(self.updated_at_ms),
            mode: self.mode,
            config: options_from(config),
            archived: self.archived,
            owner: self.owner,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An entry is `{"update": ...}` around the update exactly as `serde_json` writes it, and
    /// reads back as itself.
    #[test]
    fn an_update_entry_is_the_update_in_a_record_and_reads_back() {
        /// What `serde_json` writes for the record, the way the store wrote it before.
        #[derive(Serialize)]
        struct Wrapped<'a, T> {
            update: &'a T,
        }
        let text = r#"{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi \"there\""}}"#;
        let v1_update: v1::SessionUpdate = serde_json::from_str(text).unwrap();
        let v2_text = text.replace(r#""content""#, r#""messageId":"m1","content""#);
        let v2_update: v2::SessionUpdate = serde_json::from_str(&v2_text).unwrap();
        let cases = [
            (
                ProtocolVersion::V1,
                HistoryEntry::V1(v1_update.clone().try_into().unwrap()),
                serde_json::to_vec(&Wrapped { update: &v1_update }).unwrap(),
            ),
            (
                ProtocolVersion::V2,
                HistoryEntry::V2(v2_update.clone().try_into().unwrap()),
                serde_json::to_vec(&Wrapped { update: &v2_update }).unwrap(),
            ),
        ];
        for (version, entry, expected) in cases {
            let encoded = encode_entry(entry.clone()).unwrap();
            assert_eq!(
                String::from_utf8_lossy(&encoded),
                String::from_utf8_lossy(&expected)
            );
            let decoded = decode_entry(version, std::str::from_utf8(&encoded).unwrap()).unwrap();
            assert_eq!(decoded, entry);
        }
    }

    /// A prompt key keeps its form; an update that does not read is named as the update.
    #[test]
    fn prompt_keys_read_back_and_a_bad_update_is_named() {
        let entry = HistoryEntry::PromptKey {
            key: "k".to_owned(),
            message_id: "m".to_owned(),
        };
        let encoded = encode_entry(entry.clone()).unwrap();
        assert_eq!(encoded, br#"{"promptKey":{"key":"k","messageId":"m"}}"#);
        assert_eq!(
            decode_entry(ProtocolVersion::V2, std::str::from_utf8(&encoded).unwrap()).unwrap(),
            entry
        );
        let error =
            decode_entry(ProtocolVersion::V1, r#"{"update":{"sessionUpdate":7}}"#).unwrap_err();
        assert!(error.starts_with("update: "), "{error}");
        let error = decode_entry(ProtocolVersion::V1, r#"{"update":"#).unwrap_err();
        assert!(!error.starts_with("update: "), "{error}");
    }
}
