//! Context compaction types whose shape is the same in both versions.
//!
//! When a conversation nears the model's context limit, an agent may compact it: replace
//! older history with a summary. It reports each compaction run, identified by a
//! [`CompactionId`], with compaction updates and streams the summary in chunks.

#[allow(unused_imports)]
use super::*;

open_enum! {
    /// Where a compaction run stands. Open: other strings are kept.
    pub enum CompactionStatus {
        /// Compaction is running.
        InProgress = "in_progress",
        /// Compaction finished; the summary now stands in for the compacted history.
        Completed = "completed",
        /// Compaction failed; the update's `error` may say why.
        Failed = "failed",
        /// Compaction was stopped before it finished.
        Cancelled = "cancelled",
    }
}

wire_struct! {
    /// The `compaction_summary_chunk` session update: the next piece of a compaction run's
    /// summary, to be appended to what the client has shown so far for that run.
    ///
    /// ```json
    /// {"sessionUpdate": "compaction_summary_chunk", "compactionId": "c1", "content": {"type": "text", "text": "So far we "}}
    /// ```
    pub struct CompactionSummaryChunk {
        /// The compaction run this piece belongs to.
        pub compaction_id: CompactionId,
        /// The piece of summary.
        pub content: ContentBlock,
    }
}

constructor! {
    /// A summary piece for run `compaction_id`.
    CompactionSummaryChunk(compaction_id: impl Into<CompactionId>, content: impl Into<ContentBlock>) {
        meta: None,
    }
}
