//! Headings set at the body's size, told by their number. LaTeX sets a
//! `\subsubsection` in the body's size, bold, and DBLaTeX a section's
//! third level the same way, so the size rule misses them and a chunk of
//! `6.3. Installing` runs on into `6.3.6. Installing a gateway`. A line of
//! its own whose number goes on from a numbered heading above it (one more
//! part: `6.3.6.` under `6.3.`, `3.1.1` under `3.1`) is a heading one
//! level below that one.

use super::Part;

/// The most characters such a heading has.
const MAX_CHARS: usize = 120;

/// Marks the body-size headings of `laid_out` (every page's parts, in
/// reading order, after the size rule and the title page).
pub(super) fn numbered_headings(laid_out: &mut [Vec<Part>]) {
    // The headings above the current point: level and number, if numbered.
    let mut path: Vec<(u8, Option<Vec<u32>>)> = Vec::new();
    for part in laid_out.iter_mut().flatten() {
        let Part::Paragraph(level, lines) = part else { continue };
        if let Some(level) = *level {
            while path.last().is_some_and(|(l, _)| *l >= level) {
                path.pop();
            }
            let number = lines.first().and_then(|l| number(l)).map(|(n, _)| n);
            path.push((level, number));
            continue;
        }
        let [line] = lines.as_slice() else { continue };
        let Some((number, title)) = number(line) else { continue };
        if number.len() < 2 || !titled(line, title) {
            continue;
        }
        let parent = &number[..number.len() - 1];
        let Some(at) = path.iter().rposition(|(_, n)| n.as_deref() == Some(parent)) else { continue };
        let below = path[at].0 + 1;
        if below > 6 {
            continue;
        }
        path.truncate(at + 1);
        path.push((below, Some(number)));
        *level = Some(below);
    }
}

/// The section number a line opens with (`6.3.6.` or `6.3.6`, then a
/// space) and the rest of the line.
fn number(line: &str) -> Option<(Vec<u32>, &str)> {
    let (first, rest) = line.trim_start().split_once(' ')?;
    let digits = first.strip_suffix('.').unwrap_or(first);
    let part = |p: &str| {
        if (1..=3).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_digit()) { p.parse().ok() } else { None }
    };
    let parts: Option<Vec<u32>> = digits.split('.').map(part).collect();
    Some((parts?, rest.trim()))
}

/// Whether the rest of a numbered line reads as a title: short, worded, and
/// not a sentence or a lead-in (`3.1 The supplier shall pay.`, `1.2 Run:`).
fn titled(line: &str, title: &str) -> bool {
    line.chars().count() <= MAX_CHARS
        && title.chars().next().is_some_and(char::is_alphabetic)
        && !title.ends_with(['.', ':', ';', ','])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn para(level: Option<u8>, text: &str) -> Part {
        Part::Paragraph(level, text.lines().map(String::from).collect())
    }

    fn levels(parts: &[Part]) -> Vec<Option<u8>> {
        parts.iter().map(Part::level).collect()
    }

    #[test]
    fn a_body_size_heading_numbered_under_a_heading_is_one() {
        let mut pages = vec![
            vec![
                para(Some(1), "6. Installation"),
                para(Some(2), "6.3. Installing Debian Edu"),
                para(None, "The password must be five characters long."),
                para(None, "6.3.6. Installing a gateway"),
                para(None, "Make a minimal installation."),
            ],
            vec![para(None, "6.3.6.1 Its firewall"), para(None, "6.3.7. Notes on CDs"), para(Some(2), "6.4. After")],
        ];
        numbered_headings(&mut pages);
        assert_eq!(levels(&pages[0]), [Some(1), Some(2), None, Some(3), None]);
        assert_eq!(levels(&pages[1]), [Some(4), Some(3), Some(2)]);
    }

    #[test]
    fn numbers_that_do_not_go_on_from_a_heading_stay_text() {
        let mut parts = vec![
            para(Some(1), "3. Requirements"),
            // Not under 3.: another chapter's number, a version, a list item.
            para(None, "4.1. Hardware"),
            para(None, "2.1 is the version that ships"),
            para(None, "1. Plug the cable in"),
            // Under 3., but a sentence, a lead-in, two lines, a date.
            para(None, "3.1 The school shall provide a server."),
            para(None, "3.2 Run:"),
            para(None, "3.3 Memory\nand disks"),
            para(None, "3.04.2024 release"),
            para(None, "3.1 Memory"),
        ];
        numbered_headings(std::slice::from_mut(&mut parts));
        assert_eq!(levels(&parts), [Some(1), None, None, None, None, None, None, None, Some(2)]);
    }
}
