//! Plan types whose shape is the same in both versions: plan entries and the plan operations
//! (`plan_update`, `plan_removed`).

#[allow(unused_imports)]
use super::*;

wire_struct! {
    encoded
    /// One step of an agent's plan.
    ///
    /// ```json
    /// {"content": "Add a regression test", "priority": "medium", "status": "in_progress"}
    /// ```
    pub struct PlanEntry {
        /// What the step is, in a few words for the user.
        pub content: String,
        /// How important the step is.
        pub priority: PlanEntryPriority,
        /// How far the step has got.
        pub status: PlanEntryStatus,
    }
}

encode_struct!(PlanEntry { req content, req priority, req status, opt meta = "_meta" });

constructor! {
    /// An entry with its description, priority and status.
    PlanEntry(
        content: impl Into<String>,
        priority: impl Into<PlanEntryPriority>,
        status: impl Into<PlanEntryStatus>,
    ) { meta: None }
}

wire_struct! {
    encoded
    /// The `plan_update` session update: creates the plan named by the contents' `planId`, or
    /// replaces it entirely if the client already shows a plan with that id.
    ///
    /// ```json
    /// {"sessionUpdate": "plan_update", "plan": {"type": "markdown", "planId": "p1", "content": "1. ..."}}
    /// ```
    pub struct PlanUpdate {
        /// The plan's new contents, including its id.
        pub plan: PlanUpdateContent,
    }
}

encode_struct!(PlanUpdate { req plan, opt meta = "_meta" });

constructor! {
    /// An update carrying these plan contents.
    PlanUpdate(plan: impl Into<PlanUpdateContent>) { meta: None }
}

wire_struct! {
    /// The `plan_removed` session update: the plan with this id is gone and the client should
    /// stop showing it.
    pub struct PlanRemoved {
        /// The plan that was removed.
        pub plan_id: PlanId,
    }
}

constructor! {
    /// Removal of plan `plan_id`.
    PlanRemoved(plan_id: impl Into<PlanId>) { meta: None }
}

from_variants!(PlanUpdateContent { Items(PlanItems), Markdown(PlanMarkdown) });

wire_struct! {
    encoded
    /// Plan contents as a list of entries: `{"type": "items", "planId": ..., "entries": [...]}`.
    pub struct PlanItems {
        /// The plan these entries belong to.
        pub plan_id: PlanId,
        /// Every entry of the plan, in order. Required; entries that do not decode are skipped
        /// (what a value that is not a list means is the version's: see `plan_entries`).
        #[serde(deserialize_with = "plan_entries")]
        pub entries: Vec<PlanEntry>,
    }
}

encode_struct!(PlanItems { req plan_id, req entries, opt meta = "_meta" });

constructor! {
    /// The entries of plan `plan_id`.
    PlanItems(plan_id: impl Into<PlanId>, entries: impl Into<Vec<PlanEntry>>) { meta: None }
}

wire_struct! {
    encoded
    /// Plan contents as Markdown: `{"type": "markdown", "planId": ..., "content": "..."}`.
    pub struct PlanMarkdown {
        /// The plan this document belongs to.
        pub plan_id: PlanId,
        /// The plan as Markdown text.
        pub content: String,
        /// The file the plan is stored in, if any. A malformed value is treated as absent.
        #[opt("crate::de::lenient_string")]
        pub path: Option<FsPath>,
    }
}

encode_struct!(PlanMarkdown { req plan_id, req content, opt path, opt meta = "_meta" });

constructor! {
    /// The Markdown `content` of plan `plan_id`.
    PlanMarkdown(plan_id: impl Into<PlanId>, content: impl Into<String>) { path: None, meta: None }
}

setters!(PlanMarkdown { opt path: FsPath });
