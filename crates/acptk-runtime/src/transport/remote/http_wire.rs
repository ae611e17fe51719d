//! The small pieces of the Streamable HTTP client that read answers: the text of refusals and
//! failures, and bounded bodies.

use reqwest::StatusCode;

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
