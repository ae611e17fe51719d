//! `session/list` from the store: filtered by protocol version and working directory, most
//! recently active first, in pages with an opaque cursor.
//!
//! The cursor names the last session of the page (its activity time and id), so a page never
//! repeats or skips a session that was there when the previous page was made, even when other
//! sessions are created or deleted in between.

use std::time::{SystemTime, UNIX_EPOCH};

use acptk_schema::v1::ProtocolVersion;

use super::setup::{ListRequest, SessionPage, SessionSummary};
use crate::store::SessionMeta;

/// The default number of sessions per page.
pub const DEFAULT_PAGE_SIZE: usize = 50;

/// The ordering key: most recent first, then by id.
fn key(meta: &SessionMeta) -> (std::cmp::Reverse<u128>, String) {
    (std::cmp::Reverse(nanos(meta.updated_at)), meta.id.clone())
}

fn nanos(time: SystemTime) -> u128 {
    time.duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_nanos())
}

/// Compares paths the way `session/list` filters them: equal, or equal but for a trailing `/`.
fn same_dir(a: &str, b: &str) -> bool {
    let trim = |path: &str| -> String {
        let trimmed = path.trim_end_matches('/');
        if trimmed.is_empty() && path.starts_with('/') {
            "/".to_owned()
        } else {
            trimmed.to_owned()
        }
    };
    trim(a) == trim(b)
}

fn encode_cursor(meta: &SessionMeta) -> String {
    format!("{}:{}", nanos(meta.updated_at), meta.id)
}

fn decode_cursor(cursor: &str) -> Option<(std::cmp::Reverse<u128>, String)> {
    let (time, id) = cursor.split_once(':')?;
    Some((std::cmp::Reverse(time.parse().ok()?), id.to_owned()))
}

/// One page of `sessions` for `request`; the error says why the cursor is not valid.
pub(crate) fn page(
    mut sessions: Vec<SessionMeta>,
    version: ProtocolVersion,
    request: &ListRequest,
    size: usize,
) -> Result<SessionPage, String> {
    let after = match &request.cursor {
        Some(cursor) => Some(
            decode_cursor(cursor)
                .ok_or_else(|| format!("`{cursor}` is not a cursor this agent handed out"))?,
        ),
        None => None,
    };
    sessions.retain(|meta| {
        meta.protocol_version == version
            && request
                .cwd
                .as_deref()
                .is_none_or(|cwd| same_dir(cwd, &meta.cwd))
            && archive_shows(request, meta)
    });
    sessions.sort_by_key(key);
    let start = match &after {
        Some(after) => sessions.partition_point(|meta| key(meta) <= *after),
        None => 0,
    };
    let rest = &sessions[start.min(sessions.len())..];
    let shown = &rest[..rest.len().min(size.max(1))];
    let next_cursor = (shown.len() < rest.len())
        .then(|| shown.last().map(encode_cursor))
        .flatten();
    Ok(SessionPage {
        sessions: shown
            .iter()
            .map(|meta| SessionSummary {
                id: meta.id.clone(),
                cwd: meta.cwd.clone(),
                additional_directories: meta.additional_directories.clone(),
                title: meta.title.clone(),
                updated_at: meta.updated_at,
                archived: meta.archived,
            })
            .collect(),
        next_cursor,
    })
}

/// Whether the request's archive filter shows the session (every session without the cargo
/// feature `unstable_session_archive`).
#[allow(unused_variables)]
fn archive_shows(request: &ListRequest, meta: &SessionMeta) -> bool {
    #[cfg(feature = "unstable_session_archive")]
    return request.archived.shows(meta.archived);
    #[cfg(not(feature = "unstable_session_archive"))]
    true
}

/// An RFC 3339 timestamp (UTC) for `updatedAt`.
pub(crate) fn rfc3339(time: SystemTime) -> String {
    let nanos = i128::try_from(nanos(time)).unwrap_or(0);
    time::OffsetDateTime::from_unix_timestamp_nanos(nanos)
        .ok()
        .and_then(|at| {
            at.format(&time::format_description::well_known::Rfc3339)
                .ok()
        })
        .unwrap_or_else(|| "1970-01-01T00:00:00Z".to_owned())
}
