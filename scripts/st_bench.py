#!/usr/bin/env python3
"""sentence-transformers (PyTorch, CPU) throughput on ragpipe's own chunks.

Driven by scripts/compare-sentence-transformers.sh, which installs the pinned
venv this runs in. Reads the chunk texts that `ragpipe bench embed
--dump-chunks` wrote and embeds them the way ragpipe's bench does:

  * the same texts in the same order, cut into the same groups of `batch`
    texts, one encode() call per group (ragpipe sorts by length only inside
    one embed() call, and so does sentence-transformers inside one encode());
  * one warm-up call with the first group before each timed pass;
  * max_seq_length 256 (ragpipe's window), padding to the longest text of a
    batch, mean pooling, L2 normalisation, numpy output.

It also times sentence-transformers' own idiom, one encode() over the whole
list with batch_size=batch, which sorts *all* texts by length first and so
pads less than either per-group run ("ST sorted", shown for information; the
ratios use the per-group figure).

With --ragpipe RESULTS.json... (from `ragpipe bench embed --json-out`) it
prints the comparison table. With --st-results ST.json... it measures nothing
and prints the table from earlier runs; given several files of either kind
(rounds), each configuration's best chunks/s is used, the usual estimator on
a machine that other work disturbs. With --reference-out it writes the first
N chunks' embeddings in the format scripts/check_model.py reads, so the
provisioned ONNX graphs can be checked against sentence-transformers.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import sys
import time
from pathlib import Path

# Before transformers is imported: never reach for the hub, and tokenize on
# the calling thread only (ragpipe's tokenizer is serial too), so a
# "threads 1" row really uses one core.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import numpy as np  # noqa: E402
import torch  # noqa: E402


def int_list(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x.strip()]


def load_model(model_dir: Path, max_seq_length: int):
    import transformers
    from sentence_transformers import SentenceTransformer

    transformers.logging.set_verbosity_error()  # "sequence longer than 512" noise from token counting
    transformers.logging.disable_progress_bar()  # "Loading weights" bar
    model = SentenceTransformer(str(model_dir), device="cpu", local_files_only=True)
    # tokenizer.json bakes in truncation at 128; ragpipe's window is 256.
    model.max_seq_length = max_seq_length
    model.eval()
    return model


def token_counts(model, texts: list[str]) -> list[list[int]]:
    """Word-piece ids with [CLS]/[SEP], before truncation."""
    tok = model.tokenizer
    return [tok(t, add_special_tokens=True, truncation=False)["input_ids"] for t in texts]


def encode(model, texts: list[str], batch: int) -> np.ndarray:
    return model.encode(texts, batch_size=batch, normalize_embeddings=True, convert_to_numpy=True,
                        show_progress_bar=False)


def measure(model, texts: list[str], threads: list[int], batches: list[int], tokens: int):
    rows = []
    vectors = {}
    encode(model, texts[:max(batches)], max(batches))  # load lazily-initialised kernels once
    for t in threads:
        torch.set_num_threads(t)
        for b in batches:
            groups = [texts[i:i + b] for i in range(0, len(texts), b)]
            encode(model, groups[0], b)  # warm-up, as ragpipe's bench does
            start = time.perf_counter()
            parts = [encode(model, g, b) for g in groups]
            secs = time.perf_counter() - start
            vectors[(t, b)] = np.concatenate(parts)

            start = time.perf_counter()
            vectors[(t, b, "sorted")] = encode(model, texts, b)
            secs_sorted = time.perf_counter() - start

            row = {"threads": t, "batch": b,
                   "chunks_per_s": len(texts) / secs, "tokens_per_s": tokens / secs,
                   "chunks_per_s_sorted": len(texts) / secs_sorted}
            rows.append(row)
            print(f"  sentence-transformers threads {t} batch {b:>3}: {row['chunks_per_s']:8.1f} chunks/s"
                  f"  (sorted whole list {row['chunks_per_s_sorted']:8.1f})", file=sys.stderr, flush=True)
    return rows, vectors


def self_consistency(vectors: dict) -> tuple[float, float, str]:
    """Max |diff| of every configuration against the first, and the worst norm error."""
    keys = list(vectors)
    ref = vectors[keys[0]]
    worst, worst_key = 0.0, "-"
    for k in keys[1:]:
        d = float(np.abs(vectors[k] - ref).max())
        if d > worst:
            worst, worst_key = d, k
    norm_err = max(float(np.abs(np.linalg.norm(v, axis=1) - 1).max()) for v in vectors.values())
    label = "-" if worst_key == "-" else "threads {} batch {}{}".format(
        worst_key[0], worst_key[1], " sorted" if len(worst_key) > 2 else "")
    return worst, norm_err, label


def write_reference(model, texts: list[str], ids: list[list[int]], path: Path) -> None:
    torch.set_num_threads(1)
    emb = encode(model, texts, 1)  # one at a time: no padding involved
    items = [{"text": t, "embedding": [float(x) for x in e], "wordpieces_with_special": len(i),
              "input_ids_first_16": i[:16]} for t, e, i in zip(texts, emb, ids)]
    path.write_text(json.dumps({"source": "sentence-transformers via scripts/st_bench.py", "items": items}))


def fmt(x: float | None, spec: str) -> str:
    return "-" if x is None else format(x, spec)


def geomean(xs: list[float]) -> float | None:
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def best(rows_per_round: list[list[dict]], key) -> dict:
    """Highest chunks/s per configuration over the rounds."""
    out: dict = {}
    for rows in rows_per_round:
        for r in rows:
            k = key(r)
            if k not in out or r["chunks_per_s"] > out[k]["chunks_per_s"]:
                out[k] = r
    return out


def ratio_rows(st: dict, rp: dict) -> list[tuple]:
    rows = []
    for (t, b), s in st.items():
        f32 = rp.get(("fp32", t, b), {}).get("chunks_per_s")
        i8 = rp.get(("int8", t, b), {}).get("chunks_per_s")
        c = s["chunks_per_s"]
        rows.append((t, b, f32, i8, c, f32 / c if f32 else None, i8 / c if i8 else None,
                     s.get("chunks_per_s_sorted")))
    return rows


def print_table(st_rounds: list[list[dict]], ragpipe_rounds: list[list[dict]]) -> None:
    rp_key = lambda r: (r["variant"], r["threads"], r["batch"])  # noqa: E731
    st_key = lambda r: (r["threads"], r["batch"])  # noqa: E731
    rounds = max(len(st_rounds), len(ragpipe_rounds))
    rows = ratio_rows(best(st_rounds, st_key), best(ragpipe_rounds, rp_key))
    # The sorted whole-list pass is its own measurement: take its own best.
    sorted_best: dict = {}
    for st_rows in st_rounds:
        for r in st_rows:
            k = st_key(r)
            sorted_best[k] = max(sorted_best.get(k, 0.0), r["chunks_per_s_sorted"])
    rows = [row[:7] + (sorted_best.get((row[0], row[1])),) for row in rows]
    head = (f"{'threads':>7} {'batch':>5} {'ragpipe fp32':>12} {'ragpipe int8':>12} {'ST':>9}"
            f" {'fp32/ST':>8} {'int8/ST':>8} {'ST sorted':>10}")
    what = f"best of {rounds} rounds" if rounds > 1 else "one round"
    print(f"chunks/s, {what} (higher is better); ratios > 1 mean ragpipe is faster")
    print(head)
    print("-" * len(head))
    for t, b, f32, i8, st, q32, q8, srt in rows:
        print(f"{t:>7} {b:>5} {fmt(f32, '12.1f')} {fmt(i8, '12.1f')} {st:>9.1f}"
              f" {fmt(q32, '8.2f')} {fmt(q8, '8.2f')} {fmt(srt, '10.1f')}")
    print("-" * len(head))
    print(f"geometric mean of ratios: fp32/ST {fmt(geomean([r[5] for r in rows]), '.2f')},"
          f" int8/ST {fmt(geomean([r[6] for r in rows]), '.2f')}")
    if len(st_rounds) == len(ragpipe_rounds) > 1:
        # Each round on its own, ragpipe and ST measured back to back: how far
        # apart they are says how much the machine's load moved the figures.
        per = []
        for st_rows, rp_rows in zip(st_rounds, ragpipe_rounds):
            rr = ratio_rows(best([st_rows], st_key), best([rp_rows], rp_key))
            per.append(f"fp32/ST {fmt(geomean([r[5] for r in rr]), '.2f')} int8/ST {fmt(geomean([r[6] for r in rr]), '.2f')}")
        print("per round: " + "; ".join(f"#{i + 1} {p}" for i, p in enumerate(per)))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chunks", type=Path, required=True, help="JSON array of texts (ragpipe bench embed --dump-chunks)")
    ap.add_argument("--model-dir", type=Path, help="the sentence-transformers checkpoint directory (to measure)")
    ap.add_argument("--batches", type=int_list, default=[1, 8, 32])
    ap.add_argument("--threads", type=int_list, default=[1, 2])
    ap.add_argument("--max-seq-length", type=int, default=256)
    ap.add_argument("--json-out", type=Path)
    ap.add_argument("--ragpipe", type=Path, nargs="+", help="ragpipe bench embed --json-out file(s): print the table")
    ap.add_argument("--st-results", type=Path, nargs="+", help="--json-out file(s) of earlier runs: report only")
    ap.add_argument("--reference-out", type=Path, help="write a check_model.py reference for the first chunks")
    ap.add_argument("--reference-n", type=int, default=12)
    args = ap.parse_args()

    texts = json.loads(args.chunks.read_text())
    if not isinstance(texts, list) or not texts or not all(isinstance(t, str) for t in texts):
        print(f"st_bench: {args.chunks} is not a non-empty JSON array of strings", file=sys.stderr)
        return 2

    if args.st_results:
        st_runs = [json.loads(p.read_text()) for p in args.st_results]
    else:
        if args.model_dir is None:
            ap.error("--model-dir is needed to measure (or pass --st-results)")
        st_runs = [run_st(args, texts)]

    if args.ragpipe:
        ragpipe_rounds = [json.loads(p.read_text()) for p in args.ragpipe]
        tokens = st_runs[0]["tokens"]
        # ragpipe reports tokens/s and chunks/s over the same pass, so their
        # ratio times the chunk count is the word-pieces it fed the model.
        r = ragpipe_rounds[0][0]
        rp_tokens = round(r["tokens_per_s"] / r["chunks_per_s"] * len(texts))
        same = "same as ST" if rp_tokens == tokens else f"ST has {tokens}: inputs differ, compare with care"
        print(f"ragpipe workload: {len(texts)} chunks, {rp_tokens} word-pieces ({same})")
        print()
        print_table([run["rows"] for run in st_runs], ragpipe_rounds)
    return 0


def run_st(args, texts: list[str]) -> dict:
    # Inter-op threads are not used by an eager BERT forward; pin them anyway.
    torch.set_num_interop_threads(1)
    model = load_model(args.model_dir, args.max_seq_length)
    ids = token_counts(model, texts)
    full = [len(i) for i in ids]
    tokens = sum(min(n, args.max_seq_length) for n in full)

    import sentence_transformers
    import tokenizers
    import transformers
    print(f"sentence-transformers {sentence_transformers.__version__}, torch {torch.__version__}"
          f" (CPU capability {torch.backends.cpu.get_cpu_capability()}), transformers {transformers.__version__},"
          f" tokenizers {tokenizers.__version__}, numpy {np.__version__}, Python {platform.python_version()}")
    print(f"ST workload: {len(texts)} chunks, {tokens} word-pieces after truncation at {model.max_seq_length}"
          f" ({tokens / len(texts):.0f} per chunk), {sum(n > args.max_seq_length for n in full)} chunks truncated")

    rows, vectors = measure(model, texts, args.threads, args.batches, tokens)
    worst, norm_err, label = self_consistency(vectors)
    print(f"ST self-consistency: max |diff| across thread/batch/sort configurations {worst:.2e} (worst: {label}),"
          f" max | |v| - 1 | {norm_err:.1e}")

    run = {"tokens": tokens, "chunks": len(texts), "rows": rows}
    if args.json_out:
        args.json_out.write_text(json.dumps(run, indent=2))
    if args.reference_out:
        n = min(args.reference_n, len(texts))
        write_reference(model, texts[:n], ids[:n], args.reference_out)
    return run


if __name__ == "__main__":
    sys.exit(main())
