//! The extraction child's side of the pipe, and the framing both sides use.
//!
//! Request on stdin: one line of JSON (`kind`, `name`, `limits`, the byte
//! lengths of the file and of an optional sidecar), then the file's bytes,
//! then the sidecar's. A length-prefixed header keeps binary input out of
//! JSON (no base64 doubling of a 64 MiB PDF) and needs no extra crate.
//! Response on stdout: one JSON object, `{"ok": Document}` or
//! `{"err": "reason"}`. A panic is reported on stderr as one line starting
//! with [`PANIC_MARKER`], so the parent can quote the parser's message.

use crate::ocr::OcrSettings;
use crate::speech::{AsrSettings, Models, extract_one};
use ragpipe_core::{Document, Kind};
use ragpipe_extract::{Limits, Sidecar};
use serde::{Deserialize, Serialize};
use std::io::{BufRead, Read, Write};

/// Starts the stderr line that carries a panic message to the parent.
pub const PANIC_MARKER: &str = "ragpipe-extract panicked: ";

/// The request header: everything but the bytes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Header {
    pub kind: Kind,
    pub name: String,
    pub limits: Limits,
    pub len: u64,
    pub sidecar: Option<(String, u64)>,
    /// Only measure the media's duration (the first of a transcription's two children).
    #[serde(default)]
    pub probe: bool,
    /// Speech recognition for media without a sidecar.
    #[serde(default)]
    pub asr: Option<AsrSettings>,
    /// OCR for image files and scanned PDFs.
    #[serde(default)]
    pub ocr: Option<OcrSettings>,
}

impl Header {
    pub(crate) fn models(&self) -> Models<'_> {
        Models { asr: self.asr.as_ref(), ocr: self.ocr.as_ref() }
    }
}

/// What the child answers.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Response {
    Ok(Document),
    Err(String),
    /// A probe's answer: the media's length in seconds.
    Duration(f64),
}

/// The first line of a request; the file's bytes and then the sidecar's
/// follow it unframed, their lengths given in the header.
pub(crate) fn header_line(header: &Header) -> Vec<u8> {
    let mut out = serde_json::to_vec(header).expect("a header of strings and numbers serialises");
    out.push(b'\n');
    out
}

/// The hidden `ragpipe __extract` command: serves one request from stdin to
/// stdout and returns the process exit code. Call it on the main thread,
/// before any runtime starts, so the parser gets the whole stack and the
/// address space the parent allowed. Panics are not caught: the hook
/// reports the message and the process dies, which is the point of a child.
pub fn child_main() -> i32 {
    install_panic_hook();
    serve(std::io::stdin().lock(), std::io::stdout().lock())
}

/// Replaces the default panic report with one marked line the parent parses.
fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let msg = ragpipe_extract::panic_message(info.payload());
        let at = info.location().map(|l| format!(" (at {}:{})", short_path(l.file()), l.line())).unwrap_or_default();
        eprintln!("{PANIC_MARKER}{}{at}", msg.replace('\n', " "));
    }));
}

/// A dependency's source path from the crate's folder on (`pdf-extract-0.12.1/src/lib.rs`),
/// not the build machine's registry path.
fn short_path(file: &str) -> &str {
    match file.find("/registry/src/") {
        Some(i) => {
            let rest = &file[i + "/registry/src/".len()..];
            rest.split_once('/').map_or(rest, |(_, crate_path)| crate_path)
        }
        None => file,
    }
}

/// Serves one request from `input`, answering on `output`; returns the exit
/// code (0 whenever an answer, document or reason, was written).
pub fn serve(input: impl Read, mut output: impl Write) -> i32 {
    let response = match read_request(input) {
        Ok((header, bytes, sidecar)) => {
            let side = sidecar.as_ref().zip(header.sidecar.as_ref()).map(|(b, (n, _))| Sidecar { name: n, bytes: b });
            let limits = header.limits;
            if header.probe {
                match ragpipe_extract::media_duration(&header.name, &bytes, &limits) {
                    Ok(seconds) => Response::Duration(seconds),
                    Err(e) => Response::Err(e.to_string()),
                }
            } else {
                match extract_one(header.kind, &header.name, &bytes, side, &limits, header.models()) {
                    Ok(doc) => Response::Ok(doc),
                    Err(e) => Response::Err(e),
                }
            }
        }
        Err(e) => {
            eprintln!("bad extraction request: {e}");
            return 2;
        }
    };
    let written =
        serde_json::to_writer(&mut output, &response).map_err(std::io::Error::from).and_then(|()| output.flush());
    match written {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("writing the extraction result: {e}");
            3
        }
    }
}

type Request = (Header, Vec<u8>, Option<Vec<u8>>);

fn read_request(input: impl Read) -> std::io::Result<Request> {
    let mut input = std::io::BufReader::new(input);
    let mut line = Vec::new();
    input.read_until(b'\n', &mut line)?;
    let header: Header = serde_json::from_slice(&line).map_err(std::io::Error::other)?;
    let mut bytes = Vec::new();
    input.by_ref().take(header.len).read_to_end(&mut bytes)?;
    if bytes.len() as u64 != header.len {
        return Err(std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "request shorter than its header says"));
    }
    let sidecar = match &header.sidecar {
        Some((_, len)) => {
            let mut side = Vec::new();
            input.by_ref().take(*len).read_to_end(&mut side)?;
            Some(side)
        }
        None => None,
    };
    Ok((header, bytes, sidecar))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(kind: Kind, name: &str, len: usize, sidecar: Option<(&str, usize)>) -> Header {
        Header {
            kind,
            name: name.into(),
            limits: Limits::default(),
            len: len as u64,
            sidecar: sidecar.map(|(n, l)| (n.to_string(), l as u64)),
            probe: false,
            asr: None,
            ocr: None,
        }
    }

    fn encode_request(header: &Header, bytes: &[u8], sidecar: Option<&[u8]>) -> Vec<u8> {
        [&header_line(header)[..], bytes, sidecar.unwrap_or_default()].concat()
    }

    fn answer(request: &[u8]) -> (i32, Response) {
        let mut out = Vec::new();
        let code = serve(request, &mut out);
        (code, serde_json::from_slice(&out).unwrap())
    }

    #[test]
    fn a_request_round_trips_to_a_document() {
        let text = b"First paragraph.\n\nSecond\none.";
        let req = encode_request(&header(Kind::Text, "notes.txt", text.len(), None), text, None);
        let (code, resp) = answer(&req);
        assert_eq!(code, 0);
        let Response::Ok(doc) = resp else { panic!("{resp:?}") };
        assert_eq!(doc, ragpipe_extract::extract(Kind::Text, "notes.txt", text).unwrap());
    }

    #[test]
    fn sidecar_bytes_follow_the_file_and_errors_come_back_as_reasons() {
        let vtt = b"WEBVTT\n\n00:00.000 --> 00:01.000\nhello\n";
        let junk = b"RIFF\x04\0\0\0WAVE";
        let req =
            encode_request(&header(Kind::Audio, "a.wav", junk.len(), Some(("a.vtt", vtt.len()))), junk, Some(vtt));
        let (code, resp) = answer(&req);
        assert_eq!(code, 0);
        let Response::Err(reason) = resp else { panic!("{resp:?}") };
        assert!(reason.starts_with("corrupt audio: "), "{reason}");
        let mut out = Vec::new();
        assert_eq!(serve(&b"{\"kind\":\"text\"}\n"[..], &mut out), 2, "a broken request is not a document failure");
    }
}
