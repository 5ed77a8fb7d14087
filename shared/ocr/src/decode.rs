//! Image files to grey pages, one page at a time.
//!
//! Grey, because the models read text by contrast and three channels of a
//! 300-dpi page cost three times the memory; colour is mixed down once
//! here (a 1-bit or palette scan is expanded on the way: fed as it is,
//! the detector finds nothing). A page's size is read from its header and
//! checked against [`DecodeLimits::max_pixels`] before its pixels are
//! allocated, and a multi-page TIFF is decoded page by page as the caller
//! asks, so a long scan costs one page of memory.

use crate::OcrError;
use image::{GrayImage, ImageFormat, ImageReader};
use std::io::Cursor;

/// What one image file may cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecodeLimits {
    /// Pixels of one page (width × height).
    pub max_pixels: u64,
    /// Pages of one file.
    pub max_pages: u32,
}

impl Default for DecodeLimits {
    fn default() -> Self {
        // A4 at 600 dpi is 35 Mpx; A3 at 400 dpi 31 Mpx.
        DecodeLimits { max_pixels: 50_000_000, max_pages: 5_000 }
    }
}

/// The pages of an image file, decoded as they are taken.
pub enum Pages<'a> {
    Single(Option<(&'a [u8], ImageFormat)>, DecodeLimits),
    Tiff(Box<tiff::decoder::Decoder<Cursor<&'a [u8]>>>, DecodeLimits, u32, bool),
}

/// Opens an image file: its format from its content, not its name.
pub fn decode_pages(bytes: &[u8], limits: DecodeLimits) -> Result<Pages<'_>, OcrError> {
    let format =
        image::guess_format(bytes).map_err(|_| unsupported("not a PNG, JPEG, TIFF, WebP, GIF or BMP image"))?;
    match format {
        ImageFormat::Tiff => {
            let decoder = tiff::decoder::Decoder::new(Cursor::new(bytes)).map_err(|e| unsupported(&e.to_string()))?;
            Ok(Pages::Tiff(Box::new(decoder), limits, 0, true))
        }
        // An animated GIF is read by its first frame.
        ImageFormat::Png | ImageFormat::Jpeg | ImageFormat::WebP | ImageFormat::Gif | ImageFormat::Bmp => {
            Ok(Pages::Single(Some((bytes, format)), limits))
        }
        other => Err(unsupported(&format!("{} images are not read", format!("{other:?}").to_lowercase()))),
    }
}

impl Iterator for Pages<'_> {
    type Item = Result<GrayImage, OcrError>;

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            Pages::Single(next, limits) => next.take().map(|(bytes, format)| single(bytes, format, *limits)),
            Pages::Tiff(decoder, limits, taken, first) => {
                if !*first {
                    if !decoder.more_images() {
                        return None;
                    }
                    if let Err(e) = decoder.next_image() {
                        return Some(Err(unsupported(&e.to_string())));
                    }
                }
                *first = false;
                *taken += 1;
                if *taken > limits.max_pages {
                    return Some(Err(OcrError::TooLarge(format!("more than {} pages (max_pages)", limits.max_pages))));
                }
                Some(tiff_page(decoder, *limits))
            }
        }
    }
}

pub(crate) fn unsupported(why: &str) -> OcrError {
    OcrError::Unsupported(why.to_string())
}

pub(crate) fn check_size(width: u32, height: u32, limits: DecodeLimits) -> Result<(), OcrError> {
    let pixels = u64::from(width) * u64::from(height);
    if pixels > limits.max_pixels {
        return Err(OcrError::TooLarge(format!(
            "{width} × {height} pixels exceeds {} megapixels (max_image_megapixels)",
            limits.max_pixels as f64 / 1e6
        )));
    }
    if width == 0 || height == 0 {
        return Err(unsupported("the image has no pixels"));
    }
    Ok(())
}

fn single(bytes: &[u8], format: ImageFormat, limits: DecodeLimits) -> Result<GrayImage, OcrError> {
    let reader = || ImageReader::with_format(Cursor::new(bytes), format);
    let (w, h) = reader().into_dimensions().map_err(|e| unsupported(&e.to_string()))?;
    check_size(w, h, limits)?;
    let mut reader = reader();
    reader.no_limits();
    let image = reader.decode().map_err(|e| unsupported(&e.to_string()))?;
    Ok(image.to_luma8())
}

fn tiff_page(decoder: &mut tiff::decoder::Decoder<Cursor<&[u8]>>, limits: DecodeLimits) -> Result<GrayImage, OcrError> {
    use tiff::ColorType;
    use tiff::decoder::DecodingResult;
    let (w, h) = decoder.dimensions().map_err(|e| unsupported(&e.to_string()))?;
    check_size(w, h, limits)?;
    let color = decoder.colortype().map_err(|e| unsupported(&e.to_string()))?;
    let data = decoder.read_image().map_err(|e| unsupported(&e.to_string()))?;
    let n = (w as usize) * (h as usize);
    // The decoder turns WhiteIsZero pages (fax, 1-bit scans) into
    // BlackIsZero itself: 0 is black here whatever the file says.
    let grey: Vec<u8> = match (color, data) {
        (ColorType::Gray(8), DecodingResult::U8(d)) => d,
        (ColorType::Gray(16), DecodingResult::U16(d)) => d.iter().map(|&v| (v >> 8) as u8).collect(),
        (ColorType::Gray(1), DecodingResult::U8(d)) => unpack_bits(&d, w as usize, h as usize),
        (ColorType::RGB(8), DecodingResult::U8(d)) => d.chunks_exact(3).map(|p| luma(p[0], p[1], p[2])).collect(),
        (ColorType::RGBA(8), DecodingResult::U8(d)) => d.chunks_exact(4).map(|p| luma(p[0], p[1], p[2])).collect(),
        (other, _) => return Err(unsupported(&format!("TIFF pages of colour type {other:?}"))),
    };
    if grey.len() != n {
        return Err(unsupported("a TIFF page holds fewer pixels than its size"));
    }
    GrayImage::from_raw(w, h, grey).ok_or_else(|| unsupported("a TIFF page does not match its size"))
}

/// A page from raw pixels as a PDF stores them: `components` (1 grey,
/// 3 RGB) of `bits` (1 or 8) each, rows padded to whole bytes; 1-bit
/// black is 0, as in `DeviceGray`.
pub fn raw_page(
    w: u32,
    h: u32,
    components: u8,
    bits: u8,
    data: &[u8],
    limits: DecodeLimits,
) -> Result<GrayImage, OcrError> {
    check_size(w, h, limits)?;
    let n = (w as usize) * (h as usize);
    let grey: Vec<u8> = match (components, bits) {
        (1, 8) => data.get(..n).map(<[u8]>::to_vec).unwrap_or_default(),
        (1, 1) => unpack_bits(data, w as usize, h as usize),
        (3, 8) => data.chunks_exact(3).take(n).map(|p| luma(p[0], p[1], p[2])).collect(),
        _ => return Err(unsupported(&format!("{components} components of {bits} bits"))),
    };
    if grey.len() != n {
        return Err(unsupported("the image holds fewer pixels than its size"));
    }
    GrayImage::from_raw(w, h, grey).ok_or_else(|| unsupported("the image does not match its size"))
}

/// 1-bit rows (each padded to a whole byte) to 0/255 grey.
fn unpack_bits(packed: &[u8], w: usize, h: usize) -> Vec<u8> {
    let stride = w.div_ceil(8);
    let mut out = Vec::with_capacity(w * h);
    for row in packed.chunks(stride).take(h) {
        for x in 0..w {
            let bit = row.get(x / 8).is_some_and(|b| b & (0x80 >> (x % 8)) != 0);
            out.push(if bit { 255 } else { 0 });
        }
    }
    out
}

/// ITU-R BT.601 luma, as `image` computes it.
pub(crate) fn luma(r: u8, g: u8, b: u8) -> u8 {
    ((u32::from(r) * 299 + u32::from(g) * 587 + u32::from(b) * 114) / 1000) as u8
}
