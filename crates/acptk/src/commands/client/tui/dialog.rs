//! The terminal UI's dialogs: a permission request, a file write or a command to confirm,
//! and the sign-in picker. Each is a title, some lines of detail and a list of choices, one highlighted.

use acptk_runtime::client::{AuthKind, AuthMethod, PermissionRequest};

use crate::commands::client::driver::handler::{RunQuestion, WriteQuestion};
use crate::commands::client::shared::text::terminal_safe;

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

    /// The sign-in picker for the agent's methods, with why it is shown (its first line
    /// only: the picker is the advice). Each method is one choice: its name and
    /// description, and what it does (runs a login, asks for a variable's value).
    #[must_use]
    pub fn auth(methods: &[AuthMethod], why: &str) -> Self {
        let why = why.lines().next().unwrap_or_default().to_owned();
        Self {
            kind: DialogKind::Auth,
            title: "The agent needs you to sign in".to_owned(),
            lines: vec![why],
            choices: methods
                .iter()
                .map(|method| {
                    let name = match &method.description {
                        Some(description) if description.trim() != method.name.trim() => {
                            format!("{} - {}", method.name, description.trim())
                        }
                        _ => method.name.clone(),
                    };
                    let kind = match &method.kind {
                        AuthKind::Terminal { .. } => "runs a login here".to_owned(),
                        AuthKind::EnvVar { vars } if !vars.is_empty() => {
                            format!("asks for {}", vars.join(", "))
                        }
                        _ => method.kind_word().to_owned(),
                    };
                    Choice::new(&method.id, name, kind)
                })
                .collect(),
            selected: 0,
        }
    }
}

/// The masked input of an `env_var` sign-in: the value of each variable the method needs,
/// typed in turn and shown as `*`. The values stay in memory (they go to the agent's
/// environment when it is started again) and are never written anywhere.
#[derive(Clone, PartialEq, Eq)]
pub struct SecretInput {
    /// The sign-in method.
    pub method: String,
    /// The method's name, for the title.
    pub name: String,
    /// The variables still to ask for, the current one first.
    pub vars: Vec<String>,
    /// The values typed so far, per variable.
    pub values: Vec<(String, String)>,
    /// What is being typed for the current variable.
    pub typed: String,
    /// Why the picker was shown (to show it again on Esc).
    pub why: String,
}

impl std::fmt::Debug for SecretInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print a value.
        f.debug_struct("SecretInput")
            .field("method", &self.method)
            .field("vars", &self.vars)
            .field("typed", &self.typed.chars().count())
            .finish_non_exhaustive()
    }
}

impl SecretInput {
    /// The input for `method`, asking for each of `vars`.
    #[must_use]
    pub fn new(method: &AuthMethod, vars: Vec<String>, why: &str) -> Self {
        Self {
            method: method.id.clone(),
            name: method.name.clone(),
            vars,
            values: Vec::new(),
            typed: String::new(),
            why: why.to_owned(),
        }
    }

    /// The variable being asked for.
    #[must_use]
    pub fn current(&self) -> Option<&str> {
        self.vars.first().map(String::as_str)
    }

    /// What is shown of the value typed: one `*` per character.
    #[must_use]
    pub fn masked(&self) -> String {
        "*".repeat(self.typed.chars().count())
    }

    /// Takes the typed value for the current variable; `true` when every variable has one.
    pub fn accept(&mut self) -> bool {
        if !self.vars.is_empty() && !self.typed.is_empty() {
            let var = self.vars.remove(0);
            self.values.push((var, std::mem::take(&mut self.typed)));
        }
        self.vars.is_empty()
    }
}
