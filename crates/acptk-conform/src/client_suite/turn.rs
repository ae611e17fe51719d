//! What every scenario uses: the turn it runs in (its session and the protocol version), the
//! probe that shows the client still answers, and where the probe files go.

use std::path::PathBuf;

use serde_json::{Value, json};
use tokio::io::AsyncWrite;

use super::wire::Wire;
use super::{Client, RUN_NAME};
use crate::outcome::Outcome;
use crate::suite::unexpected;

/// The session a turn runs in and the protocol version.
pub(super) struct Turn {
    pub(super) session: String,
    pub(super) version: u16,
}

impl Turn {
    pub(super) async fn update<W: AsyncWrite + Unpin>(&self, wire: &mut Wire<W>, update: Value) {
        wire.notify(
            "session/update",
            json!({"sessionId": self.session, "update": update}),
        )
        .await;
    }

    pub(super) async fn message<W: AsyncWrite + Unpin>(&self, wire: &mut Wire<W>, text: &str) {
        let mut update = json!({
            "sessionUpdate": "agent_message_chunk",
            "content": {"type": "text", "text": format!("{text}\n")},
        });
        if self.version == 2 {
            update["messageId"] = json!("conform-agent-message");
        }
        self.update(wire, update).await;
    }
}

/// An unknown extension request: answered -32601, and proof the client still answers.
pub(super) async fn probe<W: AsyncWrite + Unpin>(
    wire: &mut Wire<W>,
    client: &mut Client,
    survives: &'static str,
) {
    let id = wire.fresh_id();
    let reply = wire
        .call(id, "_acp_conform/probe", json!({"after": survives}))
        .await;
    let Some(response) = reply.response else {
        let note =
            format!("`_acp_conform/probe` (after the input of `{survives}`) got no response");
        client.outcomes.push((
            survives,
            Outcome::failed(RUN_NAME, reply.request_line, note),
        ));
        return;
    };
    client.outcomes.push((survives, Outcome::Passed));
    client.outcomes.push((
        "client.rpc.method-not-found",
        if response.error_code() == Some(-32601) {
            Outcome::Passed
        } else {
            unexpected(RUN_NAME, &response, "error -32601")
        },
    ));
}

/// Where the probe files are: `name` in a folder of this process's own under the temporary
/// directory.
pub(super) fn probe_path(name: &str) -> PathBuf {
    std::env::temp_dir()
        .join(format!("acp-conform-{}", std::process::id()))
        .join(name)
}
