#!/usr/bin/env python3
"""Second signals for ranking, tried offline over the candidates a shipped
index returns: each query's 20 ranked hits (`ragpipe eval --out`) get one
more list in the reciprocal rank fusion, ranked by

  section  the query against the chunk's heading path alone (title and
           section: "a second dense vector per chunk")
  context  the query against the chunk and its neighbours (the mean of the
           similarities to the previous chunk, the chunk and the next one)
  document the query against the chunk's whole document (its best chunk)
  e5       multilingual-e5-small over the same chunks (dual-model fusion on
           one chunking)
  window   the query against the chunk's best window of about `--window`
           words (half-overlapping, each under the chunk's heading): a
           question about one sentence meets that sentence, not the mean of
           the chunk

and the new order is scored like `ragpipe eval` and paired against the
shipped order with exact sign tests. Candidates outside the 20 are not
considered, so a list can only reorder what the index already found.

  ragpipe --data-dir D ingest eval/corpus
  ragpipe --data-dir D eval --golden eval/golden.jsonl --out R.json
  python3 eval/rerank.py R.json --data-dir D --ragpipe target/debug/ragpipe \
      --minilm MINILM_DIR [--e5 E5_DIR] [--weights 0.5,1] [--split test]

(`ragpipe chunks` cuts every file of eval/corpus as the index did.)

Embeds with the provisioning venv's onnxruntime and tokenizers (int8 files).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from fuse import KS, sign_p, summary  # noqa: E402


class Encoder:
    """Mean-pooled, normalised sentence vectors from a provisioned model
    folder; window and prefixes from its spec (`ragpipe-model.json`)."""

    def __init__(self, folder: Path):
        import onnxruntime as ort
        from tokenizers import Tokenizer

        weights = folder / "model-int8.onnx"
        if not weights.exists():
            weights = folder / "model.onnx"
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 2
        self.session = ort.InferenceSession(str(weights), opts, providers=["CPUExecutionProvider"])
        self.inputs = {i.name for i in self.session.get_inputs()}
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        spec = json.loads((folder / "ragpipe-model.json").read_text())
        # all-MiniLM-L6-v2's tokenizer.json pads every input to 128 tokens:
        # padding counted as text would flatten every vector (pad per batch
        # here, with the mask, as the Rust embedder does).
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(spec["max_tokens"])
        self.prefixes = (spec.get("query_prefix", ""), spec.get("passage_prefix", ""))

    def __call__(self, texts: list[str], query: bool = False, batch: int = 16) -> np.ndarray:
        prefix = self.prefixes[0 if query else 1]
        out = []
        for i in range(0, len(texts), batch):
            enc = self.tokenizer.encode_batch([prefix + t for t in texts[i : i + batch]])
            width = max(len(e.ids) for e in enc)
            ids = np.zeros((len(enc), width), np.int64)
            mask = np.zeros_like(ids)
            for j, e in enumerate(enc):
                ids[j, : len(e.ids)] = e.ids
                mask[j, : len(e.ids)] = 1
            feed = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in self.inputs:
                feed["token_type_ids"] = np.zeros_like(ids)
            hidden = self.session.run(None, feed)[0]
            if hidden.ndim == 3:
                hidden = (hidden * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)
            out.append(hidden / np.linalg.norm(hidden, axis=1, keepdims=True))
            if i % (batch * 20) == 0:
                print(f"embedding {min(i + batch, len(texts))}/{len(texts)}", file=sys.stderr)
        return np.concatenate(out)


def load_chunks(ragpipe: str, data_dir: str, corpus: Path) -> dict[str, list[dict]]:
    """Every document's chunks in order, keyed by file name."""
    docs = {}
    for f in sorted(corpus.iterdir()):
        if f.name.startswith("."):
            continue
        run = subprocess.run([ragpipe, "--data-dir", data_dir, "chunks", str(f), "--json"], capture_output=True, text=True)
        if run.returncode == 0:
            docs[f.name] = json.loads(run.stdout)
    return docs


def corpus_args(ap: argparse.ArgumentParser) -> None:
    """The arguments of a script that reads an index's chunks and embeds
    them with one provisioned model against the golden and out-of-domain
    questions."""
    ap.add_argument("--data-dir", required=True)
    ap.add_argument("--ragpipe", default="target/debug/ragpipe")
    ap.add_argument("--model", required=True)
    ap.add_argument("--golden", default="eval/golden.jsonl")
    ap.add_argument("--ood", default="eval/ood.jsonl")
    ap.add_argument("--corpus", default="eval/corpus")


def windows(content: str, words: int) -> list[str]:
    """The content in windows of `words` words, each starting half a window
    after the last; a chunk no longer than a window is its own window."""
    tokens = content.split()
    if len(tokens) <= words:
        return [" ".join(tokens)]
    step = max(words // 2, 1)
    return [" ".join(tokens[i : i + words]) for i in range(0, len(tokens) - step, step)]


def rerank(hits: list, lists: list[tuple[float, dict]], k: float = 60.0) -> int | None:
    """The first answering rank after fusing the shipped order with `lists`
    (weight, chunk -> similarity), each ranked over the candidates."""
    score = {c: 1.0 / (k + r) for r, (c, _) in enumerate(hits, 1)}
    for weight, sim in lists:
        ranked = sorted(score, key=lambda c: -sim.get(c, -1.0))
        for r, c in enumerate(ranked, 1):
            score[c] += weight / (k + r)
    answers = dict(hits)
    order = sorted(score, key=lambda c: -score[c])
    return next((i for i, c in enumerate(order, 1) if answers[c]), None)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("report")
    ap.add_argument("--golden", default="eval/golden.jsonl")
    ap.add_argument("--corpus", default="eval/corpus")
    ap.add_argument("--data-dir", required=True)
    ap.add_argument("--ragpipe", default="target/debug/ragpipe")
    ap.add_argument("--minilm", required=True)
    ap.add_argument("--e5")
    ap.add_argument("--weights", default="0.5,1")
    ap.add_argument("--split")
    ap.add_argument("--window", type=int, default=0, help="words per window (0: no window signal)")
    args = ap.parse_args()

    report = json.loads(Path(args.report).read_text())
    golden = {json.loads(l)["id"]: json.loads(l) for l in Path(args.golden).read_text().splitlines() if l.strip()}
    queries = [q for q in report["queries"] if not args.split or golden[q["id"]].get("split") == args.split]
    docs = load_chunks(args.ragpipe, args.data_dir, Path(args.corpus))

    # chunk key (document#locator as eval records it) -> (file, index)
    key_of, where = {}, {}
    for name, chunks in docs.items():
        for c in chunks:
            where[(name, c["locator"])] = len(key_of)
            key_of[len(key_of)] = (name, c)
    def find(hit: str):
        doc, _, loc = hit.partition("#")
        return where.get((doc.rsplit("/", 1)[-1], "#" + loc))
    flat = [c for _, c in key_of.values()]
    headers = [c["text"][: len(c["text"]) - len(c["content"])].strip() if c["text"].endswith(c["content"]) else " > ".join(c["section"]) for c in flat]

    minilm = Encoder(Path(args.minilm))
    q_vec = minilm([golden[q["id"]]["query"] for q in queries], query=True)
    c_vec = minilm([c["text"] for c in flat])
    h_vec = minilm([h or "untitled" for h in headers])
    signals = {"section": {}, "context": {}, "document": {}}
    w_vec, w_owner = None, []
    if args.window:
        texts = []
        for i, c in enumerate(flat):
            for w in windows(c["content"], args.window):
                texts.append(f"{headers[i]}\n{w}" if headers[i] else w)
                w_owner.append(i)
        w_vec = minilm(texts)
        w_owner = np.array(w_owner)
        signals["window"] = {}
        signals["window max"] = {}
        signals["chunk"] = {}  # the control: the dense similarity the index already fused
    e5 = None
    if args.e5:
        e5 = Encoder(Path(args.e5))
        q5, c5 = e5([golden[q["id"]]["query"] for q in queries], query=True), e5([c["content"] for c in flat])
        signals["e5"] = {}

    # per-document ranges of the flat chunk list (chunks are in order)
    spans = {}
    for i, (name, _) in key_of.items():
        lo, hi = spans.get(name, (i, i))
        spans[name] = (min(lo, i), max(hi, i))
    base, out = {}, {s: {} for s in signals}
    uncovered = 0
    for qi, q in enumerate(queries):
        hits = [(h, ok) for h, ok in q["top"]]
        base[q["id"]] = q["rank"]
        idx = {h: find(h) for h, _ in hits}
        uncovered += sum(1 for v in idx.values() if v is None)
        sims = {s: {} for s in signals}
        for h, i in idx.items():
            if i is None:
                continue
            name = key_of[i][0]
            lo, hi = spans[name]
            near = [j for j in (i - 1, i, i + 1) if lo <= j <= hi]
            sims["section"][h] = float(h_vec[i] @ q_vec[qi])
            sims["context"][h] = float(np.mean([c_vec[j] @ q_vec[qi] for j in near]))
            sims["document"][h] = float(np.max(c_vec[lo : hi + 1] @ q_vec[qi]))
            if e5 is not None:
                sims["e5"][h] = float(c5[i] @ q5[qi])
            if w_vec is not None:
                best = float(np.max(w_vec[w_owner == i] @ q_vec[qi]))
                sims["window"][h] = best
                sims["window max"][h] = max(best, float(c_vec[i] @ q_vec[qi]))
                sims["chunk"][h] = float(c_vec[i] @ q_vec[qi])
        for s in signals:
            for w in map(float, args.weights.split(",")):
                out[s].setdefault(w, {})[q["id"]] = rerank(hits, [(w, sims[s])])
    if uncovered:
        print(f"note: {uncovered} hits not matched to a chunk (left last in the added lists)")
    summary("shipped", base)
    for s, by_weight in out.items():
        for w, ranks in by_weight.items():
            summary(f"{s} {w}", ranks)
            cells = []
            for k in KS:
                won = sum(1 for q in base if (ranks[q] or 99) <= k < (base[q] or 99))
                lost = sum(1 for q in base if (base[q] or 99) <= k < (ranks[q] or 99))
                cells.append(f"@{k} +{won}/-{lost} p {sign_p(won, lost):.3f}")
            ticket = [q for q in base if golden[q].get("style") == "ticket"]
            mrr = lambda rs, qs: sum(1 / rs[q] for q in qs if rs[q]) / max(len(qs), 1)  # noqa: E731
            print(f"          vs shipped: {'  '.join(cells)}  ticket MRR {mrr(base, ticket):.3f} -> {mrr(ranks, ticket):.3f}")
            for split in ("dev", "test"):
                qs = [q for q in base if golden[q].get("split") == split]
                at4 = lambda rs: sum(1 for q in qs if rs[q] and rs[q] <= 4) / max(len(qs), 1)  # noqa: E731
                print(f"          {split}: MRR {mrr(base, qs):.3f} -> {mrr(ranks, qs):.3f}  R@4 {at4(base):.3f} -> {at4(ranks):.3f}")


if __name__ == "__main__":
    main()
