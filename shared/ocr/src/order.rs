//! Reading order: which line comes after which on a page.
//!
//! A detected box is taller than its text (the detector's regions are grown
//! to hold ascenders and descenders: about 1.8 text heights), so boxes of
//! consecutive lines overlap and distances are measured between centres.
//! Lines are grouped into rows (centres within 0.3 box heights). Where a
//! few consecutive rows taken together leave a wide empty stretch with
//! lines on both sides (more than 0.6 box heights, about one text height,
//! wider than any space between words: a gutter), a multi-column region
//! opens, which goes on down the page while the rows below
//! leave that gutter empty (a row on one side only must follow closely: a
//! heading under the columns after a gap closes them). Inside a region the
//! left side is read before the right, each side ordered the same way in
//! turn (nested columns); outside, rows are read top to bottom and each
//! row left to right.

use crate::Line;
use std::ops::Range;

/// Deepest nesting of columns looked for.
const MAX_DEPTH: u32 = 3;

/// The lines in reading order.
pub fn reading_order(lines: Vec<Line>) -> Vec<Line> {
    let height = median_height(&lines);
    order(lines, height, 0)
}

/// Whether two lines sit on one row: their centres within 0.3 box heights.
pub fn same_row(a: &Line, b: &Line) -> bool {
    (centre_y(a) - centre_y(b)).abs() < 0.3 * a.rect.h.max(b.rect.h) as f32
}

/// Groups consecutive lines (in reading order) into paragraphs: a new one
/// starts where the next line's centre is more than one box height below
/// the last one's (ordinary leading is about 0.7, a blank line 1.3), or
/// where it does not sit below it (a new column).
pub fn paragraphs(lines: &[Line]) -> Vec<Range<usize>> {
    let mut out: Vec<Range<usize>> = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let joins = i > 0 && {
            let prev = &lines[i - 1];
            let step = centre_y(line) - centre_y(prev);
            let h = prev.rect.h.max(line.rect.h) as f32;
            same_row(prev, line) || (step > 0.0 && step <= h && horizontally_overlapping(prev.rect, line.rect))
        };
        match out.last_mut() {
            Some(p) if joins => p.end = i + 1,
            _ => out.push(i..i + 1),
        }
    }
    out
}

fn horizontally_overlapping(a: crate::Rect, b: crate::Rect) -> bool {
    a.x < b.right() && b.x < a.right()
}

fn median_height(lines: &[Line]) -> f32 {
    let mut h: Vec<u32> = lines.iter().map(|l| l.rect.h).collect();
    h.sort_unstable();
    h.get(h.len() / 2).map_or(0.0, |&m| m as f32)
}

fn centre_y(l: &Line) -> f32 {
    l.rect.y as f32 + l.rect.h as f32 / 2.0
}

/// Rows top to bottom, each sorted left to right.
fn rows(mut lines: Vec<Line>) -> Vec<Vec<Line>> {
    lines.sort_by(|a, b| centre_y(a).total_cmp(&centre_y(b)));
    let mut out: Vec<Vec<Line>> = Vec::new();
    for line in lines {
        let joins = out.last().is_some_and(|row| row.iter().any(|l| same_row(l, &line)));
        match out.last_mut() {
            Some(row) if joins => row.push(line),
            _ => out.push(vec![line]),
        }
    }
    for row in &mut out {
        row.sort_by_key(|l| l.rect.x);
    }
    out
}

/// The widest empty stretch, wider than `min`, between the lines of a few
/// consecutive rows taken together (the columns' baselines need not line
/// up, so one row may hold a line of one column only).
fn gutter<'a>(lines: impl Iterator<Item = &'a Line>, min: f32) -> Option<(u32, u32)> {
    let mut spans: Vec<(u32, u32)> = lines.map(|l| (l.rect.x, l.rect.right())).collect();
    spans.sort_unstable();
    let mut best: Option<(u32, u32)> = None;
    let mut reach = spans.first()?.1;
    for &(x, right) in &spans[1..] {
        if x > reach && (x - reach) as f32 > min && best.is_none_or(|(a, b)| x - reach > b - a) {
            best = Some((reach, x));
        }
        reach = reach.max(right);
    }
    best
}

/// Whether a line of the row spans the whole gutter (a line may reach
/// into it: a detected box is padded, and a column's lines end unevenly).
fn crosses(row: &[Line], (g0, g1): (u32, u32)) -> bool {
    row.iter().any(|l| l.rect.x <= g0 && l.rect.right() >= g1)
}

/// Rows looked at together to find a gutter.
const WINDOW: usize = 3;

fn order(lines: Vec<Line>, height: f32, depth: u32) -> Vec<Line> {
    let min_gutter = 0.6 * height;
    let mut rows: Vec<Vec<Line>> = rows(lines);
    rows.reverse();
    let mut out = Vec::new();
    while let Some(row) = rows.pop() {
        let window = rows.iter().rev().take(WINDOW - 1).flatten().chain(&row);
        let Some(mut g) = gutter(window, min_gutter).filter(|_| depth < MAX_DEPTH) else {
            out.extend(row);
            continue;
        };
        let mut region = row;
        let mut last = region.iter().map(centre_y).fold(f32::MIN, f32::max);
        while let Some(next) = rows.last() {
            if crosses(next, g) {
                break;
            }
            let mid = (g.0 + g.1) / 2;
            let two_sided = next.iter().any(|l| l.rect.right() <= mid) && next.iter().any(|l| l.rect.x >= mid);
            let below = next.iter().map(centre_y).fold(f32::MAX, f32::min) - last;
            if !two_sided && below > 1.2 * height {
                break;
            }
            // The gutter narrows to what the columns' lines leave free.
            for l in next {
                if l.rect.right() < g.1 {
                    g.0 = g.0.max(l.rect.right());
                } else if l.rect.x > g.0 {
                    g.1 = g.1.min(l.rect.x);
                }
            }
            let next = rows.pop().unwrap_or_default();
            last = last.max(next.iter().map(centre_y).fold(f32::MIN, f32::max));
            region.extend(next);
            if g.0 >= g.1 {
                break;
            }
        }
        let mid = (g.0 + g.1) / 2;
        let (left, right): (Vec<Line>, Vec<Line>) = region.into_iter().partition(|l| l.rect.x + l.rect.w / 2 < mid);
        out.extend(order(left, height, depth + 1));
        out.extend(order(right, height, depth + 1));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Rect;

    fn line(text: &str, x: u32, y: u32, w: u32) -> Line {
        Line { text: text.into(), confidence: 1.0, rect: Rect { x, y, w, h: 20 } }
    }

    fn texts(lines: &[Line]) -> Vec<&str> {
        lines.iter().map(|l| l.text.as_str()).collect()
    }

    #[test]
    fn two_columns_are_read_one_after_the_other_between_full_width_text() {
        let lines = vec![
            line("R2", 400, 125, 300),
            line("title", 100, 0, 600),
            line("L1", 100, 100, 250),
            line("R1", 400, 100, 300),
            line("L2", 100, 125, 250),
            line("L3", 100, 150, 250),
            line("footer", 100, 250, 600),
            line("R3", 400, 152, 300),
        ];
        assert_eq!(texts(&reading_order(lines)), ["title", "L1", "L2", "L3", "R1", "R2", "R3", "footer"]);
    }

    #[test]
    fn a_heading_below_the_columns_after_a_gap_is_not_part_of_them() {
        let lines = vec![
            line("L1", 100, 100, 250),
            line("R1", 400, 100, 300),
            line("L2", 100, 125, 250),
            line("R2", 400, 125, 300),
            line("Heading", 100, 200, 150),
            line("body", 100, 225, 600),
        ];
        assert_eq!(texts(&reading_order(lines)), ["L1", "L2", "R1", "R2", "Heading", "body"]);
    }

    #[test]
    fn words_of_one_line_stay_left_to_right_and_paragraphs_split_at_gaps() {
        let lines = vec![line("b", 130, 2, 20), line("a", 100, 0, 25), line("c", 100, 22, 60), line("d", 100, 80, 60)];
        let ordered = reading_order(lines);
        assert_eq!(texts(&ordered), ["a", "b", "c", "d"]);
        assert_eq!(paragraphs(&ordered), [0..3, 3..4]);
    }
}
