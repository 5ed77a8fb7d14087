#!/usr/bin/env python3
"""Abstention evidence from windows tried offline: instead of the nearest
chunk's cosine distance, the nearest *window* of about `--window` words
(half-overlapping, each under its chunk's heading), over every chunk of the
corpus or only over the windows of the query's `--top` nearest chunks (what a
search could embed at query time without a vector per window in the index).

For each kind of evidence it prints the in-domain questions refused at the
threshold that answers 1, 2 and 3 out-of-domain questions on the whole set,
and the equal-cost threshold chosen on the dev split, scored on the test
split (docs/EVALUATION.md, "Abstention").

  ragpipe [--config C] --data-dir D ingest eval/corpus-es
  python3 eval/abstention_windows.py --data-dir D --model MODEL_DIR \
      --golden eval/golden-es.jsonl --ood eval/ood-es.jsonl --corpus eval/corpus-es
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from rerank import Encoder, corpus_args, load_chunks, windows  # noqa: E402


def heading(chunk: dict) -> str:
    text, content = chunk["text"], chunk["content"]
    return text[: len(text) - len(content)].strip() if text.endswith(content) else " > ".join(chunk["section"])


def report(name: str, distance: np.ndarray, inside: np.ndarray, split: np.ndarray) -> None:
    out = np.sort(distance[~inside])
    cells = []
    for budget in (1, 2, 3):
        t = (out[budget - 1] + out[budget]) / 2
        cells.append(f"{budget} bluffs: {int((distance[inside] > t).sum())} refused")
    print(f"{name:>28} (of {inside.sum()} / {(~inside).sum()}): " + ", ".join(cells))

    def counts(part: str, t: float):
        s = split == part
        return int((distance[s & inside] > t).sum()), int((s & inside).sum()), int((distance[s & ~inside] <= t).sum()), int((s & ~inside).sum())

    def cost(t: float) -> float:
        r, n, b, m = counts("dev", t)
        return r / n + b / m

    grid = np.unique(distance)
    t = min(grid, key=lambda x: (cost(x), -x))
    dev, test = counts("dev", t), counts("test", t)
    print(f"{'':>28} dev-fit {t:.4f}: dev refused {dev[0]}/{dev[1]} bluffs {dev[2]}/{dev[3]}; "
          f"test refused {test[0]}/{test[1]} bluffs {test[2]}/{test[3]}")


def main() -> None:
    ap = argparse.ArgumentParser()
    corpus_args(ap)
    ap.add_argument("--window", type=int, default=32)
    ap.add_argument("--top", default="1,3,10")
    args = ap.parse_args()

    chunks = [c for cs in load_chunks(args.ragpipe, args.data_dir, Path(args.corpus)).values() for c in cs]
    questions = []
    for path, answerable in ((args.golden, True), (args.ood, False)):
        for line in Path(path).read_text().splitlines():
            if line.strip():
                q = json.loads(line)
                questions.append((q["query"], answerable, q.get("split", "dev")))
    inside = np.array([q[1] for q in questions])
    split = np.array([q[2] for q in questions])

    encoder = Encoder(Path(args.model))
    queries = encoder([q[0] for q in questions], query=True)
    vectors = encoder([c["text"] for c in chunks])
    texts, owner = [], []
    for i, c in enumerate(chunks):
        head = heading(c)
        for w in windows(c["content"], args.window):
            texts.append(f"{head}\n{w}" if head else w)
            owner.append(i)
    window_vectors, owner = encoder(texts), np.array(owner)

    chunk_sims = queries @ vectors.T
    window_sims = queries @ window_vectors.T
    report("nearest chunk", 1 - chunk_sims.max(1), inside, split)
    report(f"nearest {args.window}-word window", 1 - window_sims.max(1), inside, split)
    for n in map(int, args.top.split(",")):
        near = np.argsort(-chunk_sims, axis=1)[:, :n]
        d = np.array([1 - window_sims[q, np.isin(owner, near[q])].max() for q in range(len(questions))])
        report(f"windows of the top {n} chunks", d, inside, split)


if __name__ == "__main__":
    main()
