//! The bearer token on `/api/*`. A token is the only thing between the
//! network and the retry button, so it is checked without leaking it through
//! timing, and a token nobody chose (empty, or a manifest's placeholder) is
//! refused before the server listens.

use crate::{Admin, AdminError};
use axum::Json;
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use ragpipe_core::ids::content_hash;
use serde_json::json;

/// Placeholders shipped in example manifests (deploy/k8s/config.yaml):
/// a server started with one would accept a token anybody can read.
const PLACEHOLDERS: [&str; 2] = ["change-me", "changeme"];

/// Refuses a configured token that is no secret: empty or a placeholder.
pub(crate) fn check_configured(token: &str) -> Result<(), AdminError> {
    let t = token.trim();
    if t.is_empty() || PLACEHOLDERS.iter().any(|p| t.eq_ignore_ascii_case(p)) {
        return Err(AdminError::BadRequest(
            "refusing admin.token: it is empty or a placeholder (change-me); set RAGPIPE_ADMIN_TOKEN to a secret"
                .into(),
        ));
    }
    Ok(())
}

/// Middleware: a request passes with `Authorization: Bearer <token>` when
/// the server has a token, and always when it has none (loopback only).
pub(crate) async fn require_token(State(admin): State<Admin>, req: Request, next: Next) -> Response {
    if let Some(token) = &admin.token {
        let given = req.headers().get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()).and_then(bearer);
        if !given.is_some_and(|g| same_secret(g, token)) {
            return (StatusCode::UNAUTHORIZED, Json(json!({"error": "missing or wrong bearer token"}))).into_response();
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
            let err = check_configured(weak).unwrap_err();
            assert!(err.to_string().contains("placeholder"), "{err}");
        }
        assert!(check_configured("t").is_ok());
    }
}
