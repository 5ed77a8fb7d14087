#!/usr/bin/env bash
# The chaos suite: the distributed deployment (SeaweedFS, RabbitMQ,
# PostgreSQL, a Qdrant server of its own, two extractor and two embedder
# processes) indexes a corpus of real files while workers are SIGKILLed and
# restarted, RabbitMQ, PostgreSQL and Qdrant are restarted, and the
# coordinator is killed in the middle of a sync; then every document must be
# indexed or failed with a reason, counts equal points, nothing duplicated,
# nothing of an older generation, nothing lost. Prints progress and one JSON
# summary (also written to target/chaos-summary.json).
#
#   scripts/chaos.sh [--seed N] [--docs N] [--kills N] [--restarts N]
#
# Defaults: seed 7, 210 documents, 20 worker kills, 2 restarts of each
# service. It restarts the machine's RabbitMQ (rabbitmqctl) and PostgreSQL
# (pg_ctlcluster): run it as root on a development or CI machine, never
# beside a deployment that matters. `cargo test` runs the short form.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
SEED=7 DOCS=210 KILLS=20 RESTARTS=2
while [ $# -gt 0 ]; do
  case "$1" in
    --seed) SEED=$2; shift 2 ;;
    --docs) DOCS=$2; shift 2 ;;
    --kills) KILLS=$2; shift 2 ;;
    --restarts) RESTARTS=$2; shift 2 ;;
    *) echo "usage: scripts/chaos.sh [--seed N] [--docs N] [--kills N] [--restarts N]" >&2; exit 2 ;;
  esac
done
scripts/qdrant-server.sh available >/dev/null \
  || { echo "chaos.sh: needs a qdrant binary on the PATH or at \$QDRANT_BIN (shared/tools/build-qdrant.sh)" >&2; exit 3; }
_env=$(scripts/provision-model.sh); eval "$_env"
_env=$(scripts/s3-server.sh start); eval "$_env"
trap 'scripts/s3-server.sh stop' EXIT
export RAGPIPE_TEST_POSTGRES_URL="${RAGPIPE_TEST_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/test}"
echo "chaos.sh: building ragpipe and the chaos test (cargo shows its progress; the first build takes minutes)" >&2
# The test runs target/debug/ragpipe, which cargo does not build for another
# package's tests. Built with the test target and the same features as the
# `cargo test` below, cargo resolves the dependency graph's features as that
# `cargo test` (and scripts/test.sh) does, so the graph is built once.
cargo build --workspace --bins --test chaos --features ragpipe-integration-tests/server-tests
OUT=$(realpath -m "${CARGO_TARGET_DIR:-target}")
SUMMARY=$OUT/chaos-summary.json LOG=$OUT/chaos.log
rm -f "$SUMMARY"
echo "chaos.sh: seed $SEED, $DOCS documents, $KILLS worker kills, $RESTARTS restarts of RabbitMQ, PostgreSQL and Qdrant" >&2
echo "chaos.sh: one line per fault below; the workers' own logs go to $LOG" >&2
RAGPIPE_CHAOS_SEED=$SEED RAGPIPE_CHAOS_DOCS=$DOCS RAGPIPE_CHAOS_WORKER_KILLS=$KILLS RAGPIPE_CHAOS_RESTARTS=$RESTARTS \
RAGPIPE_CHAOS_SUMMARY=$SUMMARY \
  cargo test --workspace --features ragpipe-integration-tests/server-tests --test chaos -- --nocapture 2>&1 \
  | tee "$LOG" | grep --line-buffered -E '^chaos:|panicked|^test result' >&2 \
  && status=0 || status=${PIPESTATUS[0]}
[ -f "$SUMMARY" ] && cat "$SUMMARY"
[ "$status" = 0 ] || echo "chaos.sh: FAILED (exit $status): see $LOG" >&2
exit "$status"
