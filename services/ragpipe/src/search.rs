//! `ragpipe search`: hybrid retrieval with cited hits.

use crate::cli::SearchArgs;
use crate::wiring;
use ragpipe_config::Config;
use ragpipe_search::{Options, SearchRequest, SearchResponse, Threshold};
use ragpipe_vectors::SearchFilter;
use ragpipe_vectors::retrieval::{FusionSetting, Mode};
use ragpipe_worker::Stop;
use std::process::ExitCode;
use std::sync::Arc;

/// One question: the same searcher `ragpipe serve search` keeps running,
/// used once. The index's collection is held for this question only.
pub async fn run(config: Config, args: SearchArgs) -> anyhow::Result<ExitCode> {
    let mut options = options(&config, args.no_threshold, args.dense_only);
    options.max_top_k = usize::MAX;
    let searcher = wiring::searcher(&config, options).await?;
    let filter = SearchFilter { kinds: args.kind, documents: args.document };
    let out = searcher.search(&SearchRequest { query: args.query, top_k: args.top_k, filter }).await?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        print_text(&out);
    }
    Ok(ExitCode::SUCCESS)
}

/// `ragpipe serve search`: the search API until SIGTERM or Ctrl-C, the live
/// index and its model loaded once.
pub async fn serve(config: Config, listen: Option<String>) -> anyhow::Result<ExitCode> {
    let searcher = Arc::new(wiring::searcher(&config, options(&config, false, false)).await?);
    // Open the index and load the model before saying we listen.
    searcher.ready().await?;
    let addr = listen.unwrap_or_else(|| config.search.listen.clone());
    let token = config.search.token.as_deref();
    let listener = ragpipe_worker::auth::bind(&addr, token, "search.token (RAGPIPE_SEARCH_TOKEN)")
        .await
        .map_err(|e| anyhow::anyhow!("search.listen: {e}"))?;
    // The bound address (the port may have been 0), for scripts and tests.
    println!("search listening on http://{}", listener.local_addr()?);
    ragpipe_search::serve(searcher, token, listener, Stop::on_signals().stopped_owned()).await?;
    Ok(ExitCode::SUCCESS)
}

/// How searches rank, from `[search]`.
pub fn options(config: &Config, no_threshold: bool, dense_only: bool) -> Options {
    let dense_only = dense_only || config.search.mode == "dense";
    Options {
        top_k: config.search.top_k,
        mode: if dense_only { Mode::Dense } else { Mode::Hybrid },
        fusion: fusion(config),
        threshold: match (no_threshold, config.search.threshold) {
            (true, _) => Threshold::Off,
            (false, Some(t)) => Threshold::Fixed(t),
            (false, None) => Threshold::OfModel,
        },
        cache_entries: config.search.cache_entries,
        max_top_k: ragpipe_search::MAX_TOP_K,
    }
}

/// What `[search]` says of fusion (validated by the config); the index's
/// model decides the rest.
pub fn fusion(config: &Config) -> FusionSetting {
    FusionSetting {
        by_rank: config.search.fusion.as_deref().map(|f| f == "rrf"),
        dense_weight: config.search.dense_weight,
        rrf_k: config.search.rrf_k,
    }
}

fn print_text(out: &SearchResponse) {
    if let Some(read_as) = &out.read_as {
        println!("searched as: {read_as}");
    }
    if out.abstained {
        // The distance the rule read: the nearest window's, if measured.
        let (what, distance) = match out.nearest_window_distance {
            Some(d) => ("nearest window's distance", d),
            None => ("nearest distance", out.nearest_distance.unwrap_or_default()),
        };
        let threshold = out.threshold.unwrap_or_default();
        let evidence = match out.margin_weight {
            w if w > 0.0 => {
                format!("{what} {distance:.3} - {w:.2} x margin {:.3} over the threshold {threshold:.3}", out.margin)
            }
            _ => format!("{what} {distance:.3} over the threshold {threshold:.3}"),
        };
        println!(
            "no answer: nothing in the index is close enough to {:?} ({evidence}; --no-threshold lists hits anyway)",
            out.query
        );
        return;
    }
    if out.hits.is_empty() {
        println!("no hits: the index is empty (run `ragpipe ingest <folder>` first)");
        return;
    }
    for h in &out.hits {
        let place = place(&h.title, &h.section);
        println!("{}. {place}", h.rank);
        println!("   {}{}   (distance {:.3}, score {:.4})", h.document, h.locator, h.distance, h.score);
        println!("   \"{}\"", excerpt(&h.content, 320));
        println!();
    }
}

/// A hit's heading as its chunk's header reads: the title, then the section
/// path without the entries the title already says.
fn place(title: &str, section: &str) -> String {
    let path: Vec<String> = section.split(" > ").map(str::to_string).collect();
    ragpipe_chunking::header_for(title, &path)
}

/// The first `max` characters of a chunk, on one line.
fn excerpt(content: &str, max: usize) -> String {
    let flat = content.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &flat[..i]),
        None => flat,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_heading_is_not_said_twice() {
        let faq = "Rayon FAQ > How many threads will Rayon spawn?";
        assert_eq!(place("Rayon FAQ", faq), "Rayon FAQ > How many threads will Rayon spawn?");
        assert_eq!(place("Guide", "Install > Linux"), "Guide > Install > Linux");
        assert_eq!(place("notes.txt", ""), "notes.txt");
    }
}
