//! Who may use a remote server, and as whom: the bearer tokens (each names a
//! [`Principal`]) and the browser `Origin` check, applied to every request before anything
//! else.

use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use subtle::ConstantTimeEq;

use crate::principal::Principal;

/// The access rules of a server.
#[derive(Debug, Clone, Default)]
pub(crate) struct Access {
    /// The bearer tokens and the principal each one stands for. Empty: no token is needed,
    /// and every request acts for the local principal.
    pub(crate) tokens: Vec<(String, Principal)>,
    /// The `Origin` values accepted from browsers; requests without `Origin` (every
    /// non-browser client) are not affected.
    pub(crate) origins: Vec<String>,
}

/// Why a request was refused.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// No bearer token, or a wrong one: 401.
    Unauthorized,
    /// A browser origin that is not allowed: 403.
    Origin(String),
    /// The header came more than once (which one would count is ambiguous): 400.
    Repeated(HeaderName),
}

impl Access {
    /// Checks `headers` and names the principal the request acts for. The origin is checked
    /// first, so that a page of another site learns nothing about the tokens. A header that
    /// decides access (`Origin`, `Authorization`) must come at most once.
    pub(crate) fn check(&self, headers: &HeaderMap) -> Result<Principal, Refusal> {
        let origin = single(headers, &header::ORIGIN)?;
        if let Some(origin) = origin {
            let origin = String::from_utf8_lossy(origin.as_bytes());
            if !self.origins.iter().any(|allowed| *allowed == origin) {
                return Err(Refusal::Origin(origin.into_owned()));
            }
        }
        let authorization = single(headers, &header::AUTHORIZATION)?;
        if self.tokens.is_empty() {
            return Ok(Principal::local());
        }
        let Some(given) = authorization.and_then(|value| bearer(value.as_bytes())) else {
            return Err(Refusal::Unauthorized);
        };
        // Every token is compared (in constant time in its contents: only lengths can
        // show), not stopping at the first match. An empty token never matches: `given`
        // is never empty.
        let mut found: Option<&Principal> = None;
        for (token, principal) in &self.tokens {
            if bool::from(given.ct_eq(token.as_bytes())) {
                found = Some(principal);
            }
        }
        found.cloned().ok_or(Refusal::Unauthorized)
    }
}

/// The value of header `name` when it came at most once.
fn single<'a>(
    headers: &'a HeaderMap,
    name: &HeaderName,
) -> Result<Option<&'a HeaderValue>, Refusal> {
    let mut values = headers.get_all(name).iter();
    let first = values.next();
    if values.next().is_some() {
        return Err(Refusal::Repeated(name.clone()));
    }
    Ok(first)
}

/// The token of an `Authorization: Bearer TOKEN` value (the scheme in any case); `None` when
/// the scheme is another or the token is empty.
fn bearer(value: &[u8]) -> Option<&[u8]> {
    let scheme = value.get(..7)?;
    if !scheme.eq_ignore_ascii_case(b"bearer ") {
        return None;
    }
    Some(value[7..].trim_ascii()).filter(|token| !token.is_empty())
}

impl Refusal {
    /// What the log says.
    pub(crate) fn describe(&self) -> String {
        match self {
            Refusal::Unauthorized => "refused a request without the right bearer token".to_owned(),
            Refusal::Origin(origin) => format!("refused a request from origin `{origin}`"),
            Refusal::Repeated(name) => {
                format!("refused a request with more than one `{name}` header")
            }
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
            Refusal::Repeated(name) => (
                StatusCode::BAD_REQUEST,
                format!("the `{name}` header may come only once\n"),
            )
                .into_response(),
        }
    }
}
