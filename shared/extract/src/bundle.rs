//! Archives: zip, tar (plain or gzip-compressed: `.tar.gz`, `.tgz`) and a
//! single gzip-compressed file, read as one document the way an e-mail
//! carries its attachments. Each file in it that is a document is read by
//! its own extractor under a heading of its path in the archive
//! (`policies/remote-work.pdf`), so a chunk's header says which file it
//! came from and `#char` cites it in the archive's text; a closing line
//! names every file, so an archive is found by what it holds.
//!
//! Pictures and recordings are named only (no OCR or speech recognition
//! runs inside an archive), as are types ragpipe does not read; an archive
//! inside the archive reads as the names of its files (one level). A file
//! that cannot be read is named in the document's warning; an archive in
//! which no file could be read fails with the first reason (or as holding
//! no type read inside an archive), rather than be indexed by its names
//! alone. Nothing is
//! written to disk, so member paths (`../x`, `/etc/x`) are only names.
//!
//! What an archive may inflate to is bounded by `max_decompressed_bytes`:
//! a zip's declared sizes are summed before anything is inflated (the
//! reader refuses an entry past its declared size); a gzip stream is
//! counted as it inflates, and a gzip'd tarball is read as it inflates,
//! one file in memory at a time. A zip cut short (its directory at the
//! end gone) is read from its files' own headers as far as they go. A tar whose tail is damaged keeps the files
//! before it, with a warning.

use crate::embedded::{self, Carried};
use crate::{ExtractError, Limits, TextBuilder, fallback_title};
use ragpipe_core::{BlockKind, Document, Kind};
use std::cell::Cell;
use std::io::Read;
use std::rc::Rc;

/// File names listed in the closing line before the rest are counted.
const NAMES_LISTED: usize = 200;

pub(crate) fn extract(name: &str, bytes: &[u8], limits: &Limits) -> Result<Document, ExtractError> {
    let mut reader = Reader { b: TextBuilder::new(), names: Vec::new(), read: 0, warnings: Vec::new(), limits };
    if bytes.starts_with(b"PK") {
        reader.zip(bytes)?;
    } else if bytes.starts_with(&[0x1F, 0x8B]) {
        reader.gzip(name, bytes)?;
    } else if is_tar(bytes) {
        reader.tar(bytes)?;
    } else {
        return Err(malformed("not a zip, tar or gzip file"));
    }
    if reader.read == 0 && limits.read_attachments {
        return Err(match reader.warnings.first() {
            Some(why) => malformed(why),
            None => ExtractError::Unsupported(format!(
                "no document in the archive ({}: pictures, recordings and other types are named, not read, inside one)",
                files(reader.names.len())
            )),
        });
    }
    Ok(reader.into_document(name))
}

/// `1 file`, `3 files`.
fn files(n: usize) -> String {
    if n == 1 { "1 file".into() } else { format!("{n} files") }
}

fn too_big(max: u64) -> ExtractError {
    ExtractError::Limit(format!("archive inflates to more than {max} bytes (max_decompressed_bytes)"))
}

fn malformed(why: &str) -> ExtractError {
    ExtractError::Malformed(format!("malformed archive: {why}"))
}

/// A POSIX (`ustar`) or GNU tar header's magic at byte 257.
fn is_tar(bytes: &[u8]) -> bool {
    bytes.get(257..262) == Some(b"ustar")
}

/// A reader that fails once more than `left` bytes have come through it,
/// and says so in `over` (a tar reader may wrap the error it gets).
struct Budget<R> {
    inner: R,
    left: u64,
    over: Rc<Cell<bool>>,
}

impl<R: Read> Read for Budget<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        match self.left.checked_sub(n as u64) {
            Some(left) => {
                self.left = left;
                Ok(n)
            }
            None => {
                self.over.set(true);
                Err(std::io::Error::other("max_decompressed_bytes reached"))
            }
        }
    }
}

struct Reader<'l> {
    b: TextBuilder,
    names: Vec<String>,
    /// Files read into the text.
    read: usize,
    warnings: Vec<String>,
    limits: &'l Limits,
}

impl Reader<'_> {
    /// One file of the archive: named, and read when the archive's files
    /// are read (not inside another archive, nor on a second try after a
    /// file took the extraction down).
    fn file(&mut self, path: &str, bytes: &[u8]) {
        self.names.push(path.to_string());
        if !self.limits.read_attachments {
            return;
        }
        match embedded::read(&mut self.b, path, path, bytes, None, self.limits, 0) {
            Carried::Read => self.read += 1,
            Carried::Named => {}
            Carried::Failed(why) => self.warnings.push(format!("file {path} not read: {why}")),
        }
    }

    /// A file named but not read, and why.
    fn unread(&mut self, path: String, why: String) {
        self.warnings.push(format!("file {path} not read: {why}"));
        self.names.push(path);
    }

    /// Why a tarball or a cut zip stops early, after the files read before it.
    fn damaged(&mut self, why: impl std::fmt::Display) {
        self.warnings.push(format!("the archive is damaged after {}: {why}", files(self.names.len())));
    }

    /// A zip entry's path (as stored, when it is not UTF-8), or `None` for a
    /// folder and for an encrypted file, which is named with its reason.
    fn zip_entry<R: Read>(&mut self, entry: &zip::read::ZipFile<'_, R>) -> Option<String> {
        if entry.is_dir() {
            return None;
        }
        let path =
            entry.name().map_or_else(|_| String::from_utf8_lossy(entry.name_raw()).into_owned(), |n| n.into_owned());
        if entry.encrypted() {
            self.unread(path, "encrypted".into());
            return None;
        }
        Some(path)
    }

    fn zip(&mut self, bytes: &[u8]) -> Result<(), ExtractError> {
        let mut zip = match crate::archive::open(bytes, self.limits.max_decompressed_bytes, "archive", malformed) {
            Ok(zip) => zip,
            Err(ExtractError::Malformed(why)) => return self.zip_stream(bytes, why),
            Err(e) => return Err(e),
        };
        for i in 0..zip.len() {
            let entry = zip.by_index_raw(i).map_err(|e| malformed(&format!("zip entry {i}: {e}")))?;
            let size = entry.size();
            let Some(path) = self.zip_entry(&entry) else { continue };
            drop(entry);
            let mut data = Vec::with_capacity(size.min(1 << 24) as usize);
            match zip.by_index(i).map(|mut entry| entry.read_to_end(&mut data)) {
                Ok(Ok(_)) => self.file(&path, &data),
                Ok(Err(e)) => self.unread(path, e.to_string()),
                Err(e) => self.unread(path, e.to_string()),
            }
        }
        Ok(())
    }

    /// A zip whose directory at its end is gone (a cut transfer): its files
    /// read in order from their own headers, as far as they go, the damage
    /// a warning; nothing readable at all fails as `why` did.
    fn zip_stream(&mut self, bytes: &[u8], why: String) -> Result<(), ExtractError> {
        let max = self.limits.max_decompressed_bytes;
        let (mut stream, mut inflated) = (bytes, 0u64);
        loop {
            let mut entry = match zip::read::read_zipfile_from_stream(&mut stream) {
                Ok(Some(entry)) => entry,
                Ok(None) => break,
                Err(_) if self.names.is_empty() => return Err(ExtractError::Malformed(why)),
                Err(e) => {
                    self.damaged(e);
                    break;
                }
            };
            let Some(path) = self.zip_entry(&entry) else { continue };
            let (mut data, left) = (Vec::new(), max - inflated);
            let read = (&mut entry).take(left + 1).read_to_end(&mut data);
            drop(entry);
            match read {
                Ok(_) if data.len() as u64 > left => return Err(too_big(max)),
                Ok(_) => {
                    inflated += data.len() as u64;
                    self.file(&path, &data);
                }
                Err(e) => {
                    self.damaged(format!("{path}: {e}"));
                    break;
                }
            }
        }
        if self.names.is_empty() { Err(ExtractError::Malformed(why)) } else { Ok(()) }
    }

    /// A gzip stream (every member, as `gzip -d` reads them), inflated no
    /// further than `max_decompressed_bytes`: a tarball is read as it
    /// inflates; one compressed file is inflated whole and read, unless it
    /// is itself inside another file (one level is unpacked: a gzip that
    /// holds a gzip could hold itself). A stream that breaks off keeps what
    /// inflated before the break.
    fn gzip(&mut self, name: &str, bytes: &[u8]) -> Result<(), ExtractError> {
        let max = self.limits.max_decompressed_bytes;
        let over = Rc::new(Cell::new(false));
        let mut stream = Budget { inner: flate2::read::MultiGzDecoder::new(bytes), left: max, over: over.clone() };
        let mut head = Vec::new();
        if let Err(e) = (&mut stream).take(512).read_to_end(&mut head)
            && head.is_empty()
        {
            return Err(malformed(&format!("gzip stream: {e}")));
        }
        if is_tar(&head) {
            self.tar(std::io::Cursor::new(head).chain(stream))?;
            return if over.get() { Err(too_big(max)) } else { Ok(()) };
        }
        if !self.limits.read_attachments {
            return Err(ExtractError::Unsupported(
                "gzip-compressed file inside another file (one level is unpacked)".into(),
            ));
        }
        let mut data = head;
        if let Err(e) = stream.read_to_end(&mut data) {
            if over.get() || e.kind() == std::io::ErrorKind::OutOfMemory {
                return Err(too_big(max));
            }
            self.warnings.push(format!("the gzip stream breaks off after {} bytes: {e}", data.len()));
        }
        let inner = name.rsplit('/').next().unwrap_or(name);
        self.file(inner.strip_suffix(".gz").or_else(|| inner.strip_suffix(".GZ")).unwrap_or(inner), &data);
        Ok(())
    }

    fn tar(&mut self, stream: impl Read) -> Result<(), ExtractError> {
        let mut tar = tar::Archive::new(stream);
        let entries = tar.entries().map_err(|e| malformed(&format!("tar: {e}")))?;
        for entry in entries {
            // A damaged tail costs only what follows it.
            let mut entry = match entry {
                Ok(entry) => entry,
                Err(e) if self.names.is_empty() => return Err(malformed(&format!("tar: {e}"))),
                Err(e) => {
                    self.damaged(e);
                    break;
                }
            };
            if !entry.header().entry_type().is_file() {
                continue;
            }
            let path = entry.path().map(|p| p.to_string_lossy().into_owned()).unwrap_or_default();
            // A header may claim any size; the bytes that come are bounded.
            let size = entry.size();
            let mut data = Vec::with_capacity(size.min(1 << 24) as usize);
            match entry.read_to_end(&mut data) {
                Ok(_) if data.len() as u64 == size => self.file(&path, &data),
                Ok(_) => {
                    self.damaged(format!("{path} ends after {} of {size} bytes", data.len()));
                    break;
                }
                Err(e) => {
                    self.damaged(format!("{path}: {e}"));
                    break;
                }
            }
        }
        Ok(())
    }

    /// The files read, then the closing line naming them all (the first
    /// [`NAMES_LISTED`], then how many more).
    fn into_document(mut self, name: &str) -> Document {
        if !self.names.is_empty() {
            let listed = self.names.len().min(NAMES_LISTED);
            let mut line = format!("Files: {}", self.names[..listed].join(", "));
            if self.names.len() > listed {
                line.push_str(&format!(" and {} more", self.names.len() - listed));
            }
            self.b.start(BlockKind::Paragraph);
            self.b.inline(&line);
            self.b.finish();
        }
        let warnings = embedded::capped(self.warnings, "files");
        let title = fallback_title(name.strip_suffix(".gz").unwrap_or(name));
        Document { warnings, ..self.b.build(title, Kind::Archive) }
    }
}
