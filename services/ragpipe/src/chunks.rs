//! `ragpipe chunks <document>`: every stored chunk of one document.

use crate::cli::ChunksArgs;
use crate::wiring;
use anyhow::bail;
use ragpipe_config::Config;
use ragpipe_core::DocumentId;
use ragpipe_state::StateStore;
use std::path::Path;
use std::process::ExitCode;

pub async fn run(config: Config, args: ChunksArgs) -> anyhow::Result<ExitCode> {
    let state = wiring::open_state(&config).await?;
    let id = resolve(state.as_ref(), &args.document).await?;
    let (_, vectors) = wiring::open_live(&config, state.as_ref()).await?;
    let chunks = vectors.chunks(Some(&id)).await?;
    if args.json {
        let list: Vec<_> = chunks
            .iter()
            .map(|c| {
                serde_json::json!({
                    "index": c.chunk_index, "locator": c.locator, "section": c.section,
                    "tokens": c.tokens, "language": c.language, "text": c.text, "content": c.content,
                })
            })
            .collect();
        println!("{}", serde_json::to_string_pretty(&list)?);
        return Ok(ExitCode::SUCCESS);
    }
    for c in &chunks {
        let language = if c.language.is_empty() { String::new() } else { format!(", {}", c.language) };
        println!("── chunk {} {} ({} tokens{language}) ──", c.chunk_index, c.locator, c.tokens);
        println!("text:\n{}\n", c.text);
        println!("content:\n{}\n", c.content);
    }
    println!("{} chunks", chunks.len());
    Ok(ExitCode::SUCCESS)
}

/// Finds a document by id, URI or path.
pub(crate) async fn resolve(state: &dyn StateStore, arg: &str) -> anyhow::Result<DocumentId> {
    let direct = DocumentId::from_raw(arg);
    if state.get(&direct).await?.is_some() {
        return Ok(direct);
    }
    let mut uris = vec![arg.to_string()];
    if let Ok(path) = Path::new(arg).canonicalize() {
        uris.push(format!("file://{}", path.display()));
    }
    for uri in uris {
        let id = DocumentId::from_uri(&uri);
        if state.get(&id).await?.is_some() {
            return Ok(id);
        }
    }
    bail!("no document {arg:?} in the index (give a path, URI or id as `ragpipe status` lists them)")
}
