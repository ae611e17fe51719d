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

impl PlanEntry {
    /// An entry with its description, priority and status.
    pub fn new(
        content: impl Into<String>,
        priority: impl Into<PlanEntryPriority>,
        status: impl Into<PlanEntryStatus>,
    ) -> Self {
        Self {
            content: content.into(),
            priority: priority.into(),
            status: status.into(),
            meta: None,
        }
    }
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

impl PlanUpdate {
    /// An update carrying these plan contents.
    pub fn new(plan: impl Into<PlanUpdateContent>) -> Self {
        Self {
            plan: plan.into(),
            meta: None,
        }
    }
}

wire_struct! {
    /// The `plan_removed` session update: the plan with this id is gone and the client should
    /// stop showing it.
    pub struct PlanRemoved {
        /// The plan that was removed.
        pub plan_id: PlanId,
    }
}

impl PlanRemoved {
    /// Removal of plan `plan_id`.
    pub fn new(plan_id: impl Into<PlanId>) -> Self {
        Self {
            plan_id: plan_id.into(),
            meta: None,
        }
    }
}
