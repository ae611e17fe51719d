//! Who may talk to the inspector: requests with the token, for the address served, from no
//! other site.
//!
//! * `Host` must be the address served (`127.0.0.1:PORT`, or `localhost:PORT` for a
//!   loopback address): a page of another site whose name was rebound to 127.0.0.1 sends its
//!   own name, and is refused.
//! * `Origin`, when sent, must be `http://` and one of those hosts; `Sec-Fetch-Site`, when
//!   sent, must not be `cross-site`.
//! * The token, compared in constant time, in one of three places:
//!   - `Authorization: Bearer TOKEN`, for scripts (`curl -H`): answered directly, on every
//!     route; a wrong one is refused even with the right cookie.
//!   - `?token=` in the URL. A browser's page load (`Sec-Fetch-Mode: navigate`, or `Accept`
//!     naming `text/html`) gets the cookie and a redirect to the URL without it, so the token
//!     leaves the address bar; any other client (`curl "$URL"`, a script) is answered
//!     directly, without a cookie or a redirect to follow.
//!   - The cookie the redirect set.
//!
//!   A request with none of them gets 401 with a `WWW-Authenticate: Bearer` header and a
//!   message naming both ways.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::Shared;
use crate::error::{Error, Result};

/// A new random token: 128 bits from the operating system, in hex.
pub(super) fn new_token() -> Result<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| Error::Invalid(format!("no random token: {e}")))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// The `Host` values accepted for a server at `addr`.
pub(super) fn hosts(addr: SocketAddr) -> Vec<String> {
    let port = addr.port();
    let mut hosts = vec![addr.to_string()];
    if addr.ip().is_loopback() {
        hosts.push(format!("localhost:{port}"));
    }
    hosts
}

fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

fn refuse(status: StatusCode, why: &str) -> Response {
    let mut response = (
        status,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        format!("{why}\n"),
    )
        .into_response();
    if status == StatusCode::UNAUTHORIZED {
        response.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static("Bearer realm=\"acp inspect\""),
        );
    }
    response
}

/// What a request without a token is told.
const NO_TOKEN: &str = "no token: open the URL `acp inspect ui` printed in a browser, or send its token as `Authorization: Bearer TOKEN`";

/// What a request with a wrong token is told.
const WRONG_TOKEN: &str =
    "wrong token: use the token of the URL this `acp inspect ui` printed (it changes each run)";

/// The token of an `Authorization: Bearer TOKEN` header: `Some(None)` for an `Authorization`
/// header of another scheme or not readable, `None` for no header.
fn bearer_token(headers: &HeaderMap) -> Option<Option<&str>> {
    let value = headers.get(header::AUTHORIZATION)?;
    let token = value.to_str().ok().and_then(|v| {
        let (scheme, token) = v.trim().split_once(' ')?;
        scheme
            .eq_ignore_ascii_case("bearer")
            .then_some(token.trim())
    });
    Some(token)
}

/// Whether a request is a browser loading a page (which may be sent on with a cookie).
fn page_load(headers: &HeaderMap) -> bool {
    headers
        .get("sec-fetch-mode")
        .is_some_and(|v| v == "navigate")
        || header_str(headers, header::ACCEPT).is_some_and(|v| v.contains("text/html"))
}

fn header_str(headers: &HeaderMap, name: header::HeaderName) -> Option<&str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// The token in a query string.
fn query_token(query: Option<&str>) -> Option<&str> {
    query?
        .split('&')
        .find_map(|pair| pair.strip_prefix("token="))
}

/// The token in the cookie named `name`.
fn cookie_token<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .find_map(|pair| {
            let (key, value) = pair.trim().split_once('=')?;
            (key == name).then_some(value)
        })
}

/// The middleware in front of every route.
pub(super) async fn check(
    State(shared): State<Arc<Shared>>,
    request: Request,
    next: Next,
) -> Response {
    let headers = request.headers();
    let host = header_str(headers, header::HOST).unwrap_or_default();
    if !shared.hosts.iter().any(|h| h == host) {
        return refuse(StatusCode::MISDIRECTED_REQUEST, "unexpected Host");
    }
    if let Some(origin) = header_str(headers, header::ORIGIN) {
        let ok = origin
            .strip_prefix("http://")
            .is_some_and(|o| shared.hosts.iter().any(|h| h == o));
        if !ok {
            return refuse(StatusCode::FORBIDDEN, "cross-origin request refused");
        }
    }
    if headers
        .get("sec-fetch-site")
        .is_some_and(|v| v == "cross-site")
    {
        return refuse(StatusCode::FORBIDDEN, "cross-site request refused");
    }
    let token = shared.token.as_bytes();
    if let Some(given) = bearer_token(headers) {
        let Some(given) = given else {
            return refuse(
                StatusCode::UNAUTHORIZED,
                "the Authorization header must be `Bearer TOKEN`",
            );
        };
        if !same(given.as_bytes(), token) {
            return refuse(StatusCode::UNAUTHORIZED, WRONG_TOKEN);
        }
        return answer(next.run(request).await);
    }
    if let Some(given) = query_token(request.uri().query()) {
        if !same(given.as_bytes(), token) {
            return refuse(StatusCode::UNAUTHORIZED, WRONG_TOKEN);
        }
        if !page_load(headers) {
            // A script or `curl "$URL"`: no cookie jar to keep, so no redirect to follow.
            return answer(next.run(request).await);
        }
        // Trade the token in the URL for a cookie, and take it out of the address bar.
        let cookie = format!(
            "{}={}; Path=/; HttpOnly; SameSite=Strict",
            shared.cookie, shared.token
        );
        let path = request.uri().path().to_owned();
        let mut response = Response::new(Body::empty());
        *response.status_mut() = StatusCode::SEE_OTHER;
        if let (Ok(cookie), Ok(location)) =
            (HeaderValue::from_str(&cookie), HeaderValue::from_str(&path))
        {
            response.headers_mut().insert(header::SET_COOKIE, cookie);
            response.headers_mut().insert(header::LOCATION, location);
        }
        return response;
    }
    match cookie_token(headers, &shared.cookie) {
        Some(given) if same(given.as_bytes(), token) => answer(next.run(request).await),
        Some(_) => refuse(StatusCode::UNAUTHORIZED, WRONG_TOKEN),
        None => refuse(StatusCode::UNAUTHORIZED, NO_TOKEN),
    }
}

/// An answer of a route, with the headers every answer carries.
fn answer(mut response: Response) -> Response {
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
        ),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}
