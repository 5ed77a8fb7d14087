//! The opt-in all-mpnet-base-v2 (an MPNet graph: positions counted from the
//! padding index, one relative-position bias shared by all layers) must
//! reproduce sentence-transformers (mean pooling, L2-normalised,
//! max_seq_length 384) to 1e-5 per component, batched or not, through the
//! same embedder as every other model. The reference vectors were made by
//! sentence-transformers itself (`scripts/st_reference.py`); the model comes
//! from `scripts/provision-mpnet.sh` (run by `scripts/test.sh`).

use ragpipe_embed::{Embedder, MPNET, ModelFiles, ModelVariant, OnnxEmbedder};

mod common;
use common::{Reference, cosine};

fn reference() -> Reference {
    Reference::parse(include_str!("fixtures/all-mpnet-base-v2.json"))
}

fn embedder(variant: ModelVariant, batch: usize) -> OnnxEmbedder {
    let files = ModelFiles::locate(MPNET, None, None, variant).expect("run scripts/provision-mpnet.sh");
    OnnxEmbedder::load(&files, 0, batch).expect("model loads")
}

#[test]
fn mpnet_matches_sentence_transformers_within_1e_5() {
    let reference = reference();
    for batch in [1, 16] {
        let model = embedder(ModelVariant::Fp32, batch);
        assert_eq!(model.model(), MPNET);
        reference.assert_reproduced_by(&model, batch);
    }
}

#[test]
fn mpnet_tokenizer_keeps_its_own_specials_and_window() {
    let model = embedder(ModelVariant::Fp32, 8);
    for item in reference().items {
        let enc = model.tokenizer().encode(&item.text).unwrap();
        assert_eq!(&enc.ids[..item.input_ids_first_16.len().min(enc.ids.len())], &item.input_ids_first_16[..]);
        assert_eq!(enc.ids.len(), item.wordpieces_with_special.min(384));
        assert_eq!((enc.ids[0], *enc.ids.last().unwrap()), (0, 2), "<s> ... </s>, even when cut");
    }
}

#[test]
fn mpnet_int8_stays_close_and_is_sealed_apart() {
    let reference = reference();
    let texts = reference.texts();
    let model = embedder(ModelVariant::Int8, 16);
    assert_eq!(model.model(), "all-mpnet-base-v2-int8");
    // One text a call, as ingest (model.batch_size = 1) and every search
    // embed: 0.978 at worst (scripts/check_model.py, 7-bit weights).
    for (text, item) in texts.iter().zip(&reference.items) {
        let one = model.embed(&[*text]).unwrap();
        let cosine = cosine(&one.vectors[0], &item.embedding);
        assert!(cosine > 0.975, "int8 cosine {cosine} for {:?}", item.text);
    }
    // One padded batch: dynamic int8 scales each activation over the whole
    // batch, so a short text among long ones sits lower (0.958 for
    // "ERR_CONN_REFUSED" with 7-bit weights on an AVX2 CPU).
    let out = model.embed(&texts).unwrap();
    for (v, item) in out.vectors.iter().zip(&reference.items) {
        let cosine = cosine(v, &item.embedding);
        assert!(cosine > 0.95, "int8 cosine {cosine} in a batch for {:?}", item.text);
    }
}
