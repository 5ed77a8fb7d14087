//! One typed configuration for every ragpipe process, read from an optional
//! TOML file and overridden by `RAGPIPE_*` environment variables, validated
//! once at start. Unknown fields are errors: a misspelt limit must not
//! silently fall back to its default.

mod asr;
mod lexical;
mod ocr;
mod search;
mod source;

pub use asr::AsrConfig;
pub use lexical::LexicalConfig;
pub use ocr::OcrConfig;
pub use ragpipe_core::{ChunkConfig, TableRows};
pub use search::SearchConfig;
use serde::Deserialize;
pub use source::SourceConfig;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// Where the embedded mode keeps its state and vectors.
    pub data_dir: PathBuf,
    pub source: SourceConfig,
    pub model: ModelConfig,
    pub chunking: ChunkConfig,
    pub search: SearchConfig,
    pub lexical: LexicalConfig,
    pub limits: LimitsConfig,
    pub asr: AsrConfig,
    pub ocr: OcrConfig,
    pub workers: WorkersConfig,
    pub distributed: DistributedConfig,
    pub admin: AdminConfig,
    pub telemetry: TelemetryConfig,
}

/// OpenTelemetry export. Without an endpoint, structured logs only.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TelemetryConfig {
    /// OTLP/gRPC collector, e.g. `http://otel-collector:4317`.
    /// Env: `RAGPIPE_OTLP_ENDPOINT`, else the standard `OTEL_EXPORTER_OTLP_ENDPOINT`.
    pub otlp_endpoint: Option<String>,
}

/// `ragpipe serve admin`: the admin HTTP API and web page.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AdminConfig {
    /// Address to listen on. Env: `RAGPIPE_ADMIN_LISTEN`.
    pub listen: String,
    /// Bearer token every API call must carry. Without one the server only
    /// starts on a loopback address. Env: `RAGPIPE_ADMIN_TOKEN`.
    pub token: Option<String>,
}

impl Default for AdminConfig {
    fn default() -> Self {
        AdminConfig { listen: "127.0.0.1:8080".into(), token: None }
    }
}

/// The distributed mode's engines (`ragpipe sync`, `ragpipe serve <role>`).
/// When `state_url` is set, every command (status, search, chunks, eval)
/// reads document state from it instead of the embedded SQLite file.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DistributedConfig {
    /// PostgreSQL URL of the document state. Env: `RAGPIPE_STATE_URL`.
    pub state_url: Option<String>,
    /// RabbitMQ URL. Env: `RAGPIPE_AMQP_URL`.
    pub amqp_url: Option<String>,
    /// Prefix of every queue name, so deployments can share a broker.
    /// Env: `RAGPIPE_AMQP_NAMESPACE`.
    pub namespace: Option<String>,
    /// What the coordinator lists: `s3://bucket/prefix` or a folder path.
    /// Env: `RAGPIPE_SOURCE`.
    pub source: Option<String>,
    /// Qdrant server (gRPC, e.g. `http://qdrant:6334`); unset = the embedded
    /// store in `data_dir`. Env: `RAGPIPE_QDRANT_URL`.
    pub qdrant_url: Option<String>,
    /// Env: `RAGPIPE_QDRANT_API_KEY`.
    pub qdrant_api_key: Option<String>,
    /// Seconds a sync run holds the sync lock without renewing it (renewed
    /// every third of it): how long a killed coordinator keeps the next run
    /// waiting. Default 60. Env: `RAGPIPE_SYNC_LEASE_SECS`.
    pub sync_lease_secs: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ModelConfig {
    /// The model of a new index and of the next `reindex`:
    /// `all-MiniLM-L6-v2` (default, English), `all-mpnet-base-v2` (English,
    /// better ranking, a sixth of the speed; `scripts/provision-mpnet.sh`),
    /// `multilingual-e5-small`, or `custom` (whatever `dir` holds, as its
    /// `ragpipe-model.json` says).
    /// An existing index keeps the model it was built with. Env:
    /// `RAGPIPE_MODEL_NAME`.
    pub name: String,
    /// Folder with `model.onnx`, `model-int8.onnx`, `tokenizer.json` and
    /// `ragpipe-model.json`; used for the models its spec names (default:
    /// the provisioning cache's `models/NAME`). Env: `RAGPIPE_MODEL_DIR`.
    pub dir: Option<PathBuf>,
    /// The ONNX Runtime shared library. Env: `ORT_DYLIB_PATH`.
    pub runtime: Option<PathBuf>,
    /// `int8` (default: dynamic quantisation, 1.3x the chunks/s of fp32 on
    /// 2 AVX2 cores, a quarter of the model's memory, no significant loss in
    /// the paired retrieval test) or `fp32` (the exact weights).
    /// Env: `RAGPIPE_MODEL_VARIANT`.
    pub variant: String,
    /// Intra-op threads per embedder; 0 = all cores. Env: `RAGPIPE_THREADS`.
    pub threads: usize,
    /// Model sessions that embed batches side by side, the threads split
    /// among them; 0 (default) = one session of one thread per thread: on 2
    /// cores 1.2–1.4× the chunks/s of one session of two threads
    /// (docs/BENCHMARKS.md). Env: `RAGPIPE_SESSIONS`.
    pub sessions: usize,
    /// Texts per model call. 1 by default: on CPU one sequence's activations
    /// stay in cache and batch 1 embeds 1.6–1.8× faster than batch 32
    /// (docs/BENCHMARKS.md).
    pub batch_size: usize,
}

/// What one document may cost. Parsers run in a child process held to the
/// `extract_*` limits; the others are checked by the extractors, and a hit
/// fails the document with a reason naming the limit.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LimitsConfig {
    /// Largest file fetched, in bytes. Env: `RAGPIPE_MAX_FILE_BYTES`.
    pub max_file_bytes: u64,
    /// Wall-clock (and CPU) seconds one extraction may take.
    /// Env: `RAGPIPE_EXTRACT_TIMEOUT_SECS`.
    pub extract_timeout_secs: u64,
    /// Address space of one extraction child, MiB. Env: `RAGPIPE_EXTRACT_MEMORY_MIB`.
    pub extract_memory_mib: u64,
    /// Largest extracted document (JSON) a child may hand back, MiB. A
    /// 49 MB, 900k-row workbook comes back as 198 MB of JSON (measured, see
    /// docs/BENCHMARKS.md), so the default leaves room for `max_file_bytes`.
    pub extract_output_mib: u64,
    /// PDF pages, presentation slides.
    pub max_pages: u32,
    /// Spreadsheet rows, all sheets together.
    pub max_rows: u64,
    /// Spreadsheet cells, all sheets together.
    pub max_cells: u64,
    /// Bytes a compressed container (xlsx, ods, docx, odt, pptx, odp) may inflate to.
    pub max_decompressed_bytes: u64,
    /// Seconds of audio.
    pub max_duration_secs: f64,
    /// Canonical text of one document, MiB: what the child may hand back
    /// and the parent chunks, tokenises and embeds. 16 MiB is ~5,000 dense
    /// pages; a 50 MB one-line HTML page fails here instead of holding
    /// gigabytes in the parent.
    pub max_text_mib: u64,
    /// Elements nested inside each other in an HTML page: the HTML parser
    /// is quadratic in nesting depth, so a page of 100,000 nested `<div>`s
    /// fails here at once instead of at the extraction timeout.
    pub max_nesting: u32,
    /// Chunks of one document. Every chunk is embedded (~30–100 chunks/s on
    /// 2 cores), so this bounds the time one document holds the embedder.
    pub max_chunks: u64,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct WorkersConfig {
    pub extractors: usize,
    /// Extractor loops that transcribe media (the `ragpipe.transcribe`
    /// queue): a recording takes minutes, so it waits for these instead of
    /// holding an extractor loop, and the documents behind it keep flowing.
    pub transcribers: usize,
    pub embedders: usize,
    /// Chunks per embed job.
    pub embed_batch: usize,
    /// Messages a queue holds before publishers wait.
    pub queue_capacity: usize,
    /// Bytes (MiB) of messages the embedded queue holds before publishers
    /// wait: message counts alone do not bound memory when messages differ
    /// a hundredfold in size.
    pub queue_mib: u64,
    /// Deliveries of one extract job before its document is failed with the
    /// last reason (transient errors, or workers dying mid-document).
    pub max_attempts: i64,
    /// How long a worker's claim on a document it extracts holds; a document
    /// still extracting after that is enqueued again by the next sync.
    pub lease_secs: u64,
    /// Where `serve extractor|embedder` answer `/healthz` and `/readyz`
    /// (e.g. `0.0.0.0:9090` in a pod); unset = no probe server.
    /// Env: `RAGPIPE_HEALTH_LISTEN`.
    pub health_listen: Option<String>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            data_dir: PathBuf::from(".ragpipe"),
            source: SourceConfig::default(),
            model: ModelConfig::default(),
            chunking: ChunkConfig::default(),
            search: SearchConfig::default(),
            lexical: LexicalConfig::default(),
            limits: LimitsConfig::default(),
            asr: AsrConfig::default(),
            ocr: OcrConfig::default(),
            workers: WorkersConfig::default(),
            distributed: DistributedConfig::default(),
            admin: AdminConfig::default(),
            telemetry: TelemetryConfig::default(),
        }
    }
}

impl Default for ModelConfig {
    fn default() -> Self {
        ModelConfig {
            name: "all-MiniLM-L6-v2".into(),
            dir: None,
            runtime: None,
            variant: "int8".into(),
            threads: 0,
            sessions: 0,
            batch_size: 1,
        }
    }
}

impl Default for LimitsConfig {
    fn default() -> Self {
        LimitsConfig {
            max_file_bytes: 64 * 1024 * 1024,
            extract_timeout_secs: 60,
            extract_memory_mib: 768,
            extract_output_mib: 128,
            max_pages: 5_000,
            max_rows: 1_000_000,
            max_cells: 20_000_000,
            max_decompressed_bytes: 1 << 30,
            max_duration_secs: 6.0 * 3600.0,
            max_text_mib: 16,
            max_nesting: 1000,
            max_chunks: 10_000,
        }
    }
}

impl Default for WorkersConfig {
    fn default() -> Self {
        WorkersConfig {
            extractors: 2,
            transcribers: 1,
            embedders: 1,
            embed_batch: 32,
            queue_capacity: 256,
            queue_mib: 64,
            max_attempts: 5,
            lease_secs: 900,
            health_listen: None,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("reading config {path}: {reason}")]
    Read { path: String, reason: String },
    #[error("invalid config {path}: {reason}")]
    Parse { path: String, reason: String },
    #[error("invalid environment variable {name}={value}: {reason}")]
    Env { name: &'static str, value: String, reason: String },
    #[error("invalid config: {0}")]
    Invalid(String),
}

impl Config {
    /// Loads `path` if given, else `./ragpipe.toml` if present, else defaults;
    /// then applies environment overrides and validates.
    pub fn load(path: Option<&Path>) -> Result<Config, ConfigError> {
        let default_file = Path::new("ragpipe.toml");
        let file = path.or(default_file.exists().then_some(default_file));
        let mut config = match file {
            Some(p) => {
                let text = std::fs::read_to_string(p)
                    .map_err(|e| ConfigError::Read { path: p.display().to_string(), reason: e.to_string() })?;
                toml::from_str(&text)
                    .map_err(|e| ConfigError::Parse { path: p.display().to_string(), reason: e.to_string() })?
            }
            None => Config::default(),
        };
        config.apply_env(|name| std::env::var(name).ok())?;
        config.validate()?;
        Ok(config)
    }

    /// Applies `RAGPIPE_*` overrides read through `get`.
    pub fn apply_env(&mut self, get: impl Fn(&str) -> Option<String>) -> Result<(), ConfigError> {
        fn parse<T: std::str::FromStr>(name: &'static str, value: String) -> Result<T, ConfigError>
        where
            T::Err: std::fmt::Display,
        {
            value.parse().map_err(|e: T::Err| ConfigError::Env { name, value, reason: e.to_string() })
        }
        if let Some(v) = get("RAGPIPE_DATA_DIR") {
            self.data_dir = PathBuf::from(v);
        }
        if let Some(v) = get("RAGPIPE_SOURCE_EXCLUDE") {
            self.source.exclude = v.split(',').map(str::trim).filter(|p| !p.is_empty()).map(String::from).collect();
        }
        if let Some(v) = get("RAGPIPE_MODEL_NAME") {
            self.model.name = v;
        }
        if let Some(v) = get("RAGPIPE_LEXICAL_LANGUAGE") {
            self.lexical.language = v;
        }
        if let Some(v) = get("RAGPIPE_MODEL_VARIANT") {
            self.model.variant = v;
        }
        if let Some(v) = get("RAGPIPE_THREADS") {
            self.model.threads = parse("RAGPIPE_THREADS", v)?;
        }
        if let Some(v) = get("RAGPIPE_SESSIONS") {
            self.model.sessions = parse("RAGPIPE_SESSIONS", v)?;
        }
        if let Some(v) = get("RAGPIPE_SEARCH_THRESHOLD") {
            self.search.threshold = Some(parse("RAGPIPE_SEARCH_THRESHOLD", v)?);
        }
        if let Some(v) = get("RAGPIPE_MAX_FILE_BYTES") {
            self.limits.max_file_bytes = parse("RAGPIPE_MAX_FILE_BYTES", v)?;
        }
        if let Some(v) = get("RAGPIPE_EXTRACT_TIMEOUT_SECS") {
            self.limits.extract_timeout_secs = parse("RAGPIPE_EXTRACT_TIMEOUT_SECS", v)?;
        }
        if let Some(v) = get("RAGPIPE_EXTRACT_MEMORY_MIB") {
            self.limits.extract_memory_mib = parse("RAGPIPE_EXTRACT_MEMORY_MIB", v)?;
        }
        if let Some(v) = get("RAGPIPE_ASR_MODEL") {
            self.asr.model = v;
        }
        if let Some(v) = get("RAGPIPE_ASR_DIR") {
            self.asr.dir = Some(PathBuf::from(v));
        }
        if let Some(v) = get("RAGPIPE_ASR_LANGUAGE") {
            self.asr.language = Some(v);
        }
        if let Some(v) = get("RAGPIPE_ASR_VARIANT") {
            self.asr.variant = v;
        }
        if let Some(v) = get("RAGPIPE_ASR_THREADS") {
            self.asr.threads = parse("RAGPIPE_ASR_THREADS", v)?;
        }
        if let Some(v) = get("RAGPIPE_OCR_ENGINE") {
            self.ocr.engine = v;
        }
        if let Some(v) = get("RAGPIPE_OCR_DIR") {
            self.ocr.dir = Some(PathBuf::from(v));
        }
        if let Some(v) = get("RAGPIPE_OCR_THREADS") {
            self.ocr.threads = parse("RAGPIPE_OCR_THREADS", v)?;
        }
        if let Some(v) = get("RAGPIPE_SYNC_LEASE_SECS") {
            self.distributed.sync_lease_secs = Some(parse("RAGPIPE_SYNC_LEASE_SECS", v)?);
        }
        let d = &mut self.distributed;
        for (name, field) in [
            ("RAGPIPE_STATE_URL", &mut d.state_url),
            ("RAGPIPE_AMQP_URL", &mut d.amqp_url),
            ("RAGPIPE_AMQP_NAMESPACE", &mut d.namespace),
            ("RAGPIPE_SOURCE", &mut d.source),
            ("RAGPIPE_QDRANT_URL", &mut d.qdrant_url),
            ("RAGPIPE_QDRANT_API_KEY", &mut d.qdrant_api_key),
            ("RAGPIPE_ADMIN_TOKEN", &mut self.admin.token),
            ("RAGPIPE_SEARCH_TOKEN", &mut self.search.token),
            ("RAGPIPE_HEALTH_LISTEN", &mut self.workers.health_listen),
        ] {
            if let Some(v) = get(name) {
                *field = Some(v);
            }
        }
        if let Some(v) = get("RAGPIPE_OTLP_ENDPOINT").or_else(|| get("OTEL_EXPORTER_OTLP_ENDPOINT")) {
            self.telemetry.otlp_endpoint = Some(v);
        }
        if let Some(v) = get("RAGPIPE_ADMIN_LISTEN") {
            self.admin.listen = v;
        }
        if let Some(v) = get("RAGPIPE_SEARCH_LISTEN") {
            self.search.listen = v;
        }
        Ok(())
    }

    pub fn validate(&self) -> Result<(), ConfigError> {
        let bad = |m: String| Err(ConfigError::Invalid(m));
        let name = &self.model.name;
        if name.is_empty()
            || name.starts_with('.')
            || !name.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
        {
            return bad(format!("model.name must be a model's folder name (letters, digits, - _ .), not {name:?}"));
        }
        if !matches!(self.model.variant.as_str(), "fp32" | "int8") {
            return bad(format!("model.variant must be fp32 or int8, not {:?}", self.model.variant));
        }
        // 0 is the model's own budget; a set one is checked against the
        // model's window when the model loads.
        if self.chunking.budget != 0 && self.chunking.budget < 32 {
            return bad(format!(
                "chunking.budget must be 0 (the model's) or at least 32 word-pieces, not {}",
                self.chunking.budget
            ));
        }
        if self.search.top_k == 0 || self.model.batch_size == 0 || self.workers.embed_batch == 0 {
            return bad("search.top_k, model.batch_size and workers.embed_batch must be positive".into());
        }
        let w = &self.workers;
        if w.extractors == 0 || w.transcribers == 0 || w.embedders == 0 || w.queue_capacity == 0 {
            return bad(
                "workers.extractors, workers.transcribers, workers.embedders and workers.queue_capacity must be positive"
                    .into(),
            );
        }
        let l = &self.limits;
        if l.max_file_bytes == 0 || l.extract_timeout_secs == 0 || l.extract_output_mib == 0 || l.max_pages == 0 {
            return bad(
                "limits.max_file_bytes, extract_timeout_secs, extract_output_mib and max_pages must be positive".into(),
            );
        }
        if l.max_text_mib == 0 || l.max_chunks == 0 || l.max_nesting == 0 || self.workers.queue_mib == 0 {
            return bad("limits.max_text_mib, max_chunks, max_nesting and workers.queue_mib must be positive".into());
        }
        // Below this the child cannot even map its own executable and libraries.
        if l.extract_memory_mib < 64 {
            return bad(format!("limits.extract_memory_mib must be at least 64, not {}", l.extract_memory_mib));
        }
        if l.max_duration_secs.is_nan() || l.max_duration_secs <= 0.0 {
            return bad(format!("limits.max_duration_secs must be positive, not {}", l.max_duration_secs));
        }
        self.search.validate().map_err(ConfigError::Invalid)?;
        self.lexical.validate().map_err(ConfigError::Invalid)?;
        self.asr.validate().map_err(ConfigError::Invalid)?;
        self.ocr.validate().map_err(ConfigError::Invalid)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_fields_and_bad_values_are_refused() {
        assert!(toml::from_str::<Config>("[chunking]\nbudjet = 100\n").is_err());
        let mut c: Config = toml::from_str("data_dir = \"/tmp/x\"\n[chunking]\nbudget = 16\n").unwrap();
        assert_eq!(c.data_dir, PathBuf::from("/tmp/x"));
        assert!(c.validate().is_err());
        // 0 (the default) is the model's own budget; a set one over the
        // model's window is refused when the model loads.
        for budget in [0, 200, 384] {
            c.chunking.budget = budget;
            c.validate().unwrap();
        }
        c.apply_env(|n| (n == "RAGPIPE_THREADS").then(|| "two".to_string())).unwrap_err();
        c.apply_env(|n| (n == "RAGPIPE_SEARCH_THRESHOLD").then(|| "0.5".to_string())).unwrap();
        assert_eq!(c.search.threshold, Some(0.5));
        assert!(toml::from_str::<Config>("[limits]\nextract_timeout = 5\n").is_err(), "misspelt limit");
        let mut c: Config = toml::from_str("[limits]\nextract_timeout_secs = 5\nmax_pages = 10\n").unwrap();
        assert_eq!((c.limits.extract_timeout_secs, c.limits.max_pages, c.limits.extract_memory_mib), (5, 10, 768));
        c.apply_env(|n| (n == "RAGPIPE_EXTRACT_MEMORY_MIB").then(|| "512".to_string())).unwrap();
        assert_eq!(c.limits.extract_memory_mib, 512);
        c.limits.extract_memory_mib = 16;
        assert!(c.validate().is_err());
    }

    #[test]
    fn exclusions_from_the_file_and_the_environment() {
        let mut c: Config = toml::from_str(
            "[source]
exclude = [\"node_modules\", \"*.lock\"]
",
        )
        .unwrap();
        assert_eq!(c.source.exclude, ["node_modules", "*.lock"]);
        c.apply_env(|n| (n == "RAGPIPE_SOURCE_EXCLUDE").then(|| " drafts/** ,, ~$* ".to_string())).unwrap();
        assert_eq!(c.source.exclude, ["drafts/**", "~$*"]);
        assert!(
            toml::from_str::<Config>(
                "[source]
exclude = \"one\"\n"
            )
            .is_err(),
            "a list"
        );
    }
}
