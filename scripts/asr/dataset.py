"""Builds the fixed benchmark set of scripts/compare-asr.sh: manifest.json and long.wav.

Run by scripts/asr-data.sh once the packages are in place. Everything is real
recorded speech with a human-written reference; the subset is fixed so two
runs (or two machines) score the same clips:

- librivox (5 clips) and cards (5) from pocketsphinx-testdata, jfk (1);
- asterisk-en / asterisk-es: of the prompts whose reference is plain words
  (no "[tone]" descriptions, no "#" or "*" written for "pound"/"star") with
  at least 5 words, shorter than one 30 s window (so every short clip is
  one padded window; long audio is the long recording's job), in name
  order, every Nth so that COUNT are spread over the whole catalogue rather
  than taken from one corner of it;
- long: one ~2 min recording, because both engines pad every input to a 30 s
  window and short clips alone say nothing about long-audio speed. The
  LibriVox clips + jfk make only ~36 s, so the cards and the English asterisk
  prompts follow them, all at 16 kHz with 0.5 s of silence between clips. Its
  parts' offsets are in the manifest, so a transcript's timestamps can be
  checked against where each clip really is.
"""

import argparse
import gzip
import json
import re
import subprocess
import sys
import wave
from pathlib import Path

GAP_SECONDS = 0.5
WINDOW_SECONDS = 30.0
RATE = 16000


def log(msg):
    print(f"asr-data: {msg}", file=sys.stderr, flush=True)


def duration(path):
    with wave.open(str(path)) as w:
        return w.getnframes() / w.getframerate()


def librivox_like(transcription, folder):
    """pocketsphinx's `<s> text </s> (id)` lines; the clip is folder/id.wav."""
    clips = []
    for line in Path(transcription).read_text().splitlines():
        m = re.match(r"\s*<s>(.*)</s>\s*\((\S+)\)\s*$", line)
        if m:
            wav = Path(folder) / f"{m.group(2)}.wav"
            clips.append({"file": str(wav), "ref": " ".join(m.group(1).split())})
    return clips


def jfk_reference(readme):
    """The line whisper.cpp's README prints for jfk.wav, without its timestamps."""
    for line in Path(readme).read_text().splitlines():
        if "ask not what your country" in line:
            return re.sub(r"^\s*\[[^\]]*\]\s*", "", line).strip()
    sys.exit(f"dataset.py: no jfk transcript in {readme}")


def asterisk(sounds, transcripts, count):
    names = []
    with gzip.open(transcripts, "rt", encoding="utf-8") as f:
        for line in f:
            if line.startswith(";") or ": " not in line:
                continue
            name, text = line.rstrip("\n").split(": ", 1)
            text = " ".join(text.split())
            wav = Path(sounds) / f"{name}.wav"
            if re.search(r"[\[\]#*]", text) or len(text.split()) < 5 or not wav.is_file():
                continue
            if duration(wav) >= WINDOW_SECONDS:
                continue
            names.append({"file": str(wav), "ref": text})
    names.sort(key=lambda c: c["file"])
    if len(names) < count:
        sys.exit(f"dataset.py: only {len(names)} usable prompts in {transcripts}")
    step = len(names) // count
    return names[::step][:count]


def make_long(parts, out):
    """Every part resampled to 16 kHz mono, 0.5 s of silence between parts;
    offsets from the converted files' own sample counts."""
    tmp = out.parent / "long-parts"
    tmp.mkdir(exist_ok=True)
    silence = tmp / "gap.wav"
    subprocess.run(["sox", "-n", "-r", str(RATE), "-c", "1", "-b", "16", str(silence), "trim", "0",
                    str(GAP_SECONDS)], check=True)
    inputs, placed, offset = [], [], 0.0
    for i, part in enumerate(parts):
        conv = tmp / f"{i:02d}.wav"
        subprocess.run(["sox", part["file"], "-r", str(RATE), "-c", "1", "-b", "16", str(conv)], check=True)
        if inputs:
            inputs.append(str(silence))
            offset += duration(silence)
        d = duration(conv)
        placed.append({**part, "offset": round(offset, 4), "duration": round(d, 4)})
        inputs.append(str(conv))
        offset += d
    subprocess.run(["sox", *inputs, str(out)], check=True)
    for f in tmp.iterdir():
        f.unlink()
    tmp.rmdir()
    return placed


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--pocketsphinx", required=True, help="…/pocketsphinx/test/data")
    p.add_argument("--jfk", required=True)
    p.add_argument("--jfk-readme", required=True)
    p.add_argument("--asterisk-en", nargs=2, required=True, metavar=("SOUNDS", "TXT_GZ"))
    p.add_argument("--asterisk-es", nargs=2, required=True, metavar=("SOUNDS", "TXT_GZ"))
    p.add_argument("--count", type=int, default=20, help="asterisk prompts per language")
    p.add_argument("--out", required=True)
    a = p.parse_args()

    ps = Path(a.pocketsphinx)
    sets = [
        ("librivox", "en", librivox_like(ps / "librivox/transcription", ps / "librivox")),
        ("cards", "en", librivox_like(ps / "cards/cards.transcription", ps / "cards")),
        ("jfk", "en", [{"file": a.jfk, "ref": jfk_reference(a.jfk_readme)}]),
        ("asterisk-en", "en", asterisk(*a.asterisk_en, a.count)),
        ("asterisk-es", "es", asterisk(*a.asterisk_es, a.count)),
    ]
    out = Path(a.out)
    manifest = {"sets": []}
    for name, language, clips in sets:
        for c in clips:
            c["duration"] = round(duration(c["file"]), 4)
        manifest["sets"].append({"name": name, "language": language, "clips": clips})
        log(f"{name}: {len(clips)} clips, {sum(c['duration'] for c in clips):.1f} s")

    by_name = {s["name"]: s["clips"] for s in manifest["sets"]}
    order = by_name["librivox"] + by_name["jfk"] + by_name["cards"] + by_name["asterisk-en"]
    long_wav = out / "long.wav"
    log(f"concatenating {len(order)} clips into {long_wav}")
    parts = make_long(order, long_wav)
    manifest["sets"].append({"name": "long", "language": "en", "clips": [{
        "file": str(long_wav), "duration": round(duration(long_wav), 4),
        "ref": " ".join(p["ref"] for p in parts), "parts": parts}]})
    log(f"long: {duration(long_wav):.1f} s")

    tmp = out / "manifest.json.tmp"
    tmp.write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n")
    tmp.replace(out / "manifest.json")


if __name__ == "__main__":
    main()
