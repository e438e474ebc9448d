//! The page: plain HTML, CSS and JavaScript, shipped inside the binary so
//! that it works with no network.

use std::sync::Arc;

use axum::Router;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;

use crate::App;

/// The files of the page, by path: its type and its text.
const FILES: [(&str, &str, &str); 4] = [
    (
        "/",
        "text/html; charset=utf-8",
        include_str!("../assets/index.html"),
    ),
    (
        "/app.css",
        "text/css; charset=utf-8",
        include_str!("../assets/app.css"),
    ),
    (
        "/app.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/app.js"),
    ),
    (
        "/favicon.svg",
        "image/svg+xml",
        include_str!("../assets/favicon.svg"),
    ),
];

/// The routes that serve the page's files.
pub fn routes() -> Router<Arc<App>> {
    FILES
        .into_iter()
        .fold(Router::new(), |router, (path, kind, text)| {
            router.route(
                path,
                get(move || async move { ([(header::CONTENT_TYPE, kind)], text).into_response() }),
            )
        })
}
