#!/usr/bin/env python3
"""Check the provisioned ONNX models against reference sentence embeddings.

The reference file holds embeddings computed by sentence-transformers
(PyTorch) for a handful of texts. We reproduce its pipeline with our graph:
tokenizer.json with truncation at the window and no padding, the fp32 encoder, mean
pooling over the attention mask, L2 normalisation. Passing means the graph
built by build_onnx.py is a faithful port, independent of the Rust code.

Checks, all of which must pass for exit status 0:
  * token count and first ids per text match the reference (tokenizer setup);
  * fp32 max |diff| per component < --tolerance, one text at a time;
  * the same texts run as one right-padded batch give the same embeddings
    (proves padded keys are masked out, which single texts never exercise);
  * int8 cosine similarity with the reference >= --min-int8-cosine.

Usage: check_model.py REFERENCE.json [--model-dir DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

DEFAULT_MODEL_DIR = Path(os.environ.get("RAGPIPE_CACHE", Path.home() / ".cache" / "ragpipe")) \
    / "models" / "all-MiniLM-L6-v2"


def load_tokenizer(model_dir: Path, max_len: int) -> Tokenizer:
    tok = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    # tokenizer.json ships with truncation at 128 and fixed padding to 128
    # baked in; sentence-transformers overrides both (max_seq_length 256, pad
    # to longest). Padding to 128 would not change a correct model's output,
    # but truncating at 128 would, so both are reset explicitly.
    tok.enable_truncation(max_length=max_len)
    tok.no_padding()
    return tok


def session(path: Path) -> ort.InferenceSession:
    opts = ort.SessionOptions()
    # One thread: the check is small, and it often runs beside a cargo build.
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])


def embed(sess: ort.InferenceSession, ids: np.ndarray, mask: np.ndarray, types: np.ndarray) -> np.ndarray:
    # BERT graphs take token types; MPNet's does not.
    feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
    (hidden,) = sess.run(["last_hidden_state"], {i.name: feed[i.name] for i in sess.get_inputs()})
    # Mean over real tokens only, then unit length: sentence-transformers'
    # Pooling(mean) + Normalize modules.
    m = mask[..., None].astype(np.float32)
    pooled = (hidden * m).sum(axis=1) / np.clip(m.sum(axis=1), 1e-9, None)
    return pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("reference", type=Path)
    ap.add_argument("--model-dir", type=Path,
                    default=Path(os.environ["RAGPIPE_MODEL_DIR"]) if os.environ.get("RAGPIPE_MODEL_DIR")
                    else DEFAULT_MODEL_DIR)
    ap.add_argument("--max-len", type=int, help="the window (default: the reference's, else 256)")
    ap.add_argument("--tolerance", type=float, default=1e-5)
    ap.add_argument("--min-int8-cosine", type=float, default=0.98)
    args = ap.parse_args()

    ref = json.loads(args.reference.read_text())
    items = ref["items"]
    args.max_len = args.max_len or ref.get("window", 256)
    tok = load_tokenizer(args.model_dir, args.max_len)
    fp32 = session(args.model_dir / "model.onnx")
    int8_path = args.model_dir / "model-int8.onnx"
    int8 = session(int8_path) if int8_path.exists() else None

    failures: list[str] = []
    encs = [tok.encode(it["text"]) for it in items]
    single = []
    diffs: list[float] = []
    cosines: list[float] = []
    print(f"{'#':>2} {'tokens':>11} {'fp32 max|diff|':>15} {'int8 cosine':>12}  text")
    for i, (it, enc) in enumerate(zip(items, encs)):
        ids = np.array([enc.ids], dtype=np.int64)
        mask = np.array([enc.attention_mask], dtype=np.int64)
        types = np.array([enc.type_ids], dtype=np.int64)
        want = np.asarray(it["embedding"], dtype=np.float32)

        # The reference counts wordpieces before truncation.
        want_len = min(it["wordpieces_with_special"], args.max_len)
        if len(enc.ids) != want_len:
            failures.append(f"item {i}: {len(enc.ids)} tokens, reference {want_len}")
        first = it.get("input_ids_first_16")
        if first is not None and enc.ids[:len(first)] != first:
            failures.append(f"item {i}: first ids {enc.ids[:len(first)]} != {first}")

        got = embed(fp32, ids, mask, types)[0]
        single.append(got)
        diff = float(np.abs(got - want).max())
        diffs.append(diff)
        if not diff < args.tolerance:
            failures.append(f"item {i}: fp32 max|diff| {diff:.3e} >= {args.tolerance:g}")

        cos_s = "-"
        if int8 is not None:
            q = embed(int8, ids, mask, types)[0]
            cos = float(q @ want / (np.linalg.norm(q) * np.linalg.norm(want)))
            cos_s = f"{cos:.5f}"
            cosines.append(cos)
            if cos < args.min_int8_cosine:
                failures.append(f"item {i}: int8 cosine {cos:.5f} < {args.min_int8_cosine}")
        print(f"{i:>2} {len(enc.ids):>4}/{want_len:<6} {diff:>15.3e} {cos_s:>12}  {it['text'][:40]!r}")

    # Right-pad everything to the longest text and run once.
    width = max(len(e.ids) for e in encs)
    ids = np.zeros((len(encs), width), dtype=np.int64)
    mask = np.zeros_like(ids)
    types = np.zeros_like(ids)
    for r, e in enumerate(encs):
        ids[r, :len(e.ids)] = e.ids
        mask[r, :len(e.ids)] = 1
        types[r, :len(e.ids)] = e.type_ids
    batch_diff = float(np.abs(embed(fp32, ids, mask, types) - np.stack(single)).max())
    print(f"padded batch [{len(encs)} x {width}] vs one-by-one: max|diff| {batch_diff:.3e}")
    if not batch_diff < args.tolerance:
        failures.append(f"padded batch differs from single runs by {batch_diff:.3e}")

    print(f"fp32 max|diff| over all texts: {max(diffs):.3e}")
    if cosines:
        print(f"int8 cosine: min {min(cosines):.5f}, mean {float(np.mean(cosines)):.5f}")

    if failures:
        print("FAILED:\n  " + "\n  ".join(failures))
        return 1
    print(f"OK: {len(items)} texts, fp32 within {args.tolerance:g}"
          + (f", int8 cosine >= {args.min_int8_cosine}" if int8 is not None else ", no int8 model"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
