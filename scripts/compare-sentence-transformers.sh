#!/usr/bin/env bash
# Compare ragpipe's embedding throughput with Python sentence-transformers
# (PyTorch on CPU) on the SAME chunks, in the same run, and print the ratio.
#
#   scripts/compare-sentence-transformers.sh [--folder DIR] [--chunks N]
#       [--batches 1,8,32] [--rounds N] [--out DIR] [--no-build]
#
# Steps: provision the model (scripts/provision-model.sh), make sure the
# throwaway sentence-transformers venv exists, build ragpipe, run
# `ragpipe bench embed` (fp32 and int8, threads 1 and 2) dumping its chunks,
# run scripts/st_bench.py on those chunks (threads 1 and 2, same batches, same
# groups), print one table, then check the provisioned ONNX graphs against
# sentence-transformers' embeddings of the first chunks (scripts/check_model.py;
# Python ONNX Runtime, not the Rust path: ragpipe does not dump its vectors).
#
# The venv is ${RAGPIPE_CACHE:-~/.cache/ragpipe}/st-venv, pinned by version and
# sha256 in scripts/st-requirements.txt (which says why it is ~3 GB of wheels,
# CUDA libraries included, for a CPU run), installed with --no-deps from PyPI
# only by scripts/lib/st_venv.sh; it is rebuilt only when the pins change.
# scripts/compare-peers.sh adds LangChain and LlamaIndex to the same venv.
#
# Timings are only as good as the machine is quiet: the load average is
# printed before and after. On a busy machine use --rounds 2 or more: ragpipe
# and sentence-transformers then take turns, and the table keeps each
# configuration's best figure (the per-round ratios are printed too). Options:
#   --folder DIR   documents to chunk (default eval/corpus)
#   --chunks N     chunks per measurement (default 200)
#   --batches L    batch sizes (default 1,8,32)
#   --rounds N     alternate ragpipe and sentence-transformers N times (default 1)
#   --out DIR      keep chunks.json, ragpipe-R.json, st-R.json, reference.json
#                  there (default: a temporary directory, removed at exit)
#   --no-build     use ./target/debug/ragpipe as it is
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${RAGPIPE_CACHE:-$HOME/.cache/ragpipe}"
BIN="$ROOT/target/debug/ragpipe"

FOLDER="eval/corpus"
CHUNKS=200
BATCHES="1,8,32"
ROUNDS=1
OUT=""
BUILD=1

log() { printf 'compare-st: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

while [[ $# -gt 0 ]]; do
  case "$1" in
    --folder) FOLDER="$2"; shift 2 ;;
    --chunks) CHUNKS="$2"; shift 2 ;;
    --batches) BATCHES="$2"; shift 2 ;;
    --rounds) ROUNDS="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --no-build) BUILD=0; shift ;;
    -h|--help) sed -n '2,32p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument: $1 (see --help)" ;;
  esac
done

load() { cut -d' ' -f1-3 /proc/loadavg; }
LOAD_BEFORE="$(load)"
log "load average before: $LOAD_BEFORE ($(nproc) cores)"

cd "$ROOT"

# ---- model ----------------------------------------------------------------
_env=$("$ROOT/scripts/provision-model.sh"); eval "$_env"
[[ -f "$RAGPIPE_MODEL_DIR/modules.json" ]] || die "$RAGPIPE_MODEL_DIR is not a sentence-transformers checkpoint"

# ---- sentence-transformers venv -------------------------------------------
# shellcheck source=lib/st_venv.sh
source "$ROOT/scripts/lib/st_venv.sh"
ensure_st_venv

# ---- ragpipe --------------------------------------------------------------
if [[ $BUILD == 1 ]]; then
  log "cargo build -p ragpipe"
  cargo build -p ragpipe >&2 || die "cargo build -p ragpipe failed"
fi
[[ -x "$BIN" ]] || die "$BIN not found (build it, or drop --no-build)"

if [[ -n "$OUT" ]]; then
  mkdir -p "$OUT"
  WORK="$(cd "$OUT" && pwd)"
else
  WORK="$(mktemp -d "${TMPDIR:-/tmp}/compare-st.XXXXXX")"
  trap 'rm -rf "$WORK"' EXIT
fi

[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || die "--rounds wants a positive integer, got $ROUNDS"
REV="$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')"
git -C "$ROOT" diff --quiet HEAD -- 2>/dev/null || REV="$REV+dirty"
RAGPIPE_RESULTS=()
ST_RESULTS=()
for ((round = 1; round <= ROUNDS; round++)); do
  echo "== round $round/$ROUNDS: ragpipe $REV, ONNX Runtime $(basename "$ORT_DYLIB_PATH"), load $(load)"
  "$BIN" bench embed --folder "$FOLDER" --chunks "$CHUNKS" --batches "$BATCHES" --sessions 1 \
    --dump-chunks "$WORK/chunks-$round.json" --json-out "$WORK/ragpipe-$round.json"
  # Chunking is deterministic; if it were not, the rounds would not compare.
  cmp -s "$WORK/chunks-1.json" "$WORK/chunks-$round.json" || die "round $round chunked differently from round 1"
  RAGPIPE_RESULTS+=("$WORK/ragpipe-$round.json")
  echo

  echo "== round $round/$ROUNDS: sentence-transformers on the same chunks, load $(load)"
  ref=()
  [[ $round == 1 ]] && ref=(--reference-out "$WORK/reference.json")
  "$ST_VENV/bin/python" "$ROOT/scripts/st_bench.py" --chunks "$WORK/chunks-1.json" --model-dir "$RAGPIPE_MODEL_DIR" \
    --batches "$BATCHES" --threads 1,2 --max-seq-length 256 --json-out "$WORK/st-$round.json" "${ref[@]}"
  ST_RESULTS+=("$WORK/st-$round.json")
  echo
done

echo "== ragpipe vs sentence-transformers"
"$ST_VENV/bin/python" "$ROOT/scripts/st_bench.py" --chunks "$WORK/chunks-1.json" \
  --st-results "${ST_RESULTS[@]}" --ragpipe "${RAGPIPE_RESULTS[@]}"
echo

# ---- agreement ------------------------------------------------------------
echo "== ONNX graphs (fp32, int8) vs sentence-transformers on the first chunks (scripts/check_model.py)"
if ! "$CACHE/venv/bin/python" "$ROOT/scripts/check_model.py" "$WORK/reference.json" --model-dir "$RAGPIPE_MODEL_DIR"; then
  log "warning: check_model.py reported differences (see above); the timings stand, but the outputs differ"
fi
echo

LOAD_AFTER="$(load)"
echo "load average (1, 5, 15 min) before: $LOAD_BEFORE, after: $LOAD_AFTER, on $(nproc) cores"
[[ -n "$OUT" ]] && echo "kept: $WORK/ (chunks-R.json, ragpipe-R.json, st-R.json, reference.json)"
exit 0
