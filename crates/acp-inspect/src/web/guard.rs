//! Who may talk to the inspector: requests with the token, for the address served, from no
//! other site.
//!
//! * `Host` must be the address served (`127.0.0.1:PORT`, or `localhost:PORT` for a
//!   loopback address): a page of another site whose name was rebound to 127.0.0.1 sends its
//!   own name, and is refused.
//! * `Origin`, when sent, must be `http://` and one of those hosts; `Sec-Fetch-Site`, when
//!   sent, must not be `cross-site`.
//! * The token: `?token=` in the URL (a page load then sets the cookie and redirects to the
//!   URL without it), or the cookie. Compared in constant time.

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
    (
        status,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        format!("{why}\n"),
    )
        .into_response()
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
    if let Some(given) = query_token(request.uri().query()) {
        if !same(given.as_bytes(), token) {
            return refuse(StatusCode::UNAUTHORIZED, "wrong token");
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
        Some(given) if same(given.as_bytes(), token) => {}
        _ => {
            return refuse(
                StatusCode::UNAUTHORIZED,
                "open the URL `acp inspect ui` printed (it carries the token)",
            );
        }
    }
    let mut response = next.run(request).await;
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
