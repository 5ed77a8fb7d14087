//! Running a parser on untrusted bytes without letting it take the worker
//! down.
//!
//! Why a child process: measured on crafted files, `pdf-extract` overflows
//! its stack on self-referencing objects, `calamine` aborts when an
//! allocation fails on a decompression bomb, and `symphonia` panics on a WAV
//! whose sample rate is 0. A panic could be caught in-process, but a stack
//! overflow or an abort kills the whole process, an infinite loop cannot be
//! interrupted, and an allocation of many GiB would take the machine's
//! memory with it. A child process can be given an address-space limit
//! (RLIMIT_AS), a CPU-time limit (RLIMIT_CPU), no core dumps, a wall clock
//! and a cap on what it may write back; when it dies, the parent reads why
//! (exit status, signal, the panic line on stderr) and the document ends
//! `failed` with that reason while every other document keeps flowing.
//!
//! All kinds go through the child, not only PDF, spreadsheets and audio:
//! HTML, Markdown and code parsers are also third-party code fed hostile
//! bytes (tree-sitter is C), one code path is easier to trust than two, and
//! the cost (one spawn of the already-cached binary per document, measured
//! in the extractor notes) is small next to embedding the document.

use crate::child::{Header, PANIC_MARKER, Response, header_line};
use crate::ocr::OcrSettings;
use crate::speech::{AsrSettings, Models, extract_one};
use ragpipe_core::{Document, Kind};
use ragpipe_extract::{Limits, Sidecar};
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};

/// Where extraction runs.
#[derive(Debug, Clone, PartialEq)]
pub enum Isolation {
    /// On a blocking thread of this process: panics are caught, aborts and
    /// stack overflows are not. For tests and trusted input only.
    InProcess,
    /// In a child: `program args…` must serve the request protocol of
    /// [`crate::child`] (the CLI passes its own executable and `__extract`).
    ChildProcess { program: PathBuf, args: Vec<String>, limits: ChildLimits },
}

/// What one extraction child may consume before it is stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChildLimits {
    /// Wall-clock time; CPU time is capped at the same number of seconds.
    pub timeout: Duration,
    /// Address space (virtual memory), bytes.
    pub memory_bytes: u64,
    /// The document it may write back (JSON), bytes.
    pub max_output_bytes: u64,
}

impl Default for ChildLimits {
    fn default() -> Self {
        ChildLimits { timeout: Duration::from_secs(60), memory_bytes: 768 << 20, max_output_bytes: 128 << 20 }
    }
}

/// Why an extraction produced no document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IsolateError {
    /// The file is bad, or its parser died on it: the document fails.
    Failed(String),
    /// The child could not even be started: retry later.
    Spawn(String),
}

/// One file to extract.
pub struct Request<'a> {
    pub kind: Kind,
    pub name: &'a str,
    pub bytes: Vec<u8>,
    pub sidecar: Option<(String, Vec<u8>)>,
    pub limits: Limits,
    /// Speech recognition for media without a sidecar (None: such media fail).
    pub asr: Option<AsrSettings>,
    /// OCR for image files and scanned PDFs (None: they fail as OCR disabled).
    pub ocr: Option<OcrSettings>,
}

/// Extracts `req` where `isolation` says.
pub async fn extract_isolated(isolation: &Isolation, req: Request<'_>) -> Result<Document, IsolateError> {
    match isolation {
        Isolation::InProcess => in_process(req).await,
        Isolation::ChildProcess { program, args, limits } => in_child(program, args, limits, req).await,
    }
}

async fn in_process(req: Request<'_>) -> Result<Document, IsolateError> {
    let (kind, name, bytes, sidecar, limits) = (req.kind, req.name.to_string(), req.bytes, req.sidecar, req.limits);
    let (asr, ocr) = (req.asr, req.ocr);
    let joined = tokio::task::spawn_blocking(move || {
        let side = sidecar.as_ref().map(|(n, b)| Sidecar { name: n, bytes: b });
        extract_one(kind, &name, &bytes, side, &limits, Models { asr: asr.as_ref(), ocr: ocr.as_ref() })
    })
    .await;
    match joined {
        Ok(result) => result.map_err(IsolateError::Failed),
        Err(e) if e.is_panic() => {
            let msg = ragpipe_extract::panic_message(e.into_panic().as_ref());
            Err(IsolateError::Failed(parser_stopped(kind, &msg)))
        }
        Err(_) => Err(IsolateError::Spawn("extraction was cancelled".into())),
    }
}

/// How much of the child's stderr is kept to explain its death.
const STDERR_KEEP: u64 = 64 << 10;

async fn in_child(
    program: &std::path::Path,
    args: &[String],
    limits: &ChildLimits,
    req: Request<'_>,
) -> Result<Document, IsolateError> {
    let mut header = Header {
        kind: req.kind,
        name: req.name.to_string(),
        limits: req.limits,
        len: req.bytes.len() as u64,
        sidecar: req.sidecar.as_ref().map(|(n, b)| (n.clone(), b.len() as u64)),
        probe: false,
        asr: None,
        ocr: None,
    };
    let side = req.sidecar.as_ref().map(|(_, b)| b.as_slice());
    let mut limits = *limits;
    // The parsers are single-threaded; a transcription runs ONNX Runtime's
    // intra-op threads in parallel, so its CPU time may be that many times
    // its wall clock.
    let mut threads = 1u64;
    // Transcription takes time and memory in proportion to the recording,
    // which only decoding it tells: a first child under the ordinary limits
    // decodes it and reports its length, the second gets limits to match.
    if let Some(asr) = req.asr.filter(|_| req.kind == Kind::Audio && req.sidecar.is_none()) {
        header.probe = true;
        let seconds = match run_child(program, args, &limits, 1, &header, &req.bytes, side).await? {
            Response::Duration(seconds) => seconds,
            Response::Err(reason) => return Err(IsolateError::Failed(reason)),
            Response::Ok(_) => {
                return Err(IsolateError::Failed("extraction child answered a probe with a document".into()));
            }
        };
        limits.timeout += asr.extra_time(seconds);
        limits.memory_bytes = limits.memory_bytes.saturating_add(asr.extra_memory_bytes);
        header.probe = false;
        threads = asr.threads as u64;
        header.asr = Some(asr);
    }
    // OCR reads page after page for seconds each: the clock grows with the
    // pages the file's size can hold, the address space by the models'. A
    // PDF with a text layer (most) needs none of it: it is extracted first
    // under the ordinary limits without OCR, and only one that has no text
    // layer gets a second child that reads its page images.
    if let Some(ocr) = req.ocr.filter(|_| matches!(req.kind, Kind::Image | Kind::Pdf)) {
        if req.kind == Kind::Pdf {
            match run_child(program, args, &limits, threads, &header, &req.bytes, side).await? {
                Response::Err(reason) if reason.starts_with(ragpipe_extract::NO_TEXT_LAYER) => {}
                Response::Ok(doc) => return Ok(doc),
                Response::Err(reason) => return Err(IsolateError::Failed(reason)),
                Response::Duration(_) => {
                    return Err(IsolateError::Failed("extraction child answered with a duration".into()));
                }
            }
        }
        limits.timeout += ocr.extra_time(req.bytes.len() as u64, req.limits.max_pages);
        limits.memory_bytes = limits.memory_bytes.saturating_add(ocr.extra_memory_bytes);
        threads = threads.max(ocr.threads as u64);
        header.ocr = Some(ocr);
    }
    let mut answer = run_child(program, args, &limits, threads, &header, &req.bytes, side).await;
    // A message's attachments (an archive's files) are read in the same
    // child: when one of them takes it down (a parser crash, the memory or
    // time limit), the message is read again without them rather than lost
    // with them.
    if let Err(IsolateError::Failed(reason)) = &answer
        && matches!(req.kind, Kind::Email | Kind::Archive)
        && header.limits.read_attachments
    {
        tracing::warn!(name = req.name, reason = %reason, "an attachment took the extraction child down; reading the file without attachments");
        let what = if req.kind == Kind::Archive { "files" } else { "attachments" };
        let note = format!("{what} not read: reading them failed ({reason})");
        header.limits.read_attachments = false;
        // When the second try fails too, the first reason is the one to
        // give: it is what took the file down (a gzip'd file, say, which
        // is nothing without the file inside).
        match run_child(program, args, &limits, threads, &header, &req.bytes, side).await {
            Ok(Response::Ok(mut doc)) => {
                doc.warnings.push(note);
                answer = Ok(Response::Ok(doc));
            }
            Ok(Response::Err(why)) => tracing::warn!(name = req.name, second = %why, "the second try failed as well"),
            second => tracing::warn!(name = req.name, second = ?second.map(|_| ()), "the second try failed as well"),
        }
    }
    match answer? {
        Response::Ok(doc) => Ok(doc),
        Response::Err(reason) => Err(IsolateError::Failed(reason)),
        Response::Duration(_) => Err(IsolateError::Failed("extraction child answered with a duration".into())),
    }
}

/// One child under `limits` (CPU time: `threads` × the wall clock), fed
/// `header` and the bytes; its answer.
async fn run_child(
    program: &std::path::Path,
    args: &[String],
    limits: &ChildLimits,
    threads: u64,
    header: &Header,
    bytes: &[u8],
    sidecar: Option<&[u8]>,
) -> Result<Response, IsolateError> {
    let mut cmd = tokio::process::Command::new(program);
    cmd.args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).kill_on_drop(true);
    let (memory, cpu) = (limits.memory_bytes, limits.timeout.as_secs().max(1) * threads.max(1));
    // SAFETY: the closure runs between fork and exec and only calls
    // setrlimit and prctl, which are async-signal-safe; it allocates nothing.
    unsafe {
        cmd.pre_exec(move || {
            // A worker killed with SIGKILL takes its child with it (no drop
            // runs then): no orphan parser keeps a core busy.
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            set_limit(libc::RLIMIT_AS, memory, memory)?;
            // SIGXCPU at the soft limit, SIGKILL one second later.
            set_limit(libc::RLIMIT_CPU, cpu, cpu + 1)?;
            set_limit(libc::RLIMIT_CORE, 0, 0)
        });
    }
    let mut child = cmd.spawn().map_err(|e| IsolateError::Spawn(format!("starting {}: {e}", program.display())))?;
    let (mut stdin, stdout, stderr) = (child.stdin.take(), child.stdout.take(), child.stderr.take());
    let feed = async move {
        let Some(pipe) = stdin.as_mut() else { return };
        // A child that dies early closes its end; its exit status says why.
        let _ = async {
            pipe.write_all(&header_line(header)).await?;
            pipe.write_all(bytes).await?;
            if let Some(side) = sidecar {
                pipe.write_all(side).await?;
            }
            pipe.shutdown().await
        }
        .await;
    };
    let work = async {
        let ((), out, err, status) = tokio::join!(
            feed,
            read_capped(stdout, limits.max_output_bytes, false),
            read_capped(stderr, STDERR_KEEP, true),
            child.wait()
        );
        (out, err, status)
    };
    let Ok((out, err, status)) = tokio::time::timeout(limits.timeout, work).await else {
        let _ = child.kill().await;
        return Err(timed_out(limits));
    };
    let status = status.map_err(|e| IsolateError::Spawn(format!("waiting for the extraction child: {e}")))?;
    let stderr = String::from_utf8_lossy(&err.bytes).into_owned();
    if out.overflowed {
        return Err(IsolateError::Failed(format!("extraction output exceeds {} MiB", limits.max_output_bytes >> 20)));
    }
    if status.success() {
        return serde_json::from_slice::<Response>(&out.bytes)
            .map_err(|e| IsolateError::Failed(format!("extraction produced unreadable output: {e}")));
    }
    Err(IsolateError::Failed(death_reason(header.kind, status, &stderr, limits)))
}

fn set_limit(resource: libc::__rlimit_resource_t, soft: u64, hard: u64) -> std::io::Result<()> {
    let limit = libc::rlimit { rlim_cur: soft as libc::rlim_t, rlim_max: hard as libc::rlim_t };
    // SAFETY: a plain syscall on a valid struct.
    if unsafe { libc::setrlimit(resource, &limit) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// The reason for a parser that panicked: the file is damaged in a way the
/// parser did not expect (its checks were missing, not the file sound).
fn parser_stopped(kind: Kind, msg: &str) -> String {
    format!("corrupt {}: the {} parser stopped on it: {msg}", kind.as_str(), kind.as_str())
}

fn timed_out(limits: &ChildLimits) -> IsolateError {
    IsolateError::Failed(format!("extraction timed out after {}s", limits.timeout.as_secs().max(1)))
}

/// Reads why a child died from its status and stderr.
fn death_reason(kind: Kind, status: std::process::ExitStatus, stderr: &str, limits: &ChildLimits) -> String {
    if let Some(line) = stderr.lines().find_map(|l| l.strip_prefix(PANIC_MARKER)) {
        tracing::warn!(kind = kind.as_str(), panic = line, "a parser panicked in the extraction child");
        // The source location is for developers (it is in the log line
        // above); the reason says what is wrong with the file.
        let msg = line.rsplit_once(" (at ").map_or(line, |(msg, _)| msg);
        return parser_stopped(kind, msg);
    }
    // Rust reports a failed allocation as "memory allocation of N bytes
    // failed" and aborts; under RLIMIT_AS that is running out of memory.
    if stderr.contains("memory allocation of") || stderr.contains("out of memory") {
        return format!("extraction ran out of memory (limit {} MiB)", limits.memory_bytes >> 20);
    }
    match status.signal() {
        Some(libc::SIGXCPU) => return format!("extraction timed out after {}s", limits.timeout.as_secs().max(1)),
        Some(sig) if stderr.contains("has overflowed its stack") => {
            return format!("extraction crashed: signal {sig} (stack overflow)");
        }
        Some(sig) => return format!("extraction crashed: signal {sig}"),
        None => {}
    }
    let last = stderr.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("no message");
    format!("extraction failed: exit status {}: {last}", status.code().unwrap_or(-1))
}

/// A stream read up to a cap, and whether it had more. Past the cap stdout
/// is closed, so a child that keeps writing dies of a broken pipe instead of
/// running until the wall clock; stderr is drained, so it never blocks.
struct Capped {
    bytes: Vec<u8>,
    overflowed: bool,
}

async fn read_capped(stream: Option<impl AsyncRead + Unpin>, cap: u64, drain: bool) -> Capped {
    let mut out = Capped { bytes: Vec::new(), overflowed: false };
    let Some(mut stream) = stream else { return out };
    let _ = (&mut stream).take(cap + 1).read_to_end(&mut out.bytes).await;
    if out.bytes.len() as u64 > cap {
        out.overflowed = true;
        out.bytes.truncate(cap as usize);
        if drain {
            let mut sink = [0u8; 8192];
            while matches!(stream.read(&mut sink).await, Ok(n) if n > 0) {}
        }
    }
    out
}
