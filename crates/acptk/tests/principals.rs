//! Sessions belong to someone, end to end. `acp agent --listen --token-file` and
//! `acp proxy --listen --token-file -- acp agent`: over WebSocket and Streamable HTTP, bob
//! never sees alice's sessions (their titles are first prompts: her secret never reaches
//! him), every session method naming one answers exactly as for an unknown id, and alice
//! keeps everything, also after a restart (the proxy with `--session-owners`). A token-less
//! listener does not serve the stdio agent's sessions unless `--state-dir` names their
//! directory. Empty tokens are usage errors for every command, and repeated `Authorization`
//! headers are refused.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "support/listening.rs"]
mod listening;
#[path = "support/scratch.rs"]
mod scratch;
#[path = "support/sessions_db.rs"]
mod sessions_db;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use acptk_runtime::client::{Client, ClientBuilder};
use acptk_runtime::transport::remote::ClientOptions;
use acptk_runtime::{Error, ProtocolVersion};
use listening::{Listening, runtime};
use serde_json::{Value, json};

const ACP: &str = env!("CARGO_BIN_EXE_acp");
const SECRET: &str = "A's secret: the launch code is 0000";
/// A session id nobody has, in the runtime's shape.
const UNKNOWN: &str = "sess_0123456789abcdef0123456789abcdef";
/// How long a test waits for a line that a listener logs about a request it answered.
const LOG_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// A fresh directory under the target's scratch space.
fn scratch(name: &str) -> PathBuf {
    scratch::fresh_dir(&format!("principals-{name}"))
}

/// A token file for alice and bob in `dir`.
fn token_file(dir: &Path) -> String {
    let path = dir.join("tokens");
    std::fs::write(
        &path,
        "# who may connect\nalice alice-token\nbob bob-token\n",
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    path.display().to_string()
}

/// The environment of a listener whose default state lives under `dir`.
fn home(dir: &Path) -> Vec<(&'static str, String)> {
    vec![
        ("HOME", dir.display().to_string()),
        ("XDG_STATE_HOME", dir.join("state").display().to_string()),
    ]
}

fn envs<'a>(pairs: &'a [(&'static str, String)]) -> Vec<(&'static str, &'a str)> {
    pairs
        .iter()
        .map(|(name, value)| (*name, value.as_str()))
        .collect()
}

async fn connect(url: &str, version: ProtocolVersion, token: &str) -> Client {
    ClientBuilder::new()
        .protocol(version)
        .connect_url(url, &ClientOptions::new().token(token))
        .await
        .unwrap()
}

/// A raw request: its result, or its error object.
async fn call(client: &Client, method: &str, params: Value) -> Result<Value, Value> {
    let params = serde_json::value::to_raw_value(&params).unwrap();
    match client.connection().request_raw(method, Some(params)).await {
        Ok(raw) => Ok(serde_json::from_str(raw.get()).unwrap()),
        Err(Error::Rpc(error)) => Err(serde_json::to_value(error).unwrap()),
        Err(other) => panic!("`{method}`: {other}"),
    }
}

/// Params naming `session` that every session method decodes.
fn params(session: &str) -> Value {
    json!({"sessionId": session, "cwd": "/work", "mcpServers": [],
           "prompt": [{"type": "text", "text": "B was here"}], "modeId": "ask",
           "configId": "shout", "type": "boolean", "value": true, "title": "B's title",
           "toolCallId": "call_1", "terminalId": "term_1"})
}

/// The session methods of `version` (both versions' tables, unstable ones included).
fn methods(version: ProtocolVersion) -> Vec<&'static str> {
    let mut methods = vec![
        "session/resume",
        "session/prompt",
        "session/close",
        "session/delete",
        "session/set_config_option",
        "session/fork",
        "session/archive",
        "session/unarchive",
        "session/set_title",
        "session/status",
        "session/options",
    ];
    if version == ProtocolVersion::V1 {
        methods.extend(["session/load", "session/set_mode"]);
    } else {
        methods.extend(["tool_call/cancel", "terminal/cancel"]);
    }
    methods
}

/// As bob: every session method naming alice's `theirs` answers as for an unknown id, and
/// the list shows nothing of hers.
async fn bob_reaches_nothing(bob: &Client, theirs: &str, version: ProtocolVersion) {
    for method in methods(version) {
        let other = call(bob, method, params(theirs)).await;
        let unknown = call(bob, method, params(UNKNOWN)).await;
        assert_eq!(
            serde_json::to_string(&other)
                .unwrap()
                .replace(theirs, UNKNOWN),
            serde_json::to_string(&unknown).unwrap(),
            "{method}"
        );
        let code = unknown.as_ref().err().map(|error| error["code"].clone());
        assert!(
            [Some(json!(-32002)), Some(json!(-32601)), None].contains(&code)
                // Closing or deleting a session that is not there succeeds, touching nothing.
                && (code.is_some() || ["session/close", "session/delete"].contains(&method)),
            "{method}: {unknown:?}"
        );
    }
    bob.connection()
        .notify_raw(
            "session/cancel",
            Some(serde_json::value::to_raw_value(&json!({"sessionId": theirs})).unwrap()),
        )
        .await
        .unwrap();
    let list = call(bob, "session/list", json!({})).await.unwrap();
    let text = list.to_string();
    assert!(!text.contains(theirs) && !text.contains("0000"), "{text}");
}

/// Alice's session with the secret as its title (the example agent titles a session with
/// its first prompt).
async fn alice_session(url: &str, version: ProtocolVersion) -> (Client, String) {
    let alice = connect(url, version, "alice-token").await;
    let session = alice.new_session("/work", &[]).await.unwrap();
    alice.prompt(&session, SECRET).await.unwrap();
    (alice, session)
}

/// Whether `client` lists `session` with the secret title.
async fn lists_secret(client: &Client, session: &str) -> bool {
    let page = client.list_sessions(None, None).await.unwrap();
    page.sessions
        .iter()
        .any(|summary| summary.id == session && summary.title.as_deref() == Some(SECRET))
}

#[test]
fn agent_listen_keeps_each_principal_to_its_sessions_across_a_restart() {
    let dir = scratch("agent");
    let tokens = token_file(&dir);
    let env = home(&dir);
    let flags = ["--token-file", tokens.as_str(), "--no-permission"];
    let mut agent = Listening::start(&flags, &envs(&env));
    assert!(
        agent.said_before("2 principals (alice, bob)"),
        "{:?}",
        agent.before
    );
    let address = agent.address().to_owned();
    let runtime = runtime();
    let mut sessions = Vec::new();
    for (scheme, version) in [("ws", ProtocolVersion::V1), ("http", ProtocolVersion::V2)] {
        let url = format!("{scheme}://{address}/acp");
        runtime.block_on(async {
            let (alice, theirs) = alice_session(&url, version).await;
            // Bob over the other transport.
            let other = if scheme == "ws" { "http" } else { "ws" };
            let bob = connect(&format!("{other}://{address}/acp"), version, "bob-token").await;
            bob_reaches_nothing(&bob, &theirs, version).await;
            assert!(lists_secret(&alice, &theirs).await, "{scheme}");
            alice.prompt(&theirs, "still mine").await.unwrap();
            alice.close().await;
            bob.close().await;
            sessions.push((version, theirs));
        });
    }
    // The sessions are stored with their owner, in the listener's own default directory.
    let stored = dir.join("state/acp/agent-listen");
    let (_, first) = &sessions[0];
    assert_eq!(sessions_db::owner(&stored, first).as_deref(), Some("alice"));
    assert_eq!(agent.terminate(), Some(0));

    let agent = Listening::start(&flags, &envs(&env));
    let url = format!("ws://{}/acp", agent.address());
    runtime.block_on(async {
        for (version, theirs) in &sessions {
            let bob = connect(&url, *version, "bob-token").await;
            bob_reaches_nothing(&bob, theirs, *version).await;
            let alice = connect(&url, *version, "alice-token").await;
            assert!(lists_secret(&alice, theirs).await);
            if *version == ProtocolVersion::V1 {
                alice.load_session(theirs, "/work", &[]).await.unwrap();
            } else {
                let options = acptk_runtime::client::SessionOptions::new("/work");
                alice.resume_session(theirs, &options).await.unwrap();
            }
        }
    });
    drop(agent);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs one turn of the stdio example agent through `acp client`, with the default state
/// directory under `dir`; the new session's id.
fn stdio_session(dir: &Path) -> String {
    let output = Command::new(ACP)
        .args([
            "client",
            "--format",
            "json",
            "--prompt",
            SECRET,
            "--timeout",
            "30",
        ])
        .args(["--", ACP, "agent", "--no-permission"])
        .envs(home(dir))
        .env("ACP_AGENT_DELAY_MS", "0")
        .env_remove("ACP_TOKEN")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .find(|event| event["type"] == "session")
        .and_then(|event| event["sessionId"].as_str().map(str::to_owned))
        .unwrap()
}

#[test]
fn a_listener_without_tokens_does_not_serve_the_stdio_sessions_unless_told() {
    let dir = scratch("stdio");
    let env = home(&dir);
    let mine = stdio_session(&dir);
    let runtime = runtime();
    let listed = |agent: &Listening| {
        runtime.block_on(async {
            let client = ClientBuilder::new()
                .connect_url(&agent.url, &ClientOptions::new())
                .await
                .unwrap();
            let page = client.list_sessions(None, None).await.unwrap();
            page.sessions
                .iter()
                .map(|summary| summary.id.clone())
                .collect::<Vec<_>>()
        })
    };
    let agent = Listening::start(&[], &envs(&env));
    assert_eq!(listed(&agent), Vec::<String>::new());
    drop(agent);
    // Named explicitly, the stdio agent's directory is shared: one local user.
    let shared = dir.join("state/acp/agent").display().to_string();
    let agent = Listening::start(&["--state-dir", shared.as_str()], &envs(&env));
    assert_eq!(listed(&agent), [mine]);
    drop(agent);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn proxy_listen_keeps_each_principal_to_the_sessions_it_created() {
    let dir = scratch("proxy");
    let tokens = token_file(&dir);
    let owners = dir.join("owners.jsonl").display().to_string();
    let env = home(&dir);
    let flags = [
        "--token-file",
        tokens.as_str(),
        "--session-owners",
        owners.as_str(),
    ];
    let agent = [ACP, "agent", "--no-permission"];
    let proxy = Listening::proxy(&flags, &agent, &envs(&env));
    let address = proxy.address().to_owned();
    let runtime = runtime();
    let theirs = runtime.block_on(async {
        let (alice, theirs) = alice_session(&format!("ws://{address}/acp"), ProtocolVersion::V1).await;
        let bob = connect(&format!("http://{address}/acp"), ProtocolVersion::V1, "bob-token").await;
        bob_reaches_nothing(&bob, &theirs, ProtocolVersion::V1).await;
        let mine = bob.new_session("/work", &[]).await.unwrap();
        assert!(lists_secret(&alice, &theirs).await);
        let page = alice.list_sessions(None, None).await.unwrap();
        assert!(!page.sessions.iter().any(|summary| summary.id == mine));
        // A batch from bob: his own request goes through, the one naming alice's session
        // is answered -32002 in the same array.
        let batch = json!([
            {"jsonrpc": "2.0", "id": 900, "method": "session/delete", "params": {"sessionId": theirs}},
            {"jsonrpc": "2.0", "id": 901, "method": "session/list", "params": {}},
        ]);
        let answers = raw_batch(&address, "bob-token", &batch).await;
        let by_id = |id: i64| answers.iter().find(|answer| answer["id"] == id).cloned().unwrap();
        assert_eq!(by_id(900)["error"]["code"], -32002, "{answers:?}");
        let listed = by_id(901)["result"]["sessions"].to_string();
        assert!(listed.contains(&mine) && !listed.contains(&theirs), "{listed}");
        theirs
    });
    let stderr = proxy.stderr_until(|text| text.contains("which is not `bob`'s"), LOG_WAIT);
    assert!(stderr.contains("which is not `bob`'s"), "{stderr}");
    drop(proxy);

    // Restarted with the same owners file, alice still reaches hers, bob still does not.
    let proxy = Listening::proxy(&flags, &agent, &envs(&env));
    let url = format!("ws://{}/acp", proxy.address());
    runtime.block_on(async {
        let bob = connect(&url, ProtocolVersion::V1, "bob-token").await;
        bob_reaches_nothing(&bob, &theirs, ProtocolVersion::V1).await;
        let alice = connect(&url, ProtocolVersion::V1, "alice-token").await;
        alice.load_session(&theirs, "/work", &[]).await.unwrap();
        alice.delete_session(&theirs).await.unwrap();
    });
    drop(proxy);
    let written = std::fs::read_to_string(&owners).unwrap();
    assert!(written.contains(r#""deleted":true"#), "{written}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The next message `reader` reads, within 10 s, as JSON (a panic when the connection ends).
async fn next_message(reader: &mut acptk_runtime::transport::remote::RemoteReader) -> Value {
    use acptk_runtime::transport::{Frame, MessageReader};
    let frame = tokio::time::timeout(std::time::Duration::from_secs(10), reader.read())
        .await
        .expect("an answer within 10 s")
        .unwrap();
    let Frame::Message(bytes) = frame else {
        panic!("the connection ended: {frame:?}");
    };
    serde_json::from_slice(&bytes).unwrap()
}

/// Sends `batch` on a fresh WebSocket with `token` (after `initialize`); the array answer.
async fn raw_batch(address: &str, token: &str, batch: &Value) -> Vec<Value> {
    use acptk_runtime::transport::MessageWriter;
    use acptk_runtime::transport::remote::connect as ws;
    let url = format!("ws://{address}/acp");
    let (mut reader, mut writer) = ws(&url, &ClientOptions::new().token(token)).await.unwrap();
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                      "params": {"protocolVersion": 1, "clientCapabilities": {}}});
    for message in [init, batch.clone()] {
        writer.write(message.to_string().as_bytes()).await.unwrap();
        writer.flush().await.unwrap();
        loop {
            let value = next_message(&mut reader).await;
            if let Value::Array(answers) = value {
                return answers;
            }
            if value["id"] == 0 {
                break;
            }
        }
    }
    panic!("no answer to the batch");
}

/// Runs `acp ARGS` with `envs` (and without `$ACP_TOKEN` unless given); exit code and
/// standard error.
fn acp(args: &[&str], envs: &[(&str, &str)]) -> (Option<i32>, String) {
    let output = Command::new(ACP)
        .args(args)
        .env_remove("ACP_TOKEN")
        .envs(envs.iter().copied())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn an_empty_token_is_a_usage_error_for_every_command() {
    let dir = scratch("tokens");
    let blank = dir.join("blank-line");
    std::fs::write(&blank, "alice alice-token\n\nbob bob-token\n").unwrap();
    let nameless = dir.join("no-token");
    std::fs::write(&nameless, "alice\n").unwrap();
    let twice = dir.join("twice");
    std::fs::write(&twice, "alice same\nbob same\n").unwrap();
    let (blank, nameless, twice) = (
        blank.display().to_string(),
        nameless.display().to_string(),
        twice.display().to_string(),
    );
    let url = "ws://127.0.0.1:9/acp";
    let empty = [("ACP_TOKEN", "")];
    type Case<'a> = (Vec<&'a str>, &'a [(&'a str, &'a str)], &'a str);
    let cases: Vec<Case> = vec![
        (
            vec!["agent", "--listen", "0", "--token", ""],
            &[],
            "empty token",
        ),
        (vec!["agent", "--listen", "0"], &empty, "ACP_TOKEN"),
        (
            vec!["agent", "--listen", "0", "--token-file", &blank],
            &[],
            "line 2 is empty",
        ),
        (
            vec!["agent", "--listen", "0", "--token-file", &nameless],
            &[],
            "without a token",
        ),
        (
            vec!["agent", "--listen", "0", "--token-file", &twice],
            &[],
            "the token of `alice`",
        ),
        (
            vec!["proxy", "--listen", "0", "--token", "", "--", "true"],
            &[],
            "empty token",
        ),
        (
            vec!["proxy", "--listen", "0", "--", "true"],
            &empty,
            "ACP_TOKEN",
        ),
        (
            vec!["proxy", "--url", url, "--token", ""],
            &[],
            "empty token",
        ),
        (vec!["proxy", "--url", url], &empty, "ACP_TOKEN"),
        (
            vec!["client", "--url", url, "--token", "", "--prompt", "hi"],
            &[],
            "empty token",
        ),
        (
            vec!["client", "--url", url, "--prompt", "hi"],
            &empty,
            "ACP_TOKEN",
        ),
    ];
    for (args, envs, says) in cases {
        let (code, stderr) = acp(&args, envs);
        assert_eq!(code, Some(2), "{args:?} {envs:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_repeated_authorization_header_is_refused_and_logged() {
    use std::io::{Read, Write};
    let dir = scratch("headers");
    let env = home(&dir);
    let agent = Listening::start(&["--token", "right", "--verbose"], &envs(&env));
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}"#;
    let status = |authorizations: &[&str]| {
        let mut request = format!(
            "POST /acp HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nContent-Type: application/json\r\n",
            agent.address()
        );
        for value in authorizations {
            request.push_str(&format!("Authorization: {value}\r\n"));
        }
        request.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
        let mut stream = std::net::TcpStream::connect(agent.address()).unwrap();
        stream
            .set_read_timeout(Some(std::time::Duration::from_secs(10)))
            .unwrap();
        stream.write_all(request.as_bytes()).unwrap();
        let mut answer = String::new();
        let _ = stream.read_to_string(&mut answer);
        answer
            .split_whitespace()
            .nth(1)
            .unwrap_or_default()
            .to_owned()
    };
    assert_eq!(status(&["Bearer right"]), "200");
    assert_eq!(status(&["Bearer right", "Bearer wrong"]), "400");
    assert_eq!(status(&["Bearer wrong", "Bearer right"]), "400");
    let wanted = |text: &str| text.contains("more than one `authorization` header");
    let logged = agent.stderr_until(wanted, LOG_WAIT);
    assert!(wanted(&logged), "not logged: {logged}");
    drop(agent);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A raw WebSocket client of a listener, after `initialize`.
struct Raw {
    reader: acptk_runtime::transport::remote::RemoteReader,
    writer: acptk_runtime::transport::remote::RemoteWriter,
}

impl Raw {
    async fn open(url: &str) -> Self {
        let (reader, writer) =
            acptk_runtime::transport::remote::connect(url, &ClientOptions::new())
                .await
                .unwrap();
        let mut raw = Self { reader, writer };
        let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}"#;
        raw.ask(init).await;
        raw
    }

    /// Sends `text` as it is and returns the first answer (a message with an `id` and no
    /// `method`).
    async fn ask(&mut self, text: &str) -> Value {
        use acptk_runtime::transport::MessageWriter;
        self.writer.write(text.as_bytes()).await.unwrap();
        self.writer.flush().await.unwrap();
        loop {
            let value = next_message(&mut self.reader).await;
            if value.get("method").is_none() {
                return value;
            }
        }
    }
}

#[test]
fn the_proxy_gate_forwards_only_what_it_reads_unambiguously() {
    let dir = scratch("gate");
    let env = home(&dir);
    let proxy = Listening::proxy(&[], &[ACP, "agent", "--no-permission"], &envs(&env));
    runtime().block_on(async {
        let mut raw = Raw::open(&proxy.url).await;
        let created = raw
            .ask(r#"{"jsonrpc":"2.0","id":7,"method":"session/new","params":{"cwd":"/work","mcpServers":[]}}"#)
            .await;
        let mine = created["result"]["sessionId"].as_str().unwrap().to_owned();
        let load = |id: u32, params: &str| {
            format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"session/load","params":{params}}}"#)
        };
        let rest = r#""cwd":"/work","mcpServers":[]"#;
        let answer = raw.ask(&load(1, &format!(r#"{{"sessionId":"{mine}",{rest}}}"#))).await;
        assert!(answer["result"].is_object(), "its own session loads: {answer}");
        let cases = [
            // sessionId twice: which one an agent takes is its own business.
            (load(2, &format!(r#"{{"sessionId":"{mine}","sessionId":"{UNKNOWN}",{rest}}}"#)), -32600),
            (load(3, &format!(r#"{{"sessionId":"{UNKNOWN}","sessionId":"{mine}",{rest}}}"#)), -32600),
            // An escaped member name is the same name.
            (load(4, &format!(r#"{{"session\u0049d":"{UNKNOWN}",{rest}}}"#)), -32002),
            (load(5, &format!(r#"{{"sessionId":7,{rest}}}"#)), -32602),
            // Not JSON (a NaN that some parsers take): not forwarded.
            (r#"{"jsonrpc":"2.0","id":6,"method":"session/list","params":{},"x":NaN}"#.to_owned(), -32700),
            // `method` twice.
            (format!(r#"{{"jsonrpc":"2.0","id":8,"method":"session/new","method":"session/load","params":{{"sessionId":"{UNKNOWN}",{rest}}}}}"#), -32600),
        ];
        for (message, code) in cases {
            let answer = raw.ask(&message).await;
            assert_eq!(answer["error"]["code"], code, "{message}: {answer}");
        }
    });
    let wanted = |text: &str| text.contains("given twice") && text.contains("not JSON");
    let stderr = proxy.stderr_until(wanted, LOG_WAIT);
    assert!(wanted(&stderr), "{stderr}");
    drop(proxy);
    let _ = std::fs::remove_dir_all(&dir);
}
