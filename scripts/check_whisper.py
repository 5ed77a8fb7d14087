#!/usr/bin/env python3
"""Transcribe a WAV file with build_whisper.py's graphs: the reference for the
Rust pipeline, in numpy and onnxruntime only.

Follows openai-whisper's transcribe() with greedy decoding (temperature 0, no
fallback, no previous-text prompt):
  * 16-bit (or 8/32-bit) PCM WAV, channels averaged, resampled to 16 kHz;
  * log-mel of the audio plus 30 s of zeros: periodic Hann, centred
    reflect-padded STFT (n_fft 400, hop 160), power, last frame dropped, Slaney
    mel filters, log10 clamped at 1e-10, floor at max - 8, (x + 4) / 4;
  * 30 s windows cut from the audio's own frames, zero-padded to 3000;
  * encoder -> cross_kv once per window, then the decoder step by step with its
    KV cache, suppressing blank/suppress_tokens and applying the timestamp
    rules; segments are cut at timestamp pairs and the next window starts at
    the last timestamp (or after the window if it ended on a lone timestamp).
The first window's cached logits are also compared with one uncached pass.

With --int8 it runs the dynamically quantised encoder-int8.onnx, cross_kv-int8.onnx
and decoder-int8.onnx instead. Their activations are quantised per call, so a
step over one token and a pass over many round differently: the cache check
is then only reported, and the transcript (--ref) is what tells.

Usage: check_whisper.py DIR AUDIO.wav [--language xx] [--ref "reference text"] [--int8]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
import wave
from pathlib import Path

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

NEG_INF = -np.inf


def load_wav(path: Path, rate: int) -> np.ndarray:
    with wave.open(str(path)) as w:
        width, channels, sr = w.getsampwidth(), w.getnchannels(), w.getframerate()
        raw = w.readframes(w.getnframes())
    if width == 1:
        x = (np.frombuffer(raw, np.uint8).astype(np.float32) - 128) / 128
    elif width in (2, 4):
        x = np.frombuffer(raw, f"<i{width}").astype(np.float32) / 2 ** (8 * width - 1)
    else:
        sys.exit(f"check_whisper: {width * 8}-bit WAV not supported")
    x = x.reshape(-1, channels).mean(axis=1)
    if sr != rate:  # band-limited resample: truncate or zero-extend the spectrum
        n = round(len(x) * rate / sr)
        x = np.fft.irfft(np.fft.rfft(x), n) * (n / len(x))
    return x.astype(np.float32)


def mel_filters(sr: int, n_fft: int, n_mels: int) -> np.ndarray:
    """librosa.filters.mel(sr, n_fft, n_mels) defaults: Slaney mel scale and
    Slaney (area) normalisation, 0 .. sr/2."""
    f_sp, min_log_hz = 200.0 / 3, 1000.0
    min_log_mel, logstep = min_log_hz / f_sp, np.log(6.4) / 27.0

    def hz_to_mel(f):
        f = np.asarray(f, dtype=np.float64)
        return np.where(f >= min_log_hz, min_log_mel + np.log(np.maximum(f, 1e-10) / min_log_hz) / logstep, f / f_sp)

    def mel_to_hz(m):
        return np.where(m >= min_log_mel, min_log_hz * np.exp(logstep * (m - min_log_mel)), f_sp * m)

    fft_f = np.linspace(0, sr / 2, n_fft // 2 + 1)
    mel_f = mel_to_hz(np.linspace(hz_to_mel(0.0), hz_to_mel(sr / 2), n_mels + 2))
    fdiff = np.diff(mel_f)
    ramps = mel_f[:, None] - fft_f[None, :]
    lower = -ramps[:-2] / fdiff[:-1, None]
    upper = ramps[2:] / fdiff[1:, None]
    weights = np.maximum(0, np.minimum(lower, upper))
    return (weights * (2.0 / (mel_f[2:] - mel_f[:-2]))[:, None]).astype(np.float32)


def log_mel(audio: np.ndarray, a: dict) -> np.ndarray:
    """[n_mels, len(audio) // hop + 3000] log-mel of audio + 30 s of zeros."""
    n_fft, hop = a["n_fft"], a["hop_length"]
    x = np.concatenate([audio, np.zeros(a["chunk_seconds"] * a["sample_rate"], np.float32)])
    x = np.pad(x, n_fft // 2, mode="reflect")
    frames = np.lib.stride_tricks.sliding_window_view(x, n_fft)[::hop][:-1]
    window = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(n_fft) / n_fft)  # periodic Hann
    power = np.abs(np.fft.rfft(frames * window, axis=1)) ** 2
    mel = mel_filters(a["sample_rate"], n_fft, a["n_mels"]) @ power.T.astype(np.float32)
    logm = np.log10(np.maximum(mel, 1e-10))
    return ((np.maximum(logm, logm.max() - 8.0) + 4.0) / 4.0).astype(np.float32)


class Whisper:
    def __init__(self, d: Path, language: str | None, int8: bool = False) -> None:
        self.spec = json.loads((d / "ragpipe-asr.json").read_text(encoding="utf-8"))
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 2  # the machine's cores (all runs here are under nice)
        files = dict(self.spec["files"])
        if int8:  # provision-asr.sh's quantised copies, named after the fp32 graphs
            for k in ("encoder", "cross_kv", "decoder"):
                files[k] = files[k].replace(".onnx", "-int8.onnx")
        self.int8 = int8
        self.enc, self.xkv, self.dec = (ort.InferenceSession(str(d / files[k]), opts,
                                                             providers=["CPUExecutionProvider"])
                                        for k in ("encoder", "cross_kv", "decoder"))
        self.tok = Tokenizer.from_file(str(d / files["tokenizer"]))
        self.t = self.spec["tokens"]
        if language and self.spec["multilingual"] and language not in self.spec["languages"]:
            sys.exit(f"check_whisper: unknown language {language!r}; one of {', '.join(self.spec['languages'])}")
        self.language = language
        m = self.spec["model"]
        self.empty_cache = np.zeros((m["decoder_layers"], 1, m["decoder_heads"], 0, m["head_dim"]), np.float32)
        self.suppress = np.array(self.spec["suppress_tokens"], dtype=np.int64)
        self.timings: list[tuple[float, float, float, int]] = []  # encoder, cross_kv, decoder s; tokens

    def step(self, tokens: list[int], offset: int, cross, past) -> tuple[np.ndarray, tuple]:
        logits, pk, pv = self.dec.run(None, {
            "tokens": np.array([tokens], dtype=np.int64), "offset": np.array([offset], dtype=np.int64),
            **cross, "past_k": past[0], "past_v": past[1]})
        return logits[0], (pk, pv)

    def detect_language(self, cross) -> str:
        logits, _ = self.step([self.t["sot"]], 0, cross, (self.empty_cache, self.empty_cache))
        langs = self.spec["languages"]
        ids = np.array(list(langs.values()))
        return list(langs)[int(np.argmax(logits[0, ids]))]

    def prompt(self) -> list[int]:
        if not self.spec["multilingual"]:
            return [self.t["sot"]]
        return [self.t["sot"], self.spec["languages"][self.language], self.t["transcribe"]]

    def apply_rules(self, logits: np.ndarray, sampled: list[int]) -> np.ndarray:
        """openai-whisper's SuppressBlank, SuppressTokens and ApplyTimestampRules."""
        tb, eot = self.t["timestamp_begin"], self.t["eot"]
        logits = logits.copy()
        logits[self.suppress] = NEG_INF
        logits[self.t["no_timestamps"]] = NEG_INF
        if not sampled:
            logits[self.spec["suppress_blank"]] = NEG_INF
            logits[:tb] = NEG_INF  # start with a timestamp ...
            last_allowed = tb + round(self.spec["max_initial_timestamp"] / self.t["seconds_per_timestamp"])
            logits[last_allowed + 1:] = NEG_INF  # ... no later than 1 s in
        else:
            last_ts = sampled[-1] >= tb
            penult_ts = len(sampled) < 2 or sampled[-2] >= tb
            if last_ts:
                if penult_ts:
                    logits[tb:] = NEG_INF  # a pair just closed: text next
                else:
                    logits[:eot] = NEG_INF  # a lone timestamp: its pair or eot next
            stamps = [s for s in sampled if s >= tb]
            if stamps:  # never go back in time; segments have nonzero length
                logits[tb:stamps[-1] + (0 if last_ts and not penult_ts else 1)] = NEG_INF
        logp = logits - np.logaddexp.reduce(logits)
        if np.logaddexp.reduce(logp[tb:]) > logp[:tb].max():
            logits[:tb] = NEG_INF
        return logits

    def decode_window(self, mel: np.ndarray, check_cache: bool) -> tuple[list[int], float, float]:
        """Greedy tokens of one window, its no-speech probability and average log-probability."""
        t0 = time.perf_counter()
        (features,) = self.enc.run(None, {"mel": mel[None]})
        t1 = time.perf_counter()
        # cross_k_0, cross_v_0, cross_k_1, ... by name, as the decoder takes them.
        names = [o.name for o in self.xkv.get_outputs()]
        cross = dict(zip(names, self.xkv.run(None, {"audio_features": features})))
        t2 = time.perf_counter()
        if self.language is None:
            self.language = self.detect_language(cross) if self.spec["multilingual"] else "en"
            print(f"language: {self.language}")
        prompt = self.prompt()
        t3 = time.perf_counter()
        logits, cache = self.step(prompt, 0, cross, (self.empty_cache, self.empty_cache))
        p = np.exp(logits[0] - np.logaddexp.reduce(logits[0]))
        no_speech = float(p[self.t["no_speech"]])
        raw, sampled, sum_logp = [logits[-1]], [], 0.0
        max_len = min(self.spec["model"]["n_text_ctx"] // 2, self.spec["model"]["n_text_ctx"] - len(prompt))
        while len(sampled) < max_len:
            filtered = self.apply_rules(raw[-1], sampled)
            tok = int(np.argmax(filtered))
            sum_logp += float((filtered - np.logaddexp.reduce(filtered))[tok])
            sampled.append(tok)
            if tok == self.t["eot"]:
                break
            logits, cache = self.step([tok], len(prompt) + len(sampled) - 1, cross, cache)
            raw.append(logits[-1])
        self.timings.append((t1 - t0, t2 - t1, time.perf_counter() - t3, len(sampled)))
        if check_cache:  # the cache must not change the numbers: one uncached pass over everything,
            full = prompt + sampled[:len(raw) - 1]  # with a dummy past of length 1 that must be ignored
            dummy = np.full(self.empty_cache.shape[:3] + (1,) + self.empty_cache.shape[4:], 1e3, np.float32)
            logits, _ = self.step(full, 0, cross, (dummy, dummy))
            diff = np.abs(logits[len(prompt) - 1:] - np.array(raw)).max()
            print(f"cache check: {len(raw)} steps, max |cached - uncached logit| = {diff:.2e}")
            if diff > 1e-2 and not self.int8:
                sys.exit("check_whisper: KV-cache decoding disagrees with the uncached pass")
        if sampled and sampled[-1] == self.t["eot"]:
            sampled.pop()
        return sampled, no_speech, sum_logp / (len(sampled) + 1)

    def transcribe(self, audio: np.ndarray) -> list[tuple[float, float, str]]:
        a = self.spec["audio"]
        mel = log_mel(audio, a)
        n_frames, content = a["n_frames"], len(audio) // a["hop_length"]
        frames_per_ts = round(self.t["seconds_per_timestamp"] * a["sample_rate"] / a["hop_length"])
        tb, seek, segments = self.t["timestamp_begin"], 0, []
        while seek < content:
            size = min(n_frames, content - seek)
            window = np.zeros((a["n_mels"], n_frames), np.float32)
            window[:, :size] = mel[:, seek:seek + size]
            t0 = seek * a["hop_length"] / a["sample_rate"]
            tokens, no_speech, avg_logp = self.decode_window(window, check_cache=not segments and seek == 0)
            print(f"window @{t0:.2f}s: {len(tokens)} tokens, no_speech {no_speech:.3f}, avg logprob {avg_logp:.3f}")
            if no_speech > 0.6 and avg_logp < -1.0:  # whisper's silence skip
                seek += size
                continue

            def secs(tok: int) -> float:
                return t0 + (tok - tb) * self.t["seconds_per_timestamp"]

            is_ts = [t >= tb for t in tokens]
            cuts = [i + 1 for i in range(len(tokens) - 1) if is_ts[i] and is_ts[i + 1]]
            lone_end = is_ts[-2:] == [False, True]
            if cuts:
                if lone_end:
                    cuts.append(len(tokens))
                last = 0
                for cut in cuts:
                    part = tokens[last:cut]
                    segments.append((secs(part[0]), secs(part[-1]), self.text(part)))
                    last = cut
                seek += size if lone_end else (tokens[last - 1] - tb) * frames_per_ts
            else:
                stamps = [t for t in tokens if t >= tb]
                end = t0 + size * a["hop_length"] / a["sample_rate"]
                if stamps and stamps[-1] != tb:
                    end = secs(stamps[-1])
                segments.append((t0, end, self.text(tokens)))
                seek += size
        return segments

    def text(self, tokens: list[int]) -> str:
        return self.tok.decode([t for t in tokens if t < self.t["eot"]]).strip()


def words(text: str) -> list[str]:
    """Lower case, punctuation dropped (apostrophes inside words kept)."""
    return re.sub(r"[^\w']+|(?<!\w)'|'(?!\w)", " ", text.lower()).split()


def wer(ref: list[str], hyp: list[str]) -> float:
    d = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, 1):
        prev, d[0] = d[0], i
        for j, h in enumerate(hyp, 1):
            prev, d[j] = d[j], min(d[j] + 1, d[j - 1] + 1, prev + (r != h))
    return d[-1] / max(len(ref), 1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir", type=Path, help="build_whisper.py's output directory")
    ap.add_argument("audio", type=Path, help="WAV file")
    ap.add_argument("--language", help="language code for multilingual models (default: detect)")
    ap.add_argument("--ref", help="reference transcript: print the word error rate against it")
    ap.add_argument("--int8", action="store_true", help="use the *-int8.onnx graphs")
    args = ap.parse_args()

    model = Whisper(args.dir, args.language, args.int8)
    audio = load_wav(args.audio, model.spec["audio"]["sample_rate"])
    segments = model.transcribe(audio)
    for start, end, text in segments:
        print(f"[{start:7.2f} --> {end:7.2f}]  {text}")
    for i, (enc, xkv, dec, n) in enumerate(model.timings):
        print(f"timing window {i}: encoder {enc:.2f}s, cross_kv {xkv:.3f}s, decoder {dec:.2f}s "
              f"({n} tokens, {1000 * dec / max(n, 1):.0f} ms/token)")
    if args.ref is not None:
        hyp = " ".join(t for _, _, t in segments)
        print(f"WER {wer(words(args.ref), words(hyp)):.3f} ({len(words(args.ref))} reference words)")


if __name__ == "__main__":
    main()
