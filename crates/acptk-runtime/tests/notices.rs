//! Notice delivery on the agent side: gating by version and capability, the fallback
//! message and its place in history, the drop policy, and the typed error.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use acptk_runtime::agent::{AgentServer, ClientFeature, HistoryEntry, Session};
use acptk_runtime::client::Client;
use acptk_runtime::client::transcript::Role;
use acptk_runtime::{Error, FallbackPolicy, Notice, NoticeDelivery, ProtocolVersion};
use acptk_schema::{v1, v2};
use common::{TestAgent, client, connect, texts, until};

fn notice() -> Notice {
    Notice::warning("MCP server db unavailable")
        .description("command `db-mcp` was not found on PATH")
}

struct Case {
    name: &'static str,
    version: ProtocolVersion,
    notices: bool,
    policy: FallbackPolicy,
    delivery: NoticeDelivery,
}

const CASES: &[Case] = &[
    Case {
        name: "v1 with session.notices",
        version: ProtocolVersion::V1,
        notices: true,
        policy: FallbackPolicy::AgentMessage,
        delivery: NoticeDelivery::Sent,
    },
    Case {
        name: "v1 without: fallback message",
        version: ProtocolVersion::V1,
        notices: false,
        policy: FallbackPolicy::AgentMessage,
        delivery: NoticeDelivery::FellBack,
    },
    Case {
        name: "v1 without: drop policy",
        version: ProtocolVersion::V1,
        notices: false,
        policy: FallbackPolicy::Drop,
        delivery: NoticeDelivery::Dropped,
    },
    Case {
        name: "v2 needs no capability",
        version: ProtocolVersion::V2,
        notices: true,
        policy: FallbackPolicy::Drop,
        delivery: NoticeDelivery::Sent,
    },
];

#[tokio::test]
async fn one_call_delivers_by_the_rules_of_the_clients_version() {
    for case in CASES {
        let (agent, mut opened) = TestAgent::new();
        let server = AgentServer::new(agent).notice_fallback(case.policy);
        let client = connect(&server, client(case.version, case.notices)).await;
        let id = client.new_session("/tmp", &[]).await.unwrap();
        let session = opened.recv().await.unwrap();

        let delivery = session.notice(&notice()).await.unwrap();
        assert_eq!(delivery, case.delivery, "{}", case.name);
        // A prompt after the notice: when its turn ends, the notice has been handled.
        client.prompt(&id, "hi").await.unwrap();

        let shown = client.with_notice_center(|center| center.entry_count(&id));
        let agent_text = texts(&client, &id, Role::Agent);
        let fallback = notice().fallback_text();
        match case.delivery {
            NoticeDelivery::Sent => {
                assert_eq!(shown, 1, "{}", case.name);
                assert!(!agent_text.contains(&fallback), "{}", case.name);
            }
            NoticeDelivery::FellBack => {
                assert_eq!(shown, 0, "{}", case.name);
                assert_eq!(
                    agent_text,
                    [fallback.clone(), "echo: hi".to_owned()],
                    "{}",
                    case.name
                );
            }
            _ => {
                assert_eq!(shown, 0, "{}", case.name);
                assert_eq!(agent_text, ["echo: hi"], "{}", case.name);
            }
        }
        // History: the fallback message is there, a notice never is.
        let history_text: Vec<String> = server
            .sessions()
            .history(&id)
            .await
            .unwrap()
            .iter()
            .filter_map(|entry| match entry {
                HistoryEntry::V1(v1::ReplayableUpdate::AgentMessageChunk(chunk)) => {
                    chunk.content.as_text().map(str::to_owned)
                }
                HistoryEntry::V2(v2::ReplayableUpdate::AgentMessageChunk(chunk)) => {
                    chunk.content.as_text().map(str::to_owned)
                }
                _ => None,
            })
            .collect();
        assert_eq!(
            history_text.contains(&fallback),
            case.delivery == NoticeDelivery::FellBack,
            "{}",
            case.name
        );
        assert_eq!(client.violations(), Default::default(), "{}", case.name);
    }
}

/// A v1 client, with or without notices, and the session it opened, on both sides.
async fn v1_session(notices: bool) -> (AgentServer<TestAgent>, Client, String, Session) {
    let (agent, mut opened) = TestAgent::new();
    let server = AgentServer::new(agent);
    let client = connect(&server, client(ProtocolVersion::V1, notices)).await;
    let id = client.new_session("/tmp", &[]).await.unwrap();
    let session = opened.recv().await.unwrap();
    (server, client, id, session)
}

#[tokio::test]
async fn a_raw_v1_notice_to_a_client_without_the_capability_is_a_typed_error() {
    let (_server, client, id, session) = v1_session(false).await;

    let update = v1::SessionUpdate::Notice(notice().to_v1());
    let error = session.send_v1(update).await.unwrap_err();
    assert!(
        matches!(
            error,
            Error::NotAdvertised {
                feature: ClientFeature::Notices,
                ..
            }
        ),
        "{error}"
    );
    // Nothing went on the wire: the client saw no notice and counted no violation.
    client.prompt(&id, "hi").await.unwrap();
    assert_eq!(client.violations().unadvertised_notices, 0);
    assert_eq!(
        client.with_notice_center(|center| center.entry_count(&id)),
        0
    );
    // The wrong version's update is a typed error too.
    let error = session
        .send_v2(v2::SessionUpdate::agent_message_chunk("m", "x"))
        .await
        .unwrap_err();
    assert!(matches!(error, Error::WrongVersion { .. }), "{error}");
}

#[tokio::test]
async fn a_raw_v1_notice_to_a_client_with_the_capability_is_sent_and_not_recorded() {
    let (server, client, id, session) = v1_session(true).await;
    session
        .send_v1(v1::SessionUpdate::Notice(notice().to_v1()))
        .await
        .unwrap();
    until(&client, |c| {
        c.with_notice_center(|center| center.entry_count(&id)) == 1
    })
    .await;
    assert!(server.sessions().history(&id).await.unwrap().is_empty());
}

#[test]
fn notices_need_a_title_and_fall_back_with_the_severity_word() {
    assert!(matches!(
        Notice::try_new("info", ""),
        Err(Error::EmptyNoticeTitle)
    ));
    // The infallible constructors replace an empty or blank title by the severity's word.
    assert_eq!(Notice::info("").title.as_str(), "Info");
    assert_eq!(Notice::warning("  ").title.as_str(), "Warning");
    assert_eq!(Notice::error("").title.as_str(), "Error");
    assert_eq!(Notice::new("_acme_quota", "").title.as_str(), "Notice");
    assert_eq!(Notice::error("Disk full").title.as_str(), "Disk full");
    let cases = [
        ("info", None, "Info: T"),
        ("error", Some("d"), "Error: T - d"),
        ("_acme_quota", Some("d"), "_acme_quota: T - d"),
        ("critical", None, "critical: T"),
    ];
    for (severity, description, expected) in cases {
        let mut notice = Notice::new(severity, "T");
        if let Some(description) = description {
            notice = notice.description(description);
        }
        assert_eq!(notice.fallback_text(), expected);
    }
}
