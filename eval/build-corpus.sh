#!/usr/bin/env bash
# Rebuilds eval/corpus/ from the places its documents were taken from, so the
# provenance of every file is recorded here. The copies are committed: CI and
# the evaluator read eval/corpus/ and never need this script or the sources.
#
# Sources (override with env vars if your machine lays them out differently):
#   RUST_DOC   docs shipped with the Rust 1.95.0 toolchain (rust-docs component)
#   CRATES     the crates.io registry source cache of cargo
#   PYENV_ROOT a pyenv checkout (its README.md)
# plus Debian packages dpkg-dev, man-db and base-files (/usr/share/...).
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
)

mkdir -p "$out"
for line in "${files[@]}"; do
  read -r name src <<<"$line"
  [[ -f "$src" ]] || { echo "missing source: $src" >&2; exit 1; }
  install -m 0644 "$src" "$out/$name"
  echo "$name <- $src"
done
