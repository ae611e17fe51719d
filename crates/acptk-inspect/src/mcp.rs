//! `acp inspect mcp`: the captures served to a coding agent as a read-only MCP server over
//! stdio (the official Rust MCP SDK, `rmcp`).
//!
//! The database is opened read-only: nothing is written, ever. Every answer is one JSON text,
//! redacted as exports are ([`crate::redact`]), and at most [`ANSWER_CAP`] bytes: a list that
//! does not fit is cut, with `"truncated": true` and the argument to pass to get the next page
//! (`"next": {"offset": N}` or `"next": {"from": SEQ}`); a frame's text longer than
//! [`RAW_CAP`] bytes is cut with `"raw_truncated": true`.
//!
//! | tool | arguments | answer |
//! |---|---|---|
//! | `list_captures` | `limit`, `offset` | the captures, newest first |
//! | `summarize_capture` | `capture` | peers, versions, capabilities, sessions, counts, latency per method, notices by outcome, findings by rule |
//! | `capture_findings` | `capture`, `offset`, `limit` | the checker's findings |
//! | `capture_notices` | `capture`, `offset`, `limit` | the notice lane: each notice and what became of it |
//! | `search_frames` | `text`, `capture`, `limit` | frames holding the words, newest first |
//! | `diff_captures` | `a`, `b`, `limit` | versions, capabilities and frames that differ |
//! | `read_frames` | `capture`, `from`, `limit` | frames in order, with their text |

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorData,
    Implementation, JsonObject, ListToolsResult, PaginatedRequestParams, ServerCapabilities,
    ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{RoleServer, ServerHandler, ServiceExt};
use serde::Serialize;
use serde_json::{Value, json};

use crate::Store;
use crate::error::{Error, Result};
use crate::query::SearchOptions;

/// The largest answer, in bytes of JSON text.
pub const ANSWER_CAP: usize = 64 * 1024;
/// The longest frame text in an answer, in bytes.
pub const RAW_CAP: usize = 8 * 1024;
/// The most items a list answer has, whatever `limit` asks.
pub const MAX_ITEMS: usize = 500;

/// Serves the database at `path` read-only over standard input and output until the client
/// closes it.
pub fn serve_stdio(path: &Path) -> Result<()> {
    let store = Store::open_read_only(path)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|source| Error::Io {
            path: path.to_owned(),
            source,
        })?;
    let server = Server {
        store: Arc::new(Mutex::new(store)),
    };
    let result = runtime.block_on(async move {
        let running = server
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| Error::Invalid(format!("MCP: {e}")))?;
        running
            .waiting()
            .await
            .map_err(|e| Error::Invalid(format!("MCP: {e}")))?;
        Ok(())
    });
    // Standard input may still be read by a blocking thread: do not wait for it.
    runtime.shutdown_background();
    result
}

/// The MCP server: every tool reads the store.
#[derive(Clone)]
pub struct Server {
    store: Arc<Mutex<Store>>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server").finish_non_exhaustive()
    }
}

impl Server {
    /// A server over `store` (open it with [`Store::open_read_only`]).
    pub fn new(store: Store) -> Self {
        Self {
            store: Arc::new(Mutex::new(store)),
        }
    }

    /// Answers tool `name` with `args` (a JSON object): the answer's JSON text, or what was
    /// wrong.
    pub fn call(&self, name: &str, args: &JsonObject) -> Result<String, String> {
        let store = self.store.lock().unwrap_or_else(PoisonError::into_inner);
        let answer = match name {
            "list_captures" => list_captures(&store, args),
            "summarize_capture" => summarize(&store, args),
            "capture_findings" => findings(&store, args),
            "capture_notices" => notices(&store, args),
            "search_frames" => search(&store, args),
            "diff_captures" => diff(&store, args),
            "read_frames" => read_frames(&store, args),
            other => return Err(format!("no tool `{other}`")),
        };
        answer.map(|value| value.to_string())
    }
}

fn schema(properties: Value, required: &[&str]) -> Arc<JsonObject> {
    let mut object = JsonObject::new();
    object.insert("type".to_owned(), json!("object"));
    object.insert("properties".to_owned(), properties);
    object.insert("required".to_owned(), json!(required));
    Arc::new(object)
}

/// The tools, with their input schemas.
pub fn tools() -> Vec<Tool> {
    let capture = json!({"type": "integer", "description": "A capture id (from list_captures)."});
    let offset = json!({"type": "integer", "minimum": 0, "description": "Items to skip (paging)."});
    let limit = |default: usize| json!({"type": "integer", "minimum": 1, "maximum": MAX_ITEMS, "description": format!("At most this many items (default {default}); an answer is also cut at {ANSWER_CAP} bytes.")});
    let read_only = ToolAnnotations::new().read_only(true);
    let tool = |name: &'static str, description: &'static str, input: Arc<JsonObject>| {
        Tool::new(name, description, input).annotate(read_only.clone())
    };
    vec![
        tool(
            "list_captures",
            "List the captured ACP sessions (proxy runs and imports), newest first: agent, client, protocol versions, frame, error and notice counts, and whether the capture is still live.",
            schema(json!({"limit": limit(20), "offset": offset}), &[]),
        ),
        tool(
            "summarize_capture",
            "Summarise one capture: peers and versions, both sides' capabilities, auth methods, ACP sessions with their modes and commands, latency per method (p50, p99, max in microseconds), notices by outcome and findings by rule.",
            schema(json!({"capture": capture}), &["capture"]),
        ),
        tool(
            "capture_findings",
            "The protocol findings of the ACP checker for one capture (rule id, severity, message, frame seq).",
            schema(
                json!({"capture": capture, "offset": offset, "limit": limit(100)}),
                &["capture"],
            ),
        ),
        tool(
            "capture_notices",
            "The notice lane of one capture: each session notice the agent sent (severity, title), whether the client advertised session.notices, and what happened to it (delivered, fallback, removed_from_replay, removed, uncertain, unsupported, replayed, malformed).",
            schema(
                json!({"capture": capture, "offset": offset, "limit": limit(100)}),
                &["capture"],
            ),
        ),
        tool(
            "search_frames",
            "Full-text search of the frames of all captures (or one): the words in order, whole words, any case. Newest first, with a snippet.",
            schema(
                json!({"text": {"type": "string", "description": "The words to find."}, "capture": capture, "limit": limit(20)}),
                &["text"],
            ),
        ),
        tool(
            "diff_captures",
            "Compare two captures: versions, peers and capabilities that differ, frame counts per method that differ, and the frames aligned by method and order (streams of updates folded into runs).",
            schema(
                json!({"a": capture, "b": capture, "limit": limit(100)}),
                &["a", "b"],
            ),
        ),
        tool(
            "read_frames",
            "Read frames of one capture in order from a sequence number: sender, kind, method, id, session, latency and the message text (secrets redacted).",
            schema(
                json!({"capture": capture, "from": {"type": "integer", "minimum": 1, "description": "The first frame's seq (default 1)."}, "limit": limit(20)}),
                &["capture"],
            ),
        ),
    ]
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("acptk-inspect", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Read-only access to captured Agent Client Protocol (ACP) traffic: sessions between editors and coding agents recorded by `acp proxy --capture` or imported. Start with list_captures, then summarize_capture, capture_findings, capture_notices or read_frames. Secrets are redacted.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = request.arguments.unwrap_or_default();
        if !tools().iter().any(|t| t.name == request.name) {
            return Err(ErrorData::invalid_params(
                format!("no tool `{}`", request.name),
                None,
            ));
        }
        Ok(match self.call(&request.name, &args) {
            Ok(text) => CallToolResult::success(vec![ContentBlock::text(text)]),
            Err(message) => CallToolResult::error(vec![ContentBlock::text(message)]),
        }
        .into())
    }
}

type Answer = std::result::Result<Value, String>;

fn int(args: &JsonObject, name: &str) -> std::result::Result<Option<i64>, String> {
    match args.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_i64()
            .map(Some)
            .ok_or_else(|| format!("`{name}` must be an integer, got {v}")),
    }
}

fn required(args: &JsonObject, name: &str) -> std::result::Result<i64, String> {
    int(args, name)?.ok_or_else(|| format!("`{name}` is required"))
}

fn limit(args: &JsonObject, default: usize) -> std::result::Result<usize, String> {
    Ok(int(args, "limit")?
        .map_or(default, |n| usize::try_from(n).unwrap_or(0))
        .clamp(1, MAX_ITEMS))
}

fn offset(args: &JsonObject) -> std::result::Result<usize, String> {
    Ok(int(args, "offset")?.map_or(0, |n| usize::try_from(n).unwrap_or(0)))
}

fn failed(error: Error) -> String {
    error.to_string()
}

/// Items that fit the answer cap, with the paging note: `next(i)` says how to ask for the
/// items from the `i`-th one on.
fn page<T: Serialize>(
    items: &[T],
    more: bool,
    next: impl Fn(usize) -> Value,
    mut redact: impl FnMut(&mut Value),
) -> Value {
    let mut kept = Vec::new();
    let mut size = 64;
    let mut truncated = more;
    let mut stop = items.len();
    for (i, item) in items.iter().enumerate() {
        let mut value = serde_json::to_value(item).unwrap_or(Value::Null);
        redact(&mut value);
        let len = value.to_string().len() + 1;
        if size + len > ANSWER_CAP - 256 && !kept.is_empty() {
            truncated = true;
            stop = i;
            break;
        }
        size += len;
        kept.push(value);
    }
    let mut answer = json!({"items": kept, "truncated": truncated});
    if truncated {
        answer["next"] = next(stop);
    }
    answer
}

fn list_captures(store: &Store, args: &JsonObject) -> Answer {
    let (limit, offset) = (limit(args, 20)?, offset(args)?);
    let mut captures = store.captures(limit + 1, offset).map_err(failed)?;
    let more = captures.len() > limit;
    captures.truncate(limit);
    Ok(page(
        &captures,
        more,
        |i| json!({"offset": offset + i}),
        crate::redact::value_quietly,
    ))
}

fn summarize(store: &Store, args: &JsonObject) -> Answer {
    let id = required(args, "capture")?;
    let capture = store.capture(id).map_err(failed)?;
    let mut info =
        serde_json::to_value(store.session_info(id).map_err(failed)?).unwrap_or_default();
    crate::redact::value(&mut info);
    let latency = store.latency(id).map_err(failed)?;
    let mut outcomes: BTreeMap<&str, u64> = BTreeMap::new();
    let notices = store.notices(id).map_err(failed)?;
    for n in &notices {
        *outcomes.entry(n.outcome.as_str()).or_default() += 1;
    }
    let mut rules: BTreeMap<String, u64> = BTreeMap::new();
    for f in store.findings(id).map_err(failed)? {
        *rules.entry(f.rule).or_default() += 1;
    }
    let mut answer = json!({
        "capture": capture,
        "info": info,
        "latency": latency,
        "notices_by_outcome": outcomes,
        "findings_by_rule": rules,
    });
    // Capabilities can be long: the answer stays under the cap.
    if answer.to_string().len() > ANSWER_CAP {
        answer["info"] = json!({"truncated": true, "note": "session info too long for one answer; read the initialize and session frames with read_frames"});
    }
    Ok(answer)
}

fn findings(store: &Store, args: &JsonObject) -> Answer {
    let all = store.findings(required(args, "capture")?).map_err(failed)?;
    slice(&all, args, |_| {})
}

fn notices(store: &Store, args: &JsonObject) -> Answer {
    let all = store.notices(required(args, "capture")?).map_err(failed)?;
    slice(&all, args, crate::redact::value_quietly)
}

/// The items of `all` that `offset` and `limit` ask for, as a page.
fn slice<T: Serialize>(all: &[T], args: &JsonObject, redact: impl FnMut(&mut Value)) -> Answer {
    let (limit, offset) = (limit(args, 100)?, offset(args)?);
    let chosen: Vec<&T> = all.iter().skip(offset).take(limit).collect();
    let more = all.len() > offset + chosen.len();
    Ok(page(
        &chosen,
        more,
        |i| json!({"offset": offset + i}),
        redact,
    ))
}

fn search(store: &Store, args: &JsonObject) -> Answer {
    let text = match args.get("text") {
        Some(Value::String(text)) if !text.trim().is_empty() => text.clone(),
        _ => return Err("`text` is required: the words to find".to_owned()),
    };
    let mut options = SearchOptions::new().limit(limit(args, 20)?).redacted();
    if let Some(id) = int(args, "capture")? {
        store.capture(id).map_err(failed)?;
        options = options.capture(id);
    }
    let found = store.search(&text, &options).map_err(failed)?;
    let mut answer = page(&found.hits, found.truncated, |_| Value::Null, |_| {});
    if found.truncated {
        answer["next"] = json!({"note": "more hits: narrow the words, or pass `capture`"});
    }
    Ok(answer)
}

fn diff(store: &Store, args: &JsonObject) -> Answer {
    let (a, b) = (required(args, "a")?, required(args, "b")?);
    let limit = limit(args, 100)?;
    let diff = store.diff(a, b, limit).map_err(failed)?;
    let mut answer = serde_json::to_value(&diff).unwrap_or_default();
    crate::redact::value(&mut answer);
    // Cut the aligned rows until the answer fits.
    let mut cut = false;
    while answer.to_string().len() > ANSWER_CAP {
        let Some(rows) = answer["aligned"].as_array_mut() else {
            break;
        };
        if rows.is_empty() {
            break;
        }
        let keep = rows.len() / 2;
        rows.truncate(keep);
        cut = true;
    }
    if cut {
        answer["truncated"] = json!(true);
        answer["next"] = json!({"note": "aligned rows cut to fit; ask with a smaller `limit`"});
    }
    Ok(answer)
}

fn read_frames(store: &Store, args: &JsonObject) -> Answer {
    let id = required(args, "capture")?;
    let from = int(args, "from")?.unwrap_or(1).max(1);
    let limit = limit(args, 20)?;
    store.capture(id).map_err(failed)?;
    let rows = store.frames(id, from, limit + 1).map_err(failed)?;
    let more = rows.len() > limit;
    let mut frames = Vec::new();
    for row in rows.iter().take(limit) {
        let detail = store.frame(id, row.seq).map_err(failed)?;
        let text = crate::redact::text(&detail.text()).into_owned();
        let mut value = serde_json::to_value(&detail.row).unwrap_or_default();
        if text.len() > RAW_CAP {
            let mut end = RAW_CAP;
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            value["raw"] = json!(&text[..end]);
            value["raw_truncated"] = json!(true);
        } else {
            value["raw"] = json!(text);
        }
        if !detail.findings.is_empty() {
            value["findings"] = serde_json::to_value(&detail.findings).unwrap_or_default();
        }
        if let Some(notice) = &detail.notice {
            value["notice"] = serde_json::to_value(notice).unwrap_or_default();
            crate::redact::value(&mut value["notice"]);
        }
        frames.push(value);
    }
    let seqs: Vec<i64> = frames.iter().filter_map(|f| f["seq"].as_i64()).collect();
    // The frame after the last one returned: the first one cut, else the one past the limit.
    let after = rows.get(limit).map(|row| row.seq);
    Ok(page(
        &frames,
        more,
        |i| json!({"from": seqs.get(i).copied().or(after).unwrap_or(from)}),
        |_| {},
    ))
}
