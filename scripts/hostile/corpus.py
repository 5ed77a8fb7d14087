"""What every part of the hostile corpus shares: where the fixtures are,
the corpus being written (files and their manifest entries) and the audio
helpers."""

import os
import random
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FIX = REPO / "shared/extract/tests/fixtures"
SAMPLES = REPO / "samples"
# Written into ../outside: if it ever shows up in the index, a link leaked.
OUTSIDE_MARKER = "HOSTILE-OUTSIDE-MARKER-7f3a"
PARA = (
    "Platform teams point ragpipe at folders nobody has cleaned. This paragraph "
    "is ordinary prose so that a file whose only hostility is its name or its "
    "permissions would be indexed if the source can read it.\n"
)


def fx(rel: str) -> bytes:
    return (FIX / rel).read_bytes()


class Corpus:
    def __init__(self, out: Path, seed: int, small: bool):
        self.out, self.small = out, small
        self.rng = random.Random(seed)
        self.entries = []

    def path(self, name) -> bytes:
        raw = name if isinstance(name, bytes) else name.encode()
        return os.path.join(os.fsencode(self.out), raw)

    def record(self, name, kind, expect, note="", **extra):
        raw = name if isinstance(name, bytes) else name.encode()
        entry = {"name": raw.decode("utf-8", "backslashreplace"), "kind": kind, "expect": expect}
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            entry["name_hex"] = raw.hex()
        if note:
            entry["note"] = note
        entry.update(extra)
        self.entries.append(entry)

    def add(self, name, data: bytes, kind, expect, note="", **extra):
        p = self.path(name)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as f:
            f.write(data)
        self.record(name, kind, expect, note, **extra)

    def add_stream(self, name, chunks, kind, expect, note=""):
        """Big files are written piece by piece: never hold 50 MB in a str."""
        with open(self.path(name), "wb") as f:
            for c in chunks:
                f.write(c)
        self.record(name, kind, expect, note)

    def sidecar(self, audio_name: str, sidecar_fixture: str):
        """Audio needs a transcript to be indexable; giving hostile audio one
        makes the decoder (not the missing transcript) decide the outcome."""
        stem = audio_name.rsplit(".", 1)[0]
        ext = sidecar_fixture.rsplit(".", 1)[1]
        self.add(f"{stem}.{ext}", fx(sidecar_fixture), "sidecar", "skipped", "transcript read with its audio")


AUDIO = {  # fixture -> its sidecar
    "audio/intro.wav": "audio/intro.vtt",
    "audio/intro-mp3.mp3": "audio/intro-mp3.srt",
    "audio/intro-flac.flac": "audio/intro-flac.srt",
    "audio/intro-ogg.ogg": "audio/intro-ogg.vtt",
    "audio/intro-m4a.m4a": "audio/intro-m4a.vtt",
    "audio/intro-opus.opus": "audio/intro-opus.vtt",
}


def strip_id3(mp3: bytes) -> bytes:
    """ID3v2: 'ID3', 2 version bytes, 1 flag byte, 4-byte syncsafe size;
    the tag is 10 + size bytes (the footer flag 0x10 adds 10 more)."""
    if mp3[:3] != b"ID3":
        return mp3
    size = 0
    for b in mp3[6:10]:
        size = (size << 7) | (b & 0x7F)
    footer = 10 if mp3[5] & 0x10 else 0
    return mp3[10 + size + footer :]


def with_id3(mp3: bytes) -> bytes:
    """Prefix an ID3v2.3 tag (one TIT2 title frame) to a bare MP3."""
    title = b"\x00" + b"Hostile corpus control"
    frame = b"TIT2" + len(title).to_bytes(4, "big") + b"\x00\x00" + title
    size = len(frame)
    syncsafe = bytes((size >> s) & 0x7F for s in (21, 14, 7, 0))
    return b"ID3\x03\x00\x00" + syncsafe + frame + mp3


# ------------------------------------------------------------------ controls
