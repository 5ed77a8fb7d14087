//! What a failed S3 request means for the document: a reason an admin can
//! act on, and whether trying again can help. Throttling, server errors and
//! broken connections pass with time; a denied read, an archived object or
//! one encrypted with a key ragpipe does not hold stay as they are until
//! someone changes them, so retrying them only delays the failure an admin
//! must see (and `ragpipe retry` reads them again once they have).

use aws_sdk_s3::config::http::HttpResponse;
use aws_sdk_s3::error::{DisplayErrorContext, ProvideErrorMetadata, SdkError};
use aws_sdk_s3::operation::RequestId;

/// A failed request: why, in words, and whether it is worth repeating.
/// The reason is the same for every object refused for the same cause, so
/// `ragpipe status` counts them as one group; the request id AWS support
/// asks for is logged instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Failure {
    pub reason: String,
    pub retryable: bool,
    pub request_id: Option<String>,
}

/// Describes a failed request of any S3 operation.
pub(crate) fn describe<E>(e: &SdkError<E, HttpResponse>) -> Failure
where
    E: ProvideErrorMetadata + RequestId + std::error::Error + 'static,
{
    match e {
        SdkError::ServiceError(service) => {
            let err = service.err();
            let status = service.raw().status().as_u16();
            let mut failure = classify(status, err.code().unwrap_or(""), err.message().unwrap_or(""));
            failure.request_id = err.request_id().filter(|id| !id.is_empty()).map(str::to_string);
            failure
        }
        // Timeouts, refused connections, a response that was not S3's:
        // the network's or the server's state, which changes; or no
        // credentials to sign with, told in a line rather than the
        // providers' nested errors.
        other => match credentials_error(other) {
            Some(last) => Failure {
                reason: format!(
                    "no credentials to sign with: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set, and no \
                     profile, web identity token, container endpoint or EC2 instance role gave any (last: {last})"
                ),
                retryable: true,
                request_id: None,
            },
            None => Failure { reason: DisplayErrorContext(other).to_string(), retryable: true, request_id: None },
        },
    }
}

/// When loading credentials is what failed, the innermost reason.
fn credentials_error(e: &(dyn std::error::Error + 'static)) -> Option<String> {
    let mut source = Some(e);
    while let Some(err) = source {
        if err.downcast_ref::<aws_credential_types::provider::error::CredentialsError>().is_some() {
            let mut innermost = err;
            while let Some(next) = innermost.source() {
                innermost = next;
            }
            return Some(innermost.to_string());
        }
        source = err.source();
    }
    None
}

/// The reason for an S3 error response, by its status, code and message.
pub(crate) fn classify(status: u16, code: &str, message: &str) -> Failure {
    let permanent = |reason: String| Failure { reason, retryable: false, request_id: None };
    let said = if message.is_empty() { code.to_string() } else { format!("{code}: {message}") };
    match code {
        "AccessDenied" | "AllAccessDisabled" => permanent(format!(
            "access denied: the credentials ragpipe uses may not read it (s3:GetObject, or kms:Decrypt on its \
             key; see the bucket and IAM policies) [{said}]"
        )),
        "InvalidObjectState" => permanent(format!(
            "archived (S3 Glacier Flexible Retrieval, Deep Archive or an Intelligent-Tiering archive tier): \
             restore it (RestoreObject), then retry it [{said}]"
        )),
        "InvalidRequest" | "InvalidArgument" if sse_c(message) => {
            permanent(format!("encrypted with a customer-provided key (SSE-C), which ragpipe does not hold [{said}]"))
        }
        "NoSuchBucket" => permanent(format!("the bucket does not exist [{said}]")),
        "InvalidAccessKeyId" | "SignatureDoesNotMatch" | "InvalidToken" | "ExpiredToken" => permanent(format!(
            "the store refused the credentials ragpipe signs with (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, \
             else the profile or role it found) [{said}]"
        )),
        kms if kms.starts_with("KMS.") => permanent(format!("its KMS key cannot decrypt it [{said}]")),
        _ => Failure { reason: format!("S3 answered {status} {said}"), retryable: true, request_id: None },
    }
}

/// Whether a refusal's message says the object needs its SSE-C key (AWS:
/// "stored using a form of Server Side Encryption"; SeaweedFS: "… with
/// Customer provided keys must provide the customer key").
fn sse_c(message: &str) -> bool {
    let m = message.to_ascii_lowercase();
    m.contains("server side encryption") || m.contains("customer key")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_no_retry_can_change_is_not_retried() {
        let denied = classify(403, "AccessDenied", "Access Denied.");
        assert!(!denied.retryable);
        assert!(denied.reason.starts_with("access denied: "), "{}", denied.reason);
        assert!(denied.reason.ends_with("[AccessDenied: Access Denied.]"), "{}", denied.reason);
        let archived = classify(403, "InvalidObjectState", "The operation is not valid for the object's storage class");
        assert!(!archived.retryable);
        assert!(archived.reason.starts_with("archived (S3 Glacier"), "{}", archived.reason);
        // AWS and SeaweedFS word the SSE-C refusal differently.
        for (code, message) in [
            (
                "InvalidRequest",
                "The object was stored using a form of Server Side Encryption. The correct parameters must be provided to retrieve the object.",
            ),
            (
                "InvalidArgument",
                "Requests specifying Server Side Encryption with Customer provided keys must provide the customer key.",
            ),
        ] {
            let sealed = classify(400, code, message);
            assert!(!sealed.retryable && sealed.reason.starts_with("encrypted with a customer-provided key"), "{code}");
        }
        let keys = classify(403, "SignatureDoesNotMatch", "The request signature we calculated does not match");
        assert!(!keys.retryable && keys.reason.starts_with("the store refused the credentials"), "{}", keys.reason);
        let kms = classify(400, "KMS.DisabledException", "key is disabled");
        assert!(!kms.retryable && kms.reason.starts_with("its KMS key"), "{}", kms.reason);
    }

    #[test]
    fn throttling_and_server_errors_are_retried_with_their_words() {
        for (status, code) in
            [(503, "SlowDown"), (500, "InternalError"), (400, "RequestTimeout"), (400, "InvalidRequest")]
        {
            let f = classify(status, code, "try again");
            assert!(f.retryable, "{status} {code}");
            assert_eq!(f.reason, format!("S3 answered {status} {code}: try again"));
        }
    }
}
