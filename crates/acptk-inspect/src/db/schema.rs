//! The database schema and its migrations.
//!
//! The schema version is SQLite's `user_version`. `MIGRATIONS` holds the steps in order;
//! step `n` (1-based) takes a database from version `n - 1` to `n` in one transaction, so a
//! database is always at one version of the list. A database newer than this build (a version
//! past the list) is refused rather than misread.
//!
//! The tables (times are microseconds since the Unix epoch, UTC; `capture` is
//! `captures.id`; `seq` counts the frames of a capture from 1):
//!
//! * `captures`: one row per capture (a proxy run, one `--listen` connection, or one imported
//!   run). `source` is `proxy` or `import`; `origin` says from where (the agent's command, a
//!   URL, a file name); `format` how it was read (`proxy`, or the input format of an import:
//!   `transcript`, `jsonrpc`, `conductor`, `zed`, `acpx`, `devtools`); `started_at`,
//!   `ended_at` (`NULL` while a proxy captures, or when it was killed); `pid` (the capturing
//!   process); the peers' names and versions and the protocol versions, filled as
//!   `initialize` passes; running counts (`frames`, `bytes`, `errors`, `warnings`,
//!   `findings`, `notices`), brought up to date at every commit.
//! * `frames`: every message, `id` its row id (the search index points at it). `side` is
//!   `client` or `agent` (who sent it); `kind` is `request`, `notification`, `response`,
//!   `error` (an error response), `invalid` (not a JSON-RPC message) or `too_long` (longer
//!   than the proxy's line limit; `raw` is empty); `method` (for a response: its request's);
//!   `rpc_id` (the JSON text of the id); `session` (the ACP session id the message names);
//!   `update_tag` (the `sessionUpdate` tag of a `session/update`); `size` (bytes as sent);
//!   `request_seq` and `latency` (a response's request and the time between them); `raw`
//!   (the bytes as sent, without the line break).
//! * `findings`: what the checker found, per frame (`seq` `NULL`: about the input, not a
//!   frame): `rule` (the stable id), `severity`, `message`.
//! * `notices`: every notice the agent sent: `severity`, `title`, `description`, whether the
//!   client advertised `session.notices` (`advertised`: 1, 0, `NULL` before `initialize`),
//!   the protocol version, and `outcome` (see [`crate::query::Outcome`]) with `delivered_as`
//!   (the line the client got instead, for a fallback).
//! * `frames_fts`: the full-text index (FTS5, contentless, `rowid` = `frames.id`) over the
//!   frames' text; `fts_state.indexed` is the highest frame id indexed (frames are indexed in
//!   id order after they are written, see [`crate::Store::index`]).
//! * `spools`: one row per capture whose proxy is capturing, or was killed while it did:
//!   `path`, its spool file (beside the database, or absolute), and `done`, how many of its
//!   bytes are already in the tables. The proxy writes each batch to the spool before it
//!   forwards it and moves it into the tables from a thread of its own, updating `done` in
//!   the same transaction; the row goes when the spool is all in (see
//!   [`crate::Store::recover`]).

/// The condition of the partial index `frames_by_update` (the updates worth finding without
/// reading every chunk): a query that wants the index repeats it word for word. Written as
/// comparisons rather than `NOT IN (...)`: SQLite builds a temporary table for a list of more
/// than two values each time it evaluates one, which was the largest single cost of a frame
/// insert.
macro_rules! rare_update {
    () => {
        "update_tag IS NOT NULL AND update_tag <> 'agent_message_chunk' AND update_tag <> 'agent_thought_chunk' AND update_tag <> 'user_message_chunk' AND update_tag <> 'tool_call_update'"
    };
}
pub(crate) use rare_update;

/// The migration steps, oldest first.
pub(crate) const MIGRATIONS: &[&str] = &[
    // 1: captures, frames, findings.
    r"
CREATE TABLE captures (
    id INTEGER PRIMARY KEY,
    source TEXT NOT NULL,
    origin TEXT NOT NULL DEFAULT '',
    format TEXT NOT NULL DEFAULT '',
    name TEXT,
    started_at INTEGER NOT NULL,
    ended_at INTEGER,
    pid INTEGER,
    proxy_version TEXT,
    client_name TEXT,
    client_version TEXT,
    agent_name TEXT,
    agent_version TEXT,
    protocol_version INTEGER,
    proposed_version INTEGER,
    frames INTEGER NOT NULL DEFAULT 0,
    bytes INTEGER NOT NULL DEFAULT 0,
    errors INTEGER NOT NULL DEFAULT 0,
    warnings INTEGER NOT NULL DEFAULT 0,
    findings INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE frames (
    id INTEGER PRIMARY KEY,
    capture INTEGER NOT NULL REFERENCES captures(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    time INTEGER,
    side TEXT NOT NULL,
    kind TEXT NOT NULL,
    method TEXT,
    rpc_id TEXT,
    session TEXT,
    size INTEGER NOT NULL,
    request_seq INTEGER,
    latency INTEGER,
    raw BLOB NOT NULL
);
CREATE UNIQUE INDEX frames_by_seq ON frames(capture, seq);
CREATE INDEX frames_by_method ON frames(capture, method) WHERE kind <> 'notification';
CREATE TABLE findings (
    capture INTEGER NOT NULL REFERENCES captures(id) ON DELETE CASCADE,
    seq INTEGER,
    rule TEXT NOT NULL,
    severity TEXT NOT NULL,
    message TEXT NOT NULL
);
CREATE INDEX findings_by_seq ON findings(capture, seq);
",
    // 2: the notice lane, session update tags, the full-text index.
    r"
ALTER TABLE captures ADD COLUMN notices INTEGER NOT NULL DEFAULT 0;
ALTER TABLE frames ADD COLUMN update_tag TEXT;
CREATE INDEX frames_by_update ON frames(capture, update_tag)
    WHERE update_tag IS NOT NULL AND update_tag NOT IN
        ('agent_message_chunk', 'agent_thought_chunk', 'user_message_chunk', 'tool_call_update');
CREATE TABLE notices (
    capture INTEGER NOT NULL REFERENCES captures(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    session TEXT,
    severity TEXT,
    title TEXT,
    description TEXT,
    advertised INTEGER,
    version INTEGER,
    outcome TEXT NOT NULL,
    delivered_as TEXT
);
CREATE INDEX notices_by_seq ON notices(capture, seq);
CREATE VIRTUAL TABLE frames_fts USING fts5(text, content='', contentless_delete=1);
CREATE TABLE fts_state (indexed INTEGER NOT NULL);
INSERT INTO fts_state VALUES (0);
",
    // 3: the spools of capturing proxies; the update index without a `NOT IN` list.
    concat!(
        "
CREATE TABLE spools (
    capture INTEGER PRIMARY KEY REFERENCES captures(id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    done INTEGER NOT NULL
);
DROP INDEX frames_by_update;
CREATE INDEX frames_by_update ON frames(capture, update_tag) WHERE ",
        rare_update!(),
        ";
"
    ),
];

/// The schema version this build writes.
pub const SCHEMA_VERSION: u32 = MIGRATIONS.len() as u32;
