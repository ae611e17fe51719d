//! Differential test: `acptk-schema` against the official `agent-client-protocol-schema` 1.20.0,
//! both with every unstable feature on (ours: `unstable`, theirs: `unstable`).
//!
//! A reproducible corpus of ACP v1 and v2 messages (hand-written edge cases from
//! `data/edge_cases.jsonl`, instances generated from the unstable reference JSON Schemas with
//! fixed seeds, and mutations of those) is decoded by method with both crates' routing
//! decoders. Every method and every session update of the unstable surface that the stable one
//! lacks must have hand-written and generated cases. The two
//! verdicts (accept or reject) must agree, and an accepted message must re-encode to equal JSON
//! (`serde_json::Value` equality) with both. Every disagreement must belong to a class listed in
//! [`KNOWN_DIFFERENCES`] and explained in `differences.md` next to this file; any other
//! disagreement fails the test and is printed with its input. A listed class that no longer
//! occurs fails the test too, so the list stays exact.
//!
//! Run with `cargo test -p acptk-conformance --test differential -- --nocapture` to see the
//! summary (message counts per method and per session update variant, agreements, differences).
//! `ACP_DIFF_VERBOSE=1` also prints both verdicts for every hand-written case.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing test may panic

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use acptk_conformance::rng::Rng;
use acptk_conformance::schema_gen::{GenConfig, SchemaGen, mutate};
use acptk_schema::jsonrpc::Message;
use agent_client_protocol_schema as official;
use serde::Deserialize;
use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;

/// Base seed of the generated corpus. Change it only together with `differences.md`.
const SEED: u64 = 0x0AC9_2025_0001;
/// Generated instances per method (plain and with deviations).
const PER_METHOD: usize = 16;
/// Mutated instances per method.
const MUTATED_PER_METHOD: usize = 8;
/// Generated `session/update` params per update variant, in addition to the above.
const PER_UPDATE_VARIANT: usize = 12;
/// Mutated `session/update` params per update variant.
const MUTATED_PER_UPDATE_VARIANT: usize = 4;

// ---------------------------------------------------------------------------------------------
// The corpus
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
enum Version {
    V1,
    V2,
}

/// Which routing decoder a message goes to: the sender and the kind of message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Kind {
    /// A request from the client, handled by the agent.
    ClientRequest,
    /// The agent's result for a [`Kind::ClientRequest`].
    AgentResponse,
    /// A request from the agent, handled by the client.
    AgentRequest,
    /// The client's result for a [`Kind::AgentRequest`].
    ClientResponse,
    /// A notification from the client.
    ClientNotification,
    /// A notification from the agent.
    AgentNotification,
    /// `$/cancel_request`, from either side.
    ProtocolNotification,
}

impl Kind {
    const ALL: [Kind; 7] = [
        Kind::ClientRequest,
        Kind::AgentResponse,
        Kind::AgentRequest,
        Kind::ClientResponse,
        Kind::ClientNotification,
        Kind::AgentNotification,
        Kind::ProtocolNotification,
    ];

    /// `x-side` of the reference schema's payload types for this kind, and their name suffix.
    fn reference_side(self) -> (&'static str, &'static str) {
        match self {
            Kind::ClientRequest => ("agent", "Request"),
            Kind::AgentResponse => ("agent", "Response"),
            Kind::AgentRequest => ("client", "Request"),
            Kind::ClientResponse => ("client", "Response"),
            Kind::ClientNotification => ("agent", "Notification"),
            Kind::AgentNotification => ("client", "Notification"),
            Kind::ProtocolNotification => ("protocol", "Notification"),
        }
    }

    fn is_response(self) -> bool {
        matches!(self, Kind::AgentResponse | Kind::ClientResponse)
    }

    fn is_request(self) -> bool {
        matches!(self, Kind::ClientRequest | Kind::AgentRequest)
    }

    /// Our method table for this kind.
    fn our_methods(self, version: Version) -> &'static [&'static str] {
        use acptk_schema::{v1, v2};
        match (version, self) {
            (Version::V1, Kind::ClientRequest | Kind::AgentResponse) => v1::ClientRequest::METHODS,
            (Version::V1, Kind::AgentRequest | Kind::ClientResponse) => v1::AgentRequest::METHODS,
            (Version::V1, Kind::ClientNotification) => v1::ClientNotification::METHODS,
            (Version::V1, Kind::AgentNotification) => v1::AgentNotification::METHODS,
            (Version::V1, Kind::ProtocolNotification) => v1::ProtocolNotification::METHODS,
            (Version::V2, Kind::ClientRequest | Kind::AgentResponse) => v2::ClientRequest::METHODS,
            (Version::V2, Kind::AgentRequest | Kind::ClientResponse) => v2::AgentRequest::METHODS,
            (Version::V2, Kind::ClientNotification) => v2::ClientNotification::METHODS,
            (Version::V2, Kind::AgentNotification) => v2::AgentNotification::METHODS,
            (Version::V2, Kind::ProtocolNotification) => v2::ProtocolNotification::METHODS,
        }
    }
}

/// Where a message of the corpus came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Origin {
    /// `data/edge_cases.jsonl`.
    Hand,
    /// An instance of the reference schema.
    Generated,
    /// A generated instance with one structural change.
    Mutated,
}

/// One message of the corpus.
#[derive(Debug, Clone)]
struct Case {
    version: Version,
    kind: Kind,
    method: String,
    /// The `params` (or `result`) JSON text, exactly as sent.
    payload: String,
    origin: Origin,
    /// What the case is about (hand-written) or how it was made (generated).
    note: String,
}

impl Case {
    /// The whole JSON-RPC line carrying the payload.
    fn line(&self) -> String {
        let method = Value::String(self.method.clone());
        if self.kind.is_response() {
            format!(r#"{{"jsonrpc":"2.0","id":7,"result":{}}}"#, self.payload)
        } else if self.kind.is_request() {
            format!(
                r#"{{"jsonrpc":"2.0","id":7,"method":{method},"params":{}}}"#,
                self.payload
            )
        } else {
            format!(
                r#"{{"jsonrpc":"2.0","method":{method},"params":{}}}"#,
                self.payload
            )
        }
    }

    /// The `sessionUpdate` tag of a `session/update` payload, when there is one.
    fn update_tag(&self) -> Option<String> {
        if self.method != "session/update" {
            return None;
        }
        let payload: Value = serde_json::from_str(&self.payload).ok()?;
        Some(match payload.get("update")?.get("sessionUpdate")? {
            Value::String(tag) => tag.clone(),
            other => format!("<{other}>"),
        })
    }

    fn payload_value(&self) -> Value {
        serde_json::from_str(&self.payload).unwrap_or(Value::Null)
    }
}

impl fmt::Display for Case {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:?} {:?} `{}` ({:?}: {})\n      payload: {}",
            self.version, self.kind, self.method, self.origin, self.note, self.payload
        )
    }
}

#[path = "differential/corpus.rs"]
mod corpus;
use corpus::{generated, hand_written, read_reference};

/// What a decoder made of a message.
#[derive(Debug, Clone, PartialEq)]
enum Verdict {
    /// Decoded; the value re-encoded as this JSON.
    Accept(Value),
    /// Not decoded, with the error message.
    Reject(String),
}

impl Verdict {
    fn accepted(&self) -> Option<&Value> {
        match self {
            Verdict::Accept(value) => Some(value),
            Verdict::Reject(_) => None,
        }
    }

    fn rejected(&self) -> Option<&str> {
        match self {
            Verdict::Accept(_) => None,
            Verdict::Reject(message) => Some(message),
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Verdict::Accept(value) => write!(f, "accept {value}"),
            Verdict::Reject(message) => write!(f, "reject: {message}"),
        }
    }
}

fn verdict<T: Serialize, E: fmt::Display>(result: Result<T, E>) -> Verdict {
    match result {
        Ok(value) => match serde_json::to_value(&value) {
            Ok(json) => Verdict::Accept(json),
            Err(error) => Verdict::Reject(format!("decoded, but re-encoding failed: {error}")),
        },
        Err(error) => Verdict::Reject(error.to_string()),
    }
}

/// Our verdict: parse the line as a JSON-RPC message, then route it by method.
fn ours(case: &Case) -> Verdict {
    use acptk_schema::{v1, v2};
    let message = match case.line().parse::<Message>() {
        Ok(message) => message,
        Err(error) => return Verdict::Reject(format!("envelope: {error}")),
    };
    let method = case.method.as_str();
    let (params, result) = match &message {
        Message::Request(request) => (request.params.as_deref(), None),
        Message::Notification(notification) => (notification.params.as_deref(), None),
        Message::Response(response) => match &response.result {
            Ok(result) => (None, Some(&**result)),
            Err(error) => return Verdict::Reject(format!("error response: {error}")),
        },
        _ => return Verdict::Reject("unexpected message kind".to_owned()),
    };
    let result = || result.unwrap_or(RawValue::NULL);
    match (case.version, case.kind) {
        (Version::V1, Kind::ClientRequest) => verdict(v1::ClientRequest::decode(method, params)),
        (Version::V1, Kind::AgentResponse) => verdict(v1::AgentResponse::decode(method, result())),
        (Version::V1, Kind::AgentRequest) => verdict(v1::AgentRequest::decode(method, params)),
        (Version::V1, Kind::ClientResponse) => {
            verdict(v1::ClientResponse::decode(method, result()))
        }
        (Version::V1, Kind::ClientNotification) => {
            verdict(v1::ClientNotification::decode(method, params))
        }
        (Version::V1, Kind::AgentNotification) => {
            verdict(v1::AgentNotification::decode(method, params))
        }
        (Version::V1, Kind::ProtocolNotification) => {
            verdict(v1::ProtocolNotification::decode(method, params))
        }
        (Version::V2, Kind::ClientRequest) => verdict(v2::ClientRequest::decode(method, params)),
        (Version::V2, Kind::AgentResponse) => verdict(v2::AgentResponse::decode(method, result())),
        (Version::V2, Kind::AgentRequest) => verdict(v2::AgentRequest::decode(method, params)),
        (Version::V2, Kind::ClientResponse) => {
            verdict(v2::ClientResponse::decode(method, result()))
        }
        (Version::V2, Kind::ClientNotification) => {
            verdict(v2::ClientNotification::decode(method, params))
        }
        (Version::V2, Kind::AgentNotification) => {
            verdict(v2::AgentNotification::decode(method, params))
        }
        (Version::V2, Kind::ProtocolNotification) => {
            verdict(v2::ProtocolNotification::decode(method, params))
        }
    }
}

/// The official verdict: parse the line as JSON, then use the official method-aware decoders
/// (`from_method_and_params` / `from_method_and_result`).
fn theirs(case: &Case) -> Verdict {
    use official::{v1, v2};
    let envelope: Value = match serde_json::from_str(&case.line()) {
        Ok(envelope) => envelope,
        Err(error) => return Verdict::Reject(format!("envelope: {error}")),
    };
    let key = if case.kind.is_response() {
        "result"
    } else {
        "params"
    };
    let payload = envelope.get(key).cloned().unwrap_or(Value::Null);
    let method = case.method.as_str();
    match (case.version, case.kind) {
        (Version::V1, Kind::ClientRequest) => {
            verdict(v1::ClientRequest::from_method_and_params(method, &payload))
        }
        (Version::V1, Kind::AgentResponse) => {
            verdict(v1::AgentResponse::from_method_and_result(method, payload))
        }
        (Version::V1, Kind::AgentRequest) => {
            verdict(v1::AgentRequest::from_method_and_params(method, &payload))
        }
        (Version::V1, Kind::ClientResponse) => {
            verdict(v1::ClientResponse::from_method_and_result(method, payload))
        }
        (Version::V1, Kind::ClientNotification) => verdict(
            v1::ClientNotification::from_method_and_params(method, &payload),
        ),
        (Version::V1, Kind::AgentNotification) => verdict(
            v1::AgentNotification::from_method_and_params(method, &payload),
        ),
        (Version::V1, Kind::ProtocolNotification) => verdict(
            v1::ProtocolLevelNotification::from_method_and_params(method, &payload),
        ),
        (Version::V2, Kind::ClientRequest) => {
            verdict(v2::ClientRequest::from_method_and_params(method, &payload))
        }
        (Version::V2, Kind::AgentResponse) => {
            verdict(v2::AgentResponse::from_method_and_result(method, payload))
        }
        (Version::V2, Kind::AgentRequest) => {
            verdict(v2::AgentRequest::from_method_and_params(method, &payload))
        }
        (Version::V2, Kind::ClientResponse) => {
            verdict(v2::ClientResponse::from_method_and_result(method, payload))
        }
        (Version::V2, Kind::ClientNotification) => verdict(
            v2::ClientNotification::from_method_and_params(method, &payload),
        ),
        (Version::V2, Kind::AgentNotification) => verdict(
            v2::AgentNotification::from_method_and_params(method, &payload),
        ),
        (Version::V2, Kind::ProtocolNotification) => verdict(
            v2::ProtocolLevelNotification::from_method_and_params(method, &payload),
        ),
    }
}

// ---------------------------------------------------------------------------------------------
// Comparing re-encoded JSON
// ---------------------------------------------------------------------------------------------

/// One place where two JSON values differ.
#[derive(Debug, Clone, PartialEq)]
struct Delta {
    /// JSON pointer of the place (array indices kept).
    pointer: String,
    /// Our value there (`None`: absent).
    ours: Option<Value>,
    /// The official value there (`None`: absent).
    theirs: Option<Value>,
}

impl Delta {
    /// The pointer with array indices replaced by `*`, for grouping.
    fn shape(&self) -> String {
        self.pointer
            .split('/')
            .map(|part| {
                if part.parse::<usize>().is_ok() {
                    "*"
                } else {
                    part
                }
            })
            .collect::<Vec<_>>()
            .join("/")
    }

    /// The last property name of the pointer.
    fn field(&self) -> &str {
        self.pointer.rsplit('/').next().unwrap_or("")
    }

    fn describe(&self) -> String {
        let show = |value: &Option<Value>| match value {
            None => "absent".to_owned(),
            Some(Value::Null) => "null".to_owned(),
            Some(value) => kind_name(value).to_owned(),
        };
        format!(
            "{}: ours {} / official {}",
            self.shape(),
            show(&self.ours),
            show(&self.theirs)
        )
    }
}

fn kind_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Every place where `ours` and `theirs` differ (objects compared by key, arrays by index).
fn deltas(ours: &Value, theirs: &Value) -> Vec<Delta> {
    fn walk(pointer: String, ours: Option<&Value>, theirs: Option<&Value>, out: &mut Vec<Delta>) {
        match (ours, theirs) {
            (Some(Value::Object(a)), Some(Value::Object(b))) => {
                let keys: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
                for key in keys {
                    walk(format!("{pointer}/{key}"), a.get(key), b.get(key), out);
                }
            }
            (Some(Value::Array(a)), Some(Value::Array(b))) if a.len() == b.len() => {
                for (index, (x, y)) in a.iter().zip(b).enumerate() {
                    walk(format!("{pointer}/{index}"), Some(x), Some(y), out);
                }
            }
            (a, b) if a == b => {}
            (a, b) => out.push(Delta {
                pointer,
                ours: a.cloned(),
                theirs: b.cloned(),
            }),
        }
    }
    let mut out = Vec::new();
    walk(String::new(), Some(ours), Some(theirs), &mut out);
    out
}

/// A short description of a disagreement, to group unlisted ones.
fn signature(case: &Case, ours: &Verdict, theirs: &Verdict) -> String {
    let prefix = format!("{:?} {:?} {}", case.version, case.kind, case.method);
    match (ours, theirs) {
        (Verdict::Accept(a), Verdict::Accept(b)) => {
            let mut parts: Vec<String> = deltas(a, b).iter().map(Delta::describe).collect();
            parts.dedup();
            format!("{prefix}: both accept, JSON differs: {}", parts.join("; "))
        }
        (Verdict::Reject(_), Verdict::Accept(_)) => format!("{prefix}: only official accepts"),
        (Verdict::Accept(_), Verdict::Reject(_)) => format!("{prefix}: only ours accepts"),
        (Verdict::Reject(_), Verdict::Reject(_)) => format!("{prefix}: agree"),
    }
}

// ---------------------------------------------------------------------------------------------
// Listed differences (each explained in differences.md)
// ---------------------------------------------------------------------------------------------

#[path = "differential/known.rs"]
mod known;
use known::KNOWN_DIFFERENCES;

/// What the unstable surface adds to the stable one in a version: the methods (with the kind of
/// each payload: params and, for requests, the result) and the session update tags.
type Additions = (Version, Vec<(Kind, String)>, BTreeSet<String>);

/// The [`Additions`] of both versions.
fn unstable_additions() -> Vec<Additions> {
    fn methods(file: &str, group: &str) -> BTreeSet<String> {
        read_reference(file)[group]
            .as_object()
            .unwrap()
            .values()
            .filter_map(|method| method.as_str().map(str::to_owned))
            .collect()
    }
    fn update_tags(file: &str) -> BTreeSet<String> {
        let schema = read_reference(file);
        let update = &schema["$defs"]["SessionUpdate"];
        update
            .get("oneOf")
            .or(update.get("anyOf"))
            .and_then(Value::as_array)
            .unwrap()
            .iter()
            .filter_map(|a| a["properties"]["sessionUpdate"]["const"].as_str())
            .map(str::to_owned)
            .collect()
    }
    [(Version::V1, 1), (Version::V2, 2)]
        .into_iter()
        .map(|(version, number)| {
            let mut added = Vec::new();
            for kind in Kind::ALL {
                let (side, _) = kind.reference_side();
                let group = match side {
                    "agent" => "agentMethods",
                    "client" => "clientMethods",
                    _ => "protocolMethods",
                };
                let stable = methods(&format!("acp-v{number}.methods.json"), group);
                for method in kind.our_methods(version) {
                    if !stable.contains(*method) {
                        added.push((kind, (*method).to_owned()));
                    }
                }
            }
            let stable_tags = update_tags(&format!("acp-v{number}.schema.json"));
            let tags = update_tags(&format!("acp-v{number}.unstable.schema.json"))
                .difference(&stable_tags)
                .cloned()
                .collect();
            (version, added, tags)
        })
        .collect()
}

#[derive(Default)]
struct Tally {
    messages: usize,
    both_accept: usize,
    both_reject: usize,
}

#[test]
fn both_crates_agree_on_the_corpus() {
    let schemas = [
        (
            Version::V1,
            read_reference("acp-v1.unstable.schema.json"),
            read_reference("acp-v1.unstable.methods.json"),
        ),
        (
            Version::V2,
            read_reference("acp-v2.unstable.schema.json"),
            read_reference("acp-v2.unstable.methods.json"),
        ),
    ];

    // Our method tables cover exactly the reference method lists.
    for (version, _, methods) in &schemas {
        let mut reference: BTreeSet<&str> = BTreeSet::new();
        for group in ["agentMethods", "clientMethods", "protocolMethods"] {
            reference.extend(
                methods[group]
                    .as_object()
                    .unwrap()
                    .values()
                    .filter_map(Value::as_str),
            );
        }
        let ours: BTreeSet<&str> = Kind::ALL
            .iter()
            .flat_map(|kind| kind.our_methods(*version))
            .copied()
            .collect();
        assert_eq!(
            ours, reference,
            "{version:?}: our method tables vs the reference method list"
        );
    }

    let mut corpus = hand_written();
    for (offset, (version, schema, _)) in schemas.iter().enumerate() {
        corpus.extend(generated(*version, schema, SEED + offset as u64));
    }
    assert!(
        corpus.len() >= 2_000,
        "the corpus has only {} messages",
        corpus.len()
    );

    let doc = include_str!("differences.md");
    for known in KNOWN_DIFFERENCES {
        assert!(
            doc.contains(&format!("## {}:", known.id)),
            "{} is in the test's table but has no `## {}:` section in differences.md",
            known.id,
            known.id
        );
    }
    let documented = doc.lines().filter(|line| line.starts_with("## D")).count();
    assert_eq!(
        documented,
        KNOWN_DIFFERENCES.len(),
        "differences.md and the table disagree"
    );

    let verbose = std::env::var_os("ACP_DIFF_VERBOSE").is_some();
    let mut per_method: BTreeMap<(Version, Kind, String), Tally> = BTreeMap::new();
    let mut per_update: BTreeMap<(Version, String), usize> = BTreeMap::new();
    let mut per_origin: BTreeMap<Origin, usize> = BTreeMap::new();
    let mut listed: BTreeMap<&str, Vec<&Case>> = BTreeMap::new();
    let mut unlisted: Vec<(&Case, Verdict, Verdict)> = Vec::new();
    for case in &corpus {
        let our = ours(case);
        let their = theirs(case);
        let tally = per_method
            .entry((case.version, case.kind, case.method.clone()))
            .or_default();
        tally.messages += 1;
        *per_origin.entry(case.origin).or_default() += 1;
        if let Some(tag) = case.update_tag() {
            *per_update.entry((case.version, tag)).or_default() += 1;
        }
        if verbose && case.origin == Origin::Hand {
            println!("{case}\n      ours:     {our}\n      official: {their}");
        }
        match (&our, &their) {
            (Verdict::Accept(a), Verdict::Accept(b)) if a == b => tally.both_accept += 1,
            (Verdict::Reject(_), Verdict::Reject(_)) => tally.both_reject += 1,
            _ => match KNOWN_DIFFERENCES
                .iter()
                .find(|known| (known.applies)(case, &our, &their))
            {
                Some(known) => listed.entry(known.id).or_default().push(case),
                None => unlisted.push((case, our, their)),
            },
        }
    }

    // Summary.
    println!(
        "differential corpus: {} messages {per_origin:?}",
        corpus.len()
    );
    println!(
        "{:<4} {:<22} {:<28} {:>6} {:>7} {:>7} {:>5}",
        "ver", "kind", "method", "msgs", "acc=", "rej=", "diff"
    );
    let (mut accepted, mut rejected) = (0, 0);
    for ((version, kind, method), tally) in &per_method {
        let differ = tally.messages - tally.both_accept - tally.both_reject;
        println!(
            "{:<4} {:<22} {:<28} {:>6} {:>7} {:>7} {:>5}",
            format!("{version:?}"),
            format!("{kind:?}"),
            method,
            tally.messages,
            tally.both_accept,
            tally.both_reject,
            differ
        );
        accepted += tally.both_accept;
        rejected += tally.both_reject;
    }
    println!("session/update variants:");
    for ((version, tag), count) in &per_update {
        println!("  {version:?} {tag:<32} {count:>5}");
    }
    println!(
        "agreements: {} ({accepted} both accept with equal JSON, {rejected} both reject)",
        accepted + rejected
    );
    for (id, cases) in &listed {
        println!("listed difference {id}: {} messages", cases.len());
        if verbose {
            for case in cases {
                println!("    {case}");
            }
        }
    }
    println!("unlisted differences: {}", unlisted.len());

    // Every session update variant of the reference schemas is in the corpus.
    for (version, schema, _) in &schemas {
        let update = &schema["$defs"]["SessionUpdate"];
        let alternatives = update
            .get("oneOf")
            .or(update.get("anyOf"))
            .unwrap()
            .as_array()
            .unwrap();
        for tag in alternatives
            .iter()
            .filter_map(|a| a["properties"]["sessionUpdate"]["const"].as_str())
        {
            assert!(
                per_update.contains_key(&(*version, tag.to_owned())),
                "{version:?}: no `{tag}` update"
            );
        }
    }

    // Every method and session update that only the unstable surface has is in the corpus,
    // hand-written and generated (a method as params and as result, where it has one).
    for (version, new_methods, new_updates) in unstable_additions() {
        for (kind, method) in &new_methods {
            for origin in [Origin::Hand, Origin::Generated] {
                assert!(
                    corpus.iter().any(|case| case.version == version
                        && case.kind == *kind
                        && case.method == *method
                        && case.origin == origin),
                    "{version:?}: no {origin:?} case of {kind:?} `{method}`"
                );
            }
        }
        for tag in &new_updates {
            for origin in [Origin::Hand, Origin::Generated] {
                assert!(
                    corpus.iter().any(|case| case.version == version
                        && case.origin == origin
                        && case.update_tag().as_deref() == Some(tag.as_str())),
                    "{version:?}: no {origin:?} `{tag}` update"
                );
            }
        }
    }

    let mut groups: BTreeMap<String, (usize, &Case)> = BTreeMap::new();
    for (case, our, their) in &unlisted {
        groups
            .entry(signature(case, our, their))
            .or_insert((0, case))
            .0 += 1;
    }
    for (signature, (count, case)) in &groups {
        println!("UNLISTED x{count}: {signature}\n    e.g. {}", case.payload);
    }

    let mut failures = String::new();
    for (case, our, their) in unlisted.iter().take(40) {
        failures.push_str(&format!(
            "\n  {case}\n      ours:     {our}\n      official: {their}\n"
        ));
    }
    assert!(
        unlisted.is_empty(),
        "{} disagreements not listed in differences.md (first 40):{failures}",
        unlisted.len()
    );
    for known in KNOWN_DIFFERENCES {
        assert!(
            listed.contains_key(known.id),
            "listed difference {} no longer occurs: remove it from the table and differences.md",
            known.id
        );
    }
}
