//! `ragpipe search`: hybrid retrieval with cited hits.

use crate::cli::SearchArgs;
use crate::wiring;
use ragpipe_config::Config;
use ragpipe_embed::{Embedder, OnnxEmbedder};
use ragpipe_vectors::retrieval::{self, Mode, SearchOptions};
use ragpipe_vectors::{Bm25, VectorStore};
use serde::Serialize;
use std::process::ExitCode;
use std::sync::Arc;

#[derive(Debug, Serialize)]
struct Output {
    /// The index searched (the live one).
    index: IndexOut,
    query: String,
    abstained: bool,
    threshold: Option<f32>,
    hits: Vec<HitOut>,
}

#[derive(Debug, Serialize)]
struct HitOut {
    rank: usize,
    document: String,
    title: String,
    section: String,
    kind: String,
    locator: String,
    content: String,
    distance: f32,
    score: f32,
    /// The pipeline version the chunk was written by.
    pipeline_version: String,
}

#[derive(Debug, Serialize)]
struct IndexOut {
    name: String,
    model: String,
    pipeline_version: String,
}

pub async fn run(config: Config, args: SearchArgs) -> anyhow::Result<ExitCode> {
    // The live index decides the model: a query must be embedded by the
    // model its index is sealed to. The collection is opened only once the
    // query is embedded, so a search holds it for the query alone (an
    // embedded collection has one owner at a time).
    let state = wiring::open_state(&config).await?;
    let live = ragpipe_state::live_index(state.as_ref(), &wiring::first_index(&config)).await?;
    let mut embedder = wiring::load_embedder_for(&config, &live)?;
    let mut vector = embed_query(&embedder, &args.query).await?;
    let (index, vectors) = wiring::open_live(&config, state.as_ref()).await?;
    if index.model != live.model {
        // A reindex to another model swapped in between.
        embedder = wiring::load_embedder_for(&config, &index)?;
        vector = embed_query(&embedder, &args.query).await?;
    }
    let threshold = (!args.no_threshold).then_some(config.search.threshold);
    let dense_only = args.dense_only || config.search.mode == "dense";
    let opts = SearchOptions {
        top_k: args.top_k.unwrap_or(config.search.top_k),
        mode: if dense_only { Mode::Dense } else { Mode::Hybrid },
        rrf_k: config.search.rrf_k,
        threshold,
    };
    let answer =
        retrieval::search(vectors.as_ref() as &dyn VectorStore, &Bm25::english(), &vector, &args.query, &opts).await?;
    let out = Output {
        index: IndexOut { name: index.name, model: index.model, pipeline_version: index.pipeline_version },
        query: args.query,
        abstained: answer.abstained,
        threshold,
        hits: answer
            .hits
            .into_iter()
            .map(|h| HitOut {
                rank: h.rank,
                document: h.payload.document,
                title: h.payload.title,
                section: h.payload.section,
                kind: h.payload.kind,
                locator: h.payload.locator,
                content: h.payload.content,
                distance: h.distance,
                score: h.score,
                pipeline_version: h.payload.pipeline_version,
            })
            .collect(),
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        print_text(&out);
    }
    Ok(ExitCode::SUCCESS)
}

async fn embed_query(embedder: &Arc<OnnxEmbedder>, query: &str) -> anyhow::Result<Vec<f32>> {
    let (e, q) = (embedder.clone(), query.to_string());
    Ok(tokio::task::spawn_blocking(move || e.embed(&[q.as_str()])).await??.vectors.remove(0))
}

fn print_text(out: &Output) {
    if out.abstained {
        println!(
            "no answer: nothing in the index is close enough to {:?} (cosine distance threshold {:.2}; --no-threshold lists hits anyway)",
            out.query,
            out.threshold.unwrap_or_default()
        );
        return;
    }
    if out.hits.is_empty() {
        println!("no hits: the index is empty (run `ragpipe ingest <folder>` first)");
        return;
    }
    for h in &out.hits {
        let place = if h.section.is_empty() { h.title.clone() } else { format!("{} > {}", h.title, h.section) };
        println!("{}. {place}", h.rank);
        println!("   {}{}   (distance {:.3}, score {:.4})", h.document, h.locator, h.distance, h.score);
        println!("   \"{}\"", excerpt(&h.content, 320));
        println!();
    }
}

/// The first `max` characters of a chunk, on one line.
fn excerpt(content: &str, max: usize) -> String {
    let flat = content.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &flat[..i]),
        None => flat,
    }
}
