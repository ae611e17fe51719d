//! `LocalFiles`: reads and writes confined to a session's directories, `line`/`limit`, and
//! the errors for paths outside, links leading outside, and files that are not text.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod client_support;

use std::path::PathBuf;

use acptk_runtime::client::{LocalFiles, ReadTextFile, SessionScope, WriteTextFile};
use client_support::Scratch;

struct Tree {
    root: Scratch,
    outside: Scratch,
    extra: Scratch,
}

impl Tree {
    /// The paths refused to reads and writes alike, with what the refusal says: `file`
    /// outside the session, a directory, and (on Unix) links that lead outside, one of them
    /// to `file`.
    fn refused_everywhere(&self, file: &str) -> Vec<(PathBuf, &'static str)> {
        vec![
            (self.outside.join(file), "outside the session's directories"),
            (self.root.join("sub"), "is a directory"),
            #[cfg(unix)]
            (self.root.join("link-out"), "resolves to"),
            #[cfg(unix)]
            (
                self.root.join("dir-out").join(file),
                "outside the session's directories",
            ),
        ]
    }

    fn new() -> Self {
        let root = Scratch::new("files-root");
        let outside = Scratch::new("files-outside");
        let extra = Scratch::new("files-extra");
        root.file("a.txt", b"one\ntwo\nthree\n");
        root.file("no-newline.txt", b"alpha\nbeta");
        root.file("bin.dat", &[0x66, 0x6f, 0xff, 0xfe, 0x0a]);
        root.file("sub/b.txt", "héllo\n".as_bytes());
        outside.file("secret.txt", b"secret\n");
        extra.file("c.txt", b"extra\n");
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(outside.join("secret.txt"), root.join("link-out")).unwrap();
            std::os::unix::fs::symlink(outside.path(), root.join("dir-out")).unwrap();
            std::os::unix::fs::symlink(root.join("a.txt"), root.join("link-in")).unwrap();
        }
        Self {
            root,
            outside,
            extra,
        }
    }

    fn scope(&self) -> SessionScope {
        SessionScope::new("s1", self.root.path())
            .additional_directories(vec![self.extra.path().to_owned()])
    }

    fn read(&self, path: PathBuf, line: Option<u32>, limit: Option<u32>) -> Result<String, String> {
        let mut request = read_request(self.scope(), path);
        request.line = line;
        request.limit = limit;
        LocalFiles::new()
            .read(&request)
            .map_err(|error| format!("{} {}", error.code, error.message))
    }

    fn write(&self, path: PathBuf, content: &str) -> Result<(), String> {
        LocalFiles::new()
            .write(&write_request(self.scope(), path, content))
            .map_err(|error| format!("{} {}", error.code, error.message))
    }
}

fn read_request(scope: SessionScope, path: PathBuf) -> ReadTextFile {
    ReadTextFile::new(scope, path)
}

/// A write the user agreed to.
fn write_request(scope: SessionScope, path: PathBuf, content: &str) -> WriteTextFile {
    WriteTextFile::new(scope, path, content).approve()
}

#[test]
fn an_unapproved_write_is_refused() {
    let tree = Tree::new();
    let path = tree.root.join("unapproved.txt");
    let error = LocalFiles::new()
        .write(&WriteTextFile::new(tree.scope(), path.clone(), "x"))
        .unwrap_err();
    assert!(error.message.contains("not approved"), "{}", error.message);
    assert!(!path.exists());
}

#[test]
fn reads_honour_line_and_limit() {
    let tree = Tree::new();
    let a = tree.root.join("a.txt");
    let cases: [(Option<u32>, Option<u32>, &str); 7] = [
        (None, None, "one\ntwo\nthree\n"),
        (Some(1), None, "one\ntwo\nthree\n"),
        (Some(2), None, "two\nthree\n"),
        (Some(2), Some(1), "two\n"),
        (None, Some(2), "one\ntwo\n"),
        (Some(4), None, ""),
        (Some(0), Some(1), "one\n"),
    ];
    for (line, limit, expected) in cases {
        assert_eq!(
            tree.read(a.clone(), line, limit).unwrap(),
            expected,
            "line {line:?} limit {limit:?}"
        );
    }
    assert_eq!(
        tree.read(tree.root.join("no-newline.txt"), Some(2), None)
            .unwrap(),
        "beta"
    );
    assert_eq!(
        tree.read(tree.root.join("sub/b.txt"), None, None).unwrap(),
        "héllo\n"
    );
    // The additional directory is allowed too.
    assert_eq!(
        tree.read(tree.extra.join("c.txt"), None, None).unwrap(),
        "extra\n"
    );
}

#[test]
fn reads_outside_the_session_are_refused() {
    let tree = Tree::new();
    let mut cases: Vec<(PathBuf, &str)> = vec![
        (
            tree.root
                .join("..")
                .join(tree.outside.path().file_name().unwrap())
                .join("secret.txt"),
            "outside the session's directories",
        ),
        (PathBuf::from("a.txt"), "not an absolute path"),
        (tree.root.join("missing.txt"), "-32002"),
        (tree.root.join("bin.dat"), "not UTF-8 text"),
    ];
    cases.extend(tree.refused_everywhere("secret.txt"));
    for (path, expected) in cases {
        let error = tree.read(path.clone(), None, None).unwrap_err();
        assert!(error.contains(expected), "{}: {error}", path.display());
    }
    #[cfg(unix)]
    assert_eq!(
        tree.read(tree.root.join("link-in"), Some(3), None).unwrap(),
        "three\n"
    );
}

#[test]
fn a_read_over_the_byte_limit_is_refused_without_reading_it_all() {
    let tree = Tree::new();
    let big = tree.root.file("big.txt", "x".repeat(4096).as_bytes());
    let files = LocalFiles::new().max_read_bytes(100);
    let error = files
        .read(&read_request(tree.scope(), big.clone()))
        .unwrap_err();
    assert!(error.message.contains("fewer lines"), "{}", error.message);
    let lines = tree.root.file("lines.txt", "ab\n".repeat(1000).as_bytes());
    let mut request = read_request(tree.scope(), lines);
    request.line = Some(900);
    request.limit = Some(2);
    assert_eq!(files.read(&request).unwrap(), "ab\nab\n");
}

#[test]
fn writes_inside_create_files_and_directories() {
    let tree = Tree::new();
    tree.write(tree.root.join("new.txt"), "fresh\n").unwrap();
    assert_eq!(
        std::fs::read_to_string(tree.root.join("new.txt")).unwrap(),
        "fresh\n"
    );
    tree.write(tree.root.join("deep/er/x.txt"), "x").unwrap();
    assert_eq!(
        std::fs::read_to_string(tree.root.join("deep/er/x.txt")).unwrap(),
        "x"
    );
    tree.write(tree.root.join("a.txt"), "replaced").unwrap();
    assert_eq!(
        std::fs::read_to_string(tree.root.join("a.txt")).unwrap(),
        "replaced"
    );
    tree.write(tree.extra.join("d.txt"), "d").unwrap();
    assert!(tree.extra.join("d.txt").is_file());
}

#[test]
fn writes_outside_are_refused_and_change_nothing() {
    let tree = Tree::new();
    let mut cases: Vec<(PathBuf, &str)> = vec![
        (
            tree.outside.join("secret.txt"),
            "outside the session's directories",
        ),
        (tree.root.join("sub/../../files-outside/x.txt"), ".."),
        (PathBuf::from("rel.txt"), "not an absolute path"),
    ];
    cases.extend(tree.refused_everywhere("new.txt"));
    for (path, expected) in cases {
        let error = tree.write(path.clone(), "overwritten").unwrap_err();
        assert!(error.contains(expected), "{}: {error}", path.display());
    }
    assert_eq!(
        std::fs::read_to_string(tree.outside.join("secret.txt")).unwrap(),
        "secret\n"
    );
    assert!(!tree.outside.join("new.txt").exists());
}

#[cfg(unix)]
#[test]
fn fifos_devices_and_hard_links_are_refused_without_blocking() {
    let tree = Tree::new();
    let fifo = tree.root.join("pipe");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
    let start = std::time::Instant::now();
    let error = tree.read(fifo.clone(), None, None).unwrap_err();
    assert!(error.contains("is a FIFO"), "{error}");
    assert!(
        start.elapsed() < std::time::Duration::from_secs(2),
        "the read of a FIFO blocked"
    );
    let error = tree.write(fifo, "x").unwrap_err();
    assert!(error.contains("is a FIFO"), "{error}");

    // A device reached through a link inside the directory is outside; a device inside is
    // refused as a device.
    std::os::unix::fs::symlink("/dev/zero", tree.root.join("zero")).unwrap();
    let error = tree.read(tree.root.join("zero"), None, None).unwrap_err();
    assert!(error.contains("outside"), "{error}");

    // A second name for a file outside the session: refused both ways, and unchanged.
    let outside = Scratch::new("files-outside-link");
    let secret = outside.file("secret.txt", b"the launch code\n");
    let inside = tree.root.join("innocent.txt");
    if std::fs::hard_link(&secret, &inside).is_ok() {
        let error = tree.read(inside.clone(), None, None).unwrap_err();
        assert!(error.contains("2 hard links"), "{error}");
        let error = tree.write(inside, "overwritten").unwrap_err();
        assert!(error.contains("2 hard links"), "{error}");
        assert_eq!(
            std::fs::read_to_string(&secret).unwrap(),
            "the launch code\n"
        );
    }
}
