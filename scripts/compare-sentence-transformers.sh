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
# sha256 below, installed with --no-deps from PyPI only; it is rebuilt only
# when the pins change. It is large (about 3 GB of wheels, ~5 GB on disk):
# PyPI's only Linux x86_64 torch build links against the CUDA libraries
# (libtorch.so needs libtorch_cuda.so, which needs cuBLAS, cuDNN, NCCL, ...),
# so `import torch` fails without the nvidia-* wheels even on a CPU-only box,
# and CPU-only builds are not published on PyPI. triton (torch.compile's JIT,
# unused by eager CPU inference) is the one dependency left out.
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
ST_VENV="$CACHE/st-venv"
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
    -h|--help) sed -n '2,41p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument: $1 (see --help)" ;;
  esac
done

# The complete, flattened closure of sentence-transformers + torch for
# CPython 3.11 on manylinux x86_64, as pip resolved it, minus triton.
# To bump: pip install --dry-run --ignore-installed --report r.json
# sentence-transformers==X torch==Y, and take names, versions and sha256 from
# r.json.
PINS='
annotated-doc==0.0.7 --hash=sha256:6bc31bbbec6dfaaedc1676dbc11dbda96fe22a2b5c400e9ebad113fec44a9dc6
annotated-types==0.8.0 --hash=sha256:f072f4d804ea359e4eaf198b1af7a8b0943881a87f31bb764f8bf219bb9419e0
anyio==4.16.0 --hash=sha256:c66ae634e0b8228396b801741beb3294326d4b6102f7bba4041c0dfb58c29026
click==8.5.1 --hash=sha256:8bb5376d2006950386f8c6427613334a2acadc5f559cb80e638d00b4df957e37
cloudpickle==3.1.3 --hash=sha256:1654f4f18e416447210a63c5c25a135d65a292156aa5fa519dfa4baf7726dddb
cuda-bindings==13.5.0 --hash=sha256:08b7e8d674c3266facb00453a7e34ea7d3ea965c2f594bb728f269f45f39fbe2
cuda-pathfinder==1.9.1 --hash=sha256:b743c132f90ad2d1e71d43fd28f31ebcde518f943e50fd44aca62b2a80d5230d
cuda-toolkit==13.2.2 --hash=sha256:d12edc1aad1356236a2ee10c0d794b1aff5d3e79bfeca54867c3bb8e5afd87b0
filelock==4.3.1 --hash=sha256:79e43df8e9fe509cd83a3899a7c186c8077cbbe4d200a1ed3705c2f3bb6bc487
fsspec==2026.9.0 --hash=sha256:8dd6e646e99ea382bd85f97a45e6b526a442d79423a7dc673f1e2756d05fcb5f
h11==0.16.0 --hash=sha256:63cf8bbe7522de3bf65932fda1d9c2772064ffb3dae62d55932da54b31cb6c86
hf-xet==1.8.0 --hash=sha256:29dab7c904cd1914a0439c6e1306c12c7497c8bd32290fbe563ebf51ca4b6d6d
httpcore2==2.16.2 --hash=sha256:16051ae2a42f776007543f32de9349a317b23d2cbb4e1456b4bac0e88b87419a
httpx2==2.16.2 --hash=sha256:f05c13aade4c45dbf1c9060647a1058f0acad62398fad96e741269edb33d46f5
huggingface_hub==2.4.0 --hash=sha256:42ecfd93ede47bdd333daebbf66a32d7bfe2e18752754fe4d2d4f98a0179d801
idna==3.20 --hash=sha256:ab7ae7122974553370f0bdb919e1a960b2cd1bc1ef0276416d896db81c14582c
Jinja2==3.1.6 --hash=sha256:85ece4451f492d0c13c5dd7c13a64681a86afae63a5f347908daf103ce6d2f67
joblib==1.6.0 --hash=sha256:3dbbf9f6e4b592a2357b854608e980fe6390d131d7a82f011a377ef2ebef7aba
markdown-it-py==4.3.0 --hash=sha256:7aa1511a46c39138de78d9eba92ce47e63124d8003fc98b3a351909e04239efa
MarkupSafe==3.0.4 --hash=sha256:6da83a088f8ef93b2d483a8232a4dbf4d69d3d8496b568a03c56becac43e1808
mdurl==0.1.2 --hash=sha256:84008a41e51615a49fc9966191ff91509e3c40b939176e643fd50a5c2196b8f8
mpmath==1.3.0 --hash=sha256:a0b2b9fe80bbcd81a6647ff13108738cfb482d481d826cc0e02f5b35e5c88d2c
narwhals==2.29.0 --hash=sha256:1c69b3dc30240f6e848c5a673cafc86affa44184ecce721e25b7194663ad10dc
networkx==3.6.1 --hash=sha256:d47fbf302e7d9cbbb9e2555a0d267983d2aa476bac30e90dfbe5669bd57f3762
numpy==2.4.6 --hash=sha256:89cd468399cfd2504718f0ba50e410dca55a170b61a02ad92bb18c8a65186e93
nvidia-cublas==13.4.1.3 --hash=sha256:a5917cb642cfb07f4a0231ee16aec7e2e0357d8cb8b1b78a0c9c68dba3e6afc7
nvidia-cuda-cccl==13.3.5.0.6 --hash=sha256:d5230098fa2df5021e1a00c0c4eee41797671a91119d31e892463e5ccf3ee326
nvidia-cuda-cupti==13.2.86 --hash=sha256:8fa29f15dd8336181f961764d9d95236fc6b931dd0c8fcf8cd70aab0c310b586
nvidia-cuda-nvrtc==13.2.86 --hash=sha256:8111c5130e967b78222ea2124145f8efe9ce201b752b2579a2513100a53be1c5
nvidia-cuda-runtime==13.2.86 --hash=sha256:3498247680dfddce31bad102af7e3e26fc795342a3cac64722bb0fa95e7f60f0
nvidia-cudnn-cu13==9.26.0.51 --hash=sha256:9c976d539786698c71d6bcdbe2053b7485fae062ff7e1215d2f2ff67b1a2149a
nvidia-cufft==12.2.0.57 --hash=sha256:34da27fadf3979b0b042c43823f0530be8408b86df31ee0108e1ca0b621d4ef6
nvidia-cufile==1.17.1.22 --hash=sha256:87feaf8c3ad20d3d03a01933181801ff6892bace5c8f0b1e4b48f319d3e62d36
nvidia-cusolver==12.2.0.11 --hash=sha256:fab5778f6769947389a1a6abc07e635576825a08c0ffc68c3ae7f1392c794b42
nvidia-cusparse==12.7.10.12 --hash=sha256:25907c75e4db1581685f06f61cc6cdecc04611765516a52373e0a18ebd69fa00
nvidia-cusparselt-cu13==0.8.1 --hash=sha256:786ce87568c303fadb5afcc7102d454cd3040d75f6f8626f5db460d1871f4dd0
nvidia-nccl-cu13==2.30.7 --hash=sha256:cefa7fdb9710efd0f39c5f1be1d61ff6fc9a996c451265bd7fbdcf9455ed4b50
nvidia-nvjitlink==13.5.37 --hash=sha256:280d7cb9649704145f074b8dbde500de04ce02d0872e066e20a83c17bcaa93eb
nvidia-nvshmem-cu13==3.7.2 --hash=sha256:b9a4f843c62b5dded8ad33fd6d220e007dcd39f06cee549292f5ba14ce4c235c
nvidia-nvtx==13.2.86 --hash=sha256:968ce72baee2a01791c7d3254000eac81f24677b0b91c62d21b449a1f309c245
packaging==26.4 --hash=sha256:81383611a09c1bc0b08b76e0fd5829d7c6824c65b27a6aee339da133f4233ea2
pydantic==2.14.4 --hash=sha256:653a2ad9f6d8858529c77c72717d0ea991d6c6837fe683246b2f4b2bbfc3fadc
pydantic_core==2.50.5 --hash=sha256:488319076ec92908b91fc6265ce761f1d78748f69f85518564fd16bf333e1b70
Pygments==2.21.0 --hash=sha256:2363c69b61c4a97c838da3b130dcd6468f4848992b21a82f2a63ec34377137d9
PyYAML==6.0.4 --hash=sha256:622aa875fa6533f25fedcffe23079357d65a690d462200afed5d8e9d0e01ebee
regex==2026.11.19 --hash=sha256:86d3b2ea69b3c56df3e8ddbac6cd98eaf5a8c5b5e7e006897ebdf7a28d6818e6
rich==15.0.0 --hash=sha256:33bd4ef74232fb73fe9279a257718407f169c09b78a87ad3d296f548e27de0bb
safetensors==0.8.0 --hash=sha256:fd6f3f93c9a0a7cc2788ee63fb763353d4bd2e89b0751bc78fcf7dda00bea774
scikit-learn==1.9.1 --hash=sha256:52a0703bbc07ad27f560fa63fa68e4c54dd735bfbbf65b4dd3c225dc7547b6df
scipy==1.17.1 --hash=sha256:43af8d1f3bea642559019edfe64e9b11192a8978efbd1539d7bc2aaa23d92de4
sentence-transformers==6.2.0 --hash=sha256:ffb51ccfef65427cfa61776d0eeeb257600b0099cf0c7533ae9a6856d31e4665
setuptools==84.2.1 --hash=sha256:ca140b45d5325a9478f880e351484f62fef15f336462e449ca0c03c873d589c2
shellingham==1.5.4 --hash=sha256:7ecfff8f2fd72616f7481040475a65b2bf8af90a56c89140852d1120324e8686
sympy==1.14.0 --hash=sha256:e091cc3e99d2141a0ba2847328f5479b05d94a6635cb96148ccb3f34671bd8f5
threadpoolctl==3.8.0 --hash=sha256:f1b49c82704d50f13ffae019c727b0fa4f6791a58f48f06a09c45face1be66da
tokenizers==0.23.3 --hash=sha256:376851d22bcf9d650a5c3090bb83e6cf9e895fbf0595369fa4cd43c1f69b5f87
torch==2.15.0 --hash=sha256:48c2d861134c0b5697c7602cb5ffa68f62a2989fdcd1717e593356f67996ca1e
tqdm==4.70.1 --hash=sha256:c293e525e6fef9c20e8728fd4612df02a0aa31bb5fe91ecd93e123b1b7bffa73
transformers==5.24.0 --hash=sha256:ff5ebedf9359f94bb63772b6380eba6e7104d010cbbb2cb82c788817ea7486f6
truststore==0.10.5 --hash=sha256:9aaaedaefaf06d8b206278cf8b5012bc897f485a874503501e12d776df78951c
typer==0.29.2 --hash=sha256:f30731f8ca758368b836b3714872e58e395cef8fcaff918c853b1969ed5274e7
typing-inspection==0.4.5 --hash=sha256:bc210535442b39e1bf2805e0c7a17dfd6a4ace760c84c7f7d16245d23a6b1c39
typing_extensions==4.16.0 --hash=sha256:481caa481374e813c1b176ada14e97f1f67a4539ce9cfeb3f350d78d6370c2e8
'

load() { cut -d' ' -f1-3 /proc/loadavg; }
LOAD_BEFORE="$(load)"
log "load average before: $LOAD_BEFORE ($(nproc) cores)"

cd "$ROOT"

# ---- model ----------------------------------------------------------------
_env=$("$ROOT/scripts/provision-model.sh"); eval "$_env"
[[ -f "$RAGPIPE_MODEL_DIR/modules.json" ]] || die "$RAGPIPE_MODEL_DIR is not a sentence-transformers checkpoint"

# ---- sentence-transformers venv -------------------------------------------
PINS_HASH="$(printf '%s' "$PINS" | sha256sum | cut -d' ' -f1)"
st_venv_ok() {
  [[ -x "$ST_VENV/bin/python" && -f "$ST_VENV/.pins.sha256" && "$(cat "$ST_VENV/.pins.sha256")" == "$PINS_HASH" ]]
}

mkdir -p "$CACHE"
exec 8>"$CACHE/.st-venv.lock"
flock 8
if ! st_venv_ok; then
  # shellcheck source=lib/python.sh
  source "$ROOT/scripts/lib/python.sh"
  find_python

  log "installing sentence-transformers + torch into $ST_VENV (about 3 GB download, ~5 GB on disk)"
  rm -rf "$ST_VENV"
  "$PYTHON" -m venv "$ST_VENV" || die "python -m venv failed (on Debian: apt-get install python3.11-venv)"
  REQ="$(mktemp)"
  printf '%s\n' "$PINS" >"$REQ"
  t0=$SECONDS
  # --no-cache-dir: do not keep a second copy of the wheels in pip's cache.
  "$ST_VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-cache-dir \
    --no-deps --only-binary=:all: --require-hashes -r "$REQ" \
    || { rm -f "$REQ"; die "pip install into $ST_VENV failed"; }
  rm -f "$REQ"
  secs=$((SECONDS - t0))
  HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 "$ST_VENV/bin/python" -c \
    'import torch, sentence_transformers; torch.ones(2, 2) @ torch.ones(2, 2)' \
    || die "imports failed in $ST_VENV after install"
  size="$(du -sh "$ST_VENV" | cut -f1)"
  printf 'installed %s in %ss, %s on disk\n' "$(date -u +%FT%TZ)" "$secs" "$size" >"$ST_VENV/.install-info"
  # Written last, so an interrupted install is redone next time.
  echo "$PINS_HASH" >"$ST_VENV/.pins.sha256"
  log "venv ready: $(cat "$ST_VENV/.install-info")"
else
  log "venv $ST_VENV up to date ($(cat "$ST_VENV/.install-info" 2>/dev/null || echo 'no install record'))"
fi
flock -u 8

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
  "$BIN" bench embed --folder "$FOLDER" --chunks "$CHUNKS" --batches "$BATCHES" \
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
