//! Page images in the encodings scanners write into PDFs that no general
//! image decoder reads: CCITT fax (`CCITTFaxDecode`, Group 3 and 4: office
//! scanners, fax software), JBIG2 (`JBIG2Decode`, with the symbol
//! dictionary its pages share in `JBIG2Globals`: archive scanners, jbig2enc,
//! OCRmyPDF) and JPEG 2000 (`JPXDecode`: book scanners, digital archives).
//! Decoded by the hayro codecs straight to grey, black 0 and white 255 as
//! the paper shows them; a `/Decode [1 0]` inversion is the caller's.
//! Every page's size is checked against the limits before its pixels are
//! allocated.

use crate::OcrError;
use crate::decode::{DecodeLimits, check_size, luma, unsupported};
use image::GrayImage;

/// `CCITTFaxDecode`'s parameters as a PDF's `DecodeParms` holds them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fax {
    /// `K`: below 0 Group 4, 0 Group 3 one-dimensional, above 0 Group 3
    /// mixed one- and two-dimensional.
    pub k: i64,
    /// `Columns`: pixels per row.
    pub columns: u32,
    /// `Rows`, or the image's height when the PDF leaves it out.
    pub rows: u32,
    /// `EndOfLine`: rows are preceded by end-of-line codes.
    pub end_of_line: bool,
    /// `EncodedByteAlign`: each row starts on a byte.
    pub byte_align: bool,
    /// `EndOfBlock`: the data may end with an end-of-block code.
    pub end_of_block: bool,
}

impl Fax {
    fn encoding(&self) -> hayro_ccitt::EncodingMode {
        match self.k {
            k if k < 0 => hayro_ccitt::EncodingMode::Group4,
            0 => hayro_ccitt::EncodingMode::Group3_1D,
            _ => hayro_ccitt::EncodingMode::Group3_2D,
        }
    }
}

/// Rows of grey pixels from either codec's output.
struct Canvas {
    width: usize,
    height: usize,
    pixels: Vec<u8>,
}

impl Canvas {
    fn new(width: u32, height: u32) -> Self {
        let (width, height) = (width as usize, height as usize);
        Canvas { width, height, pixels: Vec::with_capacity(width * height) }
    }

    fn rows(&self) -> usize {
        self.pixels.len() / self.width.max(1)
    }

    /// The page: rows the data did not reach are left white.
    fn finish(mut self) -> Result<GrayImage, OcrError> {
        self.pixels.resize(self.width * self.height, 255);
        GrayImage::from_raw(self.width as u32, self.height as u32, self.pixels)
            .ok_or_else(|| unsupported("the image does not match its size"))
    }
}

impl hayro_ccitt::Decoder for Canvas {
    fn push_row(&mut self, changes: &[u32]) {
        if self.rows() >= self.height {
            return;
        }
        let start = self.pixels.len();
        self.pixels.resize(start + self.width, 255);
        let row = &mut self.pixels[start..];
        // Each row starts white; changes alternate black and white.
        for run in changes.chunks(2) {
            let from = (run[0] as usize).min(row.len());
            let to = run.get(1).map_or(row.len(), |&t| (t as usize).min(row.len()));
            row[from..to.max(from)].fill(0);
        }
    }
}

impl hayro_jbig2::Decoder for Canvas {
    fn push_pixel(&mut self, black: bool) {
        self.pixels.push(if black { 0 } else { 255 });
    }

    fn push_pixel_chunk(&mut self, black: bool, chunk_count: u32) {
        let n = self.pixels.len() + 8 * chunk_count as usize;
        self.pixels.resize(n, if black { 0 } else { 255 });
    }

    fn next_line(&mut self) {
        // Rows arrive whole (width pixels each): nothing to do.
    }
}

/// A page of CCITT fax data. A stream damaged part way keeps the rows
/// before the damage, as viewers show them; one that yields no row fails.
pub fn fax_page(fax: &Fax, data: &[u8], limits: DecodeLimits) -> Result<GrayImage, OcrError> {
    check_size(fax.columns, fax.rows, limits)?;
    let settings = hayro_ccitt::DecodeSettings {
        columns: fax.columns,
        rows: fax.rows,
        end_of_block: fax.end_of_block,
        end_of_line: fax.end_of_line,
        rows_are_byte_aligned: fax.byte_align,
        encoding: fax.encoding(),
        strict: false,
    };
    let mut ctx = hayro_ccitt::DecoderContext::new(settings);
    let mut canvas = Canvas::new(fax.columns, fax.rows);
    if let Err(e) = hayro_ccitt::decode(data, &mut canvas, &mut ctx)
        && canvas.rows() == 0
    {
        return Err(unsupported(&format!("CCITT fax data that does not decode ({e:?})")));
    }
    canvas.finish()
}

/// A page of JBIG2 data in the embedded organisation a PDF uses, with the
/// `JBIG2Globals` segments (symbol dictionaries) its pages share.
pub fn jbig2_page(data: &[u8], globals: Option<&[u8]>, limits: DecodeLimits) -> Result<GrayImage, OcrError> {
    let settings = hayro_jbig2::DecodeSettings::default();
    let bad = |e: hayro_jbig2::DecodeError| unsupported(&format!("JBIG2 data that does not decode ({e})"));
    let globals = globals.map(|g| hayro_jbig2::Globals::new(g, &settings)).transpose().map_err(bad)?;
    let page = hayro_jbig2::Page::new_embedded(data, globals.as_ref(), &settings).map_err(bad)?;
    check_size(page.width(), page.height(), limits)?;
    let mut canvas = Canvas::new(page.width(), page.height());
    page.decode(&mut canvas).map_err(bad)?;
    canvas.finish()
}

/// A JPEG 2000 image (a JP2 file or a bare codestream), mixed down to grey.
pub fn jpx_page(data: &[u8], limits: DecodeLimits) -> Result<GrayImage, OcrError> {
    use hayro_jpeg2000::{DecodeSettings, DecoderContext, Image};
    let bad = |e: hayro_jpeg2000::DecodeError| unsupported(&format!("JPEG 2000 data that does not decode ({e})"));
    let image = Image::new(data, &DecodeSettings::default()).map_err(bad)?;
    let (w, h) = (image.width(), image.height());
    check_size(w, h, limits)?;
    let channels = usize::from(image.color_space().num_channels()) + usize::from(image.has_alpha());
    let mut ctx = DecoderContext::default();
    let samples = image.decode(&mut ctx).map_err(bad)?.data_u8();
    let grey: Vec<u8> = match channels {
        1 | 2 => samples.chunks_exact(channels).map(|p| p[0]).collect(),
        3 | 4 if !matches!(image.color_space(), hayro_jpeg2000::ColorSpace::CMYK) => {
            samples.chunks_exact(channels).map(|p| luma(p[0], p[1], p[2])).collect()
        }
        _ => return Err(unsupported(&format!("JPEG 2000 in {:?} colour", image.color_space()))),
    };
    GrayImage::from_raw(w, h, grey).ok_or_else(|| unsupported("a JPEG 2000 image holds fewer pixels than its size"))
}
