"""faster-whisper's half of scripts/compare-asr.sh: `ragpipe bench asr --json`'s twin.

Loads the CTranslate2 folder ragpipe's ONNX graphs were built from (so both
engines run the same weights) once, transcribes each file, and prints the
same JSON lines as ragpipe, so one scorer reads both:

    {"file", "duration", "seconds", "rtf", "language", "segments": [{"start", "end", "text"}]}
    ... then {"load_seconds", "audio_seconds", "seconds", "rtf", "peak_rss_mib"}

Settings follow ragpipe's decoder, not faster-whisper's defaults: greedy
(beam 1) at temperature 0 only (ragpipe has no temperature fallback), no VAD,
not conditioned on the previous window's text, timestamps on, Whisper's
no-speech/log-prob thresholds; language detected unless --language is given.
"seconds" counts what ragpipe's counts: decoding and resampling the file plus
transcription (faster-whisper's segments are lazy, so they are drawn inside
the timer).
"""

import argparse
import json
import os
import resource
import sys
import time
from pathlib import Path


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model-dir", required=True, help="CTranslate2 folder (model.bin, config.json, tokenizer.json)")
    p.add_argument("--compute-type", default="int8", help="int8 or float32")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--language", default=None, help="unset: detected per file")
    p.add_argument("files", nargs="+")
    a = p.parse_args()

    # A path that is not a folder would be taken for a hub model name and
    # fetched from the network: refuse it instead.
    if not (Path(a.model_dir) / "model.bin").is_file():
        sys.exit(f"fw_bench.py: no model.bin in {a.model_dir}")
    os.environ["HF_HUB_OFFLINE"] = "1"
    from faster_whisper import WhisperModel

    started = time.perf_counter()
    model = WhisperModel(a.model_dir, device="cpu", compute_type=a.compute_type,
                         cpu_threads=a.threads, num_workers=1, local_files_only=True)
    load = time.perf_counter() - started
    print(f"fw_bench: {a.model_dir} ({a.compute_type}) loaded in {load:.2f}s, {a.threads} threads",
          file=sys.stderr, flush=True)

    audio = spent = 0.0
    for path in a.files:
        started = time.perf_counter()
        segments, info = model.transcribe(
            path, language=a.language, beam_size=1, best_of=1, temperature=0.0,
            condition_on_previous_text=False, vad_filter=False, without_timestamps=False,
            word_timestamps=False, compression_ratio_threshold=2.4, log_prob_threshold=-1.0,
            no_speech_threshold=0.6)
        segs = [{"start": round(s.start, 3), "end": round(s.end, 3), "text": s.text.strip()} for s in segments]
        seconds = time.perf_counter() - started
        audio, spent = audio + info.duration, spent + seconds
        print(json.dumps({"file": path, "duration": info.duration, "seconds": seconds,
                          "rtf": seconds / info.duration if info.duration else 0.0,
                          "language": info.language, "segments": segs}, ensure_ascii=False), flush=True)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"load_seconds": load, "audio_seconds": audio, "seconds": spent,
                      "rtf": spent / audio if audio else 0.0, "peak_rss_mib": peak}), flush=True)


if __name__ == "__main__":
    main()
