//! How every persistent store writes a history entry and a session's option values: one
//! encoding, so that the file store's lines, the databases' rows and a migration between them
//! hold the same JSON.
//!
//! An entry is `{"update": {...}}` (the session update exactly as it was sent) or
//! `{"promptKey": {"key": ..., "messageId": ...}}` (the idempotency key of a v2 prompt). Option
//! values are `[{"id": ..., "type": "id"|"boolean", "value": ...}]`.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use acp_schema::v1::ProtocolVersion;
use acp_schema::{v1, v2};
use serde::{Deserialize, Serialize};

use super::HistoryEntry;
use crate::agent::config::ConfigValue;

/// One history entry as stored.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
enum Record<U> {
    Update(U),
    PromptKey {
        key: String,
        #[serde(rename = "messageId")]
        message_id: String,
    },
}

/// The JSON of `entry`.
pub(super) fn encode_entry(entry: HistoryEntry) -> Result<Vec<u8>, serde_json::Error> {
    match entry {
        HistoryEntry::V1(update) => {
            serde_json::to_vec(&Record::Update(v1::SessionUpdate::from(update)))
        }
        HistoryEntry::V2(update) => {
            serde_json::to_vec(&Record::Update(v2::SessionUpdate::from(update)))
        }
        HistoryEntry::PromptKey { key, message_id } => {
            serde_json::to_vec(&Record::<()>::PromptKey { key, message_id })
        }
    }
}

/// Decodes the JSON of one entry of a session of `version`; the error says what is wrong.
pub(super) fn decode_entry(version: ProtocolVersion, text: &str) -> Result<HistoryEntry, String> {
    const NOTICE: &str = "a notice is never history, but one was recorded";
    if version == ProtocolVersion::V1 {
        match serde_json::from_str::<Record<v1::SessionUpdate>>(text).map_err(|e| e.to_string())? {
            Record::Update(update) => v1::ReplayableUpdate::try_from(update)
                .map(HistoryEntry::V1)
                .map_err(|_| NOTICE.to_owned()),
            Record::PromptKey { key, message_id } => {
                Ok(HistoryEntry::PromptKey { key, message_id })
            }
        }
    } else {
        match serde_json::from_str::<Record<v2::SessionUpdate>>(text).map_err(|e| e.to_string())? {
            Record::Update(update) => v2::ReplayableUpdate::try_from(update)
                .map(HistoryEntry::V2)
                .map_err(|_| NOTICE.to_owned()),
            Record::PromptKey { key, message_id } => {
                Ok(HistoryEntry::PromptKey { key, message_id })
            }
        }
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
