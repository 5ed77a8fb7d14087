//! Whose credentials an S3 source signs with. Keys in the environment
//! (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, and `AWS_SESSION_TOKEN`
//! for temporary ones) come first, as every AWS tool takes them; without
//! them, the credentials a platform's workload is given, in the order the
//! AWS SDKs look for them: a named profile (`AWS_PROFILE`, the shared
//! `credentials` and `config` files, a role it assumes), a web identity
//! token (EKS's IAM roles for service accounts), the container's
//! credentials endpoint (ECS task roles, EKS Pod Identity), then the EC2
//! instance's role. The SDK caches what they give and refreshes it before
//! it expires, so a days-long `ingest --every` never signs with stale keys.

use aws_config::ecs::EcsCredentialsProvider;
use aws_config::imds::credentials::ImdsCredentialsProvider;
use aws_config::meta::credentials::CredentialsProviderChain;
use aws_config::profile::ProfileFileCredentialsProvider;
use aws_config::provider_config::ProviderConfig;
use aws_config::web_identity_token::WebIdentityTokenCredentialsProvider;
use aws_sdk_s3::config::{Credentials, Region, SharedCredentialsProvider};

/// Keys given outright.
#[derive(Clone, PartialEq, Eq)]
pub struct S3Keys {
    pub access_key: String,
    pub secret_key: String,
    /// The token of temporary keys (an assumed role's, SSO's).
    pub session_token: Option<String>,
}

impl S3Keys {
    pub fn new(access_key: impl Into<String>, secret_key: impl Into<String>) -> Self {
        S3Keys { access_key: access_key.into(), secret_key: secret_key.into(), session_token: None }
    }

    /// The keys in `AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY` (and
    /// `AWS_SESSION_TOKEN`), if the first is set; an error names what is
    /// missing when only half of a pair is there.
    pub(crate) fn from_env() -> Result<Option<Self>, String> {
        let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        match (env("AWS_ACCESS_KEY_ID"), env("AWS_SECRET_ACCESS_KEY")) {
            (Some(access_key), Some(secret_key)) => {
                Ok(Some(S3Keys { access_key, secret_key, session_token: env("AWS_SESSION_TOKEN") }))
            }
            (None, None) => Ok(None),
            (Some(_), None) => Err("AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not".into()),
            (None, Some(_)) => Err("AWS_SECRET_ACCESS_KEY is set but AWS_ACCESS_KEY_ID is not".into()),
        }
    }
}

/// Never print a secret: configurations are logged.
impl std::fmt::Debug for S3Keys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("S3Keys")
            .field("access_key", &self.access_key)
            .field("secret_key", &"…")
            .field("session_token", &self.session_token.as_ref().map(|_| "…"))
            .finish()
    }
}

/// What signs the requests: `keys`, else the workload's chain.
pub(crate) fn provider(keys: Option<&S3Keys>, region: &str) -> SharedCredentialsProvider {
    if let Some(k) = keys {
        let creds = Credentials::new(&k.access_key, &k.secret_key, k.session_token.clone(), None, "environment");
        return SharedCredentialsProvider::new(creds);
    }
    let config = ProviderConfig::without_region().with_region(Some(Region::new(region.to_string())));
    let chain = CredentialsProviderChain::first_try(
        "Profile",
        ProfileFileCredentialsProvider::builder().configure(&config).build(),
    )
    .or_else("WebIdentityToken", WebIdentityTokenCredentialsProvider::builder().configure(&config).build())
    .or_else("EcsContainer", EcsCredentialsProvider::builder().configure(&config).build())
    .or_else("Ec2InstanceMetadata", ImdsCredentialsProvider::builder().configure(&config).build());
    SharedCredentialsProvider::new(chain)
}
