//! The three Whisper graphs on ONNX Runtime and one window's greedy decode.
//!
//! `encoder.onnx` turns a 30 s log-mel window into audio features,
//! `cross_kv.onnx` projects them once into every decoder layer's
//! cross-attention keys and values, and `decoder.onnx` runs one step at a
//! time over a KV cache of the tokens so far (see `scripts/build_whisper.py`
//! for the interfaces). Splitting out the cross projection means a step
//! costs only the new token's work, not the 1500 audio positions again.

use crate::rules::{self, argmax, log_softmax};
use crate::spec::AsrSpec;
use crate::{AsrError, Variant};
use ort::environment::Environment;
use ort::session::builder::GraphOptimizationLevel;
use ort::session::{Session, SessionInputValue};
use ort::value::TensorRef;
use std::path::Path;
use tokenizers::Tokenizer;

/// A loaded Whisper model.
pub struct Whisper {
    pub(crate) spec: AsrSpec,
    encoder: Session,
    cross_kv: Session,
    decoder: Session,
    tokenizer: Tokenizer,
}

/// One window's greedy result.
pub(crate) struct Decoded {
    /// Sampled tokens, the end of text excluded.
    pub tokens: Vec<u32>,
    /// Probability of the no-speech token at the first position.
    pub no_speech: f32,
    /// Sum of the sampled tokens' log-probabilities over their count + 1.
    pub avg_logprob: f32,
}

/// The cross-attention keys and values of one window: `(name, shape,
/// values)` per decoder input (`cross_k_0`, `cross_v_0`, `cross_k_1`, …).
/// One tensor per layer, not one stacked tensor, so a decoder step reads
/// them where they are instead of copying all of them to slice its layer.
pub(crate) struct Cross {
    tensors: Vec<(String, Vec<i64>, Vec<f32>)>,
}

fn inference(e: impl std::fmt::Display) -> AsrError {
    AsrError::Inference(e.to_string())
}

impl Whisper {
    /// Loads the graphs of `dir` (the `variant`'s files) with `threads`
    /// intra-op threads on the process's ONNX Runtime environment.
    pub fn load(dir: &Path, env: &Environment, threads: usize, variant: Variant) -> Result<Self, AsrError> {
        let spec = AsrSpec::read(dir)?;
        let graph = |file: &str| {
            let path = dir.join(variant.file_name(file));
            if !path.is_file() {
                return Err(AsrError::Model(format!("{} is missing: run scripts/provision-model.sh", path.display())));
            }
            // Spinning threads: a decoder step is a few milliseconds of
            // memory-bound work, and threads that spin between steps take the
            // cores from the threads doing it (2 threads spinning: 22 ms a
            // step; not spinning: 10.7 ms; docs/BENCHMARKS.md).
            Session::builder(env)
                .map_err(inference)?
                .with_optimization_level(GraphOptimizationLevel::Level3)
                .map_err(inference)?
                .with_intra_threads(threads.max(1))
                .map_err(inference)?
                .with_intra_op_spinning(false)
                .map_err(inference)?
                .commit_from_file(&path)
                .map_err(|e| AsrError::Model(format!("{}: {e}", path.display())))
        };
        let (encoder, cross_kv, decoder) =
            (graph(&spec.files.encoder)?, graph(&spec.files.cross_kv)?, graph(&spec.files.decoder)?);
        let tok_path = dir.join(&spec.files.tokenizer);
        let tokenizer =
            Tokenizer::from_file(&tok_path).map_err(|e| AsrError::Model(format!("{}: {e}", tok_path.display())))?;
        Ok(Whisper { spec, encoder, cross_kv, decoder, tokenizer })
    }

    pub fn spec(&self) -> &AsrSpec {
        &self.spec
    }

    /// Runs the encoder and the cross projection on one window of
    /// `n_mels × n_frames` log-mel values.
    pub(crate) fn encode(&mut self, mel: &[f32]) -> Result<Cross, AsrError> {
        let a = &self.spec.audio;
        let shape = [1usize, a.n_mels, a.n_frames];
        let out = self
            .encoder
            .run(ort::inputs!["mel" => TensorRef::from_array_view((shape, mel)).map_err(inference)?])
            .map_err(inference)?;
        let (fshape, features) = out["audio_features"].try_extract_tensor::<f32>().map_err(inference)?;
        let fshape: Vec<usize> = fshape.iter().map(|&d| d as usize).collect();
        let features = TensorRef::from_array_view((fshape, features)).map_err(inference)?;
        let kv = self.cross_kv.run(ort::inputs!["audio_features" => features]).map_err(inference)?;
        let mut tensors = Vec::with_capacity(kv.len());
        for (name, value) in kv.iter() {
            let (s, d) = value.try_extract_tensor::<f32>().map_err(inference)?;
            tensors.push((name.to_string(), s.to_vec(), d.to_vec()));
        }
        Ok(Cross { tensors })
    }

    /// One decoder call: `tokens` at position `offset`, over the cache `past`
    /// (`None` = empty). Returns the logits of every given position and the
    /// grown cache.
    fn step(
        &mut self,
        tokens: &[u32],
        offset: usize,
        cross: &Cross,
        past: Option<&Cache>,
    ) -> Result<(Vec<Vec<f32>>, Cache), AsrError> {
        let m = &self.spec.model;
        // An empty cache is passed as one dummy row, which offset 0 hides.
        let dummy;
        let past = match past {
            Some(p) => p,
            None => {
                let shape = vec![m.decoder_layers as i64, 1, m.decoder_heads as i64, 1, m.head_dim as i64];
                let n = m.decoder_layers * m.decoder_heads * m.head_dim;
                dummy = Cache { k: (shape.clone(), vec![0.0; n]), v: (shape, vec![0.0; n]) };
                &dummy
            }
        };
        let ids: Vec<i64> = tokens.iter().map(|&t| i64::from(t)).collect();
        fn view<'a>(s: &[i64], d: &'a [f32]) -> Result<SessionInputValue<'a>, AsrError> {
            let shape: Vec<usize> = s.iter().map(|&x| x as usize).collect();
            Ok(TensorRef::from_array_view((shape, d)).map_err(inference)?.into())
        }
        let offset = [offset as i64];
        let mut inputs: Vec<(&str, SessionInputValue<'_>)> = Vec::with_capacity(cross.tensors.len() + 4);
        let tokens = TensorRef::from_array_view(([1usize, ids.len()], ids.as_slice())).map_err(inference)?;
        let offset = TensorRef::from_array_view(([1usize], &offset[..])).map_err(inference)?;
        inputs.push(("tokens", tokens.into()));
        inputs.push(("offset", offset.into()));
        for (name, s, d) in &cross.tensors {
            inputs.push((name.as_str(), view(s, d)?));
        }
        inputs.push(("past_k", view(&past.k.0, &past.k.1)?));
        inputs.push(("past_v", view(&past.v.0, &past.v.1)?));
        let out = self.decoder.run(inputs).map_err(inference)?;
        let (_, logits) = out["logits"].try_extract_tensor::<f32>().map_err(inference)?;
        let rows = logits.chunks(m.n_vocab).map(<[f32]>::to_vec).collect();
        let owned = |name: &str| -> Result<(Vec<i64>, Vec<f32>), AsrError> {
            let (s, d) = out[name].try_extract_tensor::<f32>().map_err(inference)?;
            Ok((s.to_vec(), d.to_vec()))
        };
        Ok((rows, Cache { k: owned("present_k")?, v: owned("present_v")? }))
    }

    /// The most likely language of a window (multilingual models only).
    pub(crate) fn detect_language(&mut self, cross: &Cross) -> Result<String, AsrError> {
        let (logits, _) = self.step(&[self.spec.tokens.sot], 0, cross, None)?;
        let row = &logits[0];
        let best = self
            .spec
            .languages
            .iter()
            .max_by(|a, b| row[*a.1 as usize].total_cmp(&row[*b.1 as usize]))
            .map(|(code, _)| code.clone());
        best.ok_or_else(|| AsrError::Config("this model knows no languages: set [asr] language".into()))
    }

    /// Greedy decoding of one window after `prompt`, with the timestamp rules.
    pub(crate) fn decode(&mut self, cross: &Cross, prompt: &[u32]) -> Result<Decoded, AsrError> {
        let (mut logits, mut cache) = self.step(prompt, 0, cross, None)?;
        // Whisper reads the no-speech probability at the start-of-transcript position.
        let no_speech = match (self.spec.tokens.no_speech, logits.first()) {
            (Some(ns), Some(first)) => log_softmax(first)[ns as usize].exp(),
            _ => 0.0,
        };
        let mut last = logits.pop().unwrap_or_default();
        let ctx = self.spec.model.n_text_ctx;
        let max_len = (ctx / 2).min(ctx - prompt.len());
        let (mut sampled, mut sum_logp) = (Vec::new(), 0.0f32);
        while sampled.len() < max_len {
            rules::apply(&self.spec, &mut last, &sampled);
            let tok = argmax(&last) as u32;
            sum_logp += log_softmax(&last)[tok as usize];
            sampled.push(tok);
            if tok == self.spec.tokens.eot || prompt.len() + sampled.len() >= ctx {
                break;
            }
            let (mut next, grown) = self.step(&[tok], prompt.len() + sampled.len() - 1, cross, Some(&cache))?;
            cache = grown;
            last = next.pop().unwrap_or_default();
        }
        if sampled.last() == Some(&self.spec.tokens.eot) {
            sampled.pop();
        }
        let avg_logprob = sum_logp / (sampled.len() + 1) as f32;
        Ok(Decoded { tokens: sampled, no_speech, avg_logprob })
    }

    /// The text of `tokens`, special and timestamp tokens dropped.
    pub(crate) fn text(&self, tokens: &[u32]) -> Result<String, AsrError> {
        let eot = self.spec.tokens.eot;
        let plain: Vec<u32> = tokens.iter().copied().filter(|&t| t < eot).collect();
        let text = self.tokenizer.decode(&plain, true).map_err(inference)?;
        Ok(text.trim().to_string())
    }
}

/// The decoder's self-attention keys and values so far.
struct Cache {
    k: (Vec<i64>, Vec<f32>),
    v: (Vec<i64>, Vec<f32>),
}
