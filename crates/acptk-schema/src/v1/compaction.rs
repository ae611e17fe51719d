//! Context compaction updates (ACP v1), sent to clients that advertise compaction support in
//! their session capabilities.

#[allow(unused_imports)]
use super::*;

wire_struct! {
    patch_meta
    /// The `compaction_update` session update: a compaction run started, progressed or ended.
    ///
    /// The first update for a new `compactionId` announces the run; later ones for the same id
    /// report its new status.
    ///
    /// ```json
    /// {"sessionUpdate": "compaction_update", "compactionId": "c1", "status": "in_progress"}
    /// ```
    pub struct CompactionUpdate {
        /// The compaction run this update is about.
        pub compaction_id: CompactionId,
        /// Where the run stands now.
        pub status: CompactionStatus,
        /// The whole summary that replaces the compacted history, usually sent once the run
        /// has completed. Absent: not given in this update. Blocks that do not decode are
        /// skipped; a malformed value is treated as absent.
        #[patch("crate::de::lenient_patch_items")]
        pub summary: crate::Patch<Vec<ContentBlock>>,
        /// What went wrong, for a failed run. A malformed value is treated as absent.
        #[patch("crate::de::lenient_patch")]
        pub error: crate::Patch<String>,
    }
}

constructor! {
    /// An update reporting `status` for run `compaction_id`.
    CompactionUpdate(compaction_id: impl Into<CompactionId>, status: impl Into<CompactionStatus>)
    {
        summary: crate::Patch::Unchanged,
        error: crate::Patch::Unchanged,
        meta: crate::Patch::Unchanged,
    }
}

setters!(CompactionUpdate { patch summary: Vec<ContentBlock>, patch error: String });
