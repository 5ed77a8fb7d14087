//! `S3Source` against the source conformance suite, on the S3-compatible
//! server at `RAGPIPE_TEST_S3_ENDPOINT` (`scripts/s3-server.sh start` runs a
//! local SeaweedFS; `scripts/test.sh` does that before the tests). Each test
//! uses its own bucket and removes it afterwards.

use ragpipe_source::conformance::{self, sample_objects};
use ragpipe_source::{ObjectSource, S3Config, S3Keys, S3Source};
use std::collections::BTreeMap;

fn config(bucket: &str, prefix: &str) -> S3Config {
    let endpoint = std::env::var("RAGPIPE_TEST_S3_ENDPOINT")
        .expect("RAGPIPE_TEST_S3_ENDPOINT must name an S3 server: eval \"$(scripts/s3-server.sh start)\"");
    S3Config {
        bucket: bucket.into(),
        prefix: prefix.into(),
        endpoint: Some(endpoint),
        region: "us-east-1".into(),
        keys: Some(S3Keys::new(
            std::env::var("AWS_ACCESS_KEY_ID").unwrap_or_else(|_| "ragpipe".into()),
            std::env::var("AWS_SECRET_ACCESS_KEY").unwrap_or_else(|_| "ragpipe-secret".into()),
        )),
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
    let err = first.expect_err("a listing of a missing bucket fails instead of looking empty");
    assert!(err.to_string().contains("the bucket does not exist [NoSuchBucket"), "{err}");
}

#[tokio::test]
async fn reads_the_store_refuses_say_why_and_are_not_retried() {
    let objects: BTreeMap<String, Vec<u8>> = [("open.md", b"# Open".to_vec()), ("denied.md", b"# Denied".to_vec())]
        .into_iter()
        .map(|(k, v)| (k.into(), v))
        .collect();
    let cfg = bucket_with("refused", "", &objects).await;
    let client = cfg.client();
    // A bucket policy that denies reading one object, as an admin might
    // for a folder of HR files ragpipe should never see.
    let policy = format!(
        r#"{{"Version":"2012-10-17","Statement":[{{"Effect":"Deny","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::{}/denied.md"}}]}}"#,
        cfg.bucket
    );
    client.put_bucket_policy().bucket(&cfg.bucket).policy(policy).send().await.expect("bucket policy");
    // An object encrypted with a key its writer keeps (SSE-C).
    let key = [7u8; 32];
    client
        .put_object()
        .bucket(&cfg.bucket)
        .key("sealed.md")
        .body(aws_sdk_s3::primitives::ByteStream::from_static(b"# Sealed"))
        .sse_customer_algorithm("AES256")
        .sse_customer_key(aws_smithy_types::base64::encode(key))
        .sse_customer_key_md5(aws_smithy_types::base64::encode(<md5::Md5 as md5::Digest>::digest(key)))
        .send()
        .await
        .expect("put with SSE-C");

    let source = S3Source::new(cfg.clone());
    assert_eq!(source.fetch("open.md", 1 << 20).await.unwrap(), b"# Open");
    for (key, says) in
        [("denied.md", "access denied: "), ("sealed.md", "encrypted with a customer-provided key (SSE-C)")]
    {
        let err = source.fetch(key, 1 << 20).await.expect_err(key);
        assert!(!err.is_retryable(), "{key}: no retry changes this: {err}");
        assert!(err.to_string().starts_with(&format!("reading {key}: {says}")), "{err}");
    }
    client.delete_bucket_policy().bucket(&cfg.bucket).send().await.unwrap();
    remove(&cfg).await;
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
