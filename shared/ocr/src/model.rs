//! The two graphs on ONNX Runtime and one page's way through them.

use crate::crop::{Strip, strip};
use crate::geometry::RotRect;
use crate::{Line, OcrError, PageText, detect, order, recognise};
use image::GrayImage;
use ort::environment::Environment;
use ort::session::Session;
use ort::session::builder::GraphOptimizationLevel;
use ort::value::TensorRef;
use std::path::Path;

/// The detection graph's file in the model folder.
pub const DETECTOR: &str = "PP-OCRv6_det_small.onnx";
/// The recognition graph's file (its metadata holds the alphabet).
pub const RECOGNISER: &str = "PP-OCRv6_rec_small.onnx";

/// How the engine runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EngineOptions {
    /// Intra-op threads of each graph.
    pub threads: usize,
    /// The longest side the detector sees, pixels: a larger page is scaled
    /// down for detection only (recognition reads the full resolution).
    pub det_max_side: u32,
    /// Lines per recognition call.
    pub batch: usize,
    /// Lines read with a lower confidence are dropped (marks, speckle).
    pub min_line_confidence: f32,
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions { threads: 1, det_max_side: 1600, batch: 8, min_line_confidence: 0.5 }
    }
}

/// A loaded OCR engine: detector, recogniser and alphabet.
pub struct Engine {
    det: Session,
    rec: Session,
    alphabet: Vec<String>,
    opts: EngineOptions,
}

fn inference(e: impl std::fmt::Display) -> OcrError {
    OcrError::Inference(e.to_string())
}

impl Engine {
    /// Loads the graphs of `dir` on the process's ONNX Runtime environment.
    pub fn load(dir: &Path, env: &Environment, opts: EngineOptions) -> Result<Self, OcrError> {
        let graph = |file: &str| {
            let path = dir.join(file);
            if !path.is_file() {
                return Err(OcrError::Model(format!("{} is missing: run scripts/provision-ocr.sh", path.display())));
            }
            // Not spinning: between the graph calls the page is cut and
            // decoded on this thread, and spinning workers would take its core.
            Session::builder(env)
                .map_err(inference)?
                .with_optimization_level(GraphOptimizationLevel::Level3)
                .map_err(inference)?
                .with_intra_threads(opts.threads.max(1))
                .map_err(inference)?
                .with_intra_op_spinning(false)
                .map_err(inference)?
                .commit_from_file(&path)
                .map_err(|e| OcrError::Model(format!("{}: {e}", path.display())))
        };
        let (det, rec) = (graph(DETECTOR)?, graph(RECOGNISER)?);
        let chars = rec.metadata().map_err(inference)?.custom("character");
        let chars = chars.ok_or_else(|| OcrError::Model(format!("{RECOGNISER} has no `character` metadata")))?;
        let alphabet: Vec<String> = chars.split('\n').map(str::to_string).collect();
        Ok(Engine { det, rec, alphabet, opts })
    }

    /// Reads one page: its lines in reading order, each with its box.
    pub fn read(&mut self, page: &GrayImage) -> Result<PageText, OcrError> {
        let (width, height) = page.dimensions();
        let boxes = self.detect(page)?;
        let strips: Vec<Strip> = boxes.iter().map(|r| strip(page, r)).collect();
        let texts = self.recognise(&strips)?;
        let mut lines: Vec<Line> = boxes
            .iter()
            .zip(texts)
            .filter(|(_, (text, conf))| !text.is_empty() && *conf >= self.opts.min_line_confidence)
            .map(|(r, (text, confidence))| Line { text, confidence, rect: r.bounds(width, height) })
            .collect();
        lines = order::reading_order(lines);
        Ok(PageText { width, height, lines })
    }

    /// The text regions of a page, in page coordinates.
    fn detect(&mut self, page: &GrayImage) -> Result<Vec<RotRect>, OcrError> {
        let (width, height) = page.dimensions();
        let (w, h) = detect::input_size(width, height, self.opts.det_max_side);
        let input = detect::input_tensor(page, (w, h));
        let shape = [1usize, 3, h as usize, w as usize];
        let out = self.det.run(ort::inputs![TensorRef::from_array_view((shape, &input[..])).map_err(inference)?]);
        let out = out.map_err(inference)?;
        let (oshape, prob) = out[0].try_extract_tensor::<f32>().map_err(inference)?;
        let (mh, mw) = (oshape[2] as usize, oshape[3] as usize);
        let (sx, sy) = (width as f32 / mw as f32, height as f32 / mh as f32);
        Ok(detect::boxes(prob, mw, mh).into_iter().map(|(r, _)| r.scaled(sx, sy)).collect())
    }

    /// Text and confidence of every strip, in the strips' order.
    fn recognise(&mut self, strips: &[Strip]) -> Result<Vec<(String, f32)>, OcrError> {
        let mut by_width: Vec<usize> = (0..strips.len()).collect();
        by_width.sort_by_key(|&i| strips[i].width);
        let mut out = vec![(String::new(), 0.0); strips.len()];
        for batch in by_width.chunks(self.opts.batch.max(1)) {
            let group: Vec<&Strip> = batch.iter().map(|&i| &strips[i]).collect();
            let (width, input) = recognise::batch_tensor(&group);
            let shape = [group.len(), 3, crate::crop::HEIGHT, width];
            let run = self.rec.run(ort::inputs![TensorRef::from_array_view((shape, &input[..])).map_err(inference)?]);
            let run = run.map_err(inference)?;
            let (oshape, probs) = run[0].try_extract_tensor::<f32>().map_err(inference)?;
            let (steps, classes) = (oshape[1] as usize, oshape[2] as usize);
            for (k, &i) in batch.iter().enumerate() {
                let rows = &probs[k * steps * classes..(k + 1) * steps * classes];
                out[i] = recognise::decode(rows, classes, &self.alphabet);
            }
        }
        Ok(out)
    }
}
