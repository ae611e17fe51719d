//! Plans (ACP v2): identified plans that the agent replaces (`plan_update`) and removes
//! (`plan_removed`), as entry lists or Markdown documents.

#[allow(unused_imports)]
use super::*;

tagged_union! {
    /// The new contents of an identified plan, tagged by `type`: a list of entries or a
    /// Markdown document.
    ///
    /// Open in v2: contents with an unknown `type` are kept as [`PlanUpdateContent::Other`] and
    /// written back unchanged, but they must still name their plan with a string `planId`
    /// (without one they are an error), so that a client can tell which plan they replace.
    pub enum PlanUpdateContent("type") open(Other requires("planId": PlanId)) {
        /// A structured list of entries.
        Items(PlanItems) = "items",
        /// A free-form Markdown plan.
        Markdown(PlanMarkdown) = "markdown",
    }
}

impl PlanUpdateContent {
    /// The id of the plan these contents belong to (for unknown contents, their `planId`
    /// field, which decoding has checked is a string).
    pub fn plan_id(&self) -> &str {
        match self {
            Self::Items(items) => items.plan_id.as_str(),
            Self::Markdown(markdown) => markdown.plan_id.as_str(),
            Self::Other(other) => other.str_field("planId"),
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

open_enum! {
    /// How important a plan entry is. Open: other strings are kept.
    pub enum PlanEntryPriority {
        /// Important; should be done first.
        High = "high",
        /// Normal importance.
        Medium = "medium",
        /// Nice to have.
        Low = "low",
    }
}

open_enum! {
    /// Progress of a plan entry. Open: other strings are kept.
    pub enum PlanEntryStatus {
        /// Not started yet.
        Pending = "pending",
        /// Being worked on now.
        InProgress = "in_progress",
        /// Done.
        Completed = "completed",
        /// Dropped without being done.
        Cancelled = "cancelled",
    }
}

wire_struct! {
    encoded
    /// Plan contents as a list of entries: `{"type": "items", "planId": ..., "entries": [...]}`.
    pub struct PlanItems {
        /// The plan these entries belong to.
        pub plan_id: PlanId,
        /// Every entry of the plan, in order. Must be a list; entries that do not decode are
        /// skipped.
        #[serde(deserialize_with = "crate::de::items_skip_invalid")]
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
        /// The file the plan is stored in, if any. A malformed value is treated as absent.
        #[opt("crate::de::lenient_string")]
        pub path: Option<AbsolutePath>,
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

setters!(PlanMarkdown { opt path: AbsolutePath });

encode_union!(PlanUpdateContent { Items, Markdown });
