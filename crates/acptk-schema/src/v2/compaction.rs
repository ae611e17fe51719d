//! Context compaction updates (ACP v2).

#[allow(unused_imports)]
use super::*;

wire_struct! {
    patch_meta
    /// The `compaction_update` session update: creates or updates the client's record of a
    /// compaction run, keyed by `compactionId`.
    ///
    /// Fields that are present replace the stored ones; absent fields leave them as they were.
    /// (ACP also lets `null` clear a field; this type reads `null` like an absent field.)
    ///
    /// ```json
    /// {"sessionUpdate": "compaction_update", "compactionId": "c1", "status": "completed"}
    /// ```
    pub struct CompactionUpdate {
        /// The compaction run this update is about.
        pub compaction_id: CompactionId,
        /// Where the run stands now. Absent: unchanged. A malformed value is treated as absent.
        #[patch("crate::de::lenient_patch")]
        pub status: crate::Patch<CompactionStatus>,
        /// The whole summary that replaces the compacted history. Absent: unchanged. Blocks
        /// that do not decode are skipped; a malformed value is treated as absent.
        #[patch("crate::de::lenient_patch_items")]
        pub summary: crate::Patch<Vec<ContentBlock>>,
        /// What went wrong, for a failed run. A malformed value is treated as absent.
        #[patch("crate::de::lenient_patch")]
        pub error: crate::Patch<String>,
    }
}

constructor! {
    /// An update for run `compaction_id` that changes nothing yet; add fields with the setters.
    CompactionUpdate(compaction_id: impl Into<CompactionId>)
    {
        status: crate::Patch::Unchanged,
        summary: crate::Patch::Unchanged,
        error: crate::Patch::Unchanged,
        meta: crate::Patch::Unchanged,
    }
}

setters!(CompactionUpdate {
    patch status: CompactionStatus,
    patch summary: Vec<ContentBlock>,
    patch error: String,
});
