//! XHTML's self-closing tags, read as XHTML means them. DocBook, Sphinx's
//! XHTML builder and many manual generators write `<a id="x"/>` for an empty
//! anchor; an HTML parser ignores the `/` and leaves the `<a>` open, and the
//! misnesting that follows (every later link inside it) makes the tree
//! builder's recovery lose whole list items (measured: 9 paragraphs of a
//! Debian maint-guide chapter vanished). Writing the end tag out keeps the
//! tree as the author meant it; void elements (`<br/>`, `<img/>`) and the
//! text are untouched.

use std::borrow::Cow;

/// Elements that never have content: their `/>` is already harmless.
const VOID: &[&str] =
    &["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr"];

/// `source` with every `<name …/>` of a non-void element written as
/// `<name …></name>`; borrowed when there is none.
pub(crate) fn expand(source: &str) -> Cow<'_, str> {
    let bytes = source.as_bytes();
    let mut out: Option<String> = None;
    let (mut copied, mut at) = (0usize, 0usize);
    while let Some(i) = bytes[at..].iter().position(|&b| b == b'<') {
        let start = at + i + 1;
        at = start;
        let name_len = bytes[start..].iter().take_while(|b| b.is_ascii_alphanumeric() || **b == b'-').count();
        if name_len == 0 || !bytes[start].is_ascii_alphabetic() {
            continue; // an end tag, a comment, a declaration, a stray `<`
        }
        let Some(end) = tag_end(bytes, start + name_len) else { break };
        at = end + 1;
        let name = &source[start..start + name_len];
        if bytes[end - 1] != b'/' || VOID.iter().any(|v| v.eq_ignore_ascii_case(name)) {
            continue;
        }
        let out = out.get_or_insert_with(|| String::with_capacity(source.len() + 1024));
        out.push_str(&source[copied..end - 1]);
        out.push_str("></");
        out.push_str(name);
        out.push('>');
        copied = end + 1;
    }
    match out {
        None => Cow::Borrowed(source),
        Some(mut out) => {
            out.push_str(&source[copied..]);
            Cow::Owned(out)
        }
    }
}

/// The index of the `>` that ends a tag whose attributes start at `from`,
/// skipping quoted attribute values.
fn tag_end(bytes: &[u8], from: usize) -> Option<usize> {
    let mut quote: Option<u8> = None;
    for (i, &b) in bytes.iter().enumerate().skip(from) {
        match (quote, b) {
            (Some(q), _) if b == q => quote = None,
            (Some(_), _) => {}
            (None, b'"' | b'\'') => quote = Some(b),
            (None, b'>') => return Some(i),
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::expand;

    #[test]
    fn non_void_self_closing_tags_get_their_end_tag() {
        let page = r#"<h2><a id="x"/>Title</h2><p>a<br/>b <img src="i.png" alt="1>0"/> <span class='a/>'/></p>"#;
        assert_eq!(
            expand(page),
            r#"<h2><a id="x"></a>Title</h2><p>a<br/>b <img src="i.png" alt="1>0"/> <span class='a/>'></span></p>"#
        );
        let plain = "<p>no self-closing tags</p><!-- a comment --> x < y";
        assert!(matches!(expand(plain), std::borrow::Cow::Borrowed(_)));
    }
}
