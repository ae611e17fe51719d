//! The small pieces of the Streamable HTTP client that read messages and answers: what a
//! JSON-RPC message says about its routing (its id, method and session), and the text of
//! refusals and failures.

use std::borrow::Cow;

use reqwest::StatusCode;
use serde::Deserialize;
use serde_json::value::RawValue;

/// What is read of a JSON-RPC message to route it (nothing else is decoded).
#[derive(Deserialize)]
pub(super) struct Peek<'a> {
    #[serde(borrow, default)]
    pub(super) id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub(super) method: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub(super) params: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub(super) result: Option<&'a RawValue>,
}

impl Peek<'_> {
    pub(super) fn id_key(&self) -> Option<String> {
        self.id.map(|id| id.get().to_owned())
    }
}

#[derive(Deserialize)]
struct SessionField {
    #[serde(rename = "sessionId")]
    session_id: Option<String>,
}

/// The `sessionId` of a params or result object.
pub(super) fn session_in(raw: Option<&RawValue>) -> Option<String> {
    serde_json::from_str::<SessionField>(raw?.get())
        .ok()?
        .session_id
}

/// An error's message with its causes (reqwest's own message rarely says what failed).
pub(super) fn chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

/// "the server answered 404 Not Found: unknown Acp-Connection-Id".
pub(super) fn answered(status: StatusCode, body: &[u8]) -> String {
    let body = String::from_utf8_lossy(body);
    let body = body.trim();
    if body.is_empty() {
        format!("the server answered {status}")
    } else {
        format!("the server answered {status}: {body}")
    }
}

/// Reads a response body, keeping at most `limit + 1` bytes (more says "too long").
pub(super) async fn read_body(
    mut response: reqwest::Response,
    limit: usize,
) -> Result<Vec<u8>, String> {
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|error| chain(&error))? {
        let room = (limit + 1).saturating_sub(body.len());
        body.extend_from_slice(&chunk[..chunk.len().min(room)]);
        if body.len() > limit {
            break;
        }
    }
    Ok(body)
}

/// Why an event stream stopped being read.
#[derive(Debug)]
pub(super) enum StreamFault {
    Http(reqwest::Error),
    TooLong,
}

impl std::fmt::Display for StreamFault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StreamFault::Http(error) => f.write_str(&chain(error)),
            StreamFault::TooLong => f.write_str("an event over the message limit"),
        }
    }
}
