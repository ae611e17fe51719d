//! Runtime errors end handlers with `?` and keep their meaning on the wire: a cancelled turn
//! is not an internal error, a missing session is `-32002`, a refused capability names the
//! capability, and the peer's own error comes back as it was.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use acptk_runtime::agent::{AgentServer, ClientFeature, StoreError};
use acptk_runtime::{Error, ErrorObject, ProtocolVersion, rpc};
use common::TestAgent;
use common::wire::Wire;
use serde_json::json;

#[test]
fn each_runtime_error_becomes_the_json_rpc_error_that_says_the_same() {
    let cancelled = ErrorObject::from(Error::Cancelled);
    assert_eq!(cancelled.code, -32800);
    assert!(rpc::is_turn_cancelled(&cancelled));
    // A -32800 of the peer is not the turn's cancellation.
    assert!(!rpc::is_turn_cancelled(&rpc::request_cancelled()));

    for error in [
        Error::UnknownSession("sess_1".into()),
        Error::SessionClosed("sess_1".into()),
        Error::Store(StoreError::Unknown("sess_1".into())),
    ] {
        let object = ErrorObject::from(error);
        assert_eq!(object.code, -32002, "{object:?}");
        assert_eq!(object.data, Some(json!({"sessionId": "sess_1"})));
    }

    let refused = ErrorObject::from(Error::NotAdvertised {
        feature: ClientFeature::ReadTextFile,
        version: ProtocolVersion::V1,
    });
    assert_eq!(refused.code, -32603);
    assert!(
        refused
            .message
            .contains("clientCapabilities.fs.readTextFile"),
        "{refused:?}"
    );
    assert_eq!(
        refused.data,
        Some(json!({"capability": "clientCapabilities.fs.readTextFile"}))
    );

    let peer = ErrorObject::new(-32002, "file not found");
    assert_eq!(ErrorObject::from(Error::Rpc(peer.clone())), peer);

    let wrong = ErrorObject::from(Error::Store(StoreError::WrongVersion {
        id: "s".into(),
        stored: ProtocolVersion::V1,
        requested: ProtocolVersion::V2,
    }));
    assert_eq!(wrong.code, -32602);
    assert_eq!(ErrorObject::from(Error::ConnectionClosed).code, -32603);
}

#[tokio::test]
async fn a_refused_capability_reaches_the_client_with_its_name() {
    // The handler's `?` on a file read the client did not advertise.
    let (agent, _) = TestAgent::new();
    let server = AgentServer::new(agent);
    let (mut wire, id) = Wire::with_session(&server, 1, "/work").await;
    let answer = wire.call_prompt(&id, "read?").await;
    assert_eq!(answer["error"]["code"], -32603, "{answer}");
    assert_eq!(
        answer["error"]["data"]["capability"],
        "clientCapabilities.fs.readTextFile"
    );
}
