//! The JSON API the page reads: each route one or two calls of the query API. Frame text,
//! session info and search snippets are redacted (see [`crate::redact`]).

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::Shared;
use crate::Store;
use crate::error::Error;
use crate::query::{Cluster, FindingRow, FrameRow, SearchOptions};

/// The most rows one page request returns.
const PAGE_MAX: usize = 1000;
/// The most waterfall requests returned.
const REQUESTS_MAX: usize = 5000;

/// An API answer: JSON, or an error with its status.
type Answer = Result<Json<Value>, Failure>;

/// An error answered as `{"error": "..."}`.
pub(super) struct Failure(StatusCode, String);

impl From<Error> for Failure {
    fn from(error: Error) -> Self {
        let status = match error {
            Error::NoCapture(_) => StatusCode::NOT_FOUND,
            Error::Invalid(_) => StatusCode::BAD_REQUEST,
            _ => StatusCode::INTERNAL_SERVER_ERROR,
        };
        Failure(status, error.to_string())
    }
}

impl IntoResponse for Failure {
    fn into_response(self) -> Response {
        (self.0, Json(json!({"error": self.1}))).into_response()
    }
}

fn to_json(value: impl Serialize) -> Answer {
    serde_json::to_value(value)
        .map(Json)
        .map_err(|e| Failure(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))
}

/// Runs `read` on the store off the async threads.
async fn with_store<T: Serialize + Send + 'static>(
    shared: &Arc<Shared>,
    read: impl FnOnce(&Shared, &mut Store) -> crate::Result<T> + Send + 'static,
) -> Answer {
    let shared = Arc::clone(shared);
    let value = tokio::task::spawn_blocking(move || {
        let mut store = shared
            .store
            .lock()
            .map_err(|_| Error::Invalid("the store's lock is poisoned".to_owned()))?;
        read(&shared, &mut store)
    })
    .await
    .map_err(|e| Failure(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))??;
    to_json(value)
}

#[derive(Deserialize)]
pub(super) struct Page {
    from: Option<i64>,
    limit: Option<usize>,
}

impl Page {
    fn limit(&self, default: usize) -> usize {
        self.limit.unwrap_or(default).min(PAGE_MAX)
    }
}

/// `/api/captures`: the session picker, newest first.
pub(super) async fn captures(
    State(shared): State<Arc<Shared>>,
    Query(page): Query<Page>,
) -> Answer {
    let limit = page.limit(500);
    with_store(&shared, move |_, store| store.captures(limit, 0)).await
}

/// Brings the folded rows of capture `id` up to date and hands them to `read`. The cache is
/// keyed by the capture's id and start, so a deleted capture whose id is used again is
/// folded afresh.
fn fold<T>(
    shared: &Shared,
    store: &Store,
    id: i64,
    read: impl FnOnce(&[Cluster]) -> T,
) -> crate::Result<T> {
    let started = store.capture(id)?.started_at;
    let mut all = shared
        .clusters
        .lock()
        .map_err(|_| Error::Invalid("the timeline cache's lock is poisoned".to_owned()))?;
    let state = all.entry((id, started)).or_default();
    store.clusters(id, state)?;
    Ok(read(&state.rows))
}

/// `/api/captures/{id}`: one capture and its number of timeline rows.
pub(super) async fn capture(State(shared): State<Arc<Shared>>, Path(id): Path<i64>) -> Answer {
    with_store(&shared, move |shared, store| {
        let capture = store.capture(id)?;
        let rows = fold(shared, store, id, <[Cluster]>::len)?;
        Ok(json!({"capture": capture, "rows": rows}))
    })
    .await
}

#[derive(Serialize)]
struct Row {
    #[serde(flatten)]
    frame: FrameRow,
    count: i64,
    findings: Vec<FindingRow>,
}

/// `/api/captures/{id}/rows?from=ROW&limit=N`: timeline rows (clusters) `from..from+N`, each
/// its first frame, its count and the findings on any of its frames.
pub(super) async fn rows(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<i64>,
    Query(page): Query<Page>,
) -> Answer {
    let from = page.from.unwrap_or(0).max(0) as usize;
    let limit = page.limit(200);
    with_store(&shared, move |shared, store| {
        let (total, clusters) = fold(shared, store, id, |rows| {
            let page: Vec<Cluster> = rows.iter().skip(from).take(limit).copied().collect();
            (rows.len(), page)
        })?;
        let mut rows = Vec::with_capacity(clusters.len());
        if let (Some(first), Some(last)) = (clusters.first(), clusters.last()) {
            let mut findings = store.findings_between(id, first.seq, last.seq + last.count - 1)?;
            for cluster in &clusters {
                let Some(frame) = store.frames(id, cluster.seq, 1)?.pop() else {
                    continue;
                };
                let end = cluster.seq + cluster.count;
                let (mine, rest): (Vec<_>, Vec<_>) = findings
                    .into_iter()
                    .partition(|f| f.seq.is_some_and(|s| s >= cluster.seq && s < end));
                findings = rest;
                rows.push(Row {
                    frame,
                    count: cluster.count,
                    findings: mine,
                });
            }
        }
        Ok(json!({"total": total, "from": from, "rows": rows}))
    })
    .await
}

/// `/api/captures/{id}/frames?from=SEQ&limit=N`: frames one by one (an expanded cluster).
pub(super) async fn frames(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<i64>,
    Query(page): Query<Page>,
) -> Answer {
    let from = page.from.unwrap_or(1);
    let limit = page.limit(200);
    with_store(&shared, move |_, store| {
        let frames = store.frames(id, from, limit)?;
        let to = frames.last().map_or(from, |f| f.seq);
        let mut findings = store.findings_between(id, from, to)?;
        let rows: Vec<Row> = frames
            .into_iter()
            .map(|frame| {
                let (mine, rest): (Vec<_>, Vec<_>) =
                    findings.drain(..).partition(|f| f.seq == Some(frame.seq));
                findings = rest;
                Row {
                    frame,
                    count: 1,
                    findings: mine,
                }
            })
            .collect();
        Ok(rows)
    })
    .await
}

/// `/api/captures/{id}/frames/{seq}`: one frame, its (redacted) text, findings and notice.
pub(super) async fn frame(
    State(shared): State<Arc<Shared>>,
    Path((id, seq)): Path<(i64, i64)>,
) -> Answer {
    with_store(&shared, move |_, store| {
        let detail = store.frame(id, seq)?;
        let text = String::from_utf8_lossy(&crate::redact::frame(&detail.raw)).into_owned();
        let mut value = serde_json::to_value(&detail).unwrap_or_default();
        value["text"] = Value::String(text);
        Ok(value)
    })
    .await
}

/// `/api/captures/{id}/findings`.
pub(super) async fn findings(State(shared): State<Arc<Shared>>, Path(id): Path<i64>) -> Answer {
    with_store(&shared, move |_, store| store.findings(id)).await
}

/// `/api/captures/{id}/notices`: the notice lane.
pub(super) async fn notices(State(shared): State<Arc<Shared>>, Path(id): Path<i64>) -> Answer {
    with_store(&shared, move |_, store| store.notices(id)).await
}

/// `/api/captures/{id}/info`: the session info drawer (redacted).
pub(super) async fn info(State(shared): State<Arc<Shared>>, Path(id): Path<i64>) -> Answer {
    with_store(&shared, move |_, store| {
        let mut info = serde_json::to_value(store.session_info(id)?).unwrap_or_default();
        crate::redact::value(&mut info);
        Ok(info)
    })
    .await
}

/// `/api/captures/{id}/latency`: per-method latency and the waterfall's requests.
pub(super) async fn latency(State(shared): State<Arc<Shared>>, Path(id): Path<i64>) -> Answer {
    with_store(&shared, move |_, store| {
        let methods = store.latency(id)?;
        let requests = store.requests(id, 1, REQUESTS_MAX)?;
        let truncated = requests.len() == REQUESTS_MAX;
        Ok(json!({"methods": methods, "requests": requests, "truncated": truncated}))
    })
    .await
}

#[derive(Deserialize)]
pub(super) struct Pair {
    a: i64,
    b: i64,
}

/// `/api/diff?a=ID&b=ID`.
pub(super) async fn diff(State(shared): State<Arc<Shared>>, Query(pair): Query<Pair>) -> Answer {
    with_store(&shared, move |_, store| store.diff(pair.a, pair.b, 500)).await
}

#[derive(Deserialize)]
pub(super) struct Find {
    q: String,
    capture: Option<i64>,
}

/// `/api/search?q=TEXT[&capture=ID]`: hits across captures, snippets redacted.
pub(super) async fn search(State(shared): State<Arc<Shared>>, Query(find): Query<Find>) -> Answer {
    with_store(&shared, move |_, store| {
        // Index what proxies have written since; a busy database is searched by a scan.
        let _ = store.index();
        let mut options = SearchOptions::new().limit(200).redacted();
        if let Some(id) = find.capture {
            options = options.capture(id);
        }
        store.search(&find.q, &options)
    })
    .await
}

#[derive(Deserialize)]
pub(super) struct At {
    seq: i64,
}

/// `/api/captures/{id}/locate?seq=SEQ`: the timeline row that holds frame `seq`.
pub(super) async fn locate(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<i64>,
    Query(at): Query<At>,
) -> Answer {
    with_store(&shared, move |shared, store| {
        let row = fold(shared, store, id, |rows| {
            let row = rows.partition_point(|c| c.seq + c.count <= at.seq);
            rows.get(row)
                .is_some_and(|c| c.seq <= at.seq)
                .then_some(row)
        })?
        .ok_or_else(|| Error::Invalid(format!("capture {id} has no frame {}", at.seq)))?;
        Ok(json!({"row": row}))
    })
    .await
}
