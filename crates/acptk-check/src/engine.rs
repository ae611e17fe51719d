//! The checker: one connection's protocol state, fed one message at a time.
//!
//! [`Checker::observe`] takes a message line and its sender, updates the state (negotiated
//! version, client capabilities, requests in flight, replay windows) and returns the findings
//! for that line, plus what it saw of a notice so that the proxy can repair it.

use acptk_schema::jsonrpc::{Id, Message, Notification, Request, Response};

use crate::decode::{self, Facts, NoticeView, UpdateKind, Version, one_pass};
use crate::finding::{Finding, Rule, quote};
use crate::peek;
use crate::replay::{Replay, UpdateClass, Verdict, Windows};
use crate::state::{PendingKind, Requests, ToolCalls};
use crate::transcript::{Entry, Side};

/// What the checker saw in one line.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct Observation {
    /// The sender: as given, or as inferred. `None` when the line was not a message.
    pub side: Option<Side>,
    /// The findings of this line, in the order they were found.
    pub findings: Vec<Finding>,
    /// A `notice` session update from the agent, with the rules' verdict.
    pub notice: Option<NoticeEvent>,
    /// The line is JSON (even if not a valid message).
    pub json: bool,
}

/// A `notice` session update the agent sent, and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct NoticeEvent {
    /// The session it was sent to, when readable.
    pub session: Option<String>,
    /// The notice, or `None` when it did not decode (`malformed-notice`).
    pub notice: Option<NoticeView>,
    /// Sent to a v1 client that did not advertise `session.notices`.
    pub without_capability: bool,
    /// Certainly sent inside a replay of its session (see [`crate::replay`]): the proxy
    /// removes it.
    pub in_replay: bool,
    /// Sent while a replay of its session was open, but possibly live: the proxy treats it as
    /// live.
    pub replay_uncertain: bool,
}

/// The protocol state of one connection, and the rules applied to each message.
///
/// Feed it each line as it passes, with its sender (as `acp proxy` does); a whole transcript
/// goes through [`check()`](crate::check()) instead. Here a v1 client advertises notices and
/// loads a session; the agent replays the session's history and sends a notice before it
/// answers the load, so inside the replay (see [`crate::replay`] for when that is certain):
///
/// ```
/// use acptk_check::{Checker, Rule, Side};
///
/// let mut checker = Checker::new();
/// let traffic = [
///     (Side::Client, r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"session":{"notices":{}}}}}"#),
///     (Side::Agent, r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{"loadSession":true}}}"#),
///     (Side::Client, r#"{"jsonrpc":"2.0","id":1,"method":"session/load","params":{"sessionId":"s1","cwd":"/work","mcpServers":[]}}"#),
///     (Side::Agent, r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"hello"}}}}"#),
///     (Side::Agent, r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"notice","severity":"info","title":"Indexing"}}}"#),
///     (Side::Agent, r#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
/// ];
/// let mut observed = Vec::new();
/// for (line, (side, text)) in (1..).zip(traffic) {
///     observed.push(checker.observe(line, Some(side), text));
/// }
/// assert_eq!(checker.client_advertises_notices(), Some(true));
///
/// let notice = observed[4].notice.as_ref().expect("a notice event");
/// assert!(notice.in_replay && !notice.without_capability);
/// assert_eq!(notice.notice.as_ref().map(|view| view.title.as_str()), Some("Indexing"));
/// let rules: Vec<Rule> = observed[4].findings.iter().map(|finding| finding.rule).collect();
/// assert_eq!(rules, [Rule::NoticeInReplay]);
/// assert!(observed[5].findings.is_empty());
/// ```
#[derive(Debug, Default)]
pub struct Checker {
    /// The version the client proposed in `initialize`.
    proposed: Option<Version>,
    /// The version the agent answered.
    negotiated: Option<Version>,
    /// Whether the client advertised `session.notices` (read as v1); `None` before
    /// `initialize`.
    notices: Option<bool>,
    requests: Requests,
    windows: Windows,
    /// The tool call ids each session announced.
    tool_calls: ToolCalls,
    /// The note about inferred senders was given.
    told_inferred: bool,
    /// The note about an assumed version was given.
    told_assumed: bool,
}

impl Checker {
    /// A checker for a connection that has not started yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// The version messages are decoded with now: the negotiated one, else the one the client
    /// proposed; `None` before `initialize`.
    pub fn version(&self) -> Option<Version> {
        self.negotiated.or(self.proposed)
    }

    /// Whether the client advertised `session.notices` (as v1 reads it); `None` before
    /// `initialize`.
    pub fn client_advertises_notices(&self) -> Option<bool> {
        self.notices
    }

    /// Observes one transcript entry at `line`.
    pub fn observe_entry(&mut self, line: u64, entry: &Entry<'_>) -> Observation {
        match entry {
            Entry::Message { from, text } => self.observe(line, *from, text),
            Entry::NotJson { from, text } => self.observe(line, Some(*from), text),
            Entry::TooLong { from, limit } => Observation {
                side: Some(*from),
                findings: vec![too_long(line, *limit)],
                ..Observation::default()
            },
            // A new run: the caller starts a fresh checker (see `check`).
            Entry::Header(_) => Observation::default(),
            Entry::Invalid { reason } => Observation {
                findings: vec![Finding::new(line, Rule::InvalidMessage, reason.as_str())],
                json: true,
                ..Observation::default()
            },
        }
    }

    /// Observes one message line (without its line break) sent by `from`; with `None` the
    /// sender is inferred from the method tables and request ids.
    pub fn observe(&mut self, line: u64, from: Option<Side>, text: &str) -> Observation {
        let mut obs = Observation::default();
        // The hot path: a plain, valid notification decodes in one pass (see `one_pass`).
        if let (Some(side), Some(version)) = (from, self.version())
            && let Some(facts) = one_pass::notification(text, version, side)
        {
            obs.json = true;
            obs.side = Some(side);
            self.on_notification_facts(line, version, facts, &mut obs);
            return obs;
        }
        let message = match text.parse::<Message>() {
            Ok(message) => message,
            Err(error) => {
                obs.side = from;
                obs.json = error.is_data();
                let what = if obs.json {
                    "not a JSON-RPC 2.0 message"
                } else {
                    "not JSON"
                };
                obs.findings.push(Finding::new(
                    line,
                    Rule::InvalidMessage,
                    format!("{what}: {}", without_position(&error.to_string())),
                ));
                return obs;
            }
        };
        obs.json = true;
        let side = match from {
            Some(side) => side,
            None => self.infer(line, &message, &mut obs.findings),
        };
        obs.side = Some(side);
        match message {
            Message::Request(request) => self.on_request(line, side, request, &mut obs),
            Message::Notification(notification) => {
                self.on_notification(line, side, notification, &mut obs);
            }
            Message::Response(response) => self.on_response(line, side, response, &mut obs),
            _ => {}
        }
        obs
    }

    /// The version to decode with, noting once when it has to be assumed.
    fn decoding_version(&mut self, line: u64, findings: &mut Vec<Finding>) -> Version {
        if let Some(version) = self.version() {
            return version;
        }
        if !self.told_assumed {
            self.told_assumed = true;
            findings.push(Finding::new(
                line,
                Rule::AssumedVersion,
                "no `initialize` before this message: decoding as ACP v1, client capabilities unknown",
            ));
        }
        Version::V1
    }

    fn on_request(&mut self, line: u64, side: Side, request: Request, obs: &mut Observation) {
        let params = request.params.as_deref();
        let initialize = side == Side::Client && request.method == "initialize";
        let version = if initialize {
            Version::for_number(peek::protocol_version(params).unwrap_or(1))
        } else {
            self.decoding_version(line, &mut obs.findings)
        };
        let mut kind = if initialize {
            PendingKind::Initialize
        } else {
            PendingKind::Plain
        };
        let decoded = version.request(side, &request.method, params);
        let decodable = !matches!(decoded, Err(acptk_schema::Error::UnknownMethod { .. }));
        let mut opens = None;
        let mut turn = false;
        match decoded {
            Ok(Facts::Initialize { notices, .. }) => {
                self.proposed = Some(version);
                self.notices = Some(match version {
                    Version::V1 => notices,
                    _ => decode::v1_advertises_notices(params),
                });
            }
            Ok(Facts::Load { session }) if version == Version::V1 => {
                // The replay announces the session's tool calls again, from the start.
                self.tool_calls.forget(&session);
                opens = Some(Replay::Load);
            }
            Ok(Facts::Resume { replay: true, .. }) => opens = Some(Replay::Resume),
            Ok(Facts::Prompt) => turn = true,
            Ok(_) => {}
            Err(error) => {
                if initialize {
                    // A broken `initialize` still tells which version the client speaks.
                    self.proposed = Some(version);
                    self.notices = Some(decode::v1_advertises_notices(params));
                }
                self.report(line, version, side, &request.method, true, error, obs);
            }
        }
        // Every client request naming a session counts for that session's replay windows.
        if side == Side::Client
            && !initialize
            && let Some(session) = peek::session_id(params)
            && let Some(ticket) = self.windows.request(&session, opens, turn)
        {
            kind = PendingKind::Session(ticket);
        }
        self.requests
            .insert(side, request.id, &request.method, decodable, kind);
    }

    fn on_notification(
        &mut self,
        line: u64,
        side: Side,
        notification: Notification,
        obs: &mut Observation,
    ) {
        let version = self.decoding_version(line, &mut obs.findings);
        let params = notification.params.as_deref();
        match version.notification(side, &notification.method, params) {
            Ok(facts) => self.on_notification_facts(line, version, facts, obs),
            Err(error) => {
                let raw = (side == Side::Agent && notification.method == "session/update")
                    .then(|| peek::raw_notice(params))
                    .flatten();
                match raw {
                    Some(raw) => {
                        let reason = raw
                            .problem
                            .unwrap_or_else(|| without_position(&error.to_string()));
                        obs.findings
                            .push(Finding::new(line, Rule::MalformedNotice, reason));
                        self.notice(line, version, raw.session, None, obs);
                    }
                    None => {
                        self.report(line, version, side, &notification.method, false, error, obs)
                    }
                }
            }
        }
    }

    /// Applies what a valid notification says.
    fn on_notification_facts(
        &mut self,
        line: u64,
        version: Version,
        facts: Facts,
        obs: &mut Observation,
    ) {
        if let Facts::Update { session, kind } = facts {
            match kind {
                UpdateKind::Notice(notice) => {
                    self.notice(line, version, Some(session), Some(notice), obs);
                }
                UpdateKind::ToolCall { id } => {
                    self.windows.update(&session, UpdateClass::History);
                    if !self.tool_calls.announce(&session, &id) {
                        obs.findings.push(Finding::new(
                            line,
                            Rule::DuplicateToolCallId,
                            format!(
                                "`tool_call` announces `{id}`, a tool call id session `{session}` already announced; give every tool call an id of its own"
                            ),
                        ));
                    }
                }
                UpdateKind::Plain(class) => self.windows.update(&session, class),
            }
        }
    }

    fn on_response(&mut self, line: u64, side: Side, response: Response, obs: &mut Observation) {
        let Some(pending) = self.requests.take(side.peer(), &response.id) else {
            if !(response.id == Id::Null && response.result.is_err()) {
                obs.findings.push(Finding::new(
                    line,
                    Rule::UnmatchedResponse,
                    format!(
                        "response to id {}, but no request with that id from the {} is in flight",
                        quote_id(&response.id),
                        side.peer()
                    ),
                ));
            }
            return;
        };
        let version = match (&pending.kind, &response.result) {
            (PendingKind::Initialize, Ok(result)) => {
                Version::for_number(peek::protocol_version(Some(result)).unwrap_or(1))
            }
            _ => self.decoding_version(line, &mut obs.findings),
        };
        if let PendingKind::Session(ticket) = &pending.kind {
            self.windows.response(ticket);
        }
        let Ok(result) = &response.result else {
            return;
        };
        if !pending.decodable {
            return;
        }
        match version.response(side, &pending.method, result) {
            Ok(Facts::Initialized { version: number }) => {
                self.negotiated = Some(version);
                if number != version.number() {
                    obs.findings.push(Finding::new(
                        line,
                        Rule::AssumedVersion,
                        format!(
                            "the agent answered protocol version {number}, which this checker does not know: decoding as ACP v{}",
                            version.number()
                        ),
                    ));
                }
                if version == Version::V1 && self.proposed != Some(Version::V1) {
                    self.proposed = Some(Version::V1);
                }
            }
            Ok(_) => {}
            Err(error) => obs.findings.push(Finding::new(
                line,
                Rule::InvalidMessage,
                format!(
                    "result of `{}`: {}",
                    pending.method,
                    without_position(&error.to_string())
                ),
            )),
        }
    }

    /// Applies the notice rules to a notice the agent sent to `session`.
    fn notice(
        &mut self,
        line: u64,
        version: Version,
        session: Option<String>,
        notice: Option<NoticeView>,
        obs: &mut Observation,
    ) {
        // How findings name the notice and its session: only worded when there is a finding
        // (a clean notice, the usual case, needs neither).
        let name = || {
            notice.as_ref().map_or_else(
                || "malformed notice".to_owned(),
                |n| format!("notice {}", quote(&n.title)),
            )
        };
        let shown = || session.as_deref().map(quote).unwrap_or_default();
        if let Some(view) = notice.as_ref().filter(|n| n.reserved) {
            obs.findings.push(Finding::new(
                line,
                Rule::ReservedSeverity,
                format!(
                    "{} has severity {}, which is reserved for future ACP versions (known: info, warning, error; extensions start with `_`)",
                    name(),
                    quote(&view.severity)
                ),
            ));
        }
        let without_capability = version == Version::V1 && self.notices == Some(false);
        if without_capability {
            obs.findings.push(Finding::new(
                line,
                Rule::NoticeWithoutCapability,
                format!(
                    "{} sent to a v1 client that did not advertise `session.notices`",
                    name()
                ),
            ));
        }
        let verdict = session
            .as_deref()
            .map_or(Verdict::Live, |s| self.windows.judge(s));
        match verdict {
            Verdict::Live => {}
            Verdict::Replayed(replay) => {
                let until = match replay {
                    Replay::Load => "before the `session/load` response",
                    Replay::Resume => "before `replay_complete`",
                };
                obs.findings.push(Finding::new(
                    line,
                    Rule::NoticeInReplay,
                    format!(
                        "{} inside the replay of session {} ({until}): notices are never history",
                        name(),
                        shown()
                    ),
                ));
            }
            Verdict::Uncertain(doubt) => obs.findings.push(Finding::new(
                line,
                Rule::NoticeReplayUncertain,
                format!(
                    "{} while a replay of session {} was open, but {}: taken as live",
                    name(),
                    shown(),
                    doubt.reason()
                ),
            )),
        }
        obs.notice = Some(NoticeEvent {
            session,
            notice,
            without_capability,
            in_replay: matches!(verdict, Verdict::Replayed(_)),
            replay_uncertain: matches!(verdict, Verdict::Uncertain(_)),
        });
    }

    /// Reports a message that did not decode for its method.
    #[allow(clippy::too_many_arguments)]
    fn report(
        &self,
        line: u64,
        version: Version,
        side: Side,
        method: &str,
        request: bool,
        error: acptk_schema::Error,
        obs: &mut Observation,
    ) {
        let finding = match error {
            acptk_schema::Error::UnknownMethod { .. } => {
                unknown_method(line, version, side, method, request)
            }
            other => Finding::new(
                line,
                Rule::InvalidMessage,
                without_position(&other.to_string()),
            ),
        };
        obs.findings.push(finding);
    }

    /// Infers the sender of a bare line.
    fn infer(&mut self, line: u64, message: &Message, findings: &mut Vec<Finding>) -> Side {
        if !self.told_inferred {
            self.told_inferred = true;
            findings.push(Finding::new(
                line,
                Rule::InferredDirection,
                "bare JSON-RPC lines (no `from`): senders inferred from the method tables and request ids",
            ));
        }
        let version = self.version().unwrap_or(Version::V1);
        let guess = |findings: &mut Vec<Finding>, what: String, side: Side| {
            findings.push(Finding::new(
                line,
                Rule::InferredDirection,
                format!("could not tell who sent {what}: assumed the {side}"),
            ));
            side
        };
        match message {
            Message::Response(response) => {
                let id = &response.id;
                match (
                    self.requests.seq(Side::Client, id),
                    self.requests.seq(Side::Agent, id),
                ) {
                    (Some(_), None) => Side::Agent,
                    (None, Some(_)) => Side::Client,
                    (Some(client), Some(agent)) => {
                        let side = if client > agent {
                            Side::Agent
                        } else {
                            Side::Client
                        };
                        guess(
                            findings,
                            format!(
                                "the response to id {} (both sides have such a request in flight)",
                                quote_id(id)
                            ),
                            side,
                        )
                    }
                    (None, None) => guess(
                        findings,
                        format!("the response to id {}", quote_id(id)),
                        Side::Agent,
                    ),
                }
            }
            other => {
                let method = other.method().unwrap_or_default();
                let other_version = match version {
                    Version::V1 => Version::V2,
                    _ => Version::V1,
                };
                let role = version.role(method).or_else(|| other_version.role(method));
                match role.map(|role| role.sender) {
                    Some(Some(side)) => side,
                    Some(None) => {
                        let cancelled = match other {
                            Message::Notification(n) => peek::cancelled_id(n.params.as_deref()),
                            _ => None,
                        };
                        let owner = cancelled.as_ref().map(|id| {
                            (
                                self.requests.seq(Side::Client, id),
                                self.requests.seq(Side::Agent, id),
                            )
                        });
                        match owner {
                            Some((Some(_), None)) => Side::Client,
                            Some((None, Some(_))) => Side::Agent,
                            _ => guess(findings, format!("`{method}`"), Side::Client),
                        }
                    }
                    None => guess(findings, quote_method(method), Side::Client),
                }
            }
        }
    }
}

/// The finding for a method this side does not send in `version`.
fn unknown_method(line: u64, version: Version, side: Side, method: &str, request: bool) -> Finding {
    let v = version.number();
    let shown = quote_method(method);
    match version.role(method) {
        Some(role) if role.sender.is_some_and(|s| s != side) => Finding::new(
            line,
            Rule::UnknownMethod,
            format!(
                "{shown} is sent by the {} in ACP v{v}, not by the {side}",
                side.peer()
            ),
        ),
        Some(role) if role.request != request => {
            let (is, came) = if role.request {
                ("a request", "a notification (no id)")
            } else {
                ("a notification", "a request (with an id)")
            };
            Finding::new(
                line,
                Rule::InvalidMessage,
                format!("{shown} is {is} in ACP v{v}, but came as {came}"),
            )
        }
        _ => {
            let other = match version {
                Version::V1 => Version::V2,
                _ => Version::V1,
            };
            let hint = if other.role(method).is_some() {
                format!(" (it is an ACP v{} method)", other.number())
            } else {
                String::new()
            };
            Finding::new(
                line,
                Rule::UnknownMethod,
                format!("{shown} is not an ACP v{v} method{hint}"),
            )
        }
    }
}

/// A finding for a line longer than `limit` bytes.
pub(crate) fn too_long(line: u64, limit: u64) -> Finding {
    Finding::new(
        line,
        Rule::LineTooLong,
        format!("line longer than {limit} bytes: not checked"),
    )
}

fn quote_method(method: &str) -> String {
    let quoted = quote(method);
    // Plain method names read better in backticks; odd ones keep their escapes.
    if quoted.len() == method.len() + 2 && !quoted.ends_with("...") {
        format!("`{method}`")
    } else {
        quoted
    }
}

fn quote_id(id: &Id) -> String {
    match id {
        Id::Str(s) => quote(s),
        other => other.to_string(),
    }
}

/// A decoder's message without its trailing ` at line L column C`, which counts within the
/// payload and would be mistaken for a place in the transcript.
pub(crate) fn without_position(message: &str) -> String {
    if let Some(at) = message.rfind(" at line ") {
        let rest = &message[at + " at line ".len()..];
        if let Some((line, column)) = rest.split_once(" column ") {
            let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
            if digits(line) && digits(column) {
                return message[..at].to_owned();
            }
        }
    }
    message.to_owned()
}
