#!/usr/bin/env python3
"""Dense pseudo-relevance feedback tried offline (Rocchio on vectors): the
query vector moves toward the mean of its k nearest chunks,
q' = q + beta * mean(top k), and the index is searched again with q'. A
symptom-phrased question might land nearer the document's own wording after
one step toward what it first found.

Dense retrieval only, over every chunk of the corpus (`ragpipe chunks` cuts
them as the index did), embedded here with the provisioned model's int8
files; a chunk answers when its content holds every needle (questions with
fuzzy, transcript-timed needles are left out). Each setting is paired
against plain dense retrieval with exact sign tests.

  ragpipe --data-dir D ingest eval/corpus
  python3 eval/dense_prf.py --data-dir D --ragpipe target/debug/ragpipe \
      --model "$RAGPIPE_MODEL_DIR" [--golden eval/golden.jsonl --corpus eval/corpus]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from fuse import sign_p  # noqa: E402
from rerank import Encoder, load_chunks  # noqa: E402

KS = (1, 4, 20)


def folded(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().casefold()


def first_answer(scores: np.ndarray, answers: np.ndarray) -> int | None:
    order = np.argsort(-scores)[:20]
    return next((r for r, i in enumerate(order, 1) if answers[i]), None)


def show(name: str, ranks: list, base: list | None = None) -> None:
    n = len(ranks)
    at = lambda k: sum(1 for r in ranks if r and r <= k) / n  # noqa: E731
    line = f"{name:>20}: n {n} " + " ".join(f"@{k} {at(k):.3f}" for k in KS)
    line += f"  MRR {sum(1 / r for r in ranks if r) / n:.3f}"
    if base:
        for k in KS:
            won = sum(1 for a, b in zip(base, ranks) if (b or 99) <= k < (a or 99))
            lost = sum(1 for a, b in zip(base, ranks) if (a or 99) <= k < (b or 99))
            line += f"  @{k} +{won}/-{lost} p {sign_p(won, lost):.3f}"
    print(line)


def arguments() -> argparse.ArgumentParser:
    """The arguments every offline dense experiment takes."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--golden", default="eval/golden.jsonl")
    ap.add_argument("--corpus", default="eval/corpus")
    ap.add_argument("--data-dir", required=True)
    ap.add_argument("--ragpipe", default="target/debug/ragpipe")
    ap.add_argument("--model", required=True)
    return ap


def dense_setup(args, split: str | None = None):
    """What every offline dense experiment starts from: the documents' chunks
    as the index cut them, the golden questions without fuzzy needles (of
    one split, if given), which chunks answer each, the encoder, and the
    questions' and chunks' vectors."""
    docs = load_chunks(args.ragpipe, args.data_dir, Path(args.corpus))
    chunks = [c for cs in docs.values() for c in cs]
    contents = [folded(c["content"]) for c in chunks]
    golden = [json.loads(l) for l in Path(args.golden).read_text().splitlines() if l.strip()]
    golden = [q for q in golden if not q.get("fuzzy") and (not split or q.get("split") == split)]
    answers = [np.array([all(folded(n) in c for n in q["needles"]) for c in contents]) for q in golden]
    encoder = Encoder(Path(args.model))
    queries = encoder([q["query"] for q in golden], query=True)
    vectors = encoder([c["text"] for c in chunks])
    return docs, chunks, golden, answers, encoder, queries, vectors


def main() -> None:
    args = arguments().parse_args()
    _, _, _, answers, _, queries, vectors = dense_setup(args)

    def run(beta: float, k: int, soft: bool = False) -> list:
        ranks = []
        for q, ok in zip(queries, answers):
            scores = vectors @ q
            if beta:
                top = np.argsort(-scores)[:k]
                # soft: the nearest hits weigh most (temperature 0.05)
                w = np.exp((scores[top] - scores[top].max()) / 0.05) if soft else np.ones(k)
                moved = q + beta * (w[:, None] * vectors[top]).sum(0) / w.sum()
                scores = vectors @ (moved / np.linalg.norm(moved))
            ranks.append(first_answer(scores, ok))
        return ranks

    base = run(0.0, 0)
    show("dense", base)
    for beta in (0.3, 0.6, 1.0):
        for k in (3, 5, 10):
            show(f"beta {beta} top {k}", run(beta, k), base)
        show(f"beta {beta} top 10 soft", run(beta, 10, soft=True), base)


if __name__ == "__main__":
    main()
