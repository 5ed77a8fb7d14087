"""Scores scripts/compare-asr.sh's runs: one table per clip set, then memory and
the timestamp checks.

Reads the manifest (scripts/asr-data.sh) and the run folder, where every
engine process left NAME.GROUP.rROUND.jsonl (its JSON lines, the same shape
from both engines) and NAME.GROUP.rROUND.time (/usr/bin/time's "%M %e": the
process's peak RSS in KiB, wall seconds). NAME is ENGINE-VARIANT.

Figures and why they are taken that way:
- WER: total word edits / reference words over a set (not a mean of clip
  rates, which would let a 3-word prompt weigh as much as a paragraph);
  "norm" writes numbers as words, "raw" does not (scripts/asr/text.py).
  Decoding is greedy, so it is the same every round; a difference is flagged.
- RTF: transcription seconds / audio seconds over the set, best round: on a
  shared machine the best round is the least disturbed one. Per-round
  figures are printed too, as rounds alternate between the engines.
- Timestamps: every segment must lie in [0, duration] of its clip; in the
  long recording, each clip's reference words must be found in the segments
  overlapping that clip's span (word recall >= 0.5), or the text is right
  but the timestamps (and so ragpipe's #t= locators) point elsewhere.
"""

import argparse
import collections
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from text import edits, words  # noqa: E402

ORDER = ("ragpipe-fp32", "ragpipe-int8", "faster-whisper-float32", "faster-whisper-int8")
PAIRS = (("ragpipe-fp32", "faster-whisper-float32"), ("ragpipe-int8", "faster-whisper-int8"),
         ("ragpipe-fp32", "faster-whisper-int8"))
TOLERANCE = 0.001  # timestamps are printed to the millisecond
RECALL = 0.5


def load_runs(folder):
    """{name: {round: {"lines": {file: line}, "summary": [..], "rss": [(group, MiB)]}}}"""
    runs = collections.defaultdict(lambda: collections.defaultdict(
        lambda: {"lines": {}, "summary": [], "rss": []}))
    for path in sorted(Path(folder).glob("*.r*.jsonl")):
        m = re.fullmatch(r"(.+)\.([^.]+)\.r(\d+)\.jsonl", path.name)
        if not m:
            continue
        r = runs[m.group(1)][int(m.group(3))]
        for line in path.read_text().splitlines():
            if not line.startswith("{"):
                continue
            obj = json.loads(line)
            if "file" in obj:
                r["lines"][obj["file"]] = obj
            elif "load_seconds" in obj:
                r["summary"].append(obj)
        timing = path.with_suffix(".time")
        if timing.is_file():
            fields = timing.read_text().split()
            if fields and fields[0].isdigit():
                r["rss"].append((m.group(2), int(fields[0]) / 1024))
    return runs


def transcript(line):
    return " ".join(s["text"] for s in line.get("segments", [])) if line else ""


def score_set(clip_set, rounds):
    """(wer_norm, wer_raw, rtf per round, wrong languages, errors, wer differs between rounds,
    share of the best round's time inside Whisper itself, when the engine reports it)."""
    lang = clip_set["language"]
    per_round, rtfs, wrong_lang, errors, inside, spent = [], {}, 0, 0, {}, {}
    # A round whose process for this set's language has not run yet (or
    # died before any line) says nothing about it.
    rounds = {k: r for k, r in rounds.items() if any(c["file"] in r["lines"] for c in clip_set["clips"])}
    for rnd, r in sorted(rounds.items()):
        e_norm = e_raw = n_norm = n_raw = 0
        seconds = audio = 0.0
        for clip in clip_set["clips"]:
            line = r["lines"].get(clip["file"])
            if line is None or "error" in line:
                errors += rnd == min(rounds)
                line = None
            else:
                seconds += line["seconds"]
                if "transcribe_seconds" in line:
                    inside[rnd] = inside.get(rnd, 0.0) + line["transcribe_seconds"]
                audio += clip["duration"]
                wrong_lang += rnd == min(rounds) and line.get("language") != lang
            hyp = transcript(line)
            ref_n, ref_r = words(clip["ref"], lang), words(clip["ref"], lang, numbers=False)
            e_norm += edits(ref_n, words(hyp, lang))
            e_raw += edits(ref_r, words(hyp, lang, numbers=False))
            n_norm, n_raw = n_norm + len(ref_n), n_raw + len(ref_r)
        per_round.append((e_norm / max(n_norm, 1), e_raw / max(n_raw, 1)))
        if audio:
            rtfs[rnd], spent[rnd] = seconds / audio, seconds
    unstable = len({round(w, 6) for w, _ in per_round}) > 1
    if not per_round:
        return None
    best = min(rtfs, key=rtfs.get) if rtfs else None
    share = inside[best] / spent[best] if best in inside and spent[best] else None
    return per_round[0][0], per_round[0][1], rtfs, wrong_lang, errors, unstable, share


def check_bounds(clips, r):
    """(segments, outside [0, duration], worst overshoot in seconds)."""
    n = bad = 0
    worst = 0.0
    for clip in clips:
        for s in (r["lines"].get(clip["file"]) or {}).get("segments", []):
            n += 1
            over = max(-s["start"], s["end"] - clip["duration"], s["start"] - s["end"], 0.0)
            if over > TOLERANCE:
                bad += 1
                worst = max(worst, over)
    return n, bad, worst


def check_long(long_clip, r, language):
    """Per part: recall of its reference words in the segments overlapping its span."""
    segs = (r["lines"].get(long_clip["file"]) or {}).get("segments", [])
    out = []
    for part in long_clip["parts"]:
        lo, hi = part["offset"], part["offset"] + part["duration"]
        near = collections.Counter(w for s in segs if s["end"] > lo and s["start"] < hi
                                   for w in words(s["text"], language))
        ref = collections.Counter(words(part["ref"], language))
        found = sum(min(c, near[w]) for w, c in ref.items())
        out.append((Path(part["file"]).name, lo, hi, found / max(sum(ref.values()), 1)))
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--manifest", required=True)
    p.add_argument("--runs", required=True, help="folder of NAME.GROUP.rN.jsonl/.time")
    p.add_argument("--diffs", help="write each clip's reference and transcripts here")
    a = p.parse_args()
    manifest = json.loads(Path(a.manifest).read_text())
    runs = load_runs(a.runs)
    names = [n for n in ORDER if n in runs] + sorted(set(runs) - set(ORDER))
    if not names:
        sys.exit(f"score.py: no runs in {a.runs}")

    for clip_set in manifest["sets"]:
        clips = clip_set["clips"]
        audio = sum(c["duration"] for c in clips)
        n_words = sum(len(words(c["ref"], clip_set["language"])) for c in clips)
        print(f"\n== {clip_set['name']} ({clip_set['language']}): {len(clips)} clips, {audio:.1f} s of audio, "
              f"{n_words} reference words")
        print(f"{'engine':<24} {'WER':>6} {'raw':>6} {'RTF best':>9}  {'per round':<20} notes")
        best = {}
        for name in names:
            scored = score_set(clip_set, runs[name])
            if scored is None:
                print(f"{name:<24} (not run)")
                continue
            wer, raw, rtfs, wrong, errors, unstable, share = scored
            best[name] = min(rtfs.values()) if rtfs else None
            notes = [] if share is None else [f"audio decoding {1 - share:.0%} of the time"]
            if wrong:
                notes.append(f"{wrong} clip(s) not detected as {clip_set['language']}")
            if errors:
                notes.append(f"{errors} error(s)")
            if unstable:
                notes.append("WER differs between rounds")
            per = " ".join(f"{rtfs[k]:.3f}" for k in sorted(rtfs))
            rtf = f"{best[name]:.3f}" if best[name] is not None else "-"
            print(f"{name:<24} {wer:>6.1%} {raw:>6.1%} {rtf:>9}  {per:<20} {'; '.join(notes)}")
        for rp, fw in PAIRS:
            if best.get(rp) and best.get(fw):
                print(f"  RTF ratio {rp} / {fw}: {best[rp] / best[fw]:.2f}x")

    print("\n== memory and load (per engine process; peak RSS from /usr/bin/time, whole process)")
    print(f"{'engine':<24} {'peak RSS MiB':>13} {'self-reported':>14} {'load s best':>12}")
    peaks = {}
    for name in names:
        rss = [mib for r in runs[name].values() for _, mib in r["rss"]]
        summ = [s for r in runs[name].values() for s in r["summary"]]
        peaks[name] = max(rss) if rss else None
        own = max((s.get("peak_rss_mib", 0) for s in summ), default=0)
        load = min((s.get("load_seconds", 0) for s in summ), default=0)
        print(f"{name:<24} {peaks[name] or 0:>13.0f} {own:>14.0f} {load:>12.2f}")
    for rp, fw in PAIRS:
        if peaks.get(rp) and peaks.get(fw):
            print(f"  peak RSS ratio {rp} / {fw}: {peaks[rp] / peaks[fw]:.2f}x")

    print("\n== timestamps (first round): segments inside [0, duration] of their clip")
    long_set = next((s for s in manifest["sets"] if s["name"] == "long"), None)
    all_clips = [c for s in manifest["sets"] for c in s["clips"]]
    for name in names:
        r = runs[name][min(runs[name])]
        n, bad, worst = check_bounds(all_clips, r)
        verdict = "ok" if bad == 0 else f"{bad} OUTSIDE (worst by {worst:.3f} s)"
        line = f"{name:<24} {n:>4} segments: {verdict}"
        if long_set:
            parts = check_long(long_set["clips"][0], r, long_set["language"])
            misplaced = [(f, lo, hi, rec) for f, lo, hi, rec in parts if rec < RECALL]
            line += (f"; long recording: {len(parts) - len(misplaced)}/{len(parts)} clips found in "
                     f"their time span (mean word recall {sum(p[3] for p in parts) / len(parts):.2f})")
            for f, lo, hi, rec in misplaced:
                line += f"\n    {f} [{lo:.1f}, {hi:.1f}] s: recall {rec:.2f}"
        print(line)

    print("\n== same weights, same words? clips whose transcripts match word for word (normalised)")
    for x, y in PAIRS:
        if x in runs and y in runs:
            rx, ry = runs[x][min(runs[x])], runs[y][min(runs[y])]
            same = total = 0
            for s in manifest["sets"]:
                for c in s["clips"]:
                    lx, ly = rx["lines"].get(c["file"]), ry["lines"].get(c["file"])
                    if lx and ly:
                        total += 1
                        same += words(transcript(lx), s["language"]) == words(transcript(ly), s["language"])
            print(f"{x} vs {y}: {same}/{total}")

    if a.diffs:
        with open(a.diffs, "w") as out:
            for clip_set in manifest["sets"]:
                for clip in clip_set["clips"]:
                    out.write(f"## {clip_set['name']} {Path(clip['file']).name}\nref: {clip['ref']}\n")
                    for name in names:
                        line = runs[name][min(runs[name])]["lines"].get(clip["file"])
                        out.write(f"{name}: {transcript(line) if line else '(missing)'}\n")
                    out.write("\n")


if __name__ == "__main__":
    main()
