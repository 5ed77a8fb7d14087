//! An S3 bucket (or any S3-compatible store) as a source.
//!
//! Listing uses ListObjectsV2 page by page and streams objects out as pages
//! arrive, so millions of keys never sit in memory at once; keys are reported
//! relative to the configured prefix, like a folder's relative paths. The
//! ETag is the version marker. Fetch refuses an object whose stated size is
//! over the limit before reading it, and stops reading if the body runs past it.
//! A refused read says why, and is retried only when time can change it
//! ([`failure`]).

mod credentials;
mod failure;

pub use credentials::S3Keys;

use crate::{Listing, ObjectMeta, ObjectSource, SourceError};
use async_trait::async_trait;
use aws_sdk_s3::Client;
use aws_sdk_s3::config::{BehaviorVersion, Region};
use tokio::sync::mpsc;

/// Where the bucket is and how to reach it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct S3Config {
    pub bucket: String,
    /// Key prefix (a "folder"); empty for the whole bucket.
    pub prefix: String,
    /// Endpoint for S3-compatible stores (`http://127.0.0.1:8333`); `None` = AWS.
    pub endpoint: Option<String>,
    pub region: String,
    /// Keys to sign with; `None`: the workload's own credentials (a
    /// profile, a web identity, the container's or the instance's role).
    pub keys: Option<S3Keys>,
}

impl S3Config {
    /// Parses `s3://bucket/prefix`; the region comes from `AWS_REGION` (or
    /// `AWS_DEFAULT_REGION`), a custom endpoint from `RAGPIPE_S3_ENDPOINT`
    /// (or the SDKs' own `AWS_ENDPOINT_URL_S3`, `AWS_ENDPOINT_URL`), keys from
    /// `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN`
    /// when they are set ([`credentials`] says what is used otherwise).
    pub fn from_uri(uri: &str) -> Result<Self, SourceError> {
        let bad = |reason: &str| SourceError::List { root: uri.into(), reason: reason.into() };
        let rest = uri.strip_prefix("s3://").ok_or_else(|| bad("not an s3:// URI"))?;
        let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
        if bucket.is_empty() {
            return Err(bad("no bucket name"));
        }
        let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        Ok(S3Config {
            bucket: bucket.into(),
            prefix: prefix.into(),
            endpoint: ["RAGPIPE_S3_ENDPOINT", "AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL"].into_iter().find_map(env),
            region: env("AWS_REGION").or_else(|| env("AWS_DEFAULT_REGION")).unwrap_or_else(|| "us-east-1".into()),
            keys: S3Keys::from_env().map_err(|e| bad(&e))?,
        })
    }

    /// A client for this configuration (path-style addressing for custom endpoints).
    pub fn client(&self) -> Client {
        let mut b = aws_sdk_s3::Config::builder()
            .behavior_version(BehaviorVersion::latest())
            .region(Region::new(self.region.clone()))
            .credentials_provider(credentials::provider(self.keys.as_ref(), &self.region));
        if let Some(endpoint) = &self.endpoint {
            b = b.endpoint_url(endpoint).force_path_style(true);
        }
        Client::from_conf(b.build())
    }
}

pub struct S3Source {
    client: Client,
    config: S3Config,
}

impl S3Source {
    pub fn new(config: S3Config) -> Self {
        S3Source { client: config.client(), config }
    }

    fn full_key(&self, key: &str) -> String {
        format!("{}{key}", self.config.prefix)
    }
}

fn retryable(key: &str, e: impl std::fmt::Display) -> SourceError {
    SourceError::Read { key: key.into(), reason: e.to_string(), retryable: true }
}

#[async_trait]
impl ObjectSource for S3Source {
    fn root(&self) -> String {
        format!("s3://{}/{}", self.config.bucket, self.config.prefix)
    }

    fn list(&self) -> Listing {
        let (tx, rx) = mpsc::channel(1024);
        let (client, config) = (self.client.clone(), self.config.clone());
        tokio::spawn(async move {
            let mut token: Option<String> = None;
            loop {
                let page = client
                    .list_objects_v2()
                    .bucket(&config.bucket)
                    .prefix(&config.prefix)
                    .set_continuation_token(token.take())
                    .send()
                    .await;
                let page = match page {
                    Ok(p) => p,
                    Err(e) => {
                        let root = format!("s3://{}/{}", config.bucket, config.prefix);
                        let reason = failure::describe(&e).reason;
                        let _ = tx.send(Err(SourceError::List { root, reason })).await;
                        return;
                    }
                };
                for obj in page.contents() {
                    let Some(full) = obj.key() else { continue };
                    let key = full.strip_prefix(config.prefix.as_str()).unwrap_or(full).to_string();
                    // A folder marker (the console's "Create folder": an
                    // empty `name/`), or the prefix itself: not a document.
                    if key.is_empty() || (key.ends_with('/') && obj.size().unwrap_or(0) == 0) {
                        continue;
                    }
                    let meta = ObjectMeta {
                        uri: format!("s3://{}/{full}", config.bucket),
                        etag: obj.e_tag().unwrap_or_default().trim_matches('"').to_string(),
                        size: obj.size().unwrap_or(0).max(0) as u64,
                        key,
                    };
                    if tx.send(Ok(meta)).await.is_err() {
                        return;
                    }
                }
                match page.next_continuation_token() {
                    Some(t) if page.is_truncated() == Some(true) => token = Some(t.to_string()),
                    _ => return,
                }
            }
        });
        rx
    }

    async fn fetch(&self, key: &str, max_bytes: u64) -> Result<Vec<u8>, SourceError> {
        let resp = self.client.get_object().bucket(&self.config.bucket).key(self.full_key(key)).send().await;
        let resp = match resp {
            Ok(r) => r,
            Err(e) => {
                if e.as_service_error().is_some_and(|s| s.is_no_such_key()) {
                    return Err(SourceError::NotFound { key: key.into() });
                }
                let failure::Failure { reason, retryable, request_id } = failure::describe(&e);
                tracing::warn!(
                    key,
                    request_id = request_id.as_deref().unwrap_or("-"),
                    retryable,
                    "S3 GetObject failed: {reason}"
                );
                return Err(SourceError::Read { key: key.into(), reason, retryable });
            }
        };
        let size = resp.content_length().unwrap_or(0).max(0) as u64;
        if size > max_bytes {
            return Err(SourceError::TooLarge { key: key.into(), size, limit: max_bytes });
        }
        let mut body = resp.body;
        let mut out = Vec::with_capacity(size as usize);
        while let Some(chunk) = body.try_next().await.map_err(|e| retryable(key, e))? {
            out.extend_from_slice(&chunk);
            if out.len() as u64 > max_bytes {
                return Err(SourceError::TooLarge { key: key.into(), size: out.len() as u64, limit: max_bytes });
            }
        }
        Ok(out)
    }
}
