#!/usr/bin/env bash
# Every test: provisions the model (cached), then runs the whole workspace's
# tests against the real model, SQLite, PostgreSQL (127.0.0.1:5432, database
# `test`) and qdrant-edge, and checks the evaluation golden set.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

eval "$(scripts/provision-model.sh)"
export RAGPIPE_TEST_POSTGRES_URL="${RAGPIPE_TEST_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/test}"
python3 eval/check_golden.py
cargo test --workspace --no-fail-fast
# The retrieval regression gate on the dev golden set (docs/EVALUATION.md).
cargo build --quiet -p ragpipe
eval/gate.sh
