//! Permission policies as data: globs, first match wins, subjects kept apart, the built-in
//! policies, and policy files that are wrong.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use acptk::commands::client::driver::policy::{BuiltIn, Policy, Subject, Verdict, glob};

#[test]
fn globs_match_as_documented() {
    let cases = [
        ("*", "", true),
        ("*", "anything at all", true),
        ("cargo *", "cargo test --all", true),
        ("cargo *", "cargo", false),
        ("Run `?`", "Run `x`", true),
        ("Run `?`", "Run `xy`", false),
        ("*.rs", "src/main.rs", true),
        ("*.rs", "src/main.rs.bak", false),
        ("a*b*c", "aXXbYYc", true),
        ("a*b*c", "aXXcYYb", false),
        ("exact", "exact", true),
        ("exact", "exactly", false),
    ];
    for (pattern, text, expected) in cases {
        assert_eq!(glob(pattern, text), expected, "{pattern:?} ~ {text:?}");
    }
}

#[test]
fn the_first_matching_rule_decides_and_subjects_stay_apart() {
    let policy = Policy::parse(
        r#"{"rules": [
            {"kind": ["read", "search"], "decision": "allow"},
            {"title": "Delete *", "decision": "deny"},
            {"kind": "edit", "title": "Edit *.md", "decision": "allow"},
            {"run": "cargo test*", "decision": "allow"},
            {"write": "*/notes/*", "decision": "allow"}
        ], "default": "deny"}"#,
    )
    .unwrap();
    let permission =
        |kind: Option<&'static str>, title: &'static str| Subject::Permission { kind, title };
    let cases = [
        (permission(Some("read"), "Read a file"), Verdict::Allow),
        (
            permission(Some("search"), "Delete the index"),
            Verdict::Allow,
        ),
        (permission(Some("delete"), "Delete x"), Verdict::Deny),
        (permission(Some("edit"), "Edit README.md"), Verdict::Allow),
        (permission(Some("edit"), "Edit main.rs"), Verdict::Deny),
        (permission(None, "Edit README.md"), Verdict::Deny),
        // A `run` rule is not about permission requests, nor a `kind` rule about commands.
        (permission(Some("execute"), "cargo test"), Verdict::Deny),
        (Subject::Run("cargo test --all"), Verdict::Allow),
        (Subject::Run("read"), Verdict::Deny),
        (Subject::Write("/home/me/notes/today.txt"), Verdict::Allow),
        (Subject::Write("/home/me/src/main.rs"), Verdict::Deny),
    ];
    for (subject, expected) in cases {
        assert_eq!(policy.decide(subject), expected, "{subject:?}");
    }
}

#[test]
fn built_in_policies() {
    let read = Subject::Permission {
        kind: Some("read"),
        title: "Read",
    };
    let edit = Subject::Permission {
        kind: Some("edit"),
        title: "Edit",
    };
    let run = Subject::Run("rm -rf /");
    let write = Subject::Write("/x");
    let cases = [
        (BuiltIn::ApproveAll, [Verdict::Allow; 4]),
        (
            BuiltIn::ApproveReads,
            [Verdict::Allow, Verdict::Ask, Verdict::Ask, Verdict::Ask],
        ),
        (BuiltIn::DenyAll, [Verdict::Deny; 4]),
    ];
    for (which, expected) in cases {
        let policy = Policy::built_in(which);
        let got = [read, edit, run, write].map(|subject| policy.decide(subject));
        assert_eq!(got, expected, "{which:?}");
    }
    // --allow-write comes first.
    let policy = Policy::built_in(BuiltIn::DenyAll).allowing_writes();
    assert_eq!(policy.decide(write), Verdict::Allow);
    assert_eq!(policy.decide(run), Verdict::Deny);
}

#[test]
fn wrong_policy_files_are_refused_with_the_expected_shape() {
    for text in [
        r#"{"rules": [{"kind": "read", "decision": "maybe"}]}"#,
        r#"{"rules": [{"kinds": "read", "decision": "allow"}]}"#,
        r#"{"rules": [{"kind": "read"}]}"#,
        r#"{"default": "allow", "extra": 1}"#,
        "not json",
    ] {
        let error = Policy::parse(text).unwrap_err();
        assert!(error.contains("expected {\"rules\""), "{text}: {error}");
    }
    // Both fields are optional.
    assert_eq!(
        Policy::parse("{}").unwrap().decide(Subject::Run("x")),
        Verdict::Ask
    );
}
