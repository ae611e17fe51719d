//! `acp demo`: exit 0, one section per client, notices shown as notices (or as messages for
//! the v1 client without the capability), and never in the replayed history.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing test may panic

use std::process::Command;

const ACP: &str = env!("CARGO_BIN_EXE_acp");

/// The titles of the story's notices.
const TITLES: [&str; 4] = [
    "MCP server docs unavailable",
    "Using default settings",
    "Model rerouted",
    "Provider degraded",
];

fn demo() -> String {
    let output = Command::new(ACP).arg("demo").output().unwrap();
    assert!(
        output.status.success(),
        "exit {:?}, stderr:\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// The lines of `part` ("What the user sees:", ...) in the section of client `name`.
fn part<'a>(out: &'a str, name: &str, part: &str) -> Vec<&'a str> {
    let header = format!("== Client {name}:");
    let section = out
        .split("\n== ")
        .find(|section| format!("== {section}").starts_with(&header))
        .unwrap_or_else(|| panic!("no section for client {name}:\n{out}"));
    section
        .lines()
        .skip_while(|line| !line.starts_with(part))
        .skip(1)
        .take_while(|line| line.starts_with("  "))
        .map(str::trim)
        .collect()
}

fn mentions(lines: &[&str], title: &str) -> usize {
    lines.iter().filter(|line| line.contains(title)).count()
}

#[test]
fn three_sections_and_a_summary() {
    let out = demo();
    for header in [
        "== Client A: ACP v1, advertises session.notices ==",
        "== Client B: ACP v1, does not advertise session.notices ==",
        "== Client C: ACP v2 (notices need no capability) ==",
        "Summary",
    ] {
        assert!(out.contains(header), "{header:?} missing:\n{out}");
    }
}

#[test]
fn clients_with_notices_see_notice_lines_and_keep_them_out_of_history() {
    let out = demo();
    for name in ["A", "C"] {
        let seen = part(&out, name, "What the user sees:");
        let history = part(&out, name, "History after reconnect");
        let after = part(&out, name, "Live after the replay:");
        for title in TITLES {
            let notice_lines: Vec<&&str> = seen
                .iter()
                .filter(|line| line.starts_with("[notice] ") && line.contains(title))
                .collect();
            assert_eq!(notice_lines.len(), 1, "client {name}, {title}:\n{out}");
            // Only the user's own prompt may mention it in the history.
            let agent_lines: Vec<&&str> = history
                .iter()
                .filter(|line| !line.starts_with("You: ") && line.contains(title))
                .collect();
            assert!(agent_lines.is_empty(), "client {name}, {title}:\n{out}");
        }
        assert!(
            history.iter().all(|line| !line.starts_with("[notice]")),
            "{out}"
        );
        assert!(!history.is_empty(), "client {name} has no history:\n{out}");
        // The condition still holds after the reconnect: the notice comes again, live.
        assert_eq!(after.len(), 1, "client {name}:\n{out}");
        assert!(after[0].starts_with("[notice] Warning: MCP server docs unavailable"));
    }
}

#[test]
fn the_client_without_notices_gets_messages_that_become_history() {
    let out = demo();
    let seen = part(&out, "B", "What the user sees:");
    let history = part(&out, "B", "History after reconnect");
    let after = part(&out, "B", "Live after the replay:");
    assert!(
        seen.iter().all(|line| !line.starts_with("[notice]")),
        "{out}"
    );
    assert!(out.contains("Notice list: none"));
    for title in TITLES {
        let as_message = mentions(&seen, &format!("Agent: Warning: {title}"))
            + mentions(&seen, &format!("Agent: Info: {title}"));
        assert_eq!(as_message, 1, "{title}:\n{out}");
        assert!(
            mentions(&history, title) >= 1,
            "{title} not in B's history:\n{out}"
        );
    }
    assert_eq!(after.len(), 1, "{out}");
    assert!(
        after[0].starts_with("Agent: Warning: MCP server docs unavailable - "),
        "{out}"
    );
}

#[test]
fn the_output_is_deterministic() {
    assert_eq!(demo(), demo());
}
