//! `acp agent --listen` and `acp client --url`: a turn over WebSocket and over Streamable
//! HTTP, notices by the rules of each version (v1 with and without `session.notices`, v2), a
//! second connection that loads the session, the token, and the exit code for an agent that
//! cannot be reached.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "support/listening.rs"]
mod listening;
#[path = "support/spawn.rs"]
mod spawn;

use std::process::{Command, Output, Stdio};

use listening::{Listening, events};
use serde_json::Value;

fn client(url: &str, flags: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_acp"))
        .arg("client")
        .arg("--url")
        .arg(url)
        .args(flags)
        .args(["--timeout", "30"])
        .env_remove("ACP_TOKEN")
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn of_type<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["type"] == kind).collect()
}

/// The prompt that asks the example agent for a warning notice.
const NOTICE: &str = "/notice warning Disk almost full -- 95% used";

/// The user prompts that a successful `--format json --load` run replayed as history (after
/// checking that it succeeded and loaded the session).
fn replayed_prompts(output: &Output) -> Vec<String> {
    spawn::assert_succeeded(output, "");
    let events = events(output);
    assert_eq!(of_type(&events, "session")[0]["loaded"], true);
    events
        .iter()
        .filter(|e| e["history"] == true && e["role"] == "user")
        .filter_map(|e| e["text"].as_str().map(str::to_owned))
        .collect()
}

/// One `acp client --url URL --format json` turn at `protocol` whose prompt asks the agent
/// for a notice (with `extra` flags, and `--no-notices` when `no_notices`): checks that it ran
/// in that version and that the notice came as a notice (`as_notice`) or else as agent text;
/// returns the events.
fn notice_turn(
    url: &str,
    protocol: &str,
    no_notices: bool,
    as_notice: bool,
    extra: &[&str],
) -> Vec<Value> {
    let mut flags = vec![
        "--protocol",
        protocol,
        "--format",
        "json",
        "--prompt",
        NOTICE,
    ];
    flags.extend_from_slice(extra);
    if no_notices {
        flags.push("--no-notices");
    }
    let output = client(url, &flags);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "v{protocol}: {stderr}");
    let events = events(&output);
    assert_eq!(
        of_type(&events, "session")[0]["protocolVersion"],
        protocol.parse::<u16>().unwrap()
    );
    let notices = of_type(&events, "notice");
    let agent_texts: Vec<&str> = of_type(&events, "message")
        .into_iter()
        .filter(|m| m["role"] == "agent")
        .filter_map(|m| m["text"].as_str())
        .collect();
    if as_notice {
        assert_eq!(notices.len(), 1, "v{protocol}: {events:?}");
        assert_eq!(notices[0]["title"], "Disk almost full");
        assert!(agent_texts.is_empty(), "{agent_texts:?}");
    } else {
        assert!(notices.is_empty(), "{events:?}");
        assert_eq!(agent_texts.concat(), "Warning: Disk almost full - 95% used");
    }
    events
}

#[test]
fn notices_over_websocket_follow_the_version_rules() {
    let agent = Listening::start(&["--ephemeral"], &[]);
    for (protocol, no_notices, as_notice) in
        [("1", false, true), ("1", true, false), ("2", false, true)]
    {
        notice_turn(&agent.url, protocol, no_notices, as_notice, &[]);
    }
}

#[test]
fn streamable_http_runs_turns_with_notices_loads_and_checks_the_token() {
    let state = tempfile_dir("http");
    let agent = Listening::start(
        &[
            "--state-dir",
            state.to_str().unwrap(),
            "--no-permission",
            "--token",
            "open-sesame",
        ],
        &[],
    );
    let url = agent.url.replacen("ws://", "http://", 1);
    let mut first_session = None;
    for (protocol, no_notices, as_notice) in
        [("1", false, true), ("1", true, false), ("2", false, true)]
    {
        let token = ["--token", "open-sesame"];
        let events = notice_turn(&url, protocol, no_notices, as_notice, &token);
        let session = of_type(&events, "session")[0];
        first_session.get_or_insert_with(|| session["sessionId"].as_str().unwrap().to_owned());
    }
    // A new HTTP connection loads the first session: its prompt comes back as history.
    let id = first_session.unwrap();
    let loaded = client(
        &url,
        &[
            "--format",
            "json",
            "--load",
            &id,
            "--prompt",
            "more",
            "--token",
            "open-sesame",
        ],
    );
    assert_eq!(replayed_prompts(&loaded), [NOTICE]);
    // Without the token: 401, exit 3, with the hint.
    let refused = client(&url, &["--prompt", "hi"]);
    assert_eq!(refused.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("401"), "{stderr}");
    assert!(stderr.contains("--token"), "{stderr}");
    let _ = std::fs::remove_dir_all(state);
}

#[test]
fn a_second_connection_loads_the_session() {
    let state = tempfile_dir("load");
    let agent = Listening::start(
        &["--state-dir", state.to_str().unwrap(), "--no-permission"],
        &[],
    );
    let first = client(&agent.url, &["--format", "json", "--prompt", "first words"]);
    spawn::assert_succeeded(&first, "");
    let opened = events(&first);
    let id = of_type(&opened, "session")[0]["sessionId"]
        .as_str()
        .unwrap()
        .to_owned();

    let listed = client(&agent.url, &["--list-sessions"]);
    assert!(String::from_utf8_lossy(&listed.stdout).contains(&id));

    let second = client(
        &agent.url,
        &["--format", "json", "--load", &id, "--prompt", "more"],
    );
    assert_eq!(replayed_prompts(&second), ["first words"]);
    let _ = std::fs::remove_dir_all(state);
}

#[test]
fn the_token_is_required_and_checked() {
    let agent = Listening::start(&["--ephemeral", "--token", "open-sesame"], &[]);
    let refused = client(&agent.url, &["--prompt", "hi"]);
    assert_eq!(refused.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("401"), "{stderr}");
    assert!(stderr.contains("--token"), "{stderr}");
    let wrong = client(&agent.url, &["--prompt", "hi", "--token", "open-sesame!"]);
    assert_eq!(wrong.status.code(), Some(3));
    let right = client(&agent.url, &["--prompt", "hi", "--token", "open-sesame"]);
    spawn::assert_succeeded(&right, "");

    // The same token from the environment, on both sides.
    let agent = Listening::start(&["--ephemeral"], &[("ACP_TOKEN", "from-env")]);
    assert_eq!(
        client(&agent.url, &["--prompt", "hi"]).status.code(),
        Some(3)
    );
    let output = Command::new(env!("CARGO_BIN_EXE_acp"))
        .args([
            "client",
            "--url",
            &agent.url,
            "--prompt",
            "hi",
            "--timeout",
            "30",
        ])
        .env("ACP_TOKEN", "from-env")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    spawn::assert_succeeded(&output, "");
}

#[test]
fn an_agent_that_cannot_be_reached_exits_5() {
    // A port that was just free: nothing listens there.
    let address = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let output = client(&format!("ws://{address}/acp"), &["--prompt", "hi"]);
    assert_eq!(output.status.code(), Some(5));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("cannot connect to ws://"), "{stderr}");

    let output = client(&format!("http://{address}/acp"), &["--prompt", "hi"]);
    assert_eq!(output.status.code(), Some(5));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("cannot connect to http://"), "{stderr}");

    let output = client("ftp://example.invalid/acp", &["--prompt", "hi"]);
    assert_eq!(output.status.code(), Some(5));
    assert!(String::from_utf8_lossy(&output.stderr).contains("ws://"));
}

#[test]
fn listen_addresses_default_to_loopback() {
    let agent = Listening::start(&["--ephemeral"], &[]);
    assert!(agent.url.starts_with("ws://127.0.0.1:"), "{}", agent.url);
    assert!(agent.url.ends_with("/acp"), "{}", agent.url);
    let output = Command::new(env!("CARGO_BIN_EXE_acp"))
        .args(["agent", "--listen", "not-an-address"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let output = Command::new(env!("CARGO_BIN_EXE_acp"))
        .args([
            "client",
            "--url",
            "ws://127.0.0.1:1/acp",
            "--",
            "acp",
            "agent",
        ])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(2),
        "--url and an agent command conflict"
    );
}

#[test]
fn sigterm_sigint_and_sighup_stop_the_server_cleanly() {
    for signal in ["TERM", "INT", "HUP"] {
        let mut agent = Listening::start(&["--ephemeral"], &[]);
        // A connection is open when the signal comes: it is ended too, not waited for.
        let _client = std::net::TcpStream::connect(agent.address()).unwrap();
        assert_eq!(agent.signal(signal), Some(0), "SIG{signal}");
    }
}

#[test]
fn tls_with_a_certificate_the_client_is_told_to_trust() {
    let dir = tempfile_dir("tls");
    let certified =
        rcgen::generate_simple_self_signed(vec!["localhost".to_owned(), "127.0.0.1".to_owned()])
            .unwrap();
    let cert = dir.join("cert.pem");
    let key = dir.join("key.pem");
    std::fs::write(&cert, certified.cert.pem()).unwrap();
    std::fs::write(&key, certified.key_pair.serialize_pem()).unwrap();
    let agent = Listening::start(
        &[
            "--ephemeral",
            "--tls-cert",
            cert.to_str().unwrap(),
            "--tls-key",
            key.to_str().unwrap(),
        ],
        &[],
    );
    assert!(agent.url.starts_with("wss://127.0.0.1:"), "{}", agent.url);
    let trusted = client(
        &agent.url,
        &["--prompt", "hi", "--tls-ca", cert.to_str().unwrap()],
    );
    spawn::assert_succeeded(&trusted, "");
    // Without --tls-ca the certificate is not trusted: the agent cannot be reached.
    let untrusted = client(&agent.url, &["--prompt", "hi"]);
    assert_eq!(untrusted.status.code(), Some(5));
    assert!(String::from_utf8_lossy(&untrusted.stderr).contains("certificate"));
    // A key file that is not a key: a clear error, no listener.
    let output = Command::new(env!("CARGO_BIN_EXE_acp"))
        .args([
            "agent",
            "--ephemeral",
            "--listen",
            "0",
            "--tls-cert",
            cert.to_str().unwrap(),
        ])
        .arg("--tls-key")
        .arg(&cert)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_ne!(output.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&output.stderr).contains("private key"));
    let _ = std::fs::remove_dir_all(dir);
}

/// A fresh scratch directory under the target directory.
fn tempfile_dir(name: &str) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("remote-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
