//! Session notices: none to a v1 client that did not ask for them, and every notice received
//! well formed (Session notices RFD). A run in which no notice came leaves the well-formedness
//! requirement *not exercised*.

use serde_json::Value;

use super::Outcomes;
use crate::outcome::{Evidence, Outcome};
use crate::peer::{RawPeer, Received};

/// The `update` of a `session/update` notification whose `sessionUpdate` is `notice`.
fn notice_update(received: &Received) -> Option<&Value> {
    if received.method() != Some("session/update") {
        return None;
    }
    let update = received.value.as_ref()?.pointer("/params/update")?;
    (update.get("sessionUpdate").and_then(Value::as_str) == Some("notice")).then_some(update)
}

/// Whether this message is a notice.
pub(super) fn is_notice(received: &Received) -> bool {
    notice_update(received).is_some()
}

/// The main run (no capability advertised): in v1 no notice at all; in v2 every notice well
/// formed.
pub(super) fn check_main_run(peer: &RawPeer, version: u16, outcomes: &mut Outcomes) {
    if version == 1 {
        let evidence: Vec<Evidence> = peer
            .received()
            .iter()
            .filter(|r| is_notice(r))
            .map(|r| {
                Evidence::new(
                    peer.name(),
                    r.line,
                    "a notice, but this client did not advertise `session.notices`",
                )
            })
            .collect();
        outcomes.push((
            "notice.v1.gate",
            if evidence.is_empty() {
                Outcome::Passed
            } else {
                Outcome::Failed { evidence }
            },
        ));
    } else {
        outcomes.push(("notice.well-formed", well_formed(peer)));
    }
}

/// The v1 run whose client advertised `session.notices`.
pub(super) fn check_notices_run(peer: &RawPeer, outcomes: &mut Outcomes) {
    outcomes.push(("notice.well-formed", well_formed(peer)));
}

fn well_formed(peer: &RawPeer) -> Outcome {
    let mut seen = 0;
    let mut evidence = Vec::new();
    for received in peer.received() {
        let Some(update) = notice_update(received) else {
            continue;
        };
        seen += 1;
        let problems = problems(update);
        if !problems.is_empty() {
            evidence.push(Evidence::new(
                peer.name(),
                received.line,
                problems.join("; "),
            ));
        }
    }
    if seen == 0 {
        Outcome::not_exercised(format!("the agent sent no notice in {}", peer.name()))
    } else if evidence.is_empty() {
        Outcome::Passed
    } else {
        Outcome::Failed { evidence }
    }
}

/// What is wrong with one notice, by the RFD's field rules.
fn problems(update: &Value) -> Vec<&'static str> {
    let mut problems = Vec::new();
    match update.get("severity") {
        Some(Value::String(_)) => {}
        None | Some(Value::Null) => problems.push("`severity` is missing or null"),
        Some(_) => problems.push("`severity` is not a string"),
    }
    match update.get("title") {
        Some(Value::String(title)) if !title.is_empty() => {}
        Some(Value::String(_)) => problems.push("`title` is empty"),
        _ => problems.push("`title` is missing, null or not a string"),
    }
    if update
        .get("description")
        .is_some_and(|d| !(d.is_string() || d.is_null()))
    {
        problems.push("`description` is neither a string nor null");
    }
    if update
        .get("_meta")
        .is_some_and(|m| !(m.is_object() || m.is_null()))
    {
        problems.push("`_meta` is neither an object nor null");
    }
    problems
}
