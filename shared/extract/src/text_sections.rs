//! Section names in plain text: a line in capitals at the left margin with
//! an indented body right under it, the way a manual page rendered by `man`
//! names its sections (`NAME`, `OPTIONS`, `EXIT STATUS`, `VÉASE TAMBIÉN`)
//! and many plain-text manuals and READMEs do.
//!
//! Only sections large enough to stand alone become headings. A page closes
//! with sections of a line or two (`AUTHOR`, `SEE ALSO`, a translator's
//! note) and opens with its name and synopsis; cut out as chunks of their
//! own, such short generic chunks rank near every vague question with a
//! multilingual model (measured in docs/EVALUATION.md, "Manual pages as
//! `man` renders them"). So a small section stays in the section before it,
//! its name opening a paragraph of that section's text, and the page's
//! opening is read with what follows it until enough has been said.

/// Fewest words a section's body needs to be a section of its own: about
/// half a chunk of the default 256-token budget.
const MIN_SECTION_WORDS: usize = 100;

/// Longest section name, in characters.
const MAX_NAME_CHARS: usize = 60;

/// The indices in `lines` of the lines that name a section, each with
/// whether it heads one (see the module's documentation); none unless at
/// least two lines name sections.
pub(crate) fn section_lines(lines: &[&str]) -> Vec<(usize, bool)> {
    let names: Vec<usize> = (0..lines.len())
        .filter(|&i| is_name(lines[i]) && lines.get(i + 1).is_some_and(|next| is_indented(next)))
        .collect();
    if names.len() < 2 {
        return Vec::new();
    }
    let words = |lines: &[&str]| lines.iter().map(|line| line.split_whitespace().count()).sum::<usize>();
    let mut sections = Vec::with_capacity(names.len());
    let mut headed = false;
    // Words before the first heading: the page's header, and the sections
    // too small to stand alone that opened it.
    let mut opening = words(&lines[..names[0]]);
    for (k, &i) in names.iter().enumerate() {
        let end = names.get(k + 1).copied().unwrap_or(lines.len());
        let body = words(&lines[i + 1..end]);
        let heads = body >= MIN_SECTION_WORDS && (headed || opening == 0 || opening >= MIN_SECTION_WORDS);
        if !headed && !heads {
            opening += lines[i].split_whitespace().count() + body;
        }
        headed |= heads;
        sections.push((i, heads));
    }
    sections
}

/// A section's name: at the margin, short, and its letters all capitals
/// (spaces and `-/&'` between words allowed; no digits or brackets, so a
/// page's `GZIP(1)` header is not one).
fn is_name(line: &str) -> bool {
    let name = line.trim_end();
    let letters = name.chars().filter(|c| c.is_alphabetic()).count();
    !name.starts_with(char::is_whitespace)
        && letters >= 2
        && name.chars().count() <= MAX_NAME_CHARS
        && name.chars().all(|c| c.is_uppercase() || matches!(c, ' ' | '-' | '/' | '&' | '\''))
}

fn is_indented(line: &str) -> bool {
    line.starts_with([' ', '\t']) && !line.trim().is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(words: usize) -> String {
        format!("       {}\n", vec!["word"; words].join(" "))
    }

    fn opening_lines(text: &str) -> Vec<String> {
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        let heads = section_lines(&lines).into_iter().filter(|&(_, heads)| heads);
        heads.map(|(i, _)| lines[i].trim_end().to_string()).collect()
    }

    #[test]
    fn large_sections_are_named_and_small_ones_stay_with_the_one_before() {
        let text = [
            "LS(1)                User Commands               LS(1)\n\n".to_string(),
            format!("NAME\n{}\nSYNOPSIS\n{}\n", body(8), body(20)),
            format!("DESCRIPTION\n{}\nEXIT STATUS\n{}\n", body(150), body(120)),
            format!("VÉASE TAMBIÉN\n{}\nAUTHOR\n{}\n", body(5), body(4)),
        ]
        .concat();
        // NAME and SYNOPSIS open the page: 30 words are read with the
        // description, whose name stays a line of the text.
        assert_eq!(opening_lines(&text), ["EXIT STATUS"]);
        let opened = text.replace(&body(8), &body(90));
        assert_eq!(opening_lines(&opened), ["DESCRIPTION", "EXIT STATUS"]);
    }

    #[test]
    fn names_need_capitals_at_the_margin_over_an_indented_body_twice() {
        let section = |name: &str| format!("{name}\n{}\n", body(120));
        let two = [section("OPTIONS"), section("FILES & DIRS")].concat();
        assert_eq!(opening_lines(&two), ["OPTIONS", "FILES & DIRS"]);
        assert!(opening_lines(&section("OPTIONS")).is_empty());
        for not_names in [
            [section("Options"), section("Files")].concat(),
            [section("  OPTIONS"), section("  FILES")].concat(),
            [section("GZIP(1)"), section("NOTE 2")].concat(),
            format!("OPTIONS\n\n{}FILES\n{}", body(120), body(120)),
        ] {
            assert!(opening_lines(&not_names).is_empty(), "{not_names:.40}");
        }
    }
}
