//! Boxes: the rotated rectangle around a detected text region (its convex
//! hull's minimum-area rectangle, by rotating calipers) and the axis-aligned
//! rectangle a locator cites.

/// An axis-aligned rectangle in page pixels (`x`, `y` = top left).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Rect {
    pub x: u32,
    pub y: u32,
    pub w: u32,
    pub h: u32,
}

impl Rect {
    /// The smallest rectangle holding both.
    pub fn union(self, other: Rect) -> Rect {
        let x0 = self.x.min(other.x);
        let y0 = self.y.min(other.y);
        let x1 = (self.x + self.w).max(other.x + other.w);
        let y1 = (self.y + self.h).max(other.y + other.h);
        Rect { x: x0, y: y0, w: x1 - x0, h: y1 - y0 }
    }

    pub fn right(self) -> u32 {
        self.x + self.w
    }

    pub fn bottom(self) -> u32 {
        self.y + self.h
    }
}

/// A rotated rectangle: centre, extent along `u = (cos a, sin a)` (`w`) and
/// along `v = (-sin a, cos a)` (`h`), with `a` in (-45°, 45°].
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct RotRect {
    pub cx: f32,
    pub cy: f32,
    pub w: f32,
    pub h: f32,
    pub angle: f32,
}

impl RotRect {
    pub fn axes(&self) -> ((f32, f32), (f32, f32)) {
        let (s, c) = self.angle.sin_cos();
        ((c, s), (-s, c))
    }

    /// Scales every coordinate by `(sx, sy)` (from the detector's resized
    /// map back to the page); exact for the small angles text has.
    pub fn scaled(self, sx: f32, sy: f32) -> RotRect {
        let (u, v) = self.axes();
        let w = ((u.0 * sx).powi(2) + (u.1 * sy).powi(2)).sqrt() * self.w;
        let h = ((v.0 * sx).powi(2) + (v.1 * sy).powi(2)).sqrt() * self.h;
        let angle = (u.1 * sy).atan2(u.0 * sx);
        RotRect { cx: self.cx * sx, cy: self.cy * sy, w, h, angle }
    }

    /// The axis-aligned box around it, clipped to `width × height`.
    pub fn bounds(&self, width: u32, height: u32) -> Rect {
        let (u, v) = self.axes();
        let ex = (u.0 * self.w).abs() / 2.0 + (v.0 * self.h).abs() / 2.0;
        let ey = (u.1 * self.w).abs() / 2.0 + (v.1 * self.h).abs() / 2.0;
        let clip = |a: f32, max: u32| a.round().clamp(0.0, max as f32) as u32;
        let (x0, x1) = (clip(self.cx - ex, width), clip(self.cx + ex, width));
        let (y0, y1) = (clip(self.cy - ey, height), clip(self.cy + ey, height));
        Rect { x: x0, y: y0, w: x1 - x0, h: y1 - y0 }
    }
}

/// Convex hull (Andrew's monotone chain) of points, counter-clockwise in
/// image coordinates; collinear points dropped.
pub(crate) fn convex_hull(mut pts: Vec<(f32, f32)>) -> Vec<(f32, f32)> {
    pts.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    pts.dedup();
    if pts.len() < 3 {
        return pts;
    }
    let cross = |o: (f32, f32), a: (f32, f32), b: (f32, f32)| (a.0 - o.0) * (b.1 - o.1) - (a.1 - o.1) * (b.0 - o.0);
    let mut hull: Vec<(f32, f32)> = Vec::with_capacity(pts.len() * 2);
    for pass in 0..2 {
        let start = hull.len();
        let iter: Box<dyn Iterator<Item = &(f32, f32)>> =
            if pass == 0 { Box::new(pts.iter()) } else { Box::new(pts.iter().rev()) };
        for &p in iter {
            while hull.len() >= start + 2 && cross(hull[hull.len() - 2], hull[hull.len() - 1], p) <= 0.0 {
                hull.pop();
            }
            hull.push(p);
        }
        hull.pop();
    }
    hull
}

/// The minimum-area rectangle around a convex hull: one of its sides lies
/// on a hull edge, so every edge direction is tried.
pub(crate) fn min_area_rect(hull: &[(f32, f32)]) -> Option<RotRect> {
    if hull.is_empty() {
        return None;
    }
    if hull.len() < 3 {
        let (a, b) = (hull[0], hull[hull.len() - 1]);
        let (dx, dy) = (b.0 - a.0, b.1 - a.1);
        let len = (dx * dx + dy * dy).sqrt();
        let angle = if len > 0.0 { dy.atan2(dx) } else { 0.0 };
        return Some(normalise(RotRect { cx: (a.0 + b.0) / 2.0, cy: (a.1 + b.1) / 2.0, w: len, h: 0.0, angle }));
    }
    let mut best: Option<(f32, RotRect)> = None;
    for i in 0..hull.len() {
        let (a, b) = (hull[i], hull[(i + 1) % hull.len()]);
        let (dx, dy) = (b.0 - a.0, b.1 - a.1);
        let len = (dx * dx + dy * dy).sqrt();
        if len == 0.0 {
            continue;
        }
        let (ux, uy) = (dx / len, dy / len);
        let (mut u0, mut u1, mut v0, mut v1) = (f32::MAX, f32::MIN, f32::MAX, f32::MIN);
        for &(px, py) in hull {
            let pu = px * ux + py * uy;
            let pv = -px * uy + py * ux;
            (u0, u1, v0, v1) = (u0.min(pu), u1.max(pu), v0.min(pv), v1.max(pv));
        }
        let area = (u1 - u0) * (v1 - v0);
        if best.as_ref().is_none_or(|(a, _)| area < *a) {
            let (cu, cv) = ((u0 + u1) / 2.0, (v0 + v1) / 2.0);
            let (cx, cy) = (cu * ux - cv * uy, cu * uy + cv * ux);
            let rect = RotRect { cx, cy, w: u1 - u0, h: v1 - v0, angle: uy.atan2(ux) };
            best = Some((area, rect));
        }
    }
    best.map(|(_, r)| normalise(r))
}

/// Brings the angle into (-45°, 45°], swapping the sides on a quarter turn,
/// so `w` is the extent closest to the page's horizontal.
fn normalise(mut r: RotRect) -> RotRect {
    use std::f32::consts::{FRAC_PI_2, FRAC_PI_4, PI};
    r.angle = r.angle.rem_euclid(PI);
    if r.angle > PI - FRAC_PI_4 {
        r.angle -= PI;
    }
    if r.angle > FRAC_PI_4 {
        r.angle -= FRAC_PI_2;
        std::mem::swap(&mut r.w, &mut r.h);
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tilted_bar_gets_its_own_rectangle() {
        // A 100 × 10 bar turned by 5 degrees, as points on its outline.
        let a = 5f32.to_radians();
        let (c, s) = (a.cos(), a.sin());
        let mut pts = Vec::new();
        for i in 0..=100 {
            for j in [0.0, 10.0] {
                let (x, y) = (i as f32, j);
                pts.push((50.0 + x * c - y * s, 20.0 + x * s + y * c));
            }
        }
        let r = min_area_rect(&convex_hull(pts)).unwrap();
        assert!((r.angle - a).abs() < 1e-3, "{r:?}");
        assert!((r.w - 100.0).abs() < 0.1 && (r.h - 10.0).abs() < 0.1, "{r:?}");
        let b = r.bounds(1000, 1000);
        assert!(b.w >= 99 && b.h >= 18 && b.h <= 20, "{b:?}");
    }

    #[test]
    fn a_tall_region_keeps_its_height_as_height() {
        let pts = vec![(0.0, 0.0), (10.0, 0.0), (10.0, 80.0), (0.0, 80.0)];
        let r = min_area_rect(&convex_hull(pts)).unwrap();
        assert!(r.angle.abs() < 1e-3, "{r:?}");
        assert_eq!((r.w.round(), r.h.round()), (10.0, 80.0));
    }
}
