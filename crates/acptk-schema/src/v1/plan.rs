//! Plans (ACP v1): the agent's to-do list for the current task, sent whole (`plan`) or, for
//! clients that advertise plan operations, as identified plans that can be replaced and removed
//! (`plan_update`, `plan_removed`).

#[allow(unused_imports)]
use super::*;

/// How important a plan entry is. Closed in v1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum PlanEntryPriority {
    /// Important; should be done first.
    High,
    /// Normal importance.
    Medium,
    /// Nice to have.
    Low,
}

/// Progress of a plan entry. Closed in v1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum PlanEntryStatus {
    /// Not started yet.
    Pending,
    /// Being worked on now.
    InProgress,
    /// Done.
    Completed,
}

wire_struct! {
    encoded
    /// The agent's whole execution plan, sent as the `plan` session update.
    ///
    /// Each `plan` update replaces the previous one entirely: the client shows exactly these
    /// entries, in this order.
    ///
    /// ```json
    /// {"sessionUpdate": "plan", "entries": [{"content": "Write tests", "priority": "high", "status": "pending"}]}
    /// ```
    pub struct Plan {
        /// Every entry of the plan, in order. Required; a value that is not a list reads as an
        /// empty plan, and entries that do not decode are skipped.
        #[serde(deserialize_with = "plan_entries")]
        pub entries: Vec<PlanEntry>,
    }
}

encode_struct!(Plan { req entries, opt meta = "_meta" });

constructor! {
    /// A plan with these entries.
    Plan(entries: impl Into<Vec<PlanEntry>>) { meta: None }
}

tagged_union! {
    /// The new contents of an identified plan, tagged by `type`: a list of entries or a
    /// Markdown document. Closed in v1: an unknown `type` is an error.
    pub enum PlanUpdateContent("type") {
        /// A structured list of entries.
        Items(PlanItems) = "items",
        /// A free-form Markdown plan.
        Markdown(PlanMarkdown) = "markdown",
    }
}

impl PlanUpdateContent {
    /// The id of the plan these contents belong to.
    pub fn plan_id(&self) -> &PlanId {
        match self {
            Self::Items(items) => &items.plan_id,
            Self::Markdown(markdown) => &markdown.plan_id,
        }
    }
}

/// How v1 reads the entry list of a plan: a value that is not a list reads as an empty plan,
/// and entries that do not decode are skipped.
pub(crate) use crate::de::lenient_items as plan_entries;

encode_union!(PlanUpdateContent { Items, Markdown });
encode_unit_enum!(PlanEntryPriority { High, Medium, Low });
encode_unit_enum!(PlanEntryStatus {
    Pending,
    InProgress,
    Completed
});
