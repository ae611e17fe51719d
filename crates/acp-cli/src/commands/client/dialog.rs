//! The terminal UI's dialogs: a permission request, a file write or a command to confirm,
//! and the sign-in picker. Each is a title, some lines of detail and a list of choices, one highlighted.

use acp_runtime::client::{AuthKind, AuthMethod, PermissionRequest};

use super::handler::{RunQuestion, WriteQuestion};
use super::text::terminal_safe;

/// The most preview lines a write confirmation shows.
pub const PREVIEW_LINES: usize = 6;

/// What a dialog is about, which decides what its answer means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum DialogKind {
    /// `session/request_permission`: the answer is an option id (or cancelled).
    Permission,
    /// `fs/write_text_file`: allow or deny.
    Write,
    /// `terminal/create`: run the command or not.
    Run,
    /// The agent needs a sign-in: the answer is an auth method id (Esc leaves).
    Auth,
}

/// One choice of a dialog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    /// The id to answer with (an option id, `allow`/`deny`, a method id).
    pub id: String,
    /// The label shown.
    pub name: String,
    /// A word about it (the option kind, the method kind).
    pub kind: String,
}

impl Choice {
    /// A choice with its id, label and kind word.
    #[must_use]
    pub fn new(id: impl Into<String>, name: impl Into<String>, kind: impl Into<String>) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            kind: kind.into(),
        }
    }
}

/// A dialog on screen, with the highlighted choice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dialog {
    /// What it is about.
    pub kind: DialogKind,
    /// Its question.
    pub title: String,
    /// Lines of detail under the title.
    pub lines: Vec<String>,
    /// The choices, in order.
    pub choices: Vec<Choice>,
    /// The index of the highlighted choice.
    pub selected: usize,
}

impl Dialog {
    /// The frame title for the kind.
    #[must_use]
    pub fn heading(&self) -> &'static str {
        match self.kind {
            DialogKind::Permission => " Permission requested ",
            DialogKind::Write => " Write a file? ",
            DialogKind::Run => " Run a command? ",
            DialogKind::Auth => " Sign in ",
        }
    }

    /// The question for a permission request.
    #[must_use]
    pub fn permission(request: &PermissionRequest) -> Self {
        Self {
            kind: DialogKind::Permission,
            title: request.title.clone(),
            lines: Vec::new(),
            choices: request
                .options
                .iter()
                .map(|option| Choice::new(&option.id, &option.name, &option.kind))
                .collect(),
            selected: 0,
        }
    }

    /// The confirmation of a file write (deny is highlighted).
    #[must_use]
    pub fn write(question: &WriteQuestion) -> Self {
        let what = if question.replaces {
            "replaces the file"
        } else {
            "a new file"
        };
        let mut lines = vec![format!("{} bytes, {what}", question.bytes), String::new()];
        let mut preview = question.preview.lines();
        for line in preview.by_ref().take(PREVIEW_LINES) {
            lines.push(format!("| {line}"));
        }
        if preview.next().is_some() || question.preview.len() < question.bytes {
            lines.push("| ...".to_owned());
        }
        Self {
            kind: DialogKind::Write,
            title: format!("The agent wants to write {}", question.path),
            lines,
            choices: vec![
                Choice::new("allow", "Allow this write", "allow_once"),
                Choice::new("deny", "Deny", "reject_once"),
            ],
            selected: 1,
        }
    }

    /// The confirmation of a command the agent wants to run: the command line, where it runs
    /// and the environment the agent sets (deny is highlighted).
    #[must_use]
    pub fn run(question: &RunQuestion) -> Self {
        let mut lines = vec![
            format!("$ {}", terminal_safe(&question.line()).replace('\n', " ")),
            format!("in {}", terminal_safe(&question.cwd)),
        ];
        for (name, value) in &question.env {
            lines.push(format!(
                "env {}={}",
                terminal_safe(name),
                terminal_safe(value).replace('\n', " ")
            ));
        }
        Self {
            kind: DialogKind::Run,
            title: "The agent wants to run a command on this machine".to_owned(),
            lines,
            choices: vec![
                Choice::new("allow", "Run it", "allow_once"),
                Choice::new("deny", "Do not run it", "reject_once"),
            ],
            selected: 1,
        }
    }

    /// The sign-in picker for the agent's methods, with why it is shown.
    #[must_use]
    pub fn auth(methods: &[AuthMethod], why: &str) -> Self {
        let mut lines = vec![why.to_owned(), String::new()];
        for method in methods {
            if let Some(description) = &method.description {
                lines.push(format!("{}: {description}", method.name));
            }
            if let AuthKind::EnvVar { vars } = &method.kind {
                lines.push(format!(
                    "{}: needs {} set for the agent",
                    method.name,
                    vars.join(", ")
                ));
            }
        }
        Self {
            kind: DialogKind::Auth,
            title: "The agent needs you to sign in".to_owned(),
            lines,
            choices: methods
                .iter()
                .map(|method| Choice::new(&method.id, &method.name, method.kind_word()))
                .collect(),
            selected: 0,
        }
    }
}
