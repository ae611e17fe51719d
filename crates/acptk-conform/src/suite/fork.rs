//! `session/fork` where the agent advertises it (unstable in both versions, but an agent that
//! advertises it commits to it): the `vN-fork.jsonl` run opens a session, runs one turn, forks
//! the session, and runs a turn in the fork and then one in the original.

use serde_json::{Value, json};

use super::methods::session_capability;
use super::turns::side_run_initialized;
use super::{Options, Outcomes, sessions, unexpected};
use crate::outcome::{Evidence, Outcome};
use crate::peer::RawPeer;

/// The fork run of `version`.
pub(super) async fn fork_run(
    mut peer: RawPeer,
    version: u16,
    options: &Options,
) -> (Outcomes, RawPeer) {
    if !side_run_initialized(&mut peer, version).await {
        return (Vec::new(), peer);
    }
    let outcome = fork(&mut peer, version, options).await;
    (vec![("session.fork", outcome)], peer)
}

async fn fork(peer: &mut RawPeer, version: u16, options: &Options) -> Outcome {
    let caps = sessions::capabilities(peer, version);
    if !session_capability(&caps, version, "fork") {
        let spelled = if version == 1 {
            "sessionCapabilities.fork"
        } else {
            "session.fork"
        };
        return Outcome::not_applicable(format!("the agent does not advertise `{spelled}`"));
    }
    let name = peer.name().to_owned();
    let cwd = options.cwd.to_string_lossy().into_owned();
    let Some(original) = sessions::one_turn(peer, version, options).await else {
        return Outcome::not_exercised(format!("`session/new` gave no session in {name}"));
    };
    let reply = peer
        .call(
            "session/fork",
            json!({"sessionId": original, "cwd": cwd, "mcpServers": []}),
        )
        .await;
    let Some(response) = reply.response else {
        return Outcome::failed(&name, reply.request_line, "`session/fork` got no response");
    };
    let forked = response
        .result()
        .and_then(|r| r.get("sessionId"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    let Some(forked) = forked else {
        return unexpected(&name, &response, "a result with a string sessionId");
    };
    if forked == original {
        return Outcome::failed(
            &name,
            response.line,
            format!("the fork has the id of the session it was made from ({original})"),
        );
    }
    let mut evidence: Vec<Evidence> = Vec::new();
    for (session, what) in [(&forked, "the fork"), (&original, "the original session")] {
        if let Outcome::Failed { evidence: more } =
            sessions::turn(peer, version, session, options).await
        {
            evidence.extend(more.into_iter().map(|e| {
                let note = format!("a prompt to {what} after `session/fork`: {}", e.note);
                Evidence::new(e.run, e.line, note)
            }));
        }
    }
    if evidence.is_empty() {
        Outcome::Passed
    } else {
        Outcome::Failed { evidence }
    }
}
