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
        #[serde(deserialize_with = "crate::de::lenient_items")]
        pub entries: Vec<PlanEntry>,
    }
}

encode_struct!(Plan { req entries, opt meta = "_meta" });

impl Plan {
    /// A plan with these entries.
    pub fn new(entries: impl Into<Vec<PlanEntry>>) -> Self {
        Self {
            entries: entries.into(),
            meta: None,
        }
    }
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

impl From<PlanItems> for PlanUpdateContent {
    fn from(value: PlanItems) -> Self {
        Self::Items(value)
    }
}

impl From<PlanMarkdown> for PlanUpdateContent {
    fn from(value: PlanMarkdown) -> Self {
        Self::Markdown(value)
    }
}

wire_struct! {
    encoded
    /// Plan contents as a list of entries: `{"type": "items", "planId": ..., "entries": [...]}`.
    pub struct PlanItems {
        /// The plan these entries belong to.
        pub plan_id: PlanId,
        /// Every entry of the plan, in order. Required; a value that is not a list reads as an
        /// empty plan, and entries that do not decode are skipped.
        #[serde(deserialize_with = "crate::de::lenient_items")]
        pub entries: Vec<PlanEntry>,
    }
}

encode_struct!(PlanItems { req plan_id, req entries, opt meta = "_meta" });

impl PlanItems {
    /// The entries of plan `plan_id`.
    pub fn new(plan_id: impl Into<PlanId>, entries: impl Into<Vec<PlanEntry>>) -> Self {
        Self {
            plan_id: plan_id.into(),
            entries: entries.into(),
            meta: None,
        }
    }
}

wire_struct! {
    encoded
    /// Plan contents as Markdown: `{"type": "markdown", "planId": ..., "content": "..."}`.
    pub struct PlanMarkdown {
        /// The plan this document belongs to.
        pub plan_id: PlanId,
        /// The plan as Markdown text.
        pub content: String,
        /// A file the plan is stored in, if any. A malformed value is treated as absent.
        #[opt("crate::de::lenient_string")]
        pub path: Option<String>,
    }
}

encode_struct!(PlanMarkdown { req plan_id, req content, opt path, opt meta = "_meta" });

impl PlanMarkdown {
    /// The Markdown `content` of plan `plan_id`.
    pub fn new(plan_id: impl Into<PlanId>, content: impl Into<String>) -> Self {
        Self {
            plan_id: plan_id.into(),
            content: content.into(),
            path: None,
            meta: None,
        }
    }
}

setters!(PlanMarkdown { opt path: String });

encode_union!(PlanUpdateContent { Items, Markdown });
encode_unit_enum!(PlanEntryPriority { High, Medium, Low });
encode_unit_enum!(PlanEntryStatus {
    Pending,
    InProgress,
    Completed
});
