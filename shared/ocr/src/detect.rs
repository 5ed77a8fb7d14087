//! Text detection: PP-OCR's DB (differentiable binarisation) graph gives a
//! per-pixel text probability of the page scaled to a multiple of 32; the
//! map is thresholded (0.3) and dilated (2 × 2), each 8-connected region
//! scored by its mean probability (kept from 0.5), boxed by its minimum-area
//! rectangle and grown back ("unclipped", ratio 1.6) to the whole line, since
//! the graph marks a shrunk core of each line so that neighbours stay apart.
//! The constants are PaddleOCR's published DB post-processing settings.

use crate::geometry::{RotRect, convex_hull, min_area_rect};
use image::GrayImage;

/// Probability from which a pixel counts as text.
const THRESH: f32 = 0.3;
/// Mean probability a region needs to be kept.
const BOX_THRESH: f32 = 0.5;
/// How far a region's rectangle is grown: area × ratio / perimeter.
const UNCLIP_RATIO: f32 = 1.6;
/// Regions considered per page, largest map first (noise beyond is dropped).
const MAX_CANDIDATES: usize = 2000;
/// The side the detector wants a small page scaled up to.
const MIN_SIDE: u32 = 736;

/// The size the detector runs at for a `width × height` page: its shorter
/// side up to [`MIN_SIDE`], its longer side down to `max_side`, both
/// rounded to a multiple of 32.
pub(crate) fn input_size(width: u32, height: u32, max_side: u32) -> (u32, u32) {
    let (w, h) = (width as f32, height as f32);
    let mut s = 1.0f32;
    if w.min(h) < MIN_SIDE as f32 {
        s = MIN_SIDE as f32 / w.min(h);
    }
    if w.max(h) * s > max_side as f32 {
        s = max_side as f32 / w.max(h);
    }
    let round32 = |x: f32| (((x * s) / 32.0).round() as u32 * 32).max(32);
    (round32(w), round32(h))
}

/// The detector's input: the grey page resized to `size`, normalised to
/// -1..1 and repeated over the three colour channels (NCHW).
pub(crate) fn input_tensor(page: &GrayImage, size: (u32, u32)) -> Vec<f32> {
    let resized = image::imageops::resize(page, size.0, size.1, image::imageops::FilterType::Triangle);
    let plane: Vec<f32> = resized.as_raw().iter().map(|&p| f32::from(p) / 127.5 - 1.0).collect();
    let mut out = Vec::with_capacity(plane.len() * 3);
    for _ in 0..3 {
        out.extend_from_slice(&plane);
    }
    out
}

/// Rotated boxes of the text regions of a `w × h` probability map, in map
/// coordinates, with their scores.
pub(crate) fn boxes(prob: &[f32], w: usize, h: usize) -> Vec<(RotRect, f32)> {
    let mask = dilated_mask(prob, w, h);
    let mut label = vec![0u32; w * h];
    let mut regions = Vec::new();
    let mut stack = Vec::new();
    for start in 0..w * h {
        if !mask[start] || label[start] != 0 {
            continue;
        }
        let id = regions.len() as u32 + 1;
        label[start] = id;
        stack.push(start);
        let mut region = Region::default();
        while let Some(i) = stack.pop() {
            let (x, y) = (i % w, i / w);
            region.add(x, y, prob[i]);
            for (dx, dy) in [(-1i64, -1i64), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)] {
                let (nx, ny) = (x as i64 + dx, y as i64 + dy);
                if nx < 0 || ny < 0 || nx >= w as i64 || ny >= h as i64 {
                    continue;
                }
                let j = ny as usize * w + nx as usize;
                if mask[j] && label[j] == 0 {
                    label[j] = id;
                    stack.push(j);
                }
            }
        }
        regions.push(region);
    }
    regions.sort_by_key(|r| std::cmp::Reverse(r.pixels));
    regions.truncate(MAX_CANDIDATES);
    regions.iter().filter_map(Region::to_box).collect()
}

/// `prob > THRESH`, dilated by a 2 × 2 square (a pixel is set when it or
/// its left, upper or upper-left neighbour is).
fn dilated_mask(prob: &[f32], w: usize, h: usize) -> Vec<bool> {
    let on: Vec<bool> = prob.iter().map(|&p| p > THRESH).collect();
    let mut out = on.clone();
    for y in 0..h {
        for x in 0..w {
            let i = y * w + x;
            out[i] = on[i] || (x > 0 && on[i - 1]) || (y > 0 && on[i - w]) || (x > 0 && y > 0 && on[i - w - 1]);
        }
    }
    out
}

/// One connected region: the leftmost and rightmost pixel of each of its
/// rows (enough for the convex hull) and its probability mass.
#[derive(Default)]
struct Region {
    rows: std::collections::BTreeMap<usize, (usize, usize)>,
    sum: f64,
    pixels: usize,
}

impl Region {
    fn add(&mut self, x: usize, y: usize, p: f32) {
        let e = self.rows.entry(y).or_insert((x, x));
        e.0 = e.0.min(x);
        e.1 = e.1.max(x);
        self.sum += f64::from(p);
        self.pixels += 1;
    }

    fn to_box(&self) -> Option<(RotRect, f32)> {
        let score = (self.sum / self.pixels as f64) as f32;
        if score < BOX_THRESH {
            return None;
        }
        let pts = self.rows.iter().flat_map(|(&y, &(x0, x1))| [(x0 as f32, y as f32), (x1 as f32, y as f32)]).collect();
        let mut r = min_area_rect(&convex_hull(pts))?;
        if r.w.min(r.h) < 3.0 {
            return None;
        }
        let grow = r.w * r.h * UNCLIP_RATIO / (2.0 * (r.w + r.h));
        r.w += 2.0 * grow;
        r.h += 2.0 * grow;
        (r.w.min(r.h) >= 5.0).then_some((r, score))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_sizes_are_multiples_of_32_within_the_bounds() {
        assert_eq!(input_size(2550, 3300, 1600), (1248, 1600));
        assert_eq!(input_size(400, 200, 2000), (1472, 736));
        assert_eq!(input_size(1024, 800, 2000), (1024, 800));
    }

    #[test]
    fn two_bars_become_two_boxes_and_faint_noise_none() {
        let (w, h) = (100, 40);
        let mut prob = vec![0.0f32; w * h];
        for y in 10..14 {
            for x in 10..60 {
                prob[y * w + x] = 0.9;
            }
        }
        for y in 25..29 {
            for x in 20..90 {
                prob[y * w + x] = 0.8;
            }
        }
        prob[35 * w + 5] = 0.35;
        let mut got = boxes(&prob, w, h);
        got.sort_by(|a, b| a.0.cy.total_cmp(&b.0.cy));
        assert_eq!(got.len(), 2);
        let (r, s) = got[0];
        assert!(s > 0.6 && s <= 0.9, "the mean over the region, its dilated rim included: {s}");
        assert!(r.w > 55.0 && r.h > 7.0 && r.h < 14.0, "{r:?}");
        assert!((r.cy - 12.0).abs() < 1.0 && (r.cx - 35.0).abs() < 1.0, "{r:?}");
    }
}
