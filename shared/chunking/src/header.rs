//! The contextual header that goes in front of a chunk's content in `text`.

/// Builds `Title > Section > Sub`, dropping path entries the title already
/// says (a Markdown file's `# Title`, or an HTML page whose `<title>` is
/// "Chapter - Site" and whose first heading is "Chapter").
pub fn header_for(title: &str, section: &[String]) -> String {
    let mut parts: Vec<&str> = Vec::with_capacity(section.len() + 1);
    let title = title.trim();
    if !title.is_empty() {
        parts.push(title);
    }
    for s in section {
        let s = s.trim();
        let said = |p: &&str| p.to_lowercase().contains(&s.to_lowercase());
        if !s.is_empty() && !parts.iter().any(said) {
            parts.push(s);
        }
    }
    parts.join(" > ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_skips_repeated_title() {
        let path = vec!["Guide".to_string(), "Install".to_string()];
        assert_eq!(header_for("Guide", &path), "Guide > Install");
        assert_eq!(header_for("", &path), "Guide > Install");
        let page = vec!["Shared-State Concurrency".to_string(), "Mutexes".to_string()];
        assert_eq!(
            header_for("Shared-State Concurrency - The Book", &page),
            "Shared-State Concurrency - The Book > Mutexes"
        );
    }
}
