//! Command-line arguments.

use clap::{Args, Parser, Subcommand};
use ragpipe_config::Config;
use std::path::PathBuf;

#[derive(Debug, Parser)]
#[command(
    name = "ragpipe",
    version,
    about = "Turn a folder or an S3 bucket of documents into a searchable, citable vector index"
)]
pub struct Cli {
    /// Config file (default: ./ragpipe.toml if present).
    #[arg(long, global = true, env = "RAGPIPE_CONFIG")]
    pub config: Option<PathBuf>,
    /// Data directory of the embedded index (default: ./.ragpipe).
    #[arg(long, global = true)]
    pub data_dir: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Command,
}

impl Cli {
    pub fn config(&self) -> anyhow::Result<Config> {
        let mut config = Config::load(self.config.as_deref())?;
        if let Some(dir) = &self.data_dir {
            config.data_dir = dir.clone();
        }
        Ok(config)
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Index a folder or an S3 prefix: new and changed files are (re)embedded, removed ones deleted.
    Ingest(IngestArgs),
    /// Search the index; every hit is cited with its document and locator.
    Search(SearchArgs),
    /// Counts by status, failures with reasons, stale documents, truncations.
    Status(StatusArgs),
    /// Every chunk of one document, with text, content, locator and tokens.
    Chunks(ChunksArgs),
    /// Score retrieval against a golden set, or compare two runs (--compare A B).
    Eval(EvalArgs),
    /// List documents with status, failure stage and reason, attempts,
    /// chunks, model and versions; filter by status, reason, kind, staleness.
    Documents(DocumentsArgs),
    /// Queue failed documents again (new generation, attempts reset).
    Retry(RetryArgs),
    /// Rebuild the index into a new collection (new model or pipeline
    /// version) while searches read the old one; swap atomically when every
    /// document is indexed or failed in it. Run again to resume.
    Reindex(ReindexArgs),
    /// Distributed mode: one coordinator run over `[distributed]` (S3 or a
    /// folder, PostgreSQL, RabbitMQ); prints new/changed/deleted counts.
    Sync(SyncArgs),
    /// Distributed mode: run a worker until SIGTERM; `admin` serves the admin
    /// API and web page (either mode).
    /// Without a role, `--folder F`: the embedded mode as one process that
    /// ingests F every `--every`, serves the search API on search.listen and
    /// the admin API and page on admin.listen.
    Serve {
        #[arg(value_enum, required_unless_present = "folder")]
        role: Option<ServeRole>,
        /// Admin and search: address to listen on (default: admin.listen,
        /// search.listen).
        #[arg(long, requires = "role")]
        listen: Option<String>,
        /// The folder (or `s3://bucket/prefix`) one embedded process keeps
        /// indexed and searchable.
        #[arg(long, conflicts_with = "role")]
        folder: Option<String>,
        /// With --folder: ingest again this long after each run ends.
        #[arg(long, value_parser = humantime::parse_duration, default_value = "15m", requires = "folder")]
        every: std::time::Duration,
    },
    /// A file's canonical text as the extractors make it (what `#char` counts
    /// in), without indexing it; `--json` prints the whole document.
    Text(TextArgs),
    /// Measure speed.
    #[command(subcommand)]
    Bench(BenchCommand),
    /// Internal: extract one document read from stdin, in a resource-limited
    /// child process started by the extractor stage.
    #[command(name = "__extract", hide = true)]
    Extract,
}

/// Which documents: the filter `documents`, `retry` and the admin API share.
#[derive(Debug, Args)]
pub struct FilterArgs {
    /// queued, extracting, embedding, indexed, failed or deleted.
    #[arg(long, value_parser = parse_status)]
    pub status: Option<ragpipe_core::DocStatus>,
    /// Failure reason contains TEXT (case-insensitive).
    #[arg(long)]
    pub reason: Option<String>,
    /// html, markdown, text, pdf, word, presentation, email, ebook, spreadsheet, csv,
    /// code, audio or image.
    #[arg(long, value_parser = parse_kind)]
    pub kind: Option<ragpipe_core::Kind>,
    /// Only documents whose last extraction left a warning (OCR pages read
    /// with low confidence).
    #[arg(long)]
    pub warned: bool,
}

impl FilterArgs {
    pub fn filter(&self, stale: bool) -> ragpipe_admin::Filter {
        let (status, reason, kind, warned) = (self.status, self.reason.clone(), self.kind, self.warned);
        ragpipe_admin::Filter { status, reason, kind, stale, warned }
    }
}

fn parse_limit(s: &str) -> Result<usize, String> {
    let max = ragpipe_admin::MAX_PAGE;
    s.parse().ok().filter(|n| (1..=max).contains(n)).ok_or_else(|| format!("a number from 1 to {max}"))
}

fn parse_status(s: &str) -> Result<ragpipe_core::DocStatus, String> {
    ragpipe_core::DocStatus::parse(s).ok_or_else(|| {
        let all: Vec<_> = ragpipe_core::DocStatus::ALL.iter().map(|s| s.as_str()).collect();
        format!("not a status; one of {}", all.join(", "))
    })
}

fn parse_kind(s: &str) -> Result<ragpipe_core::Kind, String> {
    ragpipe_core::Kind::parse(s).ok_or_else(|| {
        let all: Vec<_> = ragpipe_core::Kind::ALL.iter().map(|k| k.as_str()).collect();
        format!("not a kind; one of {}", all.join(", "))
    })
}

#[derive(Debug, Args)]
pub struct DocumentsArgs {
    #[command(flatten)]
    pub filter: FilterArgs,
    /// Only documents indexed with another model or pipeline version.
    #[arg(long)]
    pub stale: bool,
    /// Documents per page (at most 1000).
    #[arg(long, default_value_t = ragpipe_admin::DEFAULT_PAGE, value_parser = parse_limit)]
    pub limit: usize,
    /// The page after this document (the `next` a page printed: its source URI).
    #[arg(long, conflicts_with = "before")]
    pub after: Option<String>,
    /// The page before this document (the `previous` a page printed).
    #[arg(long)]
    pub before: Option<String>,
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct RetryArgs {
    /// Documents (path, URI or id) to retry.
    pub documents: Vec<String>,
    /// Every failed document (same as `--status failed`).
    #[arg(long)]
    pub all_failed: bool,
    /// Failed documents matching these (the status can only be `failed`).
    #[command(flatten)]
    pub filter: FilterArgs,
    /// Print what was queued as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ReindexArgs {
    /// Target model (default: `[model] variant`; with --stale-only, the
    /// live index's).
    #[arg(long, value_parser = parse_variant)]
    pub model: Option<ragpipe_embed::ModelVariant>,
    /// Target pipeline version label (default: this build's; with
    /// --stale-only, the live index's). The configured lexical analysis is
    /// added to it (`2` becomes `2+bm25-auto`) unless it names one.
    #[arg(long)]
    pub pipeline_version: Option<String>,
    /// Only documents whose recorded model, pipeline or extractor version
    /// differ from the target's (in place when the target is the live
    /// index's seal).
    #[arg(long)]
    pub stale_only: bool,
    /// Keep the old collection after the swap (default: drop it).
    #[arg(long)]
    pub keep_old: bool,
    /// Embedded mode: the folder or `s3://bucket/prefix` to read (default:
    /// the last ingested one).
    #[arg(long, alias = "source")]
    pub folder: Option<String>,
    #[arg(long)]
    pub json: bool,
    /// Hide the progress bar.
    #[arg(long)]
    pub quiet: bool,
}

fn parse_variant(s: &str) -> Result<ragpipe_embed::ModelVariant, String> {
    ragpipe_embed::ModelVariant::parse(s).ok_or_else(|| "not a model variant: fp32 or int8".into())
}

#[derive(Debug, Args)]
pub struct SyncArgs {
    /// `s3://bucket/prefix` or a folder (default: distributed.source).
    #[arg(long)]
    pub source: Option<String>,
    /// Run again this long after each run ends (`15m`, `1h`, `90s`), until
    /// SIGTERM; without it, one run.
    #[arg(long, value_parser = humantime::parse_duration)]
    pub every: Option<std::time::Duration>,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum ServeRole {
    /// Consumes extract jobs: fetch, extract (isolated), chunk, publish embed jobs.
    Extractor,
    /// Consumes embed and delete jobs: embed, upsert, count, mark indexed.
    Embedder,
    /// The admin HTTP API (`/api`, `/openapi.json`), web page (`/`) and probes
    /// (`/healthz`, `/readyz`); in the embedded mode too.
    Admin,
    /// The search API (`POST /api/search`, `/openapi.json`) and probes, the
    /// live index and its model loaded once; in the embedded mode too.
    Search,
}

#[derive(Debug, Args)]
pub struct TextArgs {
    /// The file; an audio file's `.vtt`/`.srt` sidecar beside it is used.
    pub file: PathBuf,
    /// Print the document (title, kind, text, blocks, tables) as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct IngestArgs {
    /// The folder to index, or `s3://bucket/prefix` (credentials from
    /// AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, region from AWS_REGION,
    /// a non-AWS server from RAGPIPE_S3_ENDPOINT).
    pub source: String,
    /// Print the summary as JSON.
    #[arg(long)]
    pub json: bool,
    /// Hide the progress bar.
    #[arg(long)]
    pub quiet: bool,
    /// Ingest again this long after each run ends (`15m`, `1h`), until
    /// SIGTERM: the embedded form of `ragpipe sync --every`.
    #[arg(long, value_parser = humantime::parse_duration)]
    pub every: Option<std::time::Duration>,
}

#[derive(Debug, Args)]
pub struct SearchArgs {
    pub query: String,
    #[arg(long)]
    pub top_k: Option<usize>,
    #[arg(long)]
    pub json: bool,
    /// Always list hits, even when the best one is too far to be an answer.
    #[arg(long)]
    pub no_threshold: bool,
    /// Dense retrieval only (default: hybrid dense + BM25).
    #[arg(long)]
    pub dense_only: bool,
    /// Only chunks of documents of this kind (repeat for any of several).
    #[arg(long, value_name = "KIND")]
    pub kind: Vec<String>,
    /// Only chunks of this document, by source URI (repeat for several).
    #[arg(long, value_name = "URI")]
    pub document: Vec<String>,
}

#[derive(Debug, Args)]
pub struct StatusArgs {
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ChunksArgs {
    /// A document path, URI or id.
    pub document: String,
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Subcommand)]
pub enum BenchCommand {
    /// Embedding throughput at several batch sizes, thread counts and variants.
    Embed(BenchEmbedArgs),
    /// End-to-end embedded ingest of a folder: documents/s, chunks/s, time by stage, peak RSS.
    Ingest(BenchIngestArgs),
    /// Extraction and chunking alone on files: pages/s, rows/s, MB/s, peak RSS.
    Extract(BenchExtractArgs),
    /// Speech recognition alone, the model loaded once: each file's
    /// transcript with timestamps, seconds, real-time factor; peak RSS.
    Asr(BenchAsrArgs),
    /// OCR alone, the engine loaded once: each image file's or scanned
    /// PDF's text, pages, seconds, pages/s; peak RSS.
    Ocr(BenchOcrArgs),
    /// The admin tools at a million documents in PostgreSQL: filtered pages,
    /// the failure summary, the status, a retry by reason (p50/p95).
    Admin(BenchAdminArgs),
    /// The search service under 1, 4 and 16 concurrent clients over this
    /// config's index: p50/p95/p99 latency and queries/s.
    Search(BenchSearchArgs),
    /// The coordinator's diff over N objects (a folder, or S3): first sync,
    /// unchanged re-sync, 1 % changed and deleted; objects/s, round trips, RSS.
    Sync(BenchSyncArgs),
}

#[derive(Debug, Args)]
pub struct BenchSyncArgs {
    /// Objects in the source.
    #[arg(long, default_value_t = 100_000)]
    pub objects: u64,
    /// List a bucket on this S3 server instead of a folder (credentials
    /// from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY).
    #[arg(long)]
    pub s3_endpoint: Option<String>,
    /// The bench's own database (created if missing; its rows are replaced).
    #[arg(long, default_value = "postgres://postgres@127.0.0.1:5432/ragpipe_bench")]
    pub postgres: String,
}

#[derive(Debug, Args)]
pub struct BenchSearchArgs {
    /// Questions (JSON Lines with a `query` field), e.g. the golden set
    /// over an index of eval/corpus.
    #[arg(long, default_value = "eval/golden.jsonl")]
    pub queries: PathBuf,
    /// Searches each client sends per measurement.
    #[arg(long, default_value_t = 100)]
    pub requests: usize,
}

#[derive(Debug, Args)]
pub struct BenchAdminArgs {
    /// The bench's own database (created if missing; its documents are replaced).
    #[arg(long, default_value = "postgres://postgres@127.0.0.1:5432/ragpipe_bench")]
    pub postgres: String,
    /// Document rows to fill it with.
    #[arg(long, default_value_t = 1_000_000)]
    pub documents: i64,
}

#[derive(Debug, Args)]
pub struct BenchExtractArgs {
    /// Files to extract, one after another in this process (run one file per
    /// invocation for a peak RSS that belongs to that file alone).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
}

#[derive(Debug, Args)]
pub struct BenchAsrArgs {
    /// Media files, transcribed one after another (`[asr]` chooses model,
    /// variant, threads and language).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// One JSON object per file, then one for the run.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct BenchOcrArgs {
    /// Image files and scanned PDFs, read one after another (`[ocr]` chooses
    /// threads and the detection size).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// One JSON object per file, then one for the run.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct BenchIngestArgs {
    pub folder: PathBuf,
}

#[derive(Debug, Args)]
pub struct BenchEmbedArgs {
    /// Folder whose documents are chunked to get real chunks to embed.
    #[arg(long, default_value = "samples")]
    pub folder: PathBuf,
    /// Chunks to embed per measurement.
    #[arg(long, default_value_t = 64)]
    pub chunks: usize,
    /// Batch sizes to measure.
    #[arg(long, value_delimiter = ',', default_value = "1,8,32")]
    pub batches: Vec<usize>,
    /// Intra-op threads in all to measure (split among the sessions).
    #[arg(long, value_delimiter = ',', default_value = "1,2")]
    pub threads: Vec<usize>,
    /// Model sessions side by side to measure (at most the threads).
    #[arg(long, value_delimiter = ',', default_value = "1,2")]
    pub sessions: Vec<usize>,
    /// Whether idle intra-op threads spin, to measure (`true`, `false`).
    #[arg(long, value_delimiter = ',', default_value = "true")]
    pub spinning: Vec<bool>,
    /// Write the chunk texts used (JSON array), for comparisons with other embedders.
    #[arg(long)]
    pub dump_chunks: Option<PathBuf>,
    /// Write the measurements as JSON.
    #[arg(long)]
    pub json_out: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct EvalArgs {
    /// Golden queries (JSON Lines: id, qid, style, query, doc, kind, needles, fuzzy?).
    #[arg(long)]
    pub golden: Option<PathBuf>,
    /// Out-of-domain queries (JSON Lines: id, query, kind).
    #[arg(long)]
    pub ood: Option<PathBuf>,
    /// Compare two saved runs: per-query wins/losses and an exact sign test.
    #[arg(long, num_args = 2, value_names = ["RUN_A", "RUN_B"])]
    pub compare: Vec<PathBuf>,
    /// Save the full report (per-query results included) as JSON.
    #[arg(long)]
    pub out: Option<PathBuf>,
    #[arg(long)]
    pub json: bool,
    /// A name for this run, recorded in the report.
    #[arg(long, default_value = "")]
    pub label: String,
    #[arg(long)]
    pub dense_only: bool,
    /// Fail (exit 1) on any destroyed answer.
    #[arg(long)]
    pub gate: bool,
    /// Fail when overall recall@8 falls below this.
    #[arg(long)]
    pub min_recall_at_8: Option<f64>,
    /// Fail when MRR falls below this.
    #[arg(long)]
    pub min_mrr: Option<f64>,
    /// Fail when the model's abstention rule, at its own threshold, refuses
    /// more than this share of the answerable queries (0.05 = 5 %).
    #[arg(long)]
    pub max_refused: Option<f64>,
    /// Fail when that rule answers more than this share of the
    /// out-of-domain queries.
    #[arg(long)]
    pub max_bluffs: Option<f64>,
    /// Only the queries of this split (`dev` or `test`, the golden lines'
    /// `split` field); lines without one belong to every split.
    #[arg(long)]
    pub split: Option<String>,
    /// Sweep thresholds for this margin weight instead of the model's
    /// (0: the nearest distance alone).
    #[arg(long)]
    pub margin_weight: Option<f32>,
}
