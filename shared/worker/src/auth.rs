//! The bearer token on a served API's `/api/*` (the admin API, the search
//! API). A token is the only thing between the network and a retry button or
//! the index's content, so it is checked without leaking it through timing,
//! a token nobody chose (empty, or a manifest's placeholder) is refused
//! before the server listens, and a server without one listens on loopback
//! only.

use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use ragpipe_core::ids::content_hash;
use std::net::SocketAddr;
use std::sync::Arc;
use tokio::net::TcpListener;

/// Placeholders shipped in example manifests (deploy/k8s/config.yaml):
/// a server started with one would accept a token anybody can read.
const PLACEHOLDERS: [&str; 2] = ["change-me", "changeme"];

/// The token a server requires, if any: the state of [`require_token`].
#[derive(Clone, Default)]
pub struct BearerToken(Option<Arc<str>>);

impl BearerToken {
    pub fn new(token: Option<&str>) -> Self {
        BearerToken(token.map(Arc::from))
    }
}

/// Refuses a configured token that is no secret: empty or a placeholder.
/// `setting` names where it came from (`admin.token (RAGPIPE_ADMIN_TOKEN)`).
pub fn check_configured(token: &str, setting: &str) -> Result<(), String> {
    let t = token.trim();
    if t.is_empty() || PLACEHOLDERS.iter().any(|p| t.eq_ignore_ascii_case(p)) {
        return Err(format!("refusing {setting}: it is empty or a placeholder (change-me); set it to a secret"));
    }
    Ok(())
}

/// Binds a server's address, refusing a non-loopback one without a token
/// (an unauthenticated API must not face a network) and a token that is no
/// secret. `setting` names the token's setting for the errors.
pub async fn bind(addr: &str, token: Option<&str>, setting: &str) -> Result<TcpListener, String> {
    if let Some(token) = token {
        check_configured(token, setting)?;
    }
    let addr: SocketAddr = addr.parse().map_err(|e| format!("{addr:?} is not an address: {e}"))?;
    if token.is_none() && !addr.ip().is_loopback() {
        return Err(format!(
            "refusing to serve on {addr} without a token: set {setting} or listen on a loopback address"
        ));
    }
    TcpListener::bind(addr).await.map_err(|e| format!("binding {addr}: {e}"))
}

/// Middleware: a request passes with `Authorization: Bearer <token>` when
/// the server has a token, and always when it has none (loopback only).
pub async fn require_token(State(token): State<BearerToken>, req: Request, next: Next) -> Response {
    if let Some(token) = &token.0 {
        let given = req.headers().get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()).and_then(bearer);
        if !given.is_some_and(|g| same_secret(g, token)) {
            let body = r#"{"error":"missing or wrong bearer token"}"#;
            return (StatusCode::UNAUTHORIZED, [(header::CONTENT_TYPE, "application/json")], body).into_response();
        }
    }
    next.run(req).await
}

/// The credentials of a `Bearer` authorization (the scheme is case-insensitive, RFC 9110).
fn bearer(value: &str) -> Option<&str> {
    let (scheme, credentials) = value.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then_some(credentials)
}

/// Equality whose time depends on neither where the strings first differ
/// nor the expected token's length: both are hashed to the same length, then
/// every byte of the digests is compared (XOR folded, no early exit).
fn same_secret(given: &str, expected: &str) -> bool {
    let (a, b) = (content_hash(given.as_bytes()), content_hash(expected.as_bytes()));
    let diff = a.bytes().zip(b.bytes()).fold(0u8, |acc, (x, y)| std::hint::black_box(acc | (x ^ y)));
    diff == 0 && a.len() == b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_exact_token_is_the_same_secret() {
        assert!(same_secret("s3cret", "s3cret"));
        for other in ["", "s3cre", "s3cret ", "S3cret", "s3cret\0", "s3creu", "x".repeat(10_000).as_str()] {
            assert!(!same_secret(other, "s3cret"), "{other:?}");
        }
    }

    #[test]
    fn the_bearer_scheme_is_case_insensitive_and_required() {
        assert_eq!(bearer("Bearer abc"), Some("abc"));
        assert_eq!(bearer("bearer abc"), Some("abc"));
        assert_eq!(bearer("Basic abc"), None);
        assert_eq!(bearer("abc"), None);
    }

    #[test]
    fn empty_and_placeholder_tokens_are_refused() {
        for weak in ["", "  ", "CHANGE-ME", "change-me", "changeme"] {
            let err = check_configured(weak, "admin.token").unwrap_err();
            assert!(err.contains("placeholder"), "{err}");
        }
        assert!(check_configured("t", "admin.token").is_ok());
    }
}
