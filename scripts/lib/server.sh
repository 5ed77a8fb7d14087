# Sourced by the scripts that start local servers for tests (s3-server.sh,
# qdrant-server.sh): a free loopback port, and waiting for a server to answer.

# Prints a TCP port free on 127.0.0.1 now.
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# wait_answering URL PID LOG SECONDS [ok]: returns once URL answers (with
# `ok`: answers with a success status); exits 1 with the log's tail when the
# process dies or SECONDS pass first.
wait_answering() {
  local url=$1 pid=$2 logfile=$3 secs=$4 flags=-s
  [ "${5:-}" = ok ] && flags=-sf
  for _ in $(seq 1 $((secs * 5))); do
    curl "$flags" -o /dev/null "$url" && return 0
    kill -0 "$pid" 2>/dev/null || { log "server died; see $logfile"; tail -20 "$logfile" >&2; exit 1; }
    sleep 0.2
  done
  log "server did not answer in ${secs}s; see $logfile"; exit 1
}
