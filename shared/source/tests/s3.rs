//! `S3Source` against the source conformance suite, on the S3-compatible
//! server at `RAGPIPE_TEST_S3_ENDPOINT` (`scripts/s3-server.sh start` runs a
//! local SeaweedFS; `scripts/test.sh` does that before the tests). Each test
//! uses its own bucket and removes it afterwards.

use ragpipe_source::conformance::{self, sample_objects};
use ragpipe_source::{ObjectSource, S3Config, S3Source};
use std::collections::BTreeMap;

fn config(bucket: &str, prefix: &str) -> S3Config {
    let endpoint = std::env::var("RAGPIPE_TEST_S3_ENDPOINT")
        .expect("RAGPIPE_TEST_S3_ENDPOINT must name an S3 server: eval \"$(scripts/s3-server.sh start)\"");
    S3Config {
        bucket: bucket.into(),
        prefix: prefix.into(),
        endpoint: Some(endpoint),
        region: "us-east-1".into(),
        access_key: std::env::var("AWS_ACCESS_KEY_ID").unwrap_or_else(|_| "ragpipe".into()),
        secret_key: std::env::var("AWS_SECRET_ACCESS_KEY").unwrap_or_else(|_| "ragpipe-secret".into()),
    }
}

/// A fresh bucket holding `objects` under `prefix`; returns its config.
async fn bucket_with(name: &str, prefix: &str, objects: &BTreeMap<String, Vec<u8>>) -> S3Config {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    let bucket = format!("{name}-{}-{nanos}", std::process::id());
    let cfg = config(&bucket, prefix);
    let client = cfg.client();
    client.create_bucket().bucket(&bucket).send().await.expect("create bucket");
    for (key, bytes) in objects {
        let body = aws_sdk_s3::primitives::ByteStream::from(bytes.clone());
        client.put_object().bucket(&bucket).key(format!("{prefix}{key}")).body(body).send().await.expect("put");
    }
    // An object outside the prefix must never be listed.
    let stray = aws_sdk_s3::primitives::ByteStream::from_static(b"outside");
    client.put_object().bucket(&bucket).key("zz-outside/other.txt").body(stray).send().await.unwrap();
    cfg
}

async fn remove(cfg: &S3Config) {
    let client = cfg.client();
    let listed = client.list_objects_v2().bucket(&cfg.bucket).send().await.unwrap();
    for obj in listed.contents() {
        client.delete_object().bucket(&cfg.bucket).key(obj.key().unwrap()).send().await.unwrap();
    }
    client.delete_bucket().bucket(&cfg.bucket).send().await.unwrap();
}

#[tokio::test]
async fn s3_source_passes_the_conformance_suite() {
    let objects = sample_objects();
    let cfg = bucket_with("conformance", "docs/", &objects).await;
    let source = S3Source::new(cfg.clone());
    conformance::check_all(&source, &objects).await;
    conformance::listing_is_stable_across_instances(&source, &S3Source::new(cfg.clone())).await;
    assert_eq!(source.root(), format!("s3://{}/docs/", cfg.bucket));
    remove(&cfg).await;
}

#[tokio::test]
async fn listing_pages_through_more_than_one_page() {
    // ListObjectsV2 returns at most 1000 keys a page.
    let objects: BTreeMap<String, Vec<u8>> = (0..1005).map(|i| (format!("k{i:05}.txt"), vec![b'x'; 3])).collect();
    let cfg = bucket_with("paging", "", &objects).await;
    let listed = conformance::list_all(&S3Source::new(cfg.clone())).await;
    assert_eq!(listed.len(), 1006, "1005 objects plus the one outside any prefix");
    assert!(listed.iter().all(|m| !m.etag.is_empty() && m.uri.starts_with("s3://")));
    remove(&cfg).await;
}

#[tokio::test]
async fn a_missing_bucket_is_a_listing_error() {
    let source = S3Source::new(config("no-such-bucket-ragpipe", ""));
    let mut listing = source.list();
    let first = listing.recv().await.expect("an item");
    assert!(first.is_err(), "a listing of a missing bucket fails instead of looking empty");
}

#[tokio::test]
async fn folder_markers_are_not_documents() {
    // The S3 console's "Create folder" writes an empty object named `name/`,
    // and one can sit at the prefix itself: folders, not empty files.
    let objects: BTreeMap<String, Vec<u8>> =
        [("", Vec::new()), ("reports/", Vec::new()), ("reports/q1.md", b"# Q1".to_vec())]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
    let cfg = bucket_with("markers", "docs/", &objects).await;
    let keys: Vec<String> =
        conformance::list_all(&S3Source::new(cfg.clone())).await.into_iter().map(|m| m.key).collect();
    assert_eq!(keys, ["reports/q1.md"]);
    remove(&cfg).await;
}
