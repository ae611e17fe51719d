//! The client's handler: the capabilities sent in `initialize` follow from what the handler
//! offers, the agent's requests reach the service that offers them (or `-32601`), and files
//! and terminals are confined to the sessions this client opened.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod client_support;
mod common;

use acptk_runtime::ProtocolVersion;
use acptk_runtime::client::{
    Action, Client, ClientBuilder, ClientHandler, Consent, LocalFiles, LocalTerminals, ReadFiles,
    Terminals, WriteFiles,
};
use acptk_runtime::connection::BoxFuture;
use client_support::Scratch;
use common::{RawPeer, init_result, raw_agent_answering};
use serde_json::{Value, json};

/// Reads files, writes files and runs commands; approves every action when `approve`.
struct Everything {
    files: LocalFiles,
    terminals: LocalTerminals,
    approve: bool,
}

impl ClientHandler for Everything {
    fn approve(&self, action: Action<'_>) -> BoxFuture<Consent> {
        let consent = if self.approve {
            Consent::Allowed
        } else if let Action::RunCommand(request) = action {
            Consent::Refused(format!("the user said no to `{}`", request.command))
        } else {
            Consent::Refused("the user said no".to_owned())
        };
        Box::pin(async move { consent })
    }
    fn file_reader(&self) -> Option<&dyn ReadFiles> {
        Some(&self.files)
    }
    fn file_writer(&self) -> Option<&dyn WriteFiles> {
        Some(&self.files)
    }
    fn terminals(&self) -> Option<&dyn Terminals> {
        Some(&self.terminals)
    }
}

/// Reads files only.
struct Reader(LocalFiles);

impl ClientHandler for Reader {
    fn file_reader(&self) -> Option<&dyn ReadFiles> {
        Some(&self.0)
    }
}

fn everything() -> Everything {
    Everything {
        files: LocalFiles::new(),
        terminals: LocalTerminals::new(),
        approve: true,
    }
}

/// Connects `builder` to a raw agent; returns the client, the agent and the `initialize`
/// params the client sent. The agent answers with `version` and `result` fields.
async fn connect_raw(
    builder: ClientBuilder,
    version: u16,
    extra: Value,
) -> (Client, RawPeer, Value) {
    let mut result = init_result(version);
    if let (Some(result), Some(extra)) = (result.as_object_mut(), extra.as_object()) {
        result.extend(extra.clone());
    }
    let (client, agent, init) = raw_agent_answering(builder, result).await;
    (client, agent, init["params"].clone())
}

/// Opens a session `s1` in `cwd` through the raw agent.
async fn open(client: &Client, agent: &mut RawPeer, cwd: &str) -> String {
    let opening = {
        let client = client.clone();
        let cwd = cwd.to_owned();
        tokio::spawn(async move { client.new_session(&cwd, &[]).await })
    };
    let request = agent.recv_some().await;
    assert_eq!(request["method"], "session/new");
    agent
        .send_json(json!({"jsonrpc": "2.0", "id": request["id"], "result": {"sessionId": "s1"}}))
        .await;
    opening.await.unwrap().unwrap()
}

#[tokio::test]
async fn capabilities_follow_from_the_handler() {
    let (_, _, params) = connect_raw(ClientBuilder::new(), 1, json!({})).await;
    let caps = &params["clientCapabilities"];
    assert_eq!(
        caps["fs"],
        json!({"readTextFile": false, "writeTextFile": false})
    );
    assert_eq!(caps["terminal"], false);
    assert_eq!(caps["auth"], json!({"terminal": false}));
    assert_eq!(caps["session"]["notices"], json!({}));

    let (_, _, params) = connect_raw(
        ClientBuilder::new().handler(everything()).notices(false),
        1,
        json!({}),
    )
    .await;
    let caps = &params["clientCapabilities"];
    assert_eq!(
        caps["fs"],
        json!({"readTextFile": true, "writeTextFile": true})
    );
    assert_eq!(caps["terminal"], true);
    assert!(caps.get("session").is_none(), "{caps}");

    let (_, _, params) = connect_raw(
        ClientBuilder::new().handler(Reader(LocalFiles::new())),
        1,
        json!({}),
    )
    .await;
    assert_eq!(
        params["clientCapabilities"]["fs"],
        json!({"readTextFile": true, "writeTextFile": false})
    );
}

#[tokio::test]
async fn a_v2_request_also_carries_the_v1_capabilities() {
    let (client, _, params) = connect_raw(
        ClientBuilder::new()
            .protocol(ProtocolVersion::V2)
            .handler(everything()),
        1,
        json!({}),
    )
    .await;
    assert_eq!(params["protocolVersion"], 2);
    assert_eq!(params["info"]["name"], params["clientInfo"]["name"]);
    assert!(params["capabilities"].is_object(), "{params}");
    assert_eq!(
        params["clientCapabilities"]["session"]["notices"],
        json!({})
    );
    assert_eq!(params["clientCapabilities"]["terminal"], true);
    assert_eq!(client.protocol_version(), ProtocolVersion::V1);
    assert_eq!(client.agent().proposed, ProtocolVersion::V2);
    assert_eq!(
        client.agent().fallback,
        Some(acptk_runtime::client::VersionFallback::SameRequest)
    );
}

#[tokio::test]
async fn file_requests_are_served_inside_the_session_only() {
    let dir = Scratch::new("services-files");
    dir.file("notes.txt", b"first\nsecond\n");
    let (client, mut agent, _) =
        connect_raw(ClientBuilder::new().handler(everything()), 1, json!({})).await;
    let cwd = dir.path().display().to_string();
    let session = open(&client, &mut agent, &cwd).await;
    assert_eq!(session, "s1");

    let path = dir.join("notes.txt").display().to_string();
    let answer = agent
        .ask(
            100,
            "fs/read_text_file",
            json!({"sessionId": "s1", "path": path, "line": 2}),
        )
        .await;
    assert_eq!(answer["result"], json!({"content": "second\n"}));

    let answer = agent
        .ask(
            101,
            "fs/write_text_file",
            json!({"sessionId": "s1", "path": dir.join("out.txt"), "content": "written"}),
        )
        .await;
    assert_eq!(answer["result"], json!({}), "{answer}");
    assert_eq!(
        std::fs::read_to_string(dir.join("out.txt")).unwrap(),
        "written"
    );

    let answer = agent
        .ask(
            102,
            "fs/read_text_file",
            json!({"sessionId": "s1", "path": "/etc/hostname"}),
        )
        .await;
    assert_eq!(answer["error"]["code"], -32602);
    let message = answer["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("outside the session's directories"),
        "{message}"
    );

    let answer = agent
        .ask(
            103,
            "fs/read_text_file",
            json!({"sessionId": "nope", "path": path}),
        )
        .await;
    let message = answer["error"]["message"].as_str().unwrap();
    assert!(message.contains("unknown session `nope`"), "{message}");
}

#[tokio::test]
async fn terminal_requests_run_in_the_session_directory() {
    let dir = Scratch::new("services-terminal");
    let (client, mut agent, _) =
        connect_raw(ClientBuilder::new().handler(everything()), 1, json!({})).await;
    open(&client, &mut agent, &dir.path().display().to_string()).await;
    let created = agent.ask(200,
        "terminal/create",
        json!({"sessionId": "s1", "command": "sh", "args": ["-c", "pwd; exit 7"], "outputByteLimit": 4096}),
    )
    .await;
    let terminal = created["result"]["terminalId"].as_str().unwrap().to_owned();
    let exit = agent
        .ask(
            201,
            "terminal/wait_for_exit",
            json!({"sessionId": "s1", "terminalId": terminal}),
        )
        .await;
    assert_eq!(exit["result"], json!({"exitCode": 7}));
    let mut output = Value::Null;
    for id in 202..400 {
        output = agent
            .ask(
                id,
                "terminal/output",
                json!({"sessionId": "s1", "terminalId": terminal}),
            )
            .await;
        if output["result"]["output"]
            .as_str()
            .is_some_and(|o| o.ends_with('\n'))
        {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert_eq!(
        output["result"],
        json!({"output": format!("{}\n", dir.path().display()), "truncated": false, "exitStatus": {"exitCode": 7}})
    );
    let released = agent
        .ask(
            400,
            "terminal/release",
            json!({"sessionId": "s1", "terminalId": terminal}),
        )
        .await;
    assert_eq!(released["result"], json!({}));
}

/// Offers terminals and writes with the runtime's default `approve`.
struct Forgetful {
    files: LocalFiles,
    terminals: LocalTerminals,
}

impl ClientHandler for Forgetful {
    fn file_writer(&self) -> Option<&dyn WriteFiles> {
        Some(&self.files)
    }
    fn terminals(&self) -> Option<&dyn Terminals> {
        Some(&self.terminals)
    }
}

#[tokio::test]
async fn commands_and_writes_need_consent() {
    let dir = Scratch::new("services-consent");
    let marker = dir.join("marker");
    let script = format!("touch {}", marker.display());
    for (handler, expected) in [
        (
            ClientBuilder::new().handler(Forgetful {
                files: LocalFiles::new(),
                terminals: LocalTerminals::new(),
            }),
            "without the user's consent",
        ),
        (
            ClientBuilder::new().handler(Everything {
                approve: false,
                ..everything()
            }),
            "the user said no to `sh`",
        ),
    ] {
        let (client, mut agent, params) = connect_raw(handler, 1, json!({})).await;
        assert_eq!(params["clientCapabilities"]["terminal"], true);
        open(&client, &mut agent, &dir.path().display().to_string()).await;
        let created = agent
            .ask(
                10,
                "terminal/create",
                json!({"sessionId": "s1", "command": "sh", "args": ["-c", script]}),
            )
            .await;
        let message = created["error"]["message"].as_str().unwrap();
        assert!(message.contains("running `sh` was refused"), "{created}");
        assert!(message.contains(expected), "{created}");
        let written = agent
            .ask(
                11,
                "fs/write_text_file",
                json!({"sessionId": "s1", "path": dir.join("w.txt"), "content": "x"}),
            )
            .await;
        assert!(
            written["error"]["message"]
                .as_str()
                .unwrap()
                .contains("was refused"),
            "{written}"
        );
    }
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    assert!(!marker.exists(), "a command ran without consent");
    assert!(
        !dir.join("w.txt").exists(),
        "a file was written without consent"
    );
}

#[tokio::test]
async fn a_terminal_cwd_outside_the_session_is_refused() {
    let dir = Scratch::new("services-cwd");
    let (client, mut agent, _) =
        connect_raw(ClientBuilder::new().handler(everything()), 1, json!({})).await;
    open(&client, &mut agent, &dir.path().display().to_string()).await;
    let created = agent
        .ask(
            10,
            "terminal/create",
            json!({"sessionId": "s1", "command": "true", "cwd": "/"}),
        )
        .await;
    let message = created["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("outside the session's directories"),
        "{created}"
    );
}

#[tokio::test]
async fn requests_for_services_not_offered_get_method_not_found() {
    let (client, mut agent, _) = connect_raw(
        ClientBuilder::new().handler(Reader(LocalFiles::new())),
        1,
        json!({}),
    )
    .await;
    open(&client, &mut agent, "/").await;
    for (id, method, params) in [
        (
            1,
            "fs/write_text_file",
            json!({"sessionId": "s1", "path": "/x", "content": ""}),
        ),
        (
            2,
            "terminal/create",
            json!({"sessionId": "s1", "command": "true"}),
        ),
        (
            3,
            "terminal/output",
            json!({"sessionId": "s1", "terminalId": "t"}),
        ),
    ] {
        let answer = agent.ask(id, method, params).await;
        assert_eq!(answer["error"]["code"], -32601, "{method}: {answer}");
    }
}
