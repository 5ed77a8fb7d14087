#!/usr/bin/env bash
# The main job on the embedded default: provision the model (cached after the
# first run), build ragpipe, index the sample folder and ask it a question.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

_env=$(scripts/provision-model.sh); eval "$_env"
# The first build compiles ~600 crates (15-25 minutes on 2 cores): cargo's
# own progress lines show it moving; later runs take seconds.
echo "demo: building ragpipe (cargo build -p ragpipe; the first build takes 15-25 minutes on 2 cores)" >&2
cargo build -p ragpipe
data_dir="${RAGPIPE_DATA_DIR:-.ragpipe}"
"${CARGO_TARGET_DIR:-target}/debug/ragpipe" --data-dir "$data_dir" ingest samples
"${CARGO_TARGET_DIR:-target}/debug/ragpipe" --data-dir "$data_dir" search "How do I update a value in a hash map only if the key has no value yet?" --top-k 3
