#!/usr/bin/env bash
# Compare ragpipe's speech recognition with faster-whisper (CTranslate2) on real
# recorded speech, same weights, same files, same threads, in one run:
#
#   scripts/compare-asr.sh [--rounds N] [--threads N] [--ragpipe BIN] [--out DIR]
#       [--es-language es|detect] [--only ragpipe|faster-whisper]
#
# Prints one table per clip set (word error rate with numbers as words and
# raw, real-time factor best of the rounds, the ratio ragpipe/faster-whisper),
# then peak RSS and model load time per engine, then the timestamp checks:
# every segment inside [0, duration] of its clip, and, in the ~2.5 min
# concatenated recording, every clip's words in segments overlapping that
# clip's span. Scoring: scripts/asr/score.py; normalisation: scripts/asr/text.py.
#
# Data: scripts/asr-data.sh (LibriVox, cards, jfk, 20 English and 20 Spanish
# telephone prompts, the long recording). Model: scripts/provision-model.sh
# builds ragpipe's Whisper base ONNX graphs and keeps the CTranslate2 weights
# they came from in models/whisper-base/ct2; faster-whisper loads that folder,
# so both engines run the same weights. faster-whisper 1.2.1 lives in a
# throwaway venv, ${RAGPIPE_CACHE:-~/.cache/ragpipe}/compare-asr-venv, pinned
# with hashes by scripts/asr/requirements.txt and rebuilt when that file changes.
#
# Engines and settings, equal on both sides: greedy decoding, no VAD, no
# conditioning on the previous window, language detected (the Spanish set gets
# language "es" on both, unless --es-language detect), RAGPIPE_ASR_THREADS =
# cpu_threads = --threads (default 2). ragpipe runs fp32, and int8 when
# models/whisper-base/encoder-int8.onnx exists; faster-whisper runs int8 and
# float32 (float32 on Intel MKL, which CTranslate2 skips on AMD CPUs; see
# run_fw). Each engine variant is one process per language group (the model is
# loaded once per process), under /usr/bin/time for its peak RSS.
#
# The machine may be busy: rounds alternate the engines (round 1 starts with
# ragpipe, round 2 with faster-whisper, ...) and the tables keep each engine's
# best round; the load average is printed before and after. Options:
#   --rounds N        rounds of every engine (default 2)
#   --threads N       intra-op threads of both engines (default 2)
#   --ragpipe BIN     ragpipe binary (default ${CARGO_TARGET_DIR:-target}/debug/ragpipe;
#                     nothing is built here). Mind that a debug build runs
#                     ragpipe's own Rust code (audio decoding, resampling, mel,
#                     the decoder loop) unoptimised; ONNX Runtime is optimised either way
#   --out DIR         where the runs, per-clip transcripts (diffs.txt) and the
#                     report go (default $CACHE/compare-asr-out; its earlier runs are replaced)
#   --es-language L   es (default) or detect, for the Spanish set, both engines
#   --only ENGINE     run one engine alone (ragpipe or faster-whisper)
#   --timeout SECS    wall-clock limit of one engine process (default 1800)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${RAGPIPE_CACHE:-$HOME/.cache/ragpipe}"
VENV="$CACHE/compare-asr-venv"
REQ="$ROOT/scripts/asr/requirements.txt"
BIN="${CARGO_TARGET_DIR:-$ROOT/target}/debug/ragpipe"

ROUNDS=2
THREADS=2
OUT="$CACHE/compare-asr-out"
ES_LANGUAGE=es
ONLY=""
TIMEOUT=1800

log() { printf 'compare-asr: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

while [[ $# -gt 0 ]]; do
  case "$1" in
    --rounds) ROUNDS="$2"; shift 2 ;;
    --threads) THREADS="$2"; shift 2 ;;
    --ragpipe) BIN="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --es-language) ES_LANGUAGE="$2"; shift 2 ;;
    --only) ONLY="$2"; shift 2 ;;
    --timeout) TIMEOUT="$2"; shift 2 ;;
    -h|--help) sed -n '2,45p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument: $1 (see --help)" ;;
  esac
done
[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || die "--rounds wants a positive integer, got $ROUNDS"
[[ "$THREADS" =~ ^[1-9][0-9]*$ ]] || die "--threads wants a positive integer, got $THREADS"
[[ "$TIMEOUT" =~ ^[1-9][0-9]*$ ]] || die "--timeout wants seconds, got $TIMEOUT"
[[ "$ES_LANGUAGE" == es || "$ES_LANGUAGE" == detect ]] || die "--es-language is es or detect"
[[ -z "$ONLY" || "$ONLY" == ragpipe || "$ONLY" == faster-whisper ]] || die "--only is ragpipe or faster-whisper"
[[ -x /usr/bin/time ]] || die "/usr/bin/time not found (apt-get install time): it measures peak RSS"
# The language each process gets is decided below, never inherited.
unset RAGPIPE_ASR_LANGUAGE

load() { cut -d' ' -f1-3 /proc/loadavg; }
LOAD_BEFORE="$(load)"
log "load average before: $LOAD_BEFORE ($(nproc) cores)"

# ---- data, model, engines ---------------------------------------------------
MANIFEST="$("$ROOT/scripts/asr-data.sh")"
_env="$("$ROOT/scripts/provision-model.sh")"; eval "$_env"
ASR_DIR="${RAGPIPE_ASR_DIR:-$CACHE/models/whisper-base}"
CT2="$ASR_DIR/ct2"
[[ -f "$CT2/model.bin" && -f "$ASR_DIR/encoder.onnx" ]] \
  || die "no Whisper base in $ASR_DIR (with ct2/model.bin): scripts/provision-model.sh builds it"

RAGPIPE_VARIANTS=(fp32)
[[ -f "$ASR_DIR/encoder-int8.onnx" ]] && RAGPIPE_VARIANTS+=(int8)
FW_TYPES=(int8 float32)
if [[ "$ONLY" != faster-whisper ]]; then
  [[ -x "$BIN" ]] || die "$BIN not found: build ragpipe (cargo build -p ragpipe), pass --ragpipe, or --only faster-whisper"
  "$BIN" bench asr --help >/dev/null 2>&1 || die "$BIN has no 'bench asr' (older build?); --only faster-whisper runs the other half"
fi

if [[ "$ONLY" != ragpipe ]]; then
  PINS_HASH="$(sha256sum "$REQ" | cut -d' ' -f1)"
  mkdir -p "$CACHE"
  exec 8>"$CACHE/.compare-asr-venv.lock"
  flock 8
  if [[ ! -x "$VENV/bin/python" || "$(cat "$VENV/.pins.sha256" 2>/dev/null)" != "$PINS_HASH" ]]; then
    # shellcheck source=lib/python.sh
    source "$ROOT/scripts/lib/python.sh"
    find_python
    log "installing faster-whisper into $VENV (~120 MB download, ~0.5 GB on disk)"
    rm -rf "$VENV"
    "$PYTHON" -m venv "$VENV" || die "python -m venv failed (on Debian: apt-get install python3.11-venv)"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-cache-dir \
      --no-deps --only-binary=:all: --require-hashes -r "$REQ" >&2 || die "pip install into $VENV failed"
    "$VENV/bin/python" -c 'import faster_whisper, ctranslate2' || die "imports failed in $VENV after install"
    # Written last, so an interrupted install is redone next time.
    echo "$PINS_HASH" >"$VENV/.pins.sha256"
  fi
  flock -u 8
  FW_VERSIONS="$("$VENV/bin/python" -c 'import faster_whisper as f, ctranslate2 as c; print(f"faster-whisper {f.__version__}, CTranslate2 {c.__version__}")')"
fi

mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
rm -f "$OUT"/*.jsonl "$OUT"/*.time "$OUT"/diffs.txt "$OUT"/report.txt

# Files of one language group, NUL-separated, in manifest order.
group_files() {
  python3 - "$MANIFEST" "$1" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
for s in m["sets"]:
    if s["language"] == sys.argv[2]:
        for c in s["clips"]:
            sys.stdout.write(c["file"] + "\0")
PY
}
mapfile -d '' EN_FILES < <(group_files en)
mapfile -d '' ES_FILES < <(group_files es)
((${#EN_FILES[@]} && ${#ES_FILES[@]})) || die "no clips in $MANIFEST"

# follow OUT TOTAL LABEL: keeps an engine's stdout in OUT and says on stderr
# which file it has just finished, so a long process is never silent.
follow() {
  local out=$1 total=$2 label=$3 n=0 line file secs
  : >"$out"
  while IFS= read -r line; do
    printf '%s\n' "$line" >>"$out"
    file="$(sed -n 's/.*"file": *"\([^"]*\)".*/\1/p' <<<"$line")"
    [[ -n "$file" ]] || continue
    n=$((n + 1))
    secs="$(sed -n 's/.*"seconds": *\([0-9.eE+-]*\).*/\1/p' <<<"$line")"
    log "$label [$n/$total] $(basename "$file") in ${secs:0:5}s"
  done
}

# run NAME GROUP ROUND CMD...: one engine process under /usr/bin/time
# (its "%M" is the peak RSS of the process, threads included; timeout's child
# is waited for by timeout, so its usage reaches /usr/bin/time).
run() {
  local name=$1 group=$2 round=$3; shift 3
  local files=("${EN_FILES[@]}") base="$OUT/$name.$group.r$round"
  [[ $group == es ]] && files=("${ES_FILES[@]}")
  log "round $round/$ROUNDS: $name, $group (${#files[@]} files), load $(load)"
  /usr/bin/time -f '%M %e' -o "$base.time" timeout --kill-after=10 "$TIMEOUT" "$@" "${files[@]}" \
    | follow "$base.jsonl" "${#files[@]}" "$name $group" \
    || die "$name on $group failed (round $round); its output is in $base.jsonl"
}

lang_of() { [[ $1 == es && $ES_LANGUAGE == es ]] && echo es || true; }

run_ragpipe() {
  local round=$1 variant group lang
  for variant in "${RAGPIPE_VARIANTS[@]}"; do
    for group in en es; do
      lang="$(lang_of "$group")"
      # From $OUT, so no ./ragpipe.toml of the caller's changes the settings.
      (cd "$OUT" && run "ragpipe-$variant" "$group" "$round" \
        env RAGPIPE_ASR_MODEL=base RAGPIPE_ASR_DIR="$ASR_DIR" RAGPIPE_ASR_VARIANT="$variant" \
          RAGPIPE_ASR_THREADS="$THREADS" ${lang:+RAGPIPE_ASR_LANGUAGE=$lang} \
          "$BIN" bench asr --json)
    done
  done
}

# CTranslate2 picks its GEMM library by CPU vendor: Intel MKL on Intel, oneDNN
# elsewhere. On AMD (this project's machines) oneDNN's float32 GEMM measured
# ~3x slower than MKL's, while int8 is ~6x slower on MKL than on oneDNN; so
# float32 is forced onto MKL (already the default on Intel) and int8 keeps
# the default, and each anchor runs at its best.
run_fw() {
  local round=$1 ct group lang gemm
  for ct in "${FW_TYPES[@]}"; do
    gemm=(-u CT2_USE_MKL)
    [[ $ct == float32 ]] && gemm=(CT2_USE_MKL=1)
    for group in en es; do
      lang="$(lang_of "$group")"
      run "faster-whisper-$ct" "$group" "$round" env "${gemm[@]}" \
        "$VENV/bin/python" "$ROOT/scripts/asr/fw_bench.py" --model-dir "$CT2" --compute-type "$ct" \
          --threads "$THREADS" ${lang:+--language "$lang"}
    done
  done
}

REV="$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')"
git -C "$ROOT" diff --quiet HEAD -- 2>/dev/null || REV="$REV+dirty"
{
  echo "compare-asr: $(date -u +%FT%TZ), $(nproc) cores, load before $LOAD_BEFORE"
  [[ "$ONLY" != faster-whisper ]] && echo "ragpipe $REV ($BIN; variants ${RAGPIPE_VARIANTS[*]}), ONNX Runtime $(basename "${ORT_DYLIB_PATH:-?}")"
  [[ "$ONLY" != ragpipe ]] && echo "$FW_VERSIONS (compute types ${FW_TYPES[*]}; float32 on MKL, int8 on CTranslate2's default GEMM for $(grep -m1 -o 'AuthenticAMD\|GenuineIntel' /proc/cpuinfo || echo 'this CPU'))"
  echo "weights: $CT2; $THREADS threads; greedy; Spanish language: $ES_LANGUAGE; $ROUNDS round(s)"
} | tee "$OUT/report.txt"

for ((round = 1; round <= ROUNDS; round++)); do
  if [[ -z "$ONLY" ]]; then
    if ((round % 2)); then run_ragpipe "$round"; run_fw "$round"; else run_fw "$round"; run_ragpipe "$round"; fi
  elif [[ "$ONLY" == ragpipe ]]; then
    run_ragpipe "$round"
  else
    run_fw "$round"
  fi
done

log "scoring"
python3 "$ROOT/scripts/asr/text.py" >/dev/null || die "scripts/asr/text.py failed its self-test"
python3 "$ROOT/scripts/asr/score.py" --manifest "$MANIFEST" --runs "$OUT" --diffs "$OUT/diffs.txt" | tee -a "$OUT/report.txt"
echo "load average (1, 5, 15 min) before: $LOAD_BEFORE, after: $(load), on $(nproc) cores" | tee -a "$OUT/report.txt"
echo "kept in $OUT: report.txt, diffs.txt (each clip's reference and transcripts), NAME.GROUP.rN.jsonl/.time"
