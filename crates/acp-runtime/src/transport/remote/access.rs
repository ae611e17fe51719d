//! Who may use a remote server: the bearer token and the browser `Origin` check, applied to
//! every request before anything else.

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use subtle::ConstantTimeEq;

/// The access rules of a server.
#[derive(Debug, Clone, Default)]
pub(crate) struct Access {
    /// The bearer token every request must carry, when set.
    pub(crate) token: Option<String>,
    /// The `Origin` values accepted from browsers; requests without `Origin` (every
    /// non-browser client) are not affected.
    pub(crate) origins: Vec<String>,
}

/// Why a request was refused.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// No bearer token, or the wrong one: 401.
    Unauthorized,
    /// A browser origin that is not allowed: 403.
    Origin(String),
}

impl Access {
    /// Checks `headers`; the origin first, so that a page of another site learns nothing
    /// about the token.
    pub(crate) fn check(&self, headers: &HeaderMap) -> Result<(), Refusal> {
        if let Some(origin) = headers.get(header::ORIGIN) {
            let origin = String::from_utf8_lossy(origin.as_bytes());
            if !self.origins.iter().any(|allowed| *allowed == origin) {
                return Err(Refusal::Origin(origin.into_owned()));
            }
        }
        let Some(expected) = &self.token else {
            return Ok(());
        };
        let given = headers
            .get(header::AUTHORIZATION)
            .and_then(|value| bearer(value.as_bytes()))
            .unwrap_or_default();
        // Constant time in the contents; only the length can show.
        if bool::from(given.ct_eq(expected.as_bytes())) {
            Ok(())
        } else {
            Err(Refusal::Unauthorized)
        }
    }
}

/// The token of an `Authorization: Bearer TOKEN` value (the scheme in any case).
fn bearer(value: &[u8]) -> Option<&[u8]> {
    let scheme = value.get(..7)?;
    if !scheme.eq_ignore_ascii_case(b"bearer ") {
        return None;
    }
    Some(value[7..].trim_ascii())
}

impl Refusal {
    /// What the log says.
    pub(crate) fn describe(&self) -> String {
        match self {
            Refusal::Unauthorized => "refused a request without the right bearer token".to_owned(),
            Refusal::Origin(origin) => format!("refused a request from origin `{origin}`"),
        }
    }
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        match self {
            Refusal::Unauthorized => {
                let mut response = (
                    StatusCode::UNAUTHORIZED,
                    "this ACP server needs a bearer token (Authorization: Bearer TOKEN)\n",
                )
                    .into_response();
                response
                    .headers_mut()
                    .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
                response
            }
            Refusal::Origin(_) => (
                StatusCode::FORBIDDEN,
                "this ACP server does not accept requests from this origin\n",
            )
                .into_response(),
        }
    }
}
