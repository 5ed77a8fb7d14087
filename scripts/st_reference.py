#!/usr/bin/env python3
"""Write reference embeddings of a sentence-transformers model folder, made
by sentence-transformers itself (PyTorch on CPU), for the embedder's
reference tests: the same texts as an existing reference file, in its
format (token counts before truncation, the first 16 ids, the vector).

Runs offline in the throwaway venv scripts/lib/st_venv.sh installs
(~/.cache/ragpipe/st-venv, sentence-transformers + torch):

  ~/.cache/ragpipe/st-venv/bin/python scripts/st_reference.py MODEL_DIR \
      --name NAME --texts-from shared/embed/tests/fixtures/all-minilm-l6-v2.json --out OUT.json

"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import sentence_transformers  # noqa: E402
import torch  # noqa: E402
from sentence_transformers import SentenceTransformer  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model_dir", type=Path)
    ap.add_argument("--texts-from", type=Path, required=True)
    ap.add_argument("--name", required=True, help="the model's name, as the reference records it")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()

    texts = [item["text"] for item in json.loads(args.texts_from.read_text())["items"]]
    torch.set_num_threads(1)
    model = SentenceTransformer(str(args.model_dir), device="cpu")
    window = model.max_seq_length
    vectors = model.encode(texts, batch_size=1, convert_to_numpy=True, normalize_embeddings=False)
    tokenizer = model.tokenizer
    items = []
    for text, vector in zip(texts, vectors):
        # The count before truncation, special tokens included.
        ids = tokenizer(text, add_special_tokens=True, truncation=False)["input_ids"]
        items.append({
            "text": text,
            "wordpieces_with_special": len(ids),
            "truncated": len(ids) > window,
            "input_ids_first_16": ids[:16],
            "embedding": [round(float(x), 8) for x in vector],
        })
    reference = {
        "model": args.name,
        "reference": f"sentence-transformers {sentence_transformers.__version__} (torch {torch.__version__}) "
                     f"on CPU, max_seq_length {window}, as the folder's modules.json pools and normalises",
        "dims": int(vectors.shape[1]),
        "window": window,
        "items": items,
    }
    args.out.write_text(json.dumps(reference, indent=1) + "\n")
    print(f"st_reference: wrote {len(items)} vectors of {vectors.shape[1]} dims to {args.out}")


if __name__ == "__main__":
    main()
