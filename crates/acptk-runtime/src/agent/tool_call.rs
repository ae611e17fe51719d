//! Tool calls as a handle, in one form for both versions.
//!
//! [`Session::start_tool_call`] announces a [`ToolCall`] (title, kind, raw input, locations,
//! content: text, diffs, terminals) under a fresh id of its own and returns a
//! [`ToolCallHandle`] for its updates. The id is a random UUID (`call_...`), so it is unique
//! in the session across turns, connections and restarts: a replay never mixes two tool
//! calls up. A tool call the turn leaves open is closed by the runtime when the turn ends
//! (see [the agent module](super#cancellation)).
//!
//! On the wire: v1 announces with `tool_call` and changes with `tool_call_update`; v2 does both
//! with `tool_call_update` (the first one for an id creates the call). A v2 diff is written as
//! the changed path (`add` or `modify`) with the change as a `git_patch`.

use std::sync::{Arc, Mutex};

use acptk_schema::v1::ProtocolVersion;
use acptk_schema::{v1, v2};

/// The status of a tool call: pending, in progress, completed or failed. The schema's type,
/// the same for both versions here (v2's `paused` and `cancelled` are sent by the runtime
/// itself: a tool call a cancelled v2 turn left open is closed `cancelled`).
pub use acptk_schema::v1::ToolCallStatus;
/// What kind of tool a call runs (`read`, `edit`, `execute`, ...), for the client's icon.
pub use acptk_schema::v1::ToolKind;

use super::calls::{PermissionOutcome, PermissionRequest, Terminal};
use super::ids::fresh_id;
use super::session::Session;
use crate::error::Error;
use crate::lock::lock;

/// A change to one file, from its old text (none for a new file) to its new text.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Diff {
    /// The file's absolute path.
    pub path: String,
    /// The text before the change; `None` for a new file.
    pub old_text: Option<String>,
    /// The text after the change.
    pub new_text: String,
}

impl Diff {
    /// `path` now holds `new_text`, and did not exist before (see [`Diff::old_text`]).
    pub fn new(path: impl Into<String>, new_text: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            old_text: None,
            new_text: new_text.into(),
        }
    }

    /// Sets the text the file had before.
    #[must_use]
    pub fn old_text(mut self, old_text: impl Into<String>) -> Self {
        self.old_text = Some(old_text.into());
        self
    }

    fn to_v1(&self) -> v1::Diff {
        let diff = v1::Diff::new(self.path.as_str(), self.new_text.as_str());
        match &self.old_text {
            Some(old) => diff.old_text(old.as_str()),
            None => diff,
        }
    }

    /// v2: the changed path, and the change as a `git_patch`.
    fn to_v2(&self) -> v2::Diff {
        let path = v2::DiffPathChange::new(self.path.as_str());
        let operation = match &self.old_text {
            Some(_) => v2::DiffOperation::Modify(path),
            None => v2::DiffOperation::Add(path),
        };
        let change = v2::DiffChange::new(operation).file_type(v2::DiffFileType::Text);
        v2::Diff::new(vec![change]).patch(v2::DiffPatch::new(
            v2::DiffPatchFormat::GitPatch,
            self.git_patch(),
        ))
    }

    /// The change as `git diff` prints it (paths relative to `/`).
    fn git_patch(&self) -> String {
        let name = self.path.trim_start_matches('/');
        let old = self.old_text.as_deref().unwrap_or_default();
        let (from, mode) = match &self.old_text {
            Some(_) => (format!("a/{name}"), String::new()),
            None => ("/dev/null".to_owned(), "new file mode 100644\n".to_owned()),
        };
        let to = format!("b/{name}");
        let hunks = crate::diff::unified(old, self.new_text.as_str(), 3, &from, &to);
        format!("diff --git a/{name} b/{name}\n{mode}{hunks}")
    }
}

/// Declares `$to`, a [`ToolContent`] as `$version` sends it (`Diff::$to` converts a diff):
/// the same steps for both versions, whose types only differ.
macro_rules! content_to_wire {
    ($to:ident, $version:ident) => {
        fn $to(&self) -> $version::ToolCallContent {
            match self {
                ToolContent::Text(text) => {
                    $version::ToolCallContent::Content($version::Content::new(text.as_str()))
                }
                ToolContent::Diff(diff) => $version::ToolCallContent::Diff(diff.$to()),
                ToolContent::Terminal(id) => {
                    $version::ToolCallContent::Terminal($version::Terminal::new(id.as_str()))
                }
            }
        }
    };
}

/// Something a tool call shows.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ToolContent {
    /// Text (a result, an error message).
    Text(String),
    /// A change to a file.
    Diff(Diff),
    /// The live output of a terminal, by id (a client terminal in v1; an agent terminal
    /// announced with `terminal_update` in v2).
    Terminal(String),
}

impl ToolContent {
    content_to_wire!(to_v1, v1);
    content_to_wire!(to_v2, v2);
}

/// A file a tool call works on (for "follow along" views), optionally at a line.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolLocation {
    /// The absolute path.
    pub path: String,
    /// The line (1-based), if it is about one.
    pub line: Option<u32>,
}

/// What [`ToolCall`] and [`ToolCallChange`] both carry: the fields of a tool call, each
/// optional.
#[derive(Debug, Clone, Default, PartialEq)]
struct Fields {
    title: Option<String>,
    kind: Option<ToolKind>,
    status: Option<ToolCallStatus>,
    raw_input: Option<serde_json::Value>,
    raw_output: Option<serde_json::Value>,
    locations: Option<Vec<ToolLocation>>,
    content: Option<Vec<ToolContent>>,
}

impl Fields {
    fn v1_locations(&self) -> Option<Vec<v1::ToolCallLocation>> {
        self.locations.as_ref().map(|locations| {
            locations
                .iter()
                .map(|location| {
                    let entry = v1::ToolCallLocation::new(location.path.as_str());
                    match location.line {
                        Some(line) => entry.line(line),
                        None => entry,
                    }
                })
                .collect()
        })
    }

    fn v1_content(&self) -> Option<Vec<v1::ToolCallContent>> {
        self.content
            .as_ref()
            .map(|content| content.iter().map(ToolContent::to_v1).collect())
    }

    /// The v1 `tool_call` announcing `id`.
    fn v1_announce(&self, id: &str) -> v1::ToolCall {
        let mut call = v1::ToolCall::new(id, self.title.clone().unwrap_or_default());
        call.kind = self.kind;
        call.status = self.status;
        call.raw_input.clone_from(&self.raw_input);
        call.raw_output.clone_from(&self.raw_output);
        call.locations = self.v1_locations().unwrap_or_default();
        call.content = self.v1_content().unwrap_or_default();
        call
    }

    /// The v1 `tool_call_update` of `id`.
    fn v1_update(&self, id: &str) -> v1::ToolCallUpdate {
        let mut update = v1::ToolCallUpdate::new(id);
        update.title.clone_from(&self.title);
        update.kind = self.kind;
        update.status = self.status;
        update.raw_input.clone_from(&self.raw_input);
        update.raw_output.clone_from(&self.raw_output);
        update.locations = self.v1_locations();
        update.content = self.v1_content();
        update
    }

    /// The v2 `tool_call_update` of `id` (creating it when it is the first).
    fn v2_update(&self, id: &str) -> v2::ToolCallUpdate {
        let mut update = v2::ToolCallUpdate::new(id);
        if let Some(title) = &self.title {
            update = update.title(title.as_str());
        }
        if let Some(kind) = self.kind {
            update = update.kind(v2_kind(kind));
        }
        if let Some(status) = self.status {
            update = update.status(v2_status(status));
        }
        if let Some(input) = &self.raw_input {
            update = update.raw_input(input.clone());
        }
        if let Some(output) = &self.raw_output {
            update = update.raw_output(output.clone());
        }
        if let Some(locations) = &self.locations {
            update = update.locations(
                locations
                    .iter()
                    .map(|location| {
                        let entry = v2::ToolCallLocation::new(location.path.as_str());
                        match location.line {
                            Some(line) => entry.line(line),
                            None => entry,
                        }
                    })
                    .collect::<Vec<_>>(),
            );
        }
        if let Some(content) = &self.content {
            update = update.content(content.iter().map(ToolContent::to_v2).collect::<Vec<_>>());
        }
        update
    }
}

/// The v2 kind of the same name.
fn v2_kind(kind: ToolKind) -> v2::ToolKind {
    match serde_json::to_value(kind) {
        Ok(serde_json::Value::String(name)) => v2::ToolKind::from(name),
        _ => v2::ToolKind::Other,
    }
}

/// The v2 status of the same name.
pub(crate) fn v2_status(status: ToolCallStatus) -> v2::ToolCallStatus {
    match status {
        ToolCallStatus::Pending => v2::ToolCallStatus::Pending,
        ToolCallStatus::InProgress => v2::ToolCallStatus::InProgress,
        ToolCallStatus::Completed => v2::ToolCallStatus::Completed,
        _ => v2::ToolCallStatus::Failed,
    }
}

/// Builder methods shared by [`ToolCall`] and [`ToolCallChange`].
macro_rules! tool_call_setters {
    ($type:ident) => {
        impl $type {
            /// Sets the kind of tool.
            #[must_use]
            pub fn kind(mut self, kind: ToolKind) -> Self {
                self.fields.kind = Some(kind);
                self
            }

            /// Sets the status.
            #[must_use]
            pub fn status(mut self, status: ToolCallStatus) -> Self {
                self.fields.status = Some(status);
                self
            }

            /// Sets the raw input given to the tool.
            #[must_use]
            pub fn raw_input(mut self, input: serde_json::Value) -> Self {
                self.fields.raw_input = Some(input);
                self
            }

            /// Sets the raw output the tool returned.
            #[must_use]
            pub fn raw_output(mut self, output: serde_json::Value) -> Self {
                self.fields.raw_output = Some(output);
                self
            }

            /// Adds a file the call works on.
            #[must_use]
            pub fn location(self, path: impl Into<String>) -> Self {
                self.location_entry(path.into(), None)
            }

            /// Adds a line of a file the call works on.
            #[must_use]
            pub fn location_at(self, path: impl Into<String>, line: u32) -> Self {
                self.location_entry(path.into(), Some(line))
            }

            fn location_entry(mut self, path: String, line: Option<u32>) -> Self {
                self.fields
                    .locations
                    .get_or_insert_with(Vec::new)
                    .push(ToolLocation { path, line });
                self
            }

            /// Adds text content.
            #[must_use]
            pub fn text(self, text: impl Into<String>) -> Self {
                self.content(ToolContent::Text(text.into()))
            }

            /// Adds a file change.
            #[must_use]
            pub fn diff(self, diff: Diff) -> Self {
                self.content(ToolContent::Diff(diff))
            }

            /// Adds the live output of a client terminal.
            #[must_use]
            pub fn terminal(self, terminal: &Terminal) -> Self {
                self.content(ToolContent::Terminal(terminal.id().to_owned()))
            }

            /// Adds a piece of content.
            #[must_use]
            pub fn content(mut self, content: ToolContent) -> Self {
                self.fields
                    .content
                    .get_or_insert_with(Vec::new)
                    .push(content);
                self
            }
        }
    };
}

/// A tool call to announce with [`Session::start_tool_call`], the same for both versions.
/// Its status starts `pending` unless set.
///
/// ```no_run
/// # use acptk_runtime::agent::{Diff, Session, ToolCall, ToolCallStatus, ToolKind};
/// # async fn edit(session: Session) -> Result<(), acptk_runtime::Error> {
/// let call = session
///     .start_tool_call(
///         ToolCall::new("Fix the greeting")
///             .kind(ToolKind::Edit)
///             .location("/repo/src/main.rs")
///             .diff(Diff::new("/repo/src/main.rs", "fn main() { hi() }").old_text("fn main() {}")),
///     )
///     .await?;
/// if call.request_permission().await?.allowed() {
///     call.complete("Edited main.rs").await?;
/// } else {
///     call.fail("Not allowed").await?;
/// }
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    fields: Fields,
}

impl ToolCall {
    /// A pending tool call titled `title`.
    pub fn new(title: impl Into<String>) -> Self {
        Self {
            fields: Fields {
                title: Some(title.into()),
                status: Some(ToolCallStatus::Pending),
                ..Fields::default()
            },
        }
    }
}

tool_call_setters!(ToolCall);

/// A change to a tool call ([`ToolCallHandle::update`]): only the fields set are sent; a
/// content or location list, when set, replaces the previous one.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolCallChange {
    fields: Fields,
}

impl ToolCallChange {
    /// A change that changes nothing yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets a new title.
    #[must_use]
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.fields.title = Some(title.into());
        self
    }
}

tool_call_setters!(ToolCallChange);

/// An announced tool call: its id, and its updates. Cheap to clone.
#[derive(Debug, Clone)]
pub struct ToolCallHandle {
    session: Session,
    id: String,
    /// The title and the content shown now (content lists replace each other on the wire,
    /// so [`Self::complete`] and [`Self::fail`] add to what is there).
    shown: Arc<Mutex<(String, Vec<ToolContent>)>>,
}

impl ToolCallHandle {
    /// The tool call's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Sends a change (`tool_call_update`).
    pub async fn update(&self, change: ToolCallChange) -> Result<(), Error> {
        {
            let mut shown = lock(&self.shown);
            if let Some(title) = &change.fields.title {
                shown.0.clone_from(title);
            }
            if let Some(content) = &change.fields.content {
                shown.1.clone_from(content);
            }
        }
        self.session
            .send_tool_update(&self.id, &change.fields)
            .await
    }

    /// Changes the status only.
    pub async fn set_status(&self, status: ToolCallStatus) -> Result<(), Error> {
        self.update(ToolCallChange::new().status(status)).await
    }

    /// Finishes the call `completed`, adding `text` (unless empty) to what it shows.
    pub async fn complete(&self, text: impl Into<String>) -> Result<(), Error> {
        self.finish(ToolCallStatus::Completed, text.into()).await
    }

    /// Finishes the call `failed`, adding `text` (unless empty) to what it shows.
    pub async fn fail(&self, text: impl Into<String>) -> Result<(), Error> {
        self.finish(ToolCallStatus::Failed, text.into()).await
    }

    async fn finish(&self, status: ToolCallStatus, text: String) -> Result<(), Error> {
        let mut change = ToolCallChange::new().status(status);
        if !text.is_empty() {
            let mut content = lock(&self.shown).1.clone();
            content.push(ToolContent::Text(text));
            change.fields.content = Some(content);
        }
        self.update(change).await
    }

    /// The usual permission request for this call (its title; allow once, always allow,
    /// reject), to adjust before [`Session::request_permission`].
    pub fn permission_request(&self) -> PermissionRequest {
        PermissionRequest::new(self.id.as_str(), lock(&self.shown).0.as_str())
    }

    /// Asks the user whether this call may run, with [`Self::permission_request`]. Check
    /// [`PermissionOutcome::allowed`]; on a cancelled turn it fails with
    /// [`Error::Cancelled`].
    pub async fn request_permission(&self) -> Result<PermissionOutcome, Error> {
        self.session
            .request_permission(&self.permission_request())
            .await
    }
}

impl Session {
    /// Announces a tool call under a fresh id (`tool_call` in v1, a creating
    /// `tool_call_update` in v2) and returns its handle.
    pub async fn start_tool_call(&self, call: ToolCall) -> Result<ToolCallHandle, Error> {
        let id = fresh_id("call");
        match self.protocol_version() {
            ProtocolVersion::V1 => {
                self.send_v1(call.fields.v1_announce(&id).into()).await?;
            }
            _ => self.send_v2(call.fields.v2_update(&id).into()).await?,
        }
        Ok(ToolCallHandle {
            session: self.clone(),
            id,
            shown: Arc::new(Mutex::new((
                call.fields.title.unwrap_or_default(),
                call.fields.content.unwrap_or_default(),
            ))),
        })
    }

    /// Sends the `tool_call_update` of `id` with `fields`.
    async fn send_tool_update(&self, id: &str, fields: &Fields) -> Result<(), Error> {
        match self.protocol_version() {
            ProtocolVersion::V1 => self.send_v1(fields.v1_update(id).into()).await,
            _ => self.send_v2(fields.v2_update(id).into()).await,
        }
    }
}
