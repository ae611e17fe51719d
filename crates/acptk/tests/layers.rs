//! The layering check `scripts/layers.py` (issue 38), run on small trees of `.rs` files written
//! to a temporary directory: it finds a circle between sibling modules and the references that
//! make it, resolves `super::`, `self::`, bare child names, nested `use` groups, inline modules
//! and `#[path]`, ignores comments and strings, lets a parent and its children use each other,
//! holds its baseline as a ratchet, and holds the orders and limits written in
//! `scripts/layers.order`. Last, the repository itself passes the check, orders included (so
//! the README's test command runs it too, as CI does on its own).

#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing test may panic

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Writes `files` (path under the tree, contents) into a fresh directory.
fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let path = dir.path().join(path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
    dir
}

/// Runs the script on `root` with `args`; returns (exit code, stdout, stderr).
fn layers(root: &Path, args: &[&str]) -> (i32, String, String) {
    let output = Command::new("python3")
        .arg(repository().join("scripts/layers.py"))
        .arg("--root")
        .arg(root)
        .args(args)
        .output()
        .expect("python3 must be on PATH to run scripts/layers.py");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// A crate whose `a` and `b` use each other: `a` through a nested group, `b` through `super::`
/// in a path expression inside a function; `c` is only used.
fn circular() -> tempfile::TempDir {
    tree(&[
        (
            "crates/demo/src/lib.rs",
            "pub mod a;\npub mod b;\npub mod c;\n",
        ),
        (
            "crates/demo/src/a.rs",
            "use crate::{c, b::{x::{deep, self}}};\npub fn top() { deep(); c::leaf(); }\n",
        ),
        (
            "crates/demo/src/b.rs",
            "pub mod x {\n    pub fn deep() {}\n}\n\npub fn call() {\n    super::a::top();\n}\n",
        ),
        ("crates/demo/src/c.rs", "pub fn leaf() {}\n"),
    ])
}

#[test]
fn a_circle_is_found_with_the_references_that_make_it() {
    let dir = circular();
    let (code, out, err) = layers(dir.path(), &["--report"]);
    assert_eq!(code, 0, "--report never fails: {err}");
    assert!(out.contains("demo: a <-> b\n"), "{out}");
    // the nested group resolves down to the inline module `b::x`
    assert!(
        out.contains("crates/demo/src/a.rs:1 -> crate::b::x::deep"),
        "{out}"
    );
    // `super::` from `b` resolves to its sibling `a`
    assert!(
        out.contains("crates/demo/src/b.rs:6 -> super::a::top"),
        "{out}"
    );
    assert!(
        out.contains("total: 1 circle between sibling modules"),
        "{out}"
    );
    assert!(
        !out.contains("<-> c"),
        "c is used, not in the circle: {out}"
    );
}

#[test]
fn a_layered_tree_has_no_circle() {
    // a -> b -> c, deeper modules reaching up with super::super and down with self::, a parent
    // and its children using each other, and arrows back only in comments, strings and
    // `pub(in ...)`, none of which count.
    let dir = tree(&[
        (
            "crates/demo/src/lib.rs",
            "mod a;\nmod b;\nmod c;\npub use a::run;\n",
        ),
        (
            "crates/demo/src/a.rs",
            "use crate::b;\npub fn run() { b::middle(); self::helper(); }\nfn helper() {}\n",
        ),
        (
            "crates/demo/src/b/mod.rs",
            "mod inner;\npub fn middle() { inner::work(); crate::c::leaf(); }\n",
        ),
        (
            "crates/demo/src/b/inner.rs",
            "pub fn work() { super::super::c::leaf(); super::middle; }\n\
             pub(in crate::b) fn scoped() {}\n",
        ),
        (
            "crates/demo/src/c.rs",
            "// use crate::a;\n/* crate::b::middle() /* nested */ */\n\
             pub fn leaf() { let _ = \"crate::a::run\"; let _ = r#\"super::b\"#; let _c = 'x'; }\n",
        ),
    ]);
    let (code, out, err) = layers(dir.path(), &["--report"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("total: 0 circles"), "{out}");
    assert!(err.is_empty(), "no warning expected: {err}");
}

#[test]
fn super_and_path_attributes_resolve_below_the_root() {
    // m::s1 and m::s2 use each other through `super::`; s2 lives at a #[path]; the binary's
    // tree is read on its own.
    let dir = tree(&[
        ("crates/demo/src/lib.rs", "pub mod m;\n"),
        (
            "crates/demo/src/m/mod.rs",
            "mod s1;\n#[path = \"../elsewhere/two.rs\"]\nmod s2;\n",
        ),
        (
            "crates/demo/src/m/s1.rs",
            "pub fn f() { super::s2::g(); }\n",
        ),
        (
            "crates/demo/src/elsewhere/two.rs",
            "use super::s1::f;\npub fn g() {}\n",
        ),
        ("crates/demo/src/main.rs", "mod p;\nmod q;\nfn main() {}\n"),
        ("crates/demo/src/p.rs", "use crate::q;\n"),
        ("crates/demo/src/q.rs", "pub fn z() { crate::p::y(); }\n"),
    ]);
    let (_, out, _) = layers(dir.path(), &["--report"]);
    assert!(out.contains("demo: m::s1 <-> m::s2\n"), "{out}");
    assert!(
        out.contains("crates/demo/src/elsewhere/two.rs:1 -> super::s1::f"),
        "{out}"
    );
    assert!(out.contains("demo (bin): p <-> q\n"), "{out}");
}

#[test]
fn the_baseline_is_a_ratchet() {
    let dir = circular();
    let baseline = dir.path().join("scripts/layers.baseline");
    fs::create_dir_all(baseline.parent().unwrap()).unwrap();

    fs::write(&baseline, "# known\n").unwrap();
    let (code, _, err) = layers(dir.path(), &[]);
    assert_eq!(code, 1, "a circle missing from the baseline fails");
    assert!(
        err.contains("new circle between sibling modules: demo: a <-> b"),
        "{err}"
    );

    fs::write(&baseline, "demo: a <-> b\n").unwrap();
    let (code, out, err) = layers(dir.path(), &[]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("1 known"), "{out}");

    fs::write(&baseline, "demo: a\n").unwrap();
    let (code, _, err) = layers(dir.path(), &[]);
    assert_eq!(code, 1);
    assert!(
        err.contains("a known circle grew (new members: b)"),
        "{err}"
    );

    fs::write(&baseline, "demo: a <-> b <-> c\ndemo: c <-> d\n").unwrap();
    let (code, _, err) = layers(dir.path(), &[]);
    assert_eq!(code, 1);
    assert!(
        err.contains("smaller now: replace the line `demo: a <-> b <-> c`"),
        "{err}"
    );
    assert!(
        err.contains("gone, well done: delete the line `demo: c <-> d`"),
        "{err}"
    );
}

/// A crate with floors `top > mid > low` under `app` (`top` uses `mid`, `mid` uses `low`) and a
/// sibling `user` of `app` that reaches into `app::mid` and `app::low`.
fn floors() -> tempfile::TempDir {
    tree(&[
        ("crates/demo/src/lib.rs", "pub mod app;\npub mod user;\n"),
        (
            "crates/demo/src/app/mod.rs",
            "pub mod low;\npub mod mid;\npub mod top;\n",
        ),
        ("crates/demo/src/app/top.rs", "use super::mid::run;\n"),
        (
            "crates/demo/src/app/mid.rs",
            "pub fn run() { crate::app::low::f(); }\n",
        ),
        ("crates/demo/src/app/low.rs", "pub fn f() {}\n"),
        (
            "crates/demo/src/user.rs",
            "use crate::app::mid::run;\npub fn g() { crate::app::low::f(); }\n",
        ),
    ])
}

#[test]
fn a_written_order_fails_an_arrow_up_it() {
    let dir = floors();
    let order = dir.path().join("scripts/layers.order");
    fs::create_dir_all(order.parent().unwrap()).unwrap();

    fs::write(&order, "# floors\ndemo: app: top > mid > low\n").unwrap();
    let (code, out, err) = layers(dir.path(), &[]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("1 written order(s) held"), "{out}");

    // the same tree read with `mid` above `top`: its use by `top` points up
    fs::write(&order, "demo: app: mid > top > low\n").unwrap();
    let (code, _, err) = layers(dir.path(), &[]);
    assert_eq!(code, 1, "an arrow up the order fails");
    assert!(
        err.contains("layers.order:1: `top` sits below `mid` but uses it"),
        "{err}"
    );
    assert!(
        err.contains("crates/demo/src/app/top.rs:1 -> super::mid::run"),
        "{err}"
    );

    // and with `low` on top, through a `crate::` path inside a function
    fs::write(&order, "demo: app: low > top\n").unwrap();
    let (code, out, err) = layers(dir.path(), &[]);
    assert_eq!(code, 0, "`mid` is not named, so it is free: {out}{err}");

    fs::write(&order, "demo: app: low > mid\n").unwrap();
    let (code, _, err) = layers(dir.path(), &[]);
    assert_eq!(code, 1);
    assert!(
        err.contains("crates/demo/src/app/mid.rs:1 -> crate::app::low::f"),
        "{err}"
    );

    fs::write(&order, "demo: app: top > gone\n").unwrap();
    let (code, _, err) = layers(dir.path(), &[]);
    assert_eq!(code, 1, "a line naming no module fails");
    assert!(err.contains("no module app::gone in demo"), "{err}");
}

#[test]
fn a_written_limit_fails_a_reach_past_it() {
    let dir = floors();
    let order = dir.path().join("scripts/layers.order");
    fs::create_dir_all(order.parent().unwrap()).unwrap();

    fs::write(&order, "demo: user -> app: mid, low\n").unwrap();
    let (code, _, err) = layers(dir.path(), &[]);
    assert_eq!(code, 0, "{err}");

    fs::write(&order, "demo: user -> app: mid\n").unwrap();
    let (code, _, err) = layers(dir.path(), &[]);
    assert_eq!(code, 1, "a reach into a child not named fails");
    assert!(
        err.contains("`user` may use only mid of `app` (demo)"),
        "{err}"
    );
    assert!(
        err.contains("crates/demo/src/user.rs:2 -> crate::app::low::f"),
        "{err}"
    );
    assert!(!err.contains("app::mid::run"), "{err}");

    fs::write(&order, "demo: nobody -> app: mid\n").unwrap();
    let (code, _, err) = layers(dir.path(), &[]);
    assert_eq!(code, 1);
    assert!(err.contains("no module nobody in demo"), "{err}");
}

#[test]
fn the_repository_has_no_circle_beyond_its_baseline() {
    let (code, out, err) = layers(&repository(), &[]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        !out.contains("; 0 written order(s)"),
        "scripts/layers.order is read: {out}"
    );
}
