#!/usr/bin/env python3
"""Checks eval/golden.jsonl and eval/ood.jsonl against eval/corpus/ (or another
golden set, out-of-domain set and corpus given with --golden, --ood, --corpus).

Stdlib only. For HTML, Markdown and text files the visible text is extracted
roughly the way the ragpipe extractors see it; every other kind (PDF,
workbooks, CSV, code, audio with its transcript sidecar) is read through
`ragpipe text --json` (the binary at $RAGPIPE_BIN, default
${CARGO_TARGET_DIR:-target}/debug/ragpipe), so it must be built first; audio
without a sidecar is transcribed by it (Whisper, about 0.2 s per second of
speech). Whitespace is collapsed and the text is case-folded. Then every golden
line must be well-formed, and each of its needles must be body text (not a
heading) of the named document, occur exactly once in the whole corpus, and sit
close to its sibling needle so one chunk can hold both.

Needles of a `"fuzzy": true` line (quotes of a Whisper transcript) are matched
the way `ragpipe eval` matches them (shared/eval/src/matching.rs): 80 % of
their words in order. Such a needle must match in its document and in no
window of about a chunk's words of any other document. A line's `"t": [FROM,
TO]` (seconds; media only) names where the answer is spoken: the needle must
match in the transcript cues that overlap it and nowhere else in the document.

    python3 eval/check_golden.py            # check, print a summary
    python3 eval/check_golden.py --dump D   # print the checked text of doc D
    python3 eval/check_golden.py --golden eval/golden-es.jsonl \
        --ood eval/ood-es.jsonl --corpus eval/corpus-es   # the Spanish set

Exits 1 on any violation.
"""

import argparse
import html
import json
import os
import re
import subprocess
import sys
from bisect import bisect_left
from collections import Counter, defaultdict
from html.parser import HTMLParser
from pathlib import Path

EVAL = Path(__file__).resolve().parent
CORPUS = EVAL / "corpus"
GOLDEN = EVAL / "golden.jsonl"
OOD = EVAL / "ood.jsonl"

KINDS = {".html": "html", ".htm": "html", ".md": "markdown", ".txt": "text"}
SIDECARS = {".vtt", ".srt"}  # transcripts of the audio file of the same name, not documents
AUX = {"SOURCES.md"}  # ingested with the corpus, so counted for uniqueness; never a target
MIN_QIDS, MIN_OOD = 30, 20
NEEDLE_WORDS = (3, 16)  # "roughly 4-12 words", with a little slack
MAX_SPAN = 500  # chars from the start of the first needle to the end of the last
OPTIONAL = {"split", "fuzzy", "t"}  # split: dev or test; fuzzy: bool; t: [from, to] seconds
FUZZY_SPAN = 200  # words a fuzzy match may spread over: about one chunk of the 256-token budget


def norm(s: str) -> str:
    # As ragpipe eval matches: whitespace collapsed, case folded, a table
    # row's ` | ` cell separators dropped.
    return " ".join(w for w in s.split() if w != "|").casefold()


# --- HTML -------------------------------------------------------------------

# Never visible prose (mirrors shared/extract/src/html.rs).
SKIP = {
    "head", "script", "style", "noscript", "template", "nav", "svg", "iframe", "object", "button", "select",
    "textarea", "form", "canvas", "math",
}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
BLOCKS = {
    "p", "div", "section", "article", "main", "header", "footer", "aside", "blockquote", "ul", "ol", "dl", "table",
    "thead", "tbody", "tfoot", "tr", "td", "th", "figure", "figcaption", "address", "details", "summary", "body",
    "hr", "caption", "li", "dt", "dd", "pre", "br", "h1", "h2", "h3", "h4", "h5", "h6",
}
HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}


class Visible(HTMLParser):
    """Collects visible text twice: all of it (`page`, what an extractor sees,
    mdBook chrome such as the keyboard-help popup included) and the `<main>`
    content only (`body`), plus the heading texts."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.page, self.body, self.headings = [], [], []
        self.skip = 0  # depth inside a skipped element
        self.main = 0  # depth inside <main>
        self.heading = None  # text parts of the heading being read

    def handle_starttag(self, tag, attrs):
        if tag in VOID:
            self._gap()
            return
        a = dict(attrs)
        if self.skip or tag in SKIP or "hidden" in a or a.get("aria-hidden") == "true":
            self.skip += 1
            return
        if tag == "main":
            self.main += 1
        if tag in HEADINGS:
            self.heading = []
        if tag in BLOCKS:
            self._gap()

    def handle_startendtag(self, tag, attrs):
        if not self.skip:
            self._gap()

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if self.skip:
            self.skip -= 1
            return
        if tag == "main":
            self.main -= 1
        if tag in HEADINGS and self.heading is not None:
            self.headings.append("".join(self.heading))
            self.heading = None
        if tag in BLOCKS:
            self._gap()

    def handle_data(self, data):
        if self.skip:
            return
        self.page.append(data)
        if self.main:
            self.body.append(data)
        if self.heading is not None:
            self.heading.append(data)

    def _gap(self):
        self.page.append(" ")
        if self.main:
            self.body.append(" ")


def extract_html(src: str):
    p = Visible()
    p.feed(src)
    p.close()
    body = "".join(p.body) if "".join(p.body).strip() else "".join(p.page)
    return "".join(p.page), body, p.headings


# --- Markdown ---------------------------------------------------------------

FENCE = re.compile(r"^\s{0,3}(```|~~~)")
ATX = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
SETEXT = re.compile(r"^\s{0,3}(=+|-+)\s*$")


CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.S)


def md_inline(s: str) -> str:
    """Inline markup reduced to its text; code spans are kept literally."""
    parts, at = [], 0
    for m in CODE_SPAN.finditer(s):
        parts.append(md_prose(s[at:m.start()]))
        parts.append(m.group(2).strip())
        at = m.end()
    parts.append(md_prose(s[at:]))
    return "".join(parts)


def md_prose(s: str) -> str:
    s = re.sub(r"<!--.*?-->", "", s)
    s = re.sub(r"!\[([^\]]*)\]\([^)]*\)", r"\1", s)  # images
    s = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", s)  # [text](url)
    s = re.sub(r"\[([^\]]*)\]\[[^\]]*\]", r"\1", s)  # [text][ref]
    s = re.sub(r"\[([^\]]+)\](?!:)", r"\1", s)  # [text] shortcut refs
    s = re.sub(r"</?[A-Za-z][^>]*>", "", s)  # raw html tags
    s = re.sub(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1", r"\2", s)  # strong
    s = re.sub(r"(?<![\w*])\*(?=\S)(.+?)(?<=\S)\*(?![\w*])", r"\1", s)  # em *x*
    s = re.sub(r"(?<!\w)_(?=\S)(.+?)(?<=\S)_(?!\w)", r"\1", s)  # em _x_
    s = re.sub(r"\\([\\`*_{}\[\]()#+\-.!|>~])", r"\1", s)  # escapes
    return html.unescape(s)


def extract_markdown(src: str):
    """Rough: code blocks kept as they are, link definitions dropped, inline
    markup reduced to its text, block markers removed. Returns (all, body,
    headings)."""
    out, headings = [], []
    lines = src.splitlines()
    fence = None
    for i, line in enumerate(lines):
        m = FENCE.match(line)
        if fence:
            if m and m.group(1) == fence:
                fence = None
            else:
                out.append(line)
            continue
        if m:
            fence = m.group(1)
            out.append("")
            continue
        if re.match(r"^\s{0,3}\[[^\]]+\]:\s*\S", line):  # link reference definition
            continue
        h = ATX.match(line)
        if h:
            headings.append(md_inline(h.group(2)))
            out.extend(["", md_inline(h.group(2)), ""])
            continue
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if line.strip() and SETEXT.match(nxt) and not re.match(r"^\s*[-*+]\s", line) and "|" not in nxt:
            headings.append(md_inline(line))
        if SETEXT.match(line) and out and out[-1].strip():
            out.append("")
            continue
        line = re.sub(r"^\s*(>\s?)+", "", line)  # blockquote
        line = re.sub(r"^\s*([-*+]|\d+[.)])\s+(\[[ xX]\]\s+)?", "", line)  # list markers
        out.append(md_inline(line))
    text = "\n".join(out)
    return text, text, headings


# --- plain text -------------------------------------------------------------


def text_headings(src: str):
    """Underlined titles (a line followed by ===, --- or ~~~) count as headings."""
    lines = src.splitlines()
    return [
        a for a, b in zip(lines, lines[1:])
        if a.strip() and re.fullmatch(r"\s*(=+|-+|~+)\s*", b) and len(b.strip()) >= 3
    ]


# --- corpus -----------------------------------------------------------------


class Doc:
    def __init__(self, path: Path):
        self.name = path.name
        self.kind = KINDS.get(path.suffix.lower())
        self.cues = []  # (start, end, text) of a transcript's cues
        self.duration = None  # seconds, media only
        if self.kind is None:
            page, body, heads = self.extract_with_ragpipe(path)
        elif self.kind == "html":
            src = path.read_bytes().decode("utf-8", errors="replace")
            page, body, heads = extract_html(src)
        elif self.kind == "markdown":
            page, body, heads = extract_markdown(path.read_text(errors="replace"))
        else:
            src = path.read_text(errors="replace")
            page, body, heads = src, src, text_headings(src)
        self.raw = body
        self.page, self.body = norm(page), norm(body)
        # A PDF's pages (form feeds in its canonical text): a chunk cites one
        # page and never crosses to the next, so an answer must sit on one.
        self.pages = [norm(p) for p in body.split("\f")] if "\f" in body else []
        self.headings = [norm(h) for h in heads if h.strip()]
        self.words = match_words(self.page)


    def extract_with_ragpipe(self, path: Path):
        """The canonical text and headings the ragpipe extractor makes, and a
        transcript's cues."""
        target = os.environ.get("CARGO_TARGET_DIR", str(EVAL.parent / "target"))
        binary = os.environ.get("RAGPIPE_BIN", f"{target}/debug/ragpipe")
        out = subprocess.run([binary, "text", "--json", str(path)], capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit(f"{path.name}: `ragpipe text` failed (build ragpipe first): {out.stderr.strip()}")
        doc = json.loads(out.stdout)
        self.kind = doc["kind"]
        text, raw = doc["text"], doc["text"].encode()
        heads = [
            raw[b["range"]["start"]:b["range"]["end"]].decode()  # block ranges are byte offsets
            for b in doc["blocks"]
            if isinstance(b["kind"], dict) and "Heading" in b["kind"]
        ]
        self.cues = [
            (b["kind"]["Cue"]["start"], b["kind"]["Cue"]["end"], raw[b["range"]["start"]:b["range"]["end"]].decode())
            for b in doc["blocks"]
            if isinstance(b["kind"], dict) and "Cue" in b["kind"]
        ]
        self.duration = doc.get("duration")
        return text, text, heads


def load_corpus():
    docs = {}
    for p in sorted(CORPUS.iterdir()):
        if p.is_file() and p.suffix.lower() not in SIDECARS:
            docs[p.name] = Doc(p)
    return docs


def count(hay: str, needle: str) -> int:
    n, i = 0, hay.find(needle)
    while i >= 0:
        n += 1
        i = hay.find(needle, i + 1)
    return n


# --- fuzzy needles (mirrors shared/eval/src/matching.rs) ----------------------

EDGE = re.compile(r"^[\W_]+|[\W_]+$")  # what trim_matches(!is_alphanumeric) removes


def match_words(text: str) -> list:
    """Normalised words with their leading and trailing punctuation removed."""
    return [w for w in (EDGE.sub("", w) for w in norm(text).split(" ")) if w]


def lcs(hay: list, needle: list) -> int:
    prev = [0] * (len(needle) + 1)
    for h in hay:
        cur = [0] * (len(needle) + 1)
        for j, w in enumerate(needle):
            cur[j + 1] = prev[j] + 1 if h == w else max(cur[j], prev[j + 1])
        prev = cur
    return prev[-1]


def fuzzy_in(hay: list, needle: list, span: int = FUZZY_SPAN) -> bool:
    """Whether `span` consecutive words of `hay` (windows overlapping by half)
    hold 80 % of `needle`'s words in order, as `ragpipe eval` asks of a hit."""
    need = -(-4 * len(needle) // 5)  # the least count with count * 5 >= len * 4
    vocab = set(needle)
    hits = [i for i, w in enumerate(hay) if w in vocab]
    for start in range(0, max(1, len(hay) - span // 2), span // 2):
        lo, hi = bisect_left(hits, start), bisect_left(hits, start + span)
        if hi - lo >= need and lcs([hay[i] for i in hits[lo:hi]], needle) >= need:
            return True
    return False


def check_fuzzy(where, g, raw, doc, docs, errors):
    """A fuzzy needle: in its document (within `t` when given), nowhere else."""
    needle = match_words(raw)
    t = g.get("t")
    if t is None:
        home, rest = doc.words, []
    else:
        inside = [c for c in doc.cues if c[0] < t[1] and c[1] > t[0]]  # the overlap ragpipe eval asks of `#t=`
        home = match_words(" ".join(c[2] for c in inside))
        rest = match_words(" ".join(c[2] for c in doc.cues if c not in inside))
    if not fuzzy_in(home, needle):
        errors.append(f"{where}: fuzzy needle not spoken {'in t=' + str(t) if t else 'in ' + doc.name}: {raw!r}")
    if rest and fuzzy_in(rest, needle):
        errors.append(f"{where}: fuzzy needle also matches outside t={t} in {doc.name}: {raw!r}")
    others = [d.name for d in docs.values() if d is not doc and fuzzy_in(d.words, needle)]
    if others:
        errors.append(f"{where}: fuzzy needle also matches in {', '.join(others)}: {raw!r}")


def check_time(where, g, doc, errors):
    """`t`: [from, to] seconds within a media document's duration."""
    t = g["t"]
    if not (isinstance(t, list) and len(t) == 2 and all(isinstance(x, (int, float)) for x in t) and 0 <= t[0] < t[1]):
        errors.append(f"{where}: t must be [from, to] seconds with 0 <= from < to")
        return False
    if doc.duration is None or not doc.cues:
        errors.append(f"{where}: t given, but {doc.name} has no transcript cues")
        return False
    if t[1] > doc.duration + 0.01:
        errors.append(f"{where}: t {t} ends after {doc.name} ({doc.duration:.2f} s)")
        return False
    return True


def read_jsonl(path: Path, errors):
    rows = []
    if not path.exists():
        errors.append(f"{path.name}: missing")
        return rows
    for no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            errors.append(f"{path.name}:{no}: bad JSON: {e}")
            continue
        if not isinstance(obj, dict):
            errors.append(f"{path.name}:{no}: not an object")
            continue
        rows.append((no, obj))
    return rows


def nonempty_str(v) -> bool:
    return isinstance(v, str) and v.strip() != ""


def check_golden(docs, errors, warnings):
    rows = read_jsonl(GOLDEN, errors)
    fields = ["id", "qid", "style", "query", "doc", "kind", "needles"]
    ids = Counter()
    by_qid = defaultdict(list)
    per_doc = Counter()
    for no, g in rows:
        where = f"{GOLDEN.name}:{no}"
        missing = [f for f in fields if f not in g]
        extra = [f for f in g if f not in fields and f not in OPTIONAL]
        if missing:
            errors.append(f"{where}: missing fields {missing}")
            continue
        if extra:
            errors.append(f"{where}: unexpected fields {extra}")
        if not all(nonempty_str(g[f]) for f in fields[:-1]):
            errors.append(f"{where}: fields {fields[:-1]} must be non-empty strings")
            continue
        where = f"{GOLDEN.name}:{no} ({g['id']})"
        ids[g["id"]] += 1
        if g.get("split", "dev") not in ("dev", "test"):
            errors.append(f"{where}: split must be dev or test")
        if not isinstance(g.get("fuzzy", False), bool):
            errors.append(f"{where}: fuzzy must be true or false")
        if g["style"] not in ("doc", "ticket"):
            errors.append(f"{where}: style must be doc or ticket")
        if g["id"] != f"{g['qid']}-{g['style']}":
            warnings.append(f"{where}: id is not <qid>-<style>")
        by_qid[g["qid"]].append(g)
        doc = docs.get(g["doc"])
        if doc is None or doc.name in AUX:
            errors.append(f"{where}: doc {g['doc']!r} not in corpus")
            continue
        if g["kind"] != doc.kind:
            errors.append(f"{where}: kind {g['kind']!r}, but {g['doc']} is {doc.kind}")
        needles = g["needles"]
        if not (isinstance(needles, list) and 1 <= len(needles) <= 2 and all(nonempty_str(n) for n in needles)):
            errors.append(f"{where}: needles must be a list of 1-2 non-empty strings")
            continue
        if g["style"] == "doc":
            per_doc[g["doc"]] += 1
        if "t" in g and not check_time(where, g, doc, errors):
            continue
        starts = []
        for raw in needles:
            n = norm(raw)
            words = len(n.split())
            if not NEEDLE_WORDS[0] <= words <= NEEDLE_WORDS[1]:
                errors.append(f"{where}: needle has {words} words: {raw!r}")
            if any(ord(c) > 127 and not c.isalpha() for c in raw):  # accented letters are fine
                warnings.append(f"{where}: needle has non-ASCII characters: {raw!r}")
            if g.get("fuzzy") is True:
                check_fuzzy(where, g, raw, doc, docs, errors)
                continue
            in_body = count(doc.body, n)
            total = sum(count(d.page, n) for d in docs.values())
            if in_body != 1:
                errors.append(f"{where}: needle found {in_body}x in the body of {doc.name}: {raw!r}")
            if total != 1:
                hits = [d.name for d in docs.values() if n in d.page]
                errors.append(f"{where}: needle found {total}x in the corpus ({', '.join(hits)}): {raw!r}")
            if any(n in h for h in doc.headings):
                errors.append(f"{where}: needle is heading text: {raw!r}")
            i = doc.body.find(n)
            if i >= 0:
                starts.append((i, i + len(n)))
        if len(starts) == 2:
            span = max(e for _, e in starts) - min(s for s, _ in starts)
            if span > MAX_SPAN:
                errors.append(f"{where}: needles are {span} chars apart (max {MAX_SPAN})")
        if doc.pages and g.get("fuzzy") is not True and not any(all(norm(n) in p for n in needles) for p in doc.pages):
            errors.append(f"{where}: the needles are not on one page of {doc.name} (a chunk never crosses a page)")
    for i, c in ids.items():
        if c > 1:
            errors.append(f"{GOLDEN.name}: id {i!r} used {c} times")
    for qid, gs in sorted(by_qid.items()):
        styles = sorted(g["style"] for g in gs)
        if styles != ["doc", "ticket"]:
            errors.append(f"{GOLDEN.name}: qid {qid} has styles {styles}, want exactly doc + ticket")
            continue
        a, b = gs
        if any(a.get(f) != b.get(f) for f in ("doc", "kind", "needles", "split", "fuzzy", "t")):
            errors.append(f"{GOLDEN.name}: qid {qid}: doc, kind, needles, split, fuzzy and t must match across styles")
        if norm(a["query"]) == norm(b["query"]):
            errors.append(f"{GOLDEN.name}: qid {qid}: both styles have the same query")
    if len(by_qid) < MIN_QIDS:
        errors.append(f"{GOLDEN.name}: {len(by_qid)} qids, want >= {MIN_QIDS}")
    for name in docs:
        if per_doc[name] == 0 and name not in AUX:
            warnings.append(f"corpus: {name} has no golden question")
    return rows, by_qid, per_doc


def check_ood(errors):
    rows = read_jsonl(OOD, errors)
    ids = Counter()
    for no, o in rows:
        where = f"{OOD.name}:{no}"
        if set(o) - {"split"} != {"id", "query", "kind"} or o.get("split", "dev") not in ("dev", "test"):
            errors.append(f"{where}: fields must be exactly id, query, kind and an optional split dev/test (got {sorted(o)})")
            continue
        if not (nonempty_str(o["id"]) and nonempty_str(o["query"])):
            errors.append(f"{where}: id and query must be non-empty strings")
        if o["kind"] != "ood":
            errors.append(f"{where}: kind must be 'ood'")
        ids[o["id"]] += 1
    for i, c in ids.items():
        if c > 1:
            errors.append(f"{OOD.name}: id {i!r} used {c} times")
    if len(rows) < MIN_OOD:
        errors.append(f"{OOD.name}: {len(rows)} lines, want >= {MIN_OOD}")
    return rows


def main(argv):
    global CORPUS, GOLDEN, OOD
    ap = argparse.ArgumentParser(description="Check a golden set and an out-of-domain set against a corpus.")
    ap.add_argument("--golden", type=Path, default=GOLDEN)
    ap.add_argument("--ood", type=Path, default=OOD)
    ap.add_argument("--corpus", type=Path, default=CORPUS)
    ap.add_argument("--dump", metavar="DOC", help="print the checked text of DOC and exit")
    args = ap.parse_args(argv[1:])
    CORPUS, GOLDEN, OOD = args.corpus, args.golden, args.ood
    docs = load_corpus()
    if args.dump:
        d = docs[args.dump]
        lines = (" ".join(l.split()) for l in d.raw.splitlines())
        print(re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip())
        print("\n--- headings ---")
        print("\n".join(d.headings))
        return 0
    errors, warnings = [], []
    if not docs:
        errors.append("corpus: no documents")
    rows, by_qid, per_doc = check_golden(docs, errors, warnings)
    ood = check_ood(errors)

    targets = [n for n in docs if n not in AUX]
    kinds = Counter(docs[n].kind for n in targets)
    size = sum((CORPUS / n).stat().st_size for n in targets)
    print(f"corpus: {len(targets)} docs ({', '.join(f'{v} {k}' for k, v in sorted(kinds.items()))}), {size / 1024:.0f} KiB")
    for name in targets:
        print(f"  {per_doc[name]:2d} q  {name}")
    print(f"golden: {len(rows)} lines, {len(by_qid)} qids")
    print(f"ood:    {len(ood)} lines")
    for w in warnings:
        print(f"warning: {w}")
    for e in errors:
        print(f"ERROR: {e}")
    print("OK" if not errors else f"FAILED: {len(errors)} violation(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
