//! Request parameters are untrusted: a filter or a document id is checked
//! against what it can be (a known status or kind, an id in the format
//! [`DocumentId::from_uri`] makes, a short plain-text reason) before
//! anything reads the state store, and refused with an error naming the
//! parameter. The store's queries are parameterised anyway; checking at the
//! door keeps SQL and path tricks, NUL bytes and megabyte values out of
//! every layer behind it, logs included.

use crate::{AdminError, DEFAULT_PAGE, Filter, MAX_PAGE};
use ragpipe_core::{DocStatus, DocumentId, Kind};
use ragpipe_state::Cursor;
use serde::Deserialize;

/// Longest `reason` filter, in bytes. Reasons are one-line messages; a
/// longer needle matches nothing and only costs a scan of every document.
pub const MAX_REASON_BYTES: usize = 256;

/// Longest page cursor, in bytes: a cursor is a document's source URI.
pub const MAX_CURSOR_BYTES: usize = 4096;

/// A document id is the hex of the first 12 bytes of its URI's SHA-256.
const ID_HEX_DIGITS: usize = 24;

/// How much of an unknown parameter's name an error repeats.
const MAX_NAME_SHOWN: usize = 64;

/// A filter as it arrives (query string or retry body), values unchecked.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawFilter {
    status: Option<String>,
    reason: Option<String>,
    kind: Option<String>,
    #[serde(default)]
    stale: bool,
    #[serde(default)]
    warned: bool,
}

impl RawFilter {
    /// From a query string's pairs: only the filter's parameters, each at
    /// most once (a repeated one would leave which value wins to chance).
    pub fn from_query(pairs: Vec<(String, String)>) -> Result<RawFilter, AdminError> {
        let mut raw = RawFilter::default();
        let (mut stale, mut warned) = (None, None);
        for (name, value) in pairs {
            let slot = match name.as_str() {
                "status" => &mut raw.status,
                "reason" => &mut raw.reason,
                "kind" => &mut raw.kind,
                "stale" => &mut stale,
                "warned" => &mut warned,
                _ => return Err(invalid(shown(&name), "unknown parameter")),
            };
            if slot.replace(value).is_some() {
                return Err(invalid(name, "given more than once"));
            }
        }
        raw.stale = flag("stale", stale.as_deref())?;
        raw.warned = flag("warned", warned.as_deref())?;
        Ok(raw)
    }

    /// The checked filter. `prefix` says where the filter sits in the
    /// request (`filter.` in a retry body), so errors name the full path.
    pub fn check(self, prefix: &str) -> Result<Filter, AdminError> {
        let name = |field: &str| format!("{prefix}{field}");
        let status = match self.status {
            Some(s) => Some(DocStatus::parse(&s).ok_or_else(|| {
                let known: Vec<_> = DocStatus::ALL.iter().map(|s| s.as_str()).collect();
                invalid(name("status"), format!("must be one of {}", known.join(", ")))
            })?),
            None => None,
        };
        let kind = match self.kind {
            Some(k) => Some(Kind::parse(&k).ok_or_else(|| invalid(name("kind"), "not a known kind"))?),
            None => None,
        };
        if let Some(r) = &self.reason {
            reason(r).map_err(|problem| invalid(name("reason"), problem))?;
        }
        Ok(Filter { status, reason: self.reason, kind, stale: self.stale, warned: self.warned })
    }
}

/// A yes/no query parameter: absent is no.
fn flag(name: &str, value: Option<&str>) -> Result<bool, AdminError> {
    match value {
        None | Some("false") => Ok(false),
        Some("true") => Ok(true),
        Some(_) => Err(invalid(name, "must be true or false")),
    }
}

/// A listing request's query string: the filter, and which page
/// (`limit`, and `after` or `before` a cursor).
pub(crate) fn page_query(pairs: Vec<(String, String)>) -> Result<(Filter, Cursor, usize), AdminError> {
    let (paging, filter): (Vec<_>, Vec<_>) =
        pairs.into_iter().partition(|(name, _)| matches!(name.as_str(), "limit" | "after" | "before"));
    let filter = RawFilter::from_query(filter)?.check("")?;
    let (mut limit, mut cursor) = (None, None);
    for (name, value) in paging {
        if name == "limit" {
            let n = value.parse::<usize>().ok().filter(|n| (1..=MAX_PAGE).contains(n));
            let n = n.ok_or_else(|| invalid("limit", format!("must be a number from 1 to {MAX_PAGE}")))?;
            if limit.replace(n).is_some() {
                return Err(invalid(name, "given more than once"));
            }
            continue;
        }
        if value.len() > MAX_CURSOR_BYTES || value.chars().any(char::is_control) {
            return Err(invalid(name, format!("not a cursor (a source URI of at most {MAX_CURSOR_BYTES} bytes)")));
        }
        let c = if name == "after" { Cursor::After(value) } else { Cursor::Before(value) };
        if cursor.replace(c).is_some() {
            return Err(invalid(name, "after and before are one cursor, given once"));
        }
    }
    Ok((filter, cursor.unwrap_or_default(), limit.unwrap_or(DEFAULT_PAGE)))
}

/// A reason filter is plain text matched as a substring: bounded, and
/// without control characters (no reason has one; a NUL is a probe).
fn reason(r: &str) -> Result<(), String> {
    if r.len() > MAX_REASON_BYTES {
        return Err(format!("longer than {MAX_REASON_BYTES} bytes"));
    }
    if r.chars().any(char::is_control) {
        return Err("contains a control character".into());
    }
    Ok(())
}

/// A document id as [`DocumentId::from_uri`] makes it (lowercase hex of a
/// fixed length); anything else names no document and is refused as `param`.
pub(crate) fn document_id(raw: &str, param: &str) -> Result<DocumentId, AdminError> {
    let hex = |b: u8| b.is_ascii_digit() || (b'a'..=b'f').contains(&b);
    if raw.len() == ID_HEX_DIGITS && raw.bytes().all(hex) {
        Ok(DocumentId::from_raw(raw))
    } else {
        Err(invalid(param, format!("not a document id ({ID_HEX_DIGITS} lowercase hex digits)")))
    }
}

pub(crate) fn invalid(parameter: impl Into<String>, problem: impl Into<String>) -> AdminError {
    AdminError::Invalid { parameter: parameter.into(), problem: problem.into() }
}

/// An untrusted name cut short enough to repeat in an error.
fn shown(name: &str) -> String {
    name.chars().take(MAX_NAME_SHOWN).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(q: &[(&str, &str)]) -> Result<Filter, AdminError> {
        RawFilter::from_query(q.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect())?.check("")
    }

    fn parameter(err: AdminError) -> String {
        match err {
            AdminError::Invalid { parameter, .. } => parameter,
            other => panic!("not an invalid parameter: {other}"),
        }
    }

    #[test]
    fn known_values_make_a_filter() {
        let f =
            query(&[("status", "failed"), ("kind", "pdf"), ("reason", "encrypted PDF"), ("stale", "true")]).unwrap();
        assert_eq!(
            (f.status, f.kind, f.reason.as_deref(), f.stale),
            (Some(DocStatus::Failed), Some(Kind::Pdf), Some("encrypted PDF"), true)
        );
        let empty = query(&[]).unwrap();
        assert_eq!((empty.status, empty.kind, empty.reason, empty.stale), (None, None, None, false));
    }

    #[test]
    fn tricks_are_refused_naming_the_parameter() {
        let cases: &[(&[(&str, &str)], &str)] = &[
            (&[("status", "indexed' OR 1=1--")], "status"),
            (&[("status", "Failed")], "status"),
            (&[("status", "failed\0")], "status"),
            (&[("kind", "pdf; DROP TABLE documents")], "kind"),
            (&[("kind", "../../etc/passwd")], "kind"),
            (&[("stale", "1")], "stale"),
            (&[("reason", "a\0b")], "reason"),
            (&[("reason", "line\nbreak")], "reason"),
            (&[("status", "failed"), ("status", "indexed")], "status"),
            (&[("id", "1 OR 1=1")], "id"),
        ];
        for (q, param) in cases {
            assert_eq!(parameter(query(q).unwrap_err()), *param, "{q:?}");
        }
        let long = "x".repeat(MAX_REASON_BYTES + 1);
        let err = query(&[("reason", &long)]).unwrap_err();
        assert!(err.to_string().contains("longer than 256 bytes"), "{err}");
        let name = "n".repeat(10_000);
        assert_eq!(parameter(query(&[(&name, "")]).unwrap_err()).len(), MAX_NAME_SHOWN, "a long name is cut");
    }

    #[test]
    fn pages_are_asked_for_by_limit_and_one_cursor() {
        let q = |q: &[(&str, &str)]| page_query(q.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect());
        let (f, cursor, limit) = q(&[("status", "failed"), ("limit", "20"), ("after", "s3://b/k")]).unwrap();
        assert_eq!((f.status, cursor, limit), (Some(DocStatus::Failed), Cursor::After("s3://b/k".into()), 20));
        assert_eq!(q(&[]).unwrap().1, Cursor::Start);
        assert_eq!(q(&[]).unwrap().2, DEFAULT_PAGE);
        for (bad, param) in [
            (vec![("limit", "0")], "limit"),
            (vec![("limit", "1001")], "limit"),
            (vec![("limit", "ten")], "limit"),
            (vec![("after", "a"), ("before", "b")], "before"),
            (vec![("after", "a\0")], "after"),
        ] {
            assert_eq!(parameter(q(&bad).unwrap_err()), param, "{bad:?}");
        }
        let long = "u".repeat(MAX_CURSOR_BYTES + 1);
        assert_eq!(parameter(q(&[("before", &long)]).unwrap_err()), "before");
    }

    #[test]
    fn a_reason_is_plain_text_however_it_looks() {
        let sql = "x' OR '1'='1";
        assert_eq!(query(&[("reason", sql)]).unwrap().reason.as_deref(), Some(sql));
        assert!(query(&[("reason", &"é".repeat(MAX_REASON_BYTES / 2))]).is_ok(), "the limit is in bytes");
    }

    #[test]
    fn a_retry_filter_is_named_by_its_path() {
        let raw: RawFilter = serde_json::from_str(r#"{"status": "indexed' --"}"#).unwrap();
        assert_eq!(parameter(raw.check("filter.").unwrap_err()), "filter.status");
    }

    #[test]
    fn ids_have_the_format_from_uri_makes() {
        let real = DocumentId::from_uri("file:///corpus/a.pdf");
        assert_eq!(document_id(real.as_str(), "id").unwrap(), real);
        let long = "a".repeat(10_000);
        for bad in [
            "nope",
            "../../etc/passwd",
            "..%2F..%2F",
            "0123456789abcdef0123456\0",
            "0123456789ABCDEF01234567",
            "0123456789abcdef0123456g",
            "0123456789abcdef01234567 ",
            "0123456789abcdef01234567' OR 1=1--",
            &long,
        ] {
            let err = document_id(bad, "ids[0]").unwrap_err();
            assert!(err.to_string().starts_with("invalid ids[0]: not a document id"), "{bad:?}: {err}");
        }
    }
}
