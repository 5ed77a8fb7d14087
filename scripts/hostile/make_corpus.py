#!/usr/bin/env python3
"""Generate a folder of hostile files beside good controls (issue 12).

    make_corpus.py OUT_DIR [--seed N] [--small] [--manifest PATH]

OUT_DIR must not exist. A sibling `outside/` folder (the target of the
symlinks that try to leave OUT_DIR) and the manifest (default
OUT_DIR/../manifest.json) are written next to it.

Every entry in the manifest has `name` (the key ragpipe would list: the path
relative to OUT_DIR; non-UTF-8 bytes as \\xNN escapes, with `name_hex` holding
the exact bytes), `kind` (the hostility) and `expect`:
  indexed  a good control (its name starts with `good-`): must be indexed
  failed   must end `failed` with a reason (empty, lies about its type,
           encrypted, over a limit)
  skipped  must never be indexed: symlinks leaving the folder, special
           files, loops, sidecars (read with their audio, not on their own)
  either   indexed or failed are both fine; never left pending
Entries with `dir: true` cover every key below them (a symlinked folder).
Entries with `leak_check: true` must not index /etc/passwd or the outside
marker if they get indexed (XXE).

Stdlib only: the files are mutated from the committed fixtures or written
byte by byte (formats.py), so the corpus is the same on every machine for a
given seed. --small makes a ~40-file subset for `cargo test`.
"""


import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import OUTSIDE_MARKER, Corpus  # noqa: E402
from damaged import fixtures_as_is, good_controls, mutations, wrong_extensions  # noqa: E402
from file_system import file_system  # noqa: E402
from limits import bombs, encodings, long_lines, nesting, scale, xxe  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out_dir", type=Path)
    ap.add_argument("--seed", type=int, default=12)
    ap.add_argument("--small", action="store_true", help="a ~40-file subset for cargo test")
    ap.add_argument("--manifest", type=Path, help="default: OUT_DIR/../manifest.json")
    args = ap.parse_args()
    started = time.monotonic()
    out = args.out_dir.absolute()
    out.mkdir(parents=True)  # must not exist: never mix with an old corpus
    c = Corpus(out, args.seed, args.small)
    for step in (good_controls, mutations, wrong_extensions, fixtures_as_is, bombs, nesting, scale, xxe, encodings, long_lines, file_system):
        step(c)
    manifest = args.manifest or out.parent / "manifest.json"
    counts = {}
    for e in c.entries:
        counts[e["kind"]] = counts.get(e["kind"], 0) + 1
    doc = {
        "folder": str(out),
        "seed": args.seed,
        "small": args.small,
        "outside_marker": OUTSIDE_MARKER,
        "counts": dict(sorted(counts.items())),
        "entries": c.entries,
    }
    manifest.write_text(json.dumps(doc, indent=1, ensure_ascii=True) + "\n")
    print(
        f"make_corpus: {len(c.entries)} entries ({sum(1 for e in c.entries if e['kind'] != 'sidecar')} besides sidecars) "
        f"in {out} in {time.monotonic() - started:.1f}s; manifest {manifest}",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
