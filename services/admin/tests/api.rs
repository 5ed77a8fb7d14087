//! The admin API over a real SQLite state store and the in-process queue,
//! driven through the router (no sockets): filters, failure groups, retry
//! (idempotent, published, and safe when the broker refuses), auth, probes,
//! and hostile input (SQL and path tricks, oversized bodies) refused.

use async_trait::async_trait;
use axum::body::Body;
use axum::http::{HeaderMap, Request, StatusCode, header};
use http_body_util::BodyExt;
use ragpipe_admin::{Admin, ChunkReader, Current};
use ragpipe_core::{DocumentId, Stage};
use ragpipe_queue::{MemoryQueue, Queue, Topic};
use ragpipe_state::{NewIndex, Observed, SqlStateStore, StateStore};
use ragpipe_vectors::ChunkPayload;
use serde_json::{Value, json};
use std::sync::Arc;
use tower::ServiceExt;

/// The vector store is out of reach, as when an embedded ingest holds it.
struct Unreachable;

#[async_trait]
impl ChunkReader for Unreachable {
    async fn chunks(&self, _: &DocumentId) -> Result<Vec<ChunkPayload>, String> {
        Err("the vector store is busy".into())
    }
}

struct Fixture {
    _dir: tempfile::TempDir,
    state: Arc<SqlStateStore>,
    queue: Arc<MemoryQueue>,
}

impl Fixture {
    /// Five documents: two failed as encrypted PDFs, one failed as an
    /// unsupported type, one queued, one failed while fetching.
    async fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("state.db").display());
        let state = Arc::new(SqlStateStore::connect(&url).await.unwrap());
        let fail = |name: &'static str, stage: Stage, reason: &'static str| {
            let state = state.clone();
            async move {
                let obj = observed(name);
                state.observe(&obj, 1).await.unwrap();
                assert!(state.begin_extract(&obj.id, 1).await.unwrap());
                assert!(state.fail(&obj.id, 1, stage, reason).await.unwrap());
            }
        };
        fail("a.pdf", Stage::Extract, "encrypted PDF").await;
        fail("b.pdf", Stage::Extract, "encrypted PDF").await;
        fail("c.bin", Stage::Extract, "unsupported type: .bin").await;
        fail("e.csv", Stage::Fetch, "file larger than 10 bytes").await;
        state.observe(&observed("d.md"), 1).await.unwrap();
        Fixture { _dir: dir, state, queue: Arc::new(MemoryQueue::new(64)) }
    }

    fn admin(&self, token: Option<&str>) -> Admin {
        Admin {
            state: self.state.clone(),
            queue: Some(self.queue.clone()),
            chunks: Arc::new(Unreachable),
            current: Current {
                model: "all-MiniLM-L6-v2".into(),
                pipeline_version: "1".into(),
                extractor_version: "1".into(),
            },
            token: token.map(String::from),
        }
    }
}

fn observed(name: &str) -> Observed {
    let uri = format!("file:///corpus/{name}");
    Observed { id: DocumentId::from_uri(&uri), uri, key: name.into(), etag: "v1".into(), size: 10 }
}

async fn call(admin: &Admin, method: &str, uri: &str, body: Option<Value>, token: Option<&str>) -> (StatusCode, Value) {
    let mut req = Request::builder().method(method).uri(uri);
    if let Some(t) = token {
        req = req.header(header::AUTHORIZATION, format!("Bearer {t}"));
    }
    let req = match body {
        Some(b) => req.header(header::CONTENT_TYPE, "application/json").body(Body::from(b.to_string())),
        None => req.body(Body::empty()),
    }
    .unwrap();
    let (status, _, body) = send(admin, req).await;
    (status, body)
}

/// Sends a request as built, returning the headers too.
async fn send(admin: &Admin, req: Request<Body>) -> (StatusCode, HeaderMap, Value) {
    let res = ragpipe_admin::router(admin.clone()).oneshot(req).await.unwrap();
    let (status, headers) = (res.status(), res.headers().clone());
    let bytes = res.into_body().collect().await.unwrap().to_bytes();
    let body = serde_json::from_slice(&bytes).unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into()));
    (status, headers, body)
}

fn sources(list: &Value) -> Vec<&str> {
    list["documents"].as_array().unwrap().iter().map(|d| d["source"].as_str().unwrap()).collect()
}

#[tokio::test]
async fn documents_are_filtered_and_failures_grouped_by_reason() {
    let f = Fixture::new().await;
    let admin = f.admin(None);
    let (code, all) = call(&admin, "GET", "/api/documents", None, None).await;
    assert_eq!(code, StatusCode::OK, "{all}");
    assert_eq!(sources(&all).len(), 5);
    let groups: Vec<(&str, u64)> = all["failures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| (g["reason"].as_str().unwrap(), g["count"].as_u64().unwrap()))
        .collect();
    assert_eq!(groups, [("encrypted PDF", 2), ("file larger than 10 bytes", 1), ("unsupported type: .bin", 1)]);

    let (_, pdfs) = call(&admin, "GET", "/api/documents?status=failed&reason=ENCRYPTED&kind=pdf", None, None).await;
    assert_eq!(sources(&pdfs), ["file:///corpus/a.pdf", "file:///corpus/b.pdf"]);
    let a = &pdfs["documents"][0];
    assert_eq!(
        (a["stage"].as_str(), a["attempts"].as_i64(), a["kind"].as_str()),
        (Some("extract"), Some(1), Some("pdf"))
    );
    let (_, csv) = call(&admin, "GET", "/api/documents?kind=csv", None, None).await;
    assert_eq!(sources(&csv), ["file:///corpus/e.csv"], "a fetch failure still has the kind its name promises");
    let (_, queued) = call(&admin, "GET", "/api/documents?status=queued", None, None).await;
    assert_eq!(sources(&queued), ["file:///corpus/d.md"]);
    let (code, err) = call(&admin, "GET", "/api/documents?status=lost", None, None).await;
    assert_eq!(code, StatusCode::BAD_REQUEST, "{err}");

    let id = DocumentId::from_uri("file:///corpus/a.pdf");
    let (code, detail) = call(&admin, "GET", &format!("/api/documents/{id}"), None, None).await;
    assert_eq!(code, StatusCode::OK);
    assert_eq!(detail["document"]["reason"], "encrypted PDF");
    assert_eq!(detail["chunks_error"], "the vector store is busy");
    let absent = DocumentId::from_uri("file:///corpus/absent.md");
    let (code, _) = call(&admin, "GET", &format!("/api/documents/{absent}"), None, None).await;
    assert_eq!(code, StatusCode::NOT_FOUND);
    let (code, err) = call(&admin, "GET", "/api/documents/nope", None, None).await;
    assert_eq!((code, err["parameter"].as_str()), (StatusCode::BAD_REQUEST, Some("id")), "not an id: {err}");
}

/// Pages of two, followed by `next` to the end and by `previous` back.
#[tokio::test]
async fn documents_are_paged_by_cursor_both_ways() {
    let f = Fixture::new().await;
    let admin = f.admin(None);
    let all = ["a.pdf", "b.pdf", "c.bin", "d.md", "e.csv"].map(|n| format!("file:///corpus/{n}"));
    let (mut seen, mut uri) = (Vec::new(), "/api/documents?limit=2".to_string());
    let last = loop {
        let (code, page) = call(&admin, "GET", &uri, None, None).await;
        assert_eq!(code, StatusCode::OK, "{page}");
        assert!(sources(&page).len() <= 2);
        seen.extend(sources(&page).into_iter().map(String::from));
        match page["next"].as_str() {
            Some(next) => uri = format!("/api/documents?limit=2&after={}", encode(next)),
            None => break page,
        }
    };
    assert_eq!(seen, all);
    assert_eq!(sources(&last), [all[4].as_str()]);
    let before = last["previous"].as_str().unwrap();
    let (_, page) = call(&admin, "GET", &format!("/api/documents?limit=2&before={}", encode(before)), None, None).await;
    assert_eq!(sources(&page), [all[2].as_str(), all[3].as_str()]);
    assert_eq!((page["next"].as_str(), page["previous"].as_str()), (Some(all[3].as_str()), Some(all[2].as_str())));
    let (_, first) = call(&admin, "GET", "/api/documents?limit=2", None, None).await;
    assert_eq!(first["previous"], Value::Null, "the first page has none before it");
    let (_, failed) =
        call(&admin, "GET", "/api/documents?status=failed&limit=1&after=file:///corpus/b.pdf", None, None).await;
    assert_eq!(sources(&failed), [all[2].as_str()], "a filtered page starts after its cursor");
    assert_eq!(failed["failures"].as_array().unwrap().len(), 3, "the groups count every match, not the page");
    for bad in ["limit=0", "limit=5000", "after=a&before=b", "after=a&after=b"] {
        let (code, err) = call(&admin, "GET", &format!("/api/documents?{bad}"), None, None).await;
        assert_eq!(code, StatusCode::BAD_REQUEST, "{bad}: {err}");
    }
}

fn encode(s: &str) -> String {
    s.bytes().map(|b| if b.is_ascii_alphanumeric() { (b as char).to_string() } else { format!("%{b:02X}") }).collect()
}

#[tokio::test]
async fn retry_by_reason_queues_exactly_those_once_and_publishes_their_jobs() {
    let f = Fixture::new().await;
    let admin = f.admin(None);
    let body = json!({"filter": {"reason": "encrypted"}});
    let (code, report) = call(&admin, "POST", "/api/retry", Some(body.clone()), None).await;
    assert_eq!(code, StatusCode::OK, "{report}");
    let queued: Vec<_> = report["queued"].as_array().unwrap().iter().map(|q| q["source"].as_str().unwrap()).collect();
    assert_eq!(queued, ["file:///corpus/a.pdf", "file:///corpus/b.pdf"]);
    assert_eq!(report["queued"][0]["generation"], 2);
    assert_eq!(f.queue.depth(Topic::Extract).await.unwrap(), 2);
    let (_, again) = call(&admin, "POST", "/api/retry", Some(body), None).await;
    assert_eq!(again["queued"], json!([]), "already queued: nothing to do");
    assert_eq!(f.queue.depth(Topic::Extract).await.unwrap(), 2);
    // A filter can only ever select failures: the queued document is untouched.
    let id = DocumentId::from_uri("file:///corpus/d.md");
    let (_, by_id) = call(&admin, "POST", "/api/retry", Some(json!({"ids": [id.to_string()]})), None).await;
    assert_eq!(by_id["queued"], json!([]));
    let (code, _) = call(&admin, "POST", "/api/retry", Some(json!({})), None).await;
    assert_eq!(code, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn a_retry_the_broker_refuses_leaves_the_document_failed_with_that_reason() {
    let f = Fixture::new().await;
    f.queue.close(Topic::Extract);
    let admin = f.admin(None);
    let id = DocumentId::from_uri("file:///corpus/c.bin");
    let (code, err) = call(&admin, "POST", "/api/retry", Some(json!({"ids": [id.to_string()]})), None).await;
    assert_eq!(code, StatusCode::SERVICE_UNAVAILABLE, "{err}");
    let doc = f.state.get(&id).await.unwrap().unwrap();
    assert_eq!(doc.status.as_str(), "failed", "never queued without a job");
    assert!(doc.failure_reason.unwrap().starts_with("retry could not be queued: "));
}

#[tokio::test]
async fn the_api_needs_the_token_when_one_is_set_and_probes_never_do() {
    let f = Fixture::new().await;
    let admin = f.admin(Some("s3cret"));
    assert_eq!(call(&admin, "GET", "/api/documents", None, None).await.0, StatusCode::UNAUTHORIZED);
    assert_eq!(call(&admin, "GET", "/api/documents", None, Some("wrong")).await.0, StatusCode::UNAUTHORIZED);
    assert_eq!(call(&admin, "POST", "/api/retry", Some(json!({"filter": {}})), None).await.0, StatusCode::UNAUTHORIZED);
    assert_eq!(f.queue.depth(Topic::Extract).await.unwrap(), 0, "an unauthorised retry did nothing");
    assert_eq!(call(&admin, "GET", "/api/documents", None, Some("s3cret")).await.0, StatusCode::OK);
    let (code, ready) = call(&admin, "GET", "/readyz", None, None).await;
    assert_eq!((code, &ready["ready"]), (StatusCode::OK, &json!(true)));
    assert_eq!(call(&admin, "GET", "/healthz", None, None).await.0, StatusCode::OK);
    let (code, page) = call(&admin, "GET", "/", None, None).await;
    assert!(code == StatusCode::OK && page.as_str().unwrap().contains("ragpipe admin"));
    let (code, spec) = call(&admin, "GET", "/openapi.json", None, None).await;
    assert_eq!((code, spec["openapi"].as_str()), (StatusCode::OK, Some("3.0.3")));
    let (_, status) = call(&admin, "GET", "/api/status", None, Some("s3cret")).await;
    assert_eq!((status["documents"]["failed"].as_i64(), status["queues"]["extract"].as_i64()), (Some(4), Some(0)));
}

#[tokio::test]
async fn without_a_token_the_server_only_binds_loopback() {
    let err = ragpipe_admin::bind("0.0.0.0:0", None).await.unwrap_err();
    assert!(err.to_string().contains("without a token"), "{err}");
    assert!(ragpipe_admin::bind("127.0.0.1:0", None).await.is_ok());
    assert!(ragpipe_admin::bind("0.0.0.0:0", Some("t")).await.is_ok());
}

#[tokio::test]
async fn reindex_progress_and_the_seal_it_writes_are_reported() {
    let fx = Fixture::new().await;
    let admin = fx.admin(None);
    let index = |name: &str, pipeline: &str| NewIndex {
        name: name.into(),
        model: "all-MiniLM-L6-v2".into(),
        dims: 384,
        pipeline_version: pipeline.into(),
        keep_old: false,
    };
    let (_, before) = call(&admin, "GET", "/api/reindex", None, None).await;
    assert_eq!((before["live"].clone(), before["building"].clone()), (Value::Null, Value::Null));
    assert!(fx.state.adopt_index(&index("chunks_p1", "1")).await.unwrap());
    assert!(fx.state.begin_build(&index("chunks_p2", "2")).await.unwrap());

    let (code, ix) = call(&admin, "GET", "/api/reindex", None, None).await;
    assert_eq!(code, StatusCode::OK);
    assert_eq!((ix["live"]["name"].as_str(), ix["building"]["name"].as_str()), (Some("chunks_p1"), Some("chunks_p2")));
    assert_eq!(
        (ix["building"]["documents"].as_i64(), ix["done"].as_i64(), ix["total"].as_i64()),
        (Some(5), Some(0), Some(5))
    );
    let (_, status) = call(&admin, "GET", "/api/status", None, None).await;
    assert_eq!(status["index"]["building"]["pipeline_version"], "2");
    assert_eq!(status["current"]["pipeline_version"], "2", "documents are compared with the index being written");
    assert_eq!(status["documents"]["queued"].as_i64(), Some(5), "every document queued for the new index");
}

#[tokio::test]
async fn filters_and_ids_with_sql_or_path_tricks_are_refused_naming_the_parameter() {
    let f = Fixture::new().await;
    let admin = f.admin(None);
    let valid = DocumentId::from_uri("file:///corpus/c.bin").to_string();
    let long = "a".repeat(10_000);
    let gets = [
        ("/api/documents?status=indexed'%20OR%201=1--".to_string(), "status"),
        ("/api/documents?status=failed%00".into(), "status"),
        ("/api/documents?kind=pdf;DROP%20TABLE%20documents".into(), "kind"),
        ("/api/documents?stale=1%20OR%201".into(), "stale"),
        (format!("/api/documents?reason={}", "x".repeat(ragpipe_admin::MAX_REASON_BYTES + 1)), "reason"),
        ("/api/documents?reason=encrypted%00".into(), "reason"),
        ("/api/documents?status=failed&status=indexed".into(), "status"),
        ("/api/documents?order=id;DROP%20TABLE%20documents".into(), "order"),
        ("/api/documents/..%2F..%2Fetc%2Fpasswd".into(), "id"),
        ("/api/documents/%2e%2e".into(), "id"),
        (format!("/api/documents/{}%00", &valid[..23]), "id"),
        (format!("/api/documents/{valid}'%20OR%20'1'='1"), "id"),
        (format!("/api/documents/{long}"), "id"),
        ("/api/documents/%FF%FE".into(), "id"),
    ];
    for (uri, param) in &gets {
        let (code, err) = call(&admin, "GET", uri, None, None).await;
        assert_eq!((code, err["parameter"].as_str()), (StatusCode::BAD_REQUEST, Some(*param)), "{uri}: {err}");
        assert!(err["error"].as_str().unwrap().starts_with(&format!("invalid {param}")), "{uri}: {err}");
    }
    let posts = [
        (json!({"ids": ["../../etc/passwd"]}), "ids[0]"),
        (json!({"ids": [valid, "1' OR '1'='1"]}), "ids[1]"),
        (json!({"ids": [format!("{valid}\u{0}")]}), "ids[0]"),
        (json!({"filter": {"status": "failed' --"}}), "filter.status"),
        (json!({"filter": {"kind": "exe"}}), "filter.kind"),
        (json!({"filter": {"reason": long}}), "filter.reason"),
        (json!({"filter": {"reason": "encrypted"}, "where": "1=1"}), "body"),
    ];
    for (body, param) in &posts {
        let (code, err) = call(&admin, "POST", "/api/retry", Some(body.clone()), None).await;
        assert_eq!((code, err["parameter"].as_str()), (StatusCode::BAD_REQUEST, Some(*param)), "{body}: {err}");
    }
    assert_eq!(f.queue.depth(Topic::Extract).await.unwrap(), 0, "nothing refused was retried");
    assert_eq!(f.state.counts().await.unwrap().documents(ragpipe_core::DocStatus::Failed), 4);

    // A reason is plain text: SQL in it is a substring that matches nothing.
    let (code, none) = call(&admin, "GET", "/api/documents?reason=x'%20OR%20'1'='1", None, None).await;
    assert_eq!((code, sources(&none).len()), (StatusCode::OK, 0), "{none}");
}

#[tokio::test]
async fn oversized_bodies_are_refused_before_anything_is_retried() {
    let f = Fixture::new().await;
    let admin = f.admin(Some("s3cret"));
    let post = |body: String| {
        Request::post("/api/retry")
            .header(header::AUTHORIZATION, "Bearer s3cret")
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(body))
            .unwrap()
    };
    let retry = json!({"filter": {"reason": "encrypted"}}).to_string();
    let huge = format!("{}{retry}", " ".repeat(ragpipe_admin::MAX_BODY_BYTES));
    let (code, _, err) = send(&admin, post(huge)).await;
    assert_eq!(code, StatusCode::PAYLOAD_TOO_LARGE, "{err}");
    assert!(err["error"].as_str().unwrap().contains("request body over 65536 bytes"), "{err}");
    assert_eq!(f.queue.depth(Topic::Extract).await.unwrap(), 0);
    // Just under the limit, the same request is served.
    let padded = format!("{}{retry}", " ".repeat(ragpipe_admin::MAX_BODY_BYTES - retry.len()));
    let (code, _, report) = send(&admin, post(padded)).await;
    assert_eq!((code, report["queued"].as_array().map(Vec::len)), (StatusCode::OK, Some(2)), "{report}");
}

#[tokio::test]
async fn only_the_exact_bearer_token_passes_and_placeholder_tokens_never_serve() {
    let f = Fixture::new().await;
    let admin = f.admin(Some("s3cret"));
    let get =
        |auth: &str| Request::get("/api/documents").header(header::AUTHORIZATION, auth).body(Body::empty()).unwrap();
    for wrong in
        ["Bearer s3cre", "Bearer s3cret0", "Bearer S3CRET", "Bearer ", "Basic s3cret", "s3cret", "Bearer  s3cret"]
    {
        assert_eq!(send(&admin, get(wrong)).await.0, StatusCode::UNAUTHORIZED, "{wrong:?}");
    }
    assert_eq!(send(&admin, get("bearer s3cret")).await.0, StatusCode::OK, "the scheme is case-insensitive");
    for placeholder in ["", "CHANGE-ME", "change-me"] {
        let err = ragpipe_admin::bind("127.0.0.1:0", Some(placeholder)).await.unwrap_err();
        assert!(err.to_string().contains("placeholder"), "{placeholder:?}: {err}");
    }
}

#[tokio::test]
async fn the_page_runs_only_its_own_script() {
    let f = Fixture::new().await;
    let admin = f.admin(None);
    let (code, headers, page) = send(&admin, Request::get("/").body(Body::empty()).unwrap()).await;
    assert_eq!(code, StatusCode::OK);
    let csp = headers[header::CONTENT_SECURITY_POLICY].to_str().unwrap();
    assert!(csp.contains("script-src 'self';") && csp.contains("frame-ancestors 'none'"), "{csp}");
    assert_eq!(headers[header::X_CONTENT_TYPE_OPTIONS], "nosniff");
    assert!(page.as_str().unwrap().contains(r#"<script src="/page.js">"#));
    let (code, headers, script) = send(&admin, Request::get("/page.js").body(Body::empty()).unwrap()).await;
    assert_eq!(code, StatusCode::OK);
    assert!(headers[header::CONTENT_TYPE].to_str().unwrap().starts_with("text/javascript"));
    assert!(script.as_str().unwrap().contains("function el("));
}
