#!/usr/bin/env bash
# OCR accuracy and speed: `ragpipe bench ocr` against RapidOCR 3.10 (Python,
# the same PP-OCRv6 graphs, orientation classifier off) and Tesseract 5.3
# (Debian, eng+spa) on the real scans of shared/ocr/tests/fixtures, in
# alternating rounds on the same cores and threads. Prints a Markdown table:
# CER per file and engine (against the references written by reading the
# scans; quotes, dashes and whitespace normalised as in ragpipe_ocr::score),
# pages/s over all files (best round, engine load excluded), peak RSS of the
# engine's process tree (GNU time).
#
#   scripts/compare-ocr.sh [--rounds N] [--threads T] [--profile release|dev]
#                                       (defaults 2, 2 and release; dev reuses the
#                                       test build: dependencies at opt-level 3,
#                                       ragpipe's own crates at 1)
#
# Installs what it needs, idempotently: tesseract-ocr (+ eng, spa) and
# poppler-utils from apt (pdfimages takes the page image out of c03-29.pdf
# for the engines that read images only), a venv with scripts/ocr-requirements.txt,
# the models (scripts/provision-model.sh, scripts/provision-ocr.sh) and
# target/release/ragpipe.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROUNDS=2 THREADS=2 PROFILE=release
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rounds) ROUNDS=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --profile) PROFILE=$2; shift 2 ;;
    *) echo "compare-ocr: unknown argument $1" >&2; exit 2 ;;
  esac
done
log() { echo "compare-ocr: $*" >&2; }

need=()
for p in tesseract-ocr tesseract-ocr-eng tesseract-ocr-spa poppler-utils time; do
  dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
done
if [[ ${#need[@]} -gt 0 ]]; then
  log "apt-get install ${need[*]}"
  apt-get install -y -q "${need[@]}" >&2
fi
CACHE="${RAGPIPE_CACHE:-$HOME/.cache/ragpipe}"
VENV="$CACHE/ocr-venv"
if ! "$VENV/bin/python" -c 'import rapidocr' 2>/dev/null \
   || ! cmp -s scripts/ocr-requirements.txt "$VENV/requirements.txt"; then
  log "building $VENV (scripts/ocr-requirements.txt)"
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check -r scripts/ocr-requirements.txt >&2
  cp scripts/ocr-requirements.txt "$VENV/requirements.txt"
fi
eval "$(scripts/provision-model.sh)"
eval "$(scripts/provision-ocr.sh)"
TARGET="${CARGO_TARGET_DIR:-target}"
case "$PROFILE" in
  release) BIN="$TARGET/release/ragpipe" ;;
  dev) BIN="$TARGET/debug/ragpipe" ;;
  *) echo "compare-ocr: --profile is release or dev, not $PROFILE" >&2; exit 2 ;;
esac
log "building $BIN (cargo build --profile $PROFILE; a cold release build takes ~25 min on 2 cores)"
cargo build --profile "$PROFILE" --bin ragpipe >&2

FIX=shared/ocr/tests/fixtures
WORK="$(mktemp -d)"; trap 'rm -rf "$WORK"' EXIT
pdfimages -j "$FIX/c03-29.pdf" "$WORK/c03-29"
mv "$WORK"/c03-29-000.jpg "$WORK/c03-29.jpg"
NAMES=(eurotext typewriter linn c03-29)
RAGPIPE_FILES=("$FIX/eurotext.png" "$FIX/typewriter.png" "$FIX/linn.png" "$FIX/c03-29.pdf")
IMAGE_FILES=("$FIX/eurotext.png" "$FIX/typewriter.png" "$FIX/linn.png" "$WORK/c03-29.jpg")

run() { # ENGINE ROUND: one engine over all files, JSON lines into $WORK/ENGINE.ROUND
  local out="$WORK/$1.$2"
  case "$1" in
    ragpipe) RAGPIPE_OCR_THREADS=$THREADS /usr/bin/time -f '%M' -o "$out.rss" \
               "$BIN" bench ocr --json "${RAGPIPE_FILES[@]}" >"$out" ;;
    *) /usr/bin/time -f '%M' -o "$out.rss" "$VENV/bin/python" scripts/ocr_peers.py "$1" "$THREADS" "${IMAGE_FILES[@]}" >"$out" ;;
  esac
}
ENGINES=(ragpipe rapidocr tesseract)
for ((r = 1; r <= ROUNDS; r++)); do
  # Alternate the order, so no engine always runs first (cold caches) or last.
  order=("${ENGINES[@]}")
  if (( r % 2 == 0 )); then order=(tesseract rapidocr ragpipe); fi
  for e in "${order[@]}"; do
    log "round $r: $e"
    run "$e" "$r"
  done
done

"$VENV/bin/python" - "$WORK" "$ROUNDS" "$THREADS" "$PROFILE" "${NAMES[@]}" <<'PY'
import json, sys, unicodedata
work, rounds, threads, profile, names = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5:]
QUOTES = {c: '"' for c in "“”„«»″"} | {c: "'" for c in "‘’‚`´"} | {c: "-" for c in "–—‐‑−"}

def norm(t):
    return " ".join("".join(QUOTES.get(c, c) for c in t).split())

def cer(ref, hyp):
    r, h = norm(ref), norm(hyp)
    row = list(range(len(h) + 1))
    for i, rc in enumerate(r):
        diag, row[0] = row[0], i + 1
        for j, hc in enumerate(h):
            diag, row[j + 1] = row[j + 1], min(diag + (rc != hc), row[j] + 1, row[j + 1] + 1)
    return row[len(h)] / max(len(r), 1)

refs = {n: open(f"shared/ocr/tests/fixtures/{n}.txt").read() for n in names}
rows = {}
for engine in ("ragpipe", "rapidocr", "tesseract"):
    best, rss, cers = None, 0, {}
    for r in range(1, rounds + 1):
        lines = [json.loads(l) for l in open(f"{work}/{engine}.{r}")]
        files, total = lines[:-1], lines[-1]
        rate = total["pages"] / total["seconds"]
        best = max(best or 0, rate)
        rss = max(rss, int(open(f"{work}/{engine}.{r}.rss").read().split()[-1]) / 1024)
        if r == 1:
            for n, f in zip(names, files):
                cers[n] = cer(refs[n], f.get("text", "")) if "text" in f else None
    rows[engine] = (cers, best, rss)
print(f"| engine ({threads} threads; ragpipe {profile} build) | " + " | ".join(f"CER {n}" for n in names)
      + f" | pages/s (best of {rounds}) | peak RSS MiB |")
print("|---" * (len(names) + 3) + "|")
label = {"ragpipe": "ragpipe (PP-OCRv6, Rust)", "rapidocr": "RapidOCR 3.10 (PP-OCRv6, Python, cls off)",
         "tesseract": "Tesseract 5.3 (eng+spa)"}
for engine, (cers, best, rss) in rows.items():
    cells = " | ".join("fail" if cers[n] is None else f"{100 * cers[n]:.2f} %" for n in names)
    print(f"| {label[engine]} | {cells} | {best:.3f} | {rss:.0f} |")
PY
