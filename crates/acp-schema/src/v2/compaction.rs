//! Context compaction updates (ACP v2).

#[allow(unused_imports)]
use super::*;

wire_struct! {
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
        #[serde(
            default,
            deserialize_with = "crate::de::lenient",
            skip_serializing_if = "Option::is_none",
        )]
        pub status: Option<CompactionStatus>,
        /// The whole summary that replaces the compacted history. Absent: unchanged. Blocks
        /// that do not decode are skipped; a malformed value is treated as absent.
        #[serde(
            default,
            deserialize_with = "crate::de::lenient_items_opt",
            skip_serializing_if = "Option::is_none",
        )]
        pub summary: Option<Vec<ContentBlock>>,
        /// What went wrong, for a failed run. A malformed value is treated as absent.
        #[serde(
            default,
            deserialize_with = "crate::de::lenient_string",
            skip_serializing_if = "Option::is_none",
        )]
        pub error: Option<String>,
    }
}

impl CompactionUpdate {
    /// An update for run `compaction_id` that changes nothing yet; add fields with the setters.
    pub fn new(compaction_id: impl Into<CompactionId>) -> Self {
        Self {
            compaction_id: compaction_id.into(),
            status: None,
            summary: None,
            error: None,
            meta: None,
        }
    }
}

setters!(CompactionUpdate {
    opt status: CompactionStatus,
    opt summary: Vec<ContentBlock>,
    opt error: String,
});
