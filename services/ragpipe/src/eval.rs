//! `ragpipe eval`: scores the index against a golden set, and compares runs.

use crate::cli::EvalArgs;
use crate::wiring;
use anyhow::{Context, bail};
use ragpipe_config::Config;
use ragpipe_core::{Abstention, DocStatus};
use ragpipe_embed::Embedder;
use ragpipe_eval::golden::{GoldenQuery, OodQuery, parse_lines};
use ragpipe_eval::report::{IndexFacts, KS, Metrics, OodResult, QueryResult, Report, SweepRow, outcome};
use ragpipe_state::StateStore;
use ragpipe_vectors::retrieval::{self, Mode, SearchOptions};
use ragpipe_vectors::{Bm25, ChunkPayload, VectorStore};
use std::process::ExitCode;

/// Hits examined per query (the largest k reported).
const DEPTH: usize = 20;

pub async fn run(config: Config, args: EvalArgs) -> anyhow::Result<ExitCode> {
    if let [a, b] = args.compare.as_slice() {
        return compare(a, b);
    }
    let golden_path = args.golden.as_ref().context("--golden FILE is required (or --compare A B)")?;
    let in_split = |split: &Option<String>| args.split.is_none() || split.is_none() || *split == args.split;
    let mut golden: Vec<GoldenQuery> = parse_lines(&std::fs::read_to_string(golden_path)?)?;
    golden.retain(|g| in_split(&g.split));
    let mut ood: Vec<OodQuery> = match &args.ood {
        Some(p) => parse_lines(&std::fs::read_to_string(p)?)?,
        None => Vec::new(),
    };
    ood.retain(|o| in_split(&o.split));
    if golden.is_empty() {
        bail!("no golden query in {} is in split {:?}", golden_path.display(), args.split.as_deref().unwrap_or(""));
    }
    let state = wiring::open_state(&config).await?;
    let (index, vectors) = wiring::open_live(&config, state.as_ref()).await?;
    let embedder = wiring::load_embedder_for(&config, state.as_ref(), &index).await?;
    let chunks = vectors.chunks(None).await?;
    if chunks.is_empty() {
        bail!("the index in {} is empty: run `ragpipe ingest` first", config.data_dir.display());
    }
    let mode = if args.dense_only || config.search.mode == "dense" { Mode::Dense } else { Mode::Hybrid };
    let opts = SearchOptions {
        top_k: DEPTH,
        mode,
        fusion: crate::search::fusion(&config).resolve(embedder.dense_weight()),
        abstention: None,
    };
    let texts: Vec<&str> =
        golden.iter().map(|g| g.query.as_str()).chain(ood.iter().map(|o| o.query.as_str())).collect();
    let e = embedder.clone();
    let owned: Vec<String> = texts.iter().map(|t| t.to_string()).collect();
    let vecs =
        tokio::task::spawn_blocking(move || e.embed_queries(&owned.iter().map(String::as_str).collect::<Vec<_>>()))
            .await??
            .vectors;
    let bm25 = Bm25::for_pipeline(&index.pipeline_version).map_err(|e| anyhow::anyhow!("index {}: {e}", index.name))?;
    let store: &dyn VectorStore = vectors.as_ref();
    // A model that abstains by windows is measured as its searches are.
    let windowed: std::sync::Arc<dyn Embedder> = embedder.clone();
    // The sweep calibrates the model's rule: the nearest distance less its
    // margin weight times the margin (`--margin-weight` tries another).
    let weight = args.margin_weight.unwrap_or_else(|| embedder.margin_weight());

    let mut results = Vec::with_capacity(golden.len());
    for (g, v) in golden.iter().zip(&vecs) {
        let answer = searched(store, &bm25, &windowed, &g.query, v, &opts).await?;
        let rank = answer.hits.iter().find(|h| g.answered_by(&h.payload.content, &h.payload.locator)).map(|h| h.rank);
        results.push(QueryResult {
            id: g.id.clone(),
            qid: g.qid.clone(),
            style: g.style.clone(),
            kind: g.kind.clone(),
            rank,
            nearest_distance: answer.evidence_distance().unwrap_or(2.0),
            lexical_overlap: lexical_overlap(&bm25, &g.query, &answer),
            margin: answer.margin(),
            destroyed: !chunks.iter().any(|c| g.answered_by(&c.content, &c.locator)),
            top: answer
                .hits
                .iter()
                .map(|h| {
                    let p = &h.payload;
                    (format!("{}{}", p.document, p.locator), g.answered_by(&p.content, &p.locator))
                })
                .collect(),
        });
    }
    let mut ood_results = Vec::with_capacity(ood.len());
    for (o, v) in ood.iter().zip(&vecs[golden.len()..]) {
        let answer = searched(store, &bm25, &windowed, &o.query, v, &opts).await?;
        ood_results.push(OodResult {
            id: o.id.clone(),
            nearest_distance: answer.evidence_distance().unwrap_or(2.0),
            lexical_overlap: lexical_overlap(&bm25, &o.query, &answer),
            margin: answer.margin(),
        });
    }
    let facts = index_facts(state.as_ref(), &chunks, embedder.window()).await?;
    let run = serde_json::json!({
        "label": args.label, "model": embedder.model(), "mode": format!("{mode:?}").to_lowercase(), "fusion": opts.fusion.to_string(), "margin_weight": weight,
        "chunk_budget": config.chunking.for_model(embedder.tokenizer().as_ref()).budget, "contextual_header": config.chunking.contextual_header,
        "pack_sections_below": config.chunking.pack_sections_below,
        "golden": golden_path, "ood": args.ood,
        "threshold": embedder.threshold(), "abstain_window_words": embedder.abstain_window_words(),
    });
    let report = Report::build(run, results, ood_results, facts, weight);
    if let Some(out) = &args.out {
        std::fs::write(out, serde_json::to_string_pretty(&report)?)?;
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_report(&report);
    }
    Ok(gate(&report, &args))
}

/// One question searched as `ragpipe search` searches it: read again with
/// its nearest chunks' accents when they change it, and its windows
/// measured (every question's, to calibrate).
async fn searched(
    store: &dyn VectorStore,
    bm25: &Bm25,
    embedder: &std::sync::Arc<dyn Embedder>,
    query: &str,
    vector: &[f32],
    opts: &SearchOptions,
) -> anyhow::Result<retrieval::Answer> {
    let mut answer = retrieval::search(store, bm25, vector, query, opts).await?;
    let mut vector = vector.to_vec();
    if let Some(again) = answer.with_accents.take() {
        let e = embedder.clone();
        let text = again.clone();
        let embedded = tokio::task::spawn_blocking(move || e.embed_queries(&[text.as_str()])).await??;
        vector = embedded.vectors.into_iter().next().context("the model embedded no vector")?;
        answer = retrieval::search(store, bm25, &vector, &again, opts).await?;
    }
    ragpipe_search::windows::measure(embedder, &mut answer, &vector, None).await?;
    Ok(answer)
}

/// The share of the query's BM25 terms that its first hit's text holds.
fn lexical_overlap(bm25: &Bm25, query: &str, answer: &retrieval::Answer) -> f32 {
    let terms = bm25.query(query).indices;
    let Some(first) = answer.hits.first() else { return 0.0 };
    let held = bm25.document(&first.payload.text).indices;
    let shared = terms.iter().filter(|t| held.binary_search(t).is_ok()).count();
    shared as f32 / terms.len().max(1) as f32
}

async fn index_facts(state: &dyn StateStore, chunks: &[ChunkPayload], window: usize) -> anyhow::Result<IndexFacts> {
    let indexed = state.counts().await?.get(DocStatus::Indexed);
    Ok(IndexFacts {
        chunks: chunks.len(),
        chunks_over_window: chunks.iter().filter(|c| c.tokens as usize > window).count(),
        tokens_embedded: indexed.tokens,
        header_tokens: indexed.header_tokens,
    })
}

/// Fails the run on a regression below the floors, on any chunk over the
/// window, or on any answer destroyed by chunking.
fn gate(r: &Report, args: &EvalArgs) -> ExitCode {
    let mut failures = Vec::new();
    if r.index.chunks_over_window > 0 {
        failures.push(format!("{} chunks over the model window", r.index.chunks_over_window));
    }
    if args.gate && !r.destroyed.is_empty() {
        failures.push(format!("answers destroyed by chunking: {}", r.destroyed.join(", ")));
    }
    if let Some(floor) = args.min_recall_at_8 {
        let got = r.overall.recall[&8].value;
        if got < floor {
            failures.push(format!("recall@8 {got:.3} below the floor {floor:.3}"));
        }
    }
    if let Some(floor) = args.min_mrr
        && r.overall.mrr.value < floor
    {
        failures.push(format!("MRR {:.3} below the floor {floor:.3}", r.overall.mrr.value));
    }
    if args.max_refused.is_some() || args.max_bluffs.is_some() {
        match at_threshold(r) {
            Some(at) => {
                let (refused, bluffs) = shares(r, &at);
                if args.max_refused.is_some_and(|most| refused > most) {
                    failures.push(format!("abstention refuses {:.1} % of the answerable queries", refused * 100.0));
                }
                if args.max_bluffs.is_some_and(|most| bluffs > most) {
                    failures.push(format!("abstention answers {:.1} % of the out-of-domain queries", bluffs * 100.0));
                }
            }
            None => failures.push("abstention gated without out-of-domain queries or a model threshold".into()),
        }
    }
    for f in &failures {
        eprintln!("eval gate: {f}");
    }
    if failures.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(1) }
}

/// The run's own rule (the model's threshold and margin weight, as the run
/// recorded them) applied to its queries; `None` without out-of-domain
/// queries or a threshold.
fn at_threshold(r: &Report) -> Option<SweepRow> {
    let threshold = r.run["threshold"].as_f64()? as f32;
    let margin_weight = r.run["margin_weight"].as_f64().unwrap_or(0.0) as f32;
    (!r.ood.is_empty()).then(|| outcome(&r.queries, &r.ood, Abstention { threshold, margin_weight }))
}

/// Refused share of the answerable queries, answered share of the
/// out-of-domain ones.
fn shares(r: &Report, at: &SweepRow) -> (f64, f64) {
    (at.refused as f64 / r.queries.len().max(1) as f64, at.bluffs as f64 / r.ood.len().max(1) as f64)
}

fn row(name: &str, m: &Metrics) {
    let cells: Vec<String> = KS
        .iter()
        .map(|k| {
            let e = m.recall[k];
            format!("{:.2} [{:.2},{:.2}]", e.value, e.low, e.high)
        })
        .collect();
    println!(
        "{name:<18} {:>4}  {}  {:.3} [{:.2},{:.2}]",
        m.queries,
        cells.join("  "),
        m.mrr.value,
        m.mrr.low,
        m.mrr.high
    );
}

fn print_report(r: &Report) {
    println!(
        "index: {} chunks, {} over the window; {} tokens embedded, {:.1}% on headers",
        r.index.chunks,
        r.index.chunks_over_window,
        r.index.tokens_embedded,
        r.header_share * 100.0
    );
    println!("{:<18} {:>4}  {:<17} {:<17} {:<17} {:<17} MRR", "", "n", "recall@1", "recall@4", "recall@8", "recall@20");
    row("overall", &r.overall);
    for (k, m) in &r.by_kind {
        row(&format!("kind={k}"), m);
    }
    for (k, m) in &r.by_style {
        row(&format!("style={k}"), m);
    }
    println!(
        "destroyed answers (no single chunk holds the needles): {}",
        if r.destroyed.is_empty() { "none".into() } else { r.destroyed.join(", ") }
    );
    if !r.ood.is_empty() {
        let weight = r.run["margin_weight"].as_f64().unwrap_or(0.0);
        let nearest = match r.run["abstain_window_words"].as_u64() {
            Some(words) => format!("nearest {words}-word window of the nearest chunks"),
            None => "nearest chunk".to_string(),
        };
        let evidence = if weight > 0.0 {
            format!("{nearest}'s cosine distance - {weight:.2} x margin to the next document")
        } else {
            format!("cosine distance of the {nearest}")
        };
        println!("threshold sweep ({evidence}): threshold  refused/{}  bluffs/{}", r.queries.len(), r.ood.len());
        // About 20 rows of the 0.01 grid (all of it is in --out), and the
        // suggested one.
        let every = r.sweep.len().div_ceil(20).max(1);
        for (i, s) in r.sweep.iter().enumerate() {
            if i % every == 0 || Some(s.threshold) == r.suggested_threshold {
                println!("  {:.2}  {:>4}  {:>4}", s.threshold, s.refused, s.bluffs);
            }
        }
        if let Some(t) = r.suggested_threshold {
            println!(
                "suggested threshold: {t:.2} (minimises refused in-domain share + bluffed out-of-domain share, equal cost)"
            );
        }
        if let Some(at) = at_threshold(r) {
            let (refused, bluffs) = shares(r, &at);
            println!(
                "at the model's threshold {:.3}: {} of {} answerable refused ({:.1} %), {} of {} out-of-domain answered ({:.1} %)",
                at.threshold,
                at.refused,
                r.queries.len(),
                refused * 100.0,
                at.bluffs,
                r.ood.len(),
                bluffs * 100.0
            );
        }
    }
}

fn compare(a: &std::path::Path, b: &std::path::Path) -> anyhow::Result<ExitCode> {
    let load = |p: &std::path::Path| -> anyhow::Result<Report> {
        Ok(serde_json::from_str(&std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()))?)?)
    };
    let (ra, rb) = (load(a)?, load(b)?);
    let c = ragpipe_eval::compare(&ra, &rb);
    println!("A = {}  B = {}  ({} paired queries)", a.display(), b.display(), c.paired);
    println!("{:>4} {:>9} {:>9} {:>6} {:>7} {:>9}", "k", "recall A", "recall B", "B won", "B lost", "sign p");
    for r in &c.rows {
        println!(
            "{:>4} {:>9.3} {:>9.3} {:>+6} {:>7} {:>9.4}",
            r.k,
            r.recall_a,
            r.recall_b,
            r.wins,
            -(r.losses as i64),
            r.p
        );
    }
    Ok(ExitCode::SUCCESS)
}
