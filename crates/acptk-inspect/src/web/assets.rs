//! The page's files, embedded in the binary (no network, no build step).

use axum::extract::Path;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

/// Every file served under `/assets/`: name, content type, bytes.
const FILES: &[(&str, &str, &str)] = &[
    (
        "style.css",
        "text/css; charset=utf-8",
        include_str!("../../assets/style.css"),
    ),
    (
        "app.js",
        "text/javascript; charset=utf-8",
        include_str!("../../assets/app.js"),
    ),
    (
        "api.js",
        "text/javascript; charset=utf-8",
        include_str!("../../assets/api.js"),
    ),
    (
        "dom.js",
        "text/javascript; charset=utf-8",
        include_str!("../../assets/dom.js"),
    ),
    (
        "timeline.js",
        "text/javascript; charset=utf-8",
        include_str!("../../assets/timeline.js"),
    ),
    (
        "views.js",
        "text/javascript; charset=utf-8",
        include_str!("../../assets/views.js"),
    ),
];

/// `/`: the page.
pub(super) async fn index() -> Response {
    (
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        include_str!("../../assets/index.html"),
    )
        .into_response()
}

/// `/assets/{name}`.
pub(super) async fn asset(Path(name): Path<String>) -> Response {
    match FILES.iter().find(|(n, _, _)| *n == name) {
        Some((_, kind, body)) => ([(header::CONTENT_TYPE, *kind)], *body).into_response(),
        None => (StatusCode::NOT_FOUND, "no such asset\n").into_response(),
    }
}
