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

/// How v2 reads the entry list of a plan: it must be a list; entries that do not decode are
/// skipped.
pub(crate) use crate::de::items_skip_invalid as plan_entries;

encode_union!(PlanUpdateContent { Items, Markdown });
