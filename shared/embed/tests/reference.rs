//! The embedder must reproduce sentence-transformers' all-MiniLM-L6-v2
//! (mean pooling, L2-normalised, max_seq_length 256) to 1e-5 per component.
//! The reference vectors were made by the reference implementation; the
//! model comes from `scripts/provision-model.sh` (run by `.ci/run`).

use ragpipe_embed::{Embedder, ModelFiles, ModelVariant, OnnxEmbedder, RunOptions};

mod common;
use common::{Reference, cosine, max_abs_diff};

fn reference() -> Reference {
    Reference::parse(include_str!("fixtures/all-minilm-l6-v2.json"))
}

fn embedder(variant: ModelVariant, batch: usize) -> OnnxEmbedder {
    let files = ModelFiles::provisioned(variant).expect("model provisioned (run scripts/provision-model.sh)");
    OnnxEmbedder::load(&files, 0, batch).expect("model loads")
}

#[test]
fn fp32_matches_sentence_transformers_within_1e_5() {
    let reference = reference();
    // Batched (padded to the longest) and one-by-one must both match.
    for batch in [1, 32] {
        reference.assert_reproduced_by(&embedder(ModelVariant::Fp32, batch), batch);
    }
}

#[test]
fn tokenizer_matches_reference_ids_and_window() {
    let model = embedder(ModelVariant::Fp32, 8);
    for item in reference().items {
        let enc = model.tokenizer().encode(&item.text).unwrap();
        assert_eq!(&enc.ids[..item.input_ids_first_16.len().min(enc.ids.len())], &item.input_ids_first_16[..]);
        assert_eq!(enc.full_len, item.wordpieces_with_special);
        assert_eq!(enc.ids.len(), item.wordpieces_with_special.min(256));
        assert_eq!(*enc.ids.last().unwrap(), 102, "always ends with [SEP]");
    }
}

#[test]
fn int8_stays_close_to_fp32() {
    let reference = reference();
    let texts = reference.texts();
    let model = embedder(ModelVariant::Int8, 16);
    assert_eq!(model.model(), "all-MiniLM-L6-v2-int8", "int8 vectors are sealed under their own name");
    let out = model.embed(&texts).unwrap();
    for (v, item) in out.vectors.iter().zip(&reference.items) {
        let cosine = cosine(v, &item.embedding);
        assert!(cosine > 0.97, "int8 cosine {cosine} for {:?}", item.text);
        let norm: f32 = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-4);
    }
}

#[test]
fn sessions_side_by_side_give_the_same_vectors_in_input_order() {
    let reference = reference();
    let texts = reference.texts();
    let files = ModelFiles::provisioned(ModelVariant::Fp32).expect("model provisioned");
    for (sessions, batch_size) in [(2, 1), (3, 2)] {
        let options = RunOptions { threads: sessions, sessions, batch_size, spinning: false };
        let model = OnnxEmbedder::load_with(&files, options).expect("model loads");
        assert_eq!(model.sessions(), sessions);
        // Concurrent callers share the sessions; each gets its own texts back.
        let (a, b) = std::thread::scope(|s| {
            let first = s.spawn(|| model.embed(&texts).unwrap());
            let reversed: Vec<&str> = texts.iter().rev().copied().collect();
            (first.join().unwrap(), model.embed(&reversed).unwrap())
        });
        for (i, item) in reference.items.iter().enumerate() {
            let diff = max_abs_diff(&a.vectors[i], &item.embedding);
            assert!(diff < 1e-5, "item {i} ({sessions} sessions, batch {batch_size}) differs by {diff}");
            let back = &b.vectors[texts.len() - 1 - i];
            assert!(max_abs_diff(back, &item.embedding) < 1e-5, "item {i} of the reversed call");
            assert_eq!(a.tokens[i], item.wordpieces_with_special);
        }
        assert!(model.busy_time() > std::time::Duration::ZERO, "embedding time is counted");
    }
}
