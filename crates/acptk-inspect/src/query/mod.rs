//! The query API: what `acp inspect`, its MCP server and the web inspector read.
//!
//! Every query is a method of [`Store`](crate::Store) and returns plain, serialisable values (times in
//! microseconds since the Unix epoch, UTC; frames named by their capture and `seq`, counted
//! from 1). Reading never writes, so a store opened with [`Store::open_read_only`](crate::Store::open_read_only) answers all
//! of them (search then also scans the frames not yet indexed).
//!
//! | question | method | cost |
//! |---|---|---|
//! | the captures, newest first, with peers, versions and counts | [`Store::captures`](crate::Store::captures) | one row per capture |
//! | one capture | [`Store::capture`](crate::Store::capture) | one row |
//! | the timeline's rows, streamed chunks folded (incremental) | [`Store::clusters`](crate::Store::clusters) | the new frames' index columns, once |
//! | frames `from..from+limit` of a capture (the timeline) | [`Store::frames`](crate::Store::frames) | an index range on `(capture, seq)`: constant per page at any size |
//! | one frame: raw bytes as sent, findings, notice, its response or request | [`Store::frame`](crate::Store::frame) | a few index lookups |
//! | findings of a capture (or of a frame range) | [`Store::findings`](crate::Store::findings) | index range |
//! | the notice lane | [`Store::notices`](crate::Store::notices) | index range |
//! | session info: versions, both sides' capabilities, auth methods, and per ACP session its modes, models, config options, commands | [`Store::session_info`](crate::Store::session_info) | the frames of a handful of methods (partial indexes) |
//! | per-method latency: count, errors, p50, p99, max | [`Store::latency`](crate::Store::latency) | the capture's responses |
//! | frames and bytes per sender, kind and method | [`Store::frame_counts`](crate::Store::frame_counts) | the capture's frames |
//! | the requests over time (waterfall) | [`Store::requests`](crate::Store::requests) | the capture's requests and responses |
//! | diff of two captures | [`Store::diff`](crate::Store::diff) | both captures' frames, once |
//! | full-text search across captures | [`Store::search`](crate::Store::search) | FTS5, plus a scan of frames not indexed yet |
//! | has anything changed (live captures) | [`Store::data_version`](crate::Store::data_version), [`Store::head`](crate::Store::head) | one pragma; one row |
//!
//! **A timeline page.** [`Store::frames`](crate::Store::frames) gives the rows of a page,
//! [`Store::findings_between`](crate::Store::findings_between) the findings on the same range
//! (badges), in two index-range queries. Streamed chunks are consecutive frames with the same
//! `side`, `method`, `session` and `update` tag (`agent_message_chunk`,
//! `agent_thought_chunk`, ...): a timeline folds them into one row with a count as it reads
//! the pages (the diff folds notifications the same way). A frame's detail
//! ([`Store::frame`](crate::Store::frame)) has its bytes as sent; show them through
//! [`crate::redact`] unless the user asked for secrets.
//!
//! **Live updates.** A proxy commits each batch it forwards, and brings its capture's row
//! (`frames`, the counts) up to date in the same transaction. A reader polls
//! [`Store::data_version`](crate::Store::data_version) (a number that changes whenever another connection commits; a few
//! microseconds) and, when it changed, reads [`Store::head`](crate::Store::head) of the captures it shows and then
//! [`Store::frames`](crate::Store::frames) from the last `seq` it has: that is the whole of a server-sent-event
//! feed. A capture is live while [`CaptureSummary::ended_at`] is `None` and
//! [`CaptureSummary::live`] (its proxy process still runs) is true.

mod captures;
mod clusters;
mod diff;
mod frames;
mod info;
mod latency;
mod search;

pub use captures::{CaptureSummary, Head, Peer};
pub use clusters::{Cluster, Clusters};
pub use diff::{Aligned, Change, Diff, MethodCount, Run};
pub use frames::{FindingRow, FrameDetail, FrameRow, NoticeRow};
pub use info::{AcpSession, SessionInfo};
pub use latency::{FrameCount, MethodLatency, RequestSpan};
pub use search::{Hit, SearchOptions, Searched};

pub use crate::notice::Outcome;
