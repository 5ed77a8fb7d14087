# Sourced by compare-sentence-transformers.sh and compare-peers.sh: the one
# throwaway venv both measure in, ${CACHE}/st-venv. The caller sets CACHE and
# ROOT and defines log and die first.
#
# ensure_st_venv [EXTRA_REQUIREMENTS...]: makes sure the venv holds exactly
# scripts/st-requirements.txt (sentence-transformers + torch), rebuilding it
# from scratch when those pins change, and then every EXTRA file on top
# (compare-peers.sh: scripts/peers-requirements.txt). An extra file must only
# add packages: it is installed with --no-deps into the same venv, so a pin it
# shared with the base would change what the other script measures (checked
# below). Each part records the hash of its pin lines once installed, so an
# interrupted install is redone next time and an unchanged one is a no-op.
# Sets ST_VENV and ST_PYTHON.

ST_VENV="$CACHE/st-venv"
ST_PYTHON="$ST_VENV/bin/python"

# pin_lines FILE: the requirement lines (comments and blanks do not count).
pin_lines() { grep -E '^[^#[:space:]]' "$1"; }

# The base hash is the one compare-sentence-transformers.sh recorded when the
# pins lived inline in it (a newline, the lines, a newline), so a venv built
# then is still current.
st_pins_hash() { printf '\n%s\n' "$(pin_lines "$1")" | sha256sum | cut -d' ' -f1; }

# st_pip_install REQUIREMENTS: pinned, hashed, wheels only, PyPI only; pip's
# own progress (bars included) goes to stderr so a 3 GB download is never a
# silent terminal. --no-cache-dir: no second copy of the wheels in pip's cache.
st_pip_install() {
  "$ST_PYTHON" -m pip install --disable-pip-version-check --no-cache-dir --progress-bar on \
    --no-deps --only-binary=:all: --require-hashes -r "$1" >&2
}

ensure_st_venv() {
  local base="$ROOT/scripts/st-requirements.txt" want extra marker name t0 dup
  want="$(st_pins_hash "$base")"
  mkdir -p "$CACHE"
  exec 8>"$CACHE/.st-venv.lock"
  flock 8
  if [[ -x "$ST_PYTHON" && -f "$ST_VENV/.pins.sha256" && "$(cat "$ST_VENV/.pins.sha256")" == "$want" ]]; then
    log "venv $ST_VENV up to date ($(cat "$ST_VENV/.install-info" 2>/dev/null || echo 'no install record'))"
  else
    # shellcheck source=python.sh
    source "$ROOT/scripts/lib/python.sh"
    find_python
    log "installing sentence-transformers + torch into $ST_VENV (about 3 GB download, ~5 GB on disk; pip's progress follows)"
    rm -rf "$ST_VENV"
    "$PYTHON" -m venv "$ST_VENV" || die "python -m venv failed (on Debian: apt-get install python3.11-venv)"
    t0=$SECONDS
    st_pip_install "$base" || die "pip install -r $base into $ST_VENV failed"
    HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 "$ST_PYTHON" -c \
      'import torch, sentence_transformers; torch.ones(2, 2) @ torch.ones(2, 2)' \
      || die "imports failed in $ST_VENV after install"
    printf 'installed %s in %ss, %s on disk\n' "$(date -u +%FT%TZ)" "$((SECONDS - t0))" \
      "$(du -sh "$ST_VENV" | cut -f1)" >"$ST_VENV/.install-info"
    # Written last, so an interrupted install is redone next time.
    echo "$want" >"$ST_VENV/.pins.sha256"
    log "venv ready: $(cat "$ST_VENV/.install-info")"
  fi

  for extra in "$@"; do
    name="$(basename "$extra" .txt)"
    marker="$ST_VENV/.extra-$name.sha256"
    want="$(st_pins_hash "$extra")"
    [[ -f "$marker" && "$(cat "$marker")" == "$want" ]] && continue
    dup="$(comm -12 <(pin_lines "$base" | cut -d= -f1 | tr 'A-Z_.' 'a-z--' | sort -u) \
                    <(pin_lines "$extra" | cut -d= -f1 | tr 'A-Z_.' 'a-z--' | sort -u) | tr '\n' ' ')"
    [[ -z "$dup" ]] || die "$extra pins packages that $base pins too: $dup(it may only add packages)"
    log "adding $(pin_lines "$extra" | wc -l) pinned packages from $extra to $ST_VENV (pip's progress follows)"
    t0=$SECONDS
    st_pip_install "$extra" || die "pip install -r $extra into $ST_VENV failed"
    echo "$want" >"$marker"
    log "added $name in $((SECONDS - t0))s"
  done
  flock -u 8
}
