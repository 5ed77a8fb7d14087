//! Optical character recognition for scanned pages, on the CPU, offline.
//!
//! Scanned contracts, invoices and faxes are pictures of text: without this
//! crate they cannot be searched or cited. It runs PaddleOCR's PP-OCRv6
//! detection and recognition graphs (from the PyPI `rapidocr` wheel, see
//! `scripts/provision-ocr.sh`) on ONNX Runtime, the runtime the embedder
//! already loads, and writes everything around them itself:
//!
//! - [`decode`]: bytes of a PNG, JPEG, WebP or (multi-page) TIFF to grey
//!   pages, with a pixel limit checked before anything is allocated;
//! - `detect`: the DB text detector — probability map, threshold, connected
//!   regions, minimum-area rectangles, unclip;
//! - `crop`: each rectangle sampled straight to the recogniser's 48-pixel
//!   height (tall ones turned a quarter), from the full-resolution page;
//! - `recognise`: batches of similar width through the CRNN/SVTR graph and
//!   a greedy CTC decode over the alphabet stored in the graph's metadata;
//! - [`order`]: reading order — columns, then lines top to bottom, left to right.
//!
//! The orientation classifier is not used: measured on upright scans, it
//! turned correct lines upside down (6–8 % CER against 0.0–0.2 % without).

mod crop;
pub mod decode;
mod detect;
pub mod filters;
mod geometry;
mod model;
pub mod order;
mod recognise;
pub mod score;

pub use decode::{DecodeLimits, decode_pages};
pub use geometry::Rect;
pub use image::GrayImage;
pub use model::{Engine, EngineOptions};

/// The model a document's text came from; a change makes OCR'd documents stale.
pub const MODEL_LABEL: &str = "pp-ocrv6-small";

/// One recognised line of text.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Line {
    pub text: String,
    /// Mean probability of the line's characters, 0–1.
    pub confidence: f32,
    /// Axis-aligned box around the line, in page pixels.
    pub rect: Rect,
}

/// What OCR read on one page, lines in reading order.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct PageText {
    pub width: u32,
    pub height: u32,
    pub lines: Vec<Line>,
}

impl PageText {
    /// The page's confidence: the mean over its lines, weighted by their
    /// length (a long line says more about the page than a stray mark).
    pub fn confidence(&self) -> f32 {
        let (sum, n) = self.lines.iter().fold((0.0f64, 0usize), |(s, n), l| {
            let c = l.text.chars().count();
            (s + f64::from(l.confidence) * c as f64, n + c)
        });
        if n == 0 { 0.0 } else { (sum / n as f64) as f32 }
    }
}

/// Why a page could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OcrError {
    /// The model's files are missing or unreadable.
    #[error("ocr model: {0}")]
    Model(String),
    /// The bytes are not an image this crate decodes.
    #[error("unsupported image: {0}")]
    Unsupported(String),
    /// The image has more pixels than the limit allows.
    #[error("image too large: {0}")]
    TooLarge(String),
    #[error("ocr failed: {0}")]
    Inference(String),
}
