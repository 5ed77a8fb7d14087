#!/usr/bin/env python3
"""Turn one hostile-corpus ingest into a JSON summary and checks.

    summarize.py --manifest M --folder F --documents D.json --status S.json
                 --watch W.json [--ingest I.json] [--state-db state.db]
                 [--bin ragpipe --data-dir DIR]

Prints ONE JSON object on stdout; exits 1 when a check fails. It reads
whatever fields `ragpipe documents --json` / `status --json` have today
(source, status, stage, reason, updated_at, ...) and tolerates new ones, since
the binary is changing under this script (issue 12 adds limits and skipped
entries): unknown list fields of `status --json` whose name says "skip" are
passed through.
"""

import argparse
import json
import os
import re
import sqlite3
import subprocess
import sys
from collections import Counter, defaultdict
from urllib.parse import unquote

PENDING = {"queued", "extracting", "embedding"}
PASSWD = "root:x:0:0"  # first line of /etc/passwd everywhere


def all_documents(path, bin, data_dir):
    """Every document: the first page (`documents --json`) at `path`, then
    the pages after it, read with the same binary."""
    page = load(path, {})
    docs = list(page.get("documents", []))
    while page.get("next") and bin:
        out = subprocess.run([bin, "--data-dir", data_dir, "documents", "--json", "--limit", "1000",
                              "--after", page["next"]], capture_output=True, text=True, check=True)
        page = json.loads(out.stdout)
        docs += page["documents"]
    return docs


def load(path, default=None):
    if not path or not os.path.exists(path):
        return default
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return default


def reason_class(reason: str) -> str:
    """A reason with what varies per file removed, so equal causes group:
    URIs and paths, file names, quoted text, numbers and sizes."""
    r = re.sub(r"file://\S+", "<uri>", reason)
    r = re.sub(r"(?<![\w.])/[^\s:,;)]+", "<path>", r)
    r = re.sub(r"[^\s/:,;()\[\]]+\.[A-Za-z][A-Za-z0-9]{0,4}\b", "<file>", r)
    r = re.sub(r"'[^']*'|\"[^\"]*\"|`[^`]*`", "<q>", r)
    r = re.sub(r"0x[0-9a-fA-F]+|\b[0-9a-f]{16,}\b", "<hex>", r)
    r = re.sub(r"\d+(\.\d+)?", "N", r)
    return re.sub(r"\s+", " ", r).strip()[:160]


def main():
    ap = argparse.ArgumentParser()
    for a in ("--manifest", "--folder", "--documents", "--status", "--watch"):
        ap.add_argument(a, required=True)
    for a in ("--ingest", "--state-db", "--bin", "--data-dir"):
        ap.add_argument(a)
    ap.add_argument("--slowest", type=int, default=10)
    args = ap.parse_args()

    manifest = load(args.manifest)
    docs = all_documents(args.documents, args.bin, args.data_dir)
    status = load(args.status, {})
    watch = load(args.watch, {})
    ingest = load(args.ingest)
    root = os.path.realpath(args.folder)
    prefix = "file://" + root + "/"

    # ---- manifest lookup: exact key, lossy form of non-UTF-8 names, folders
    by_key, dirs = {}, []
    for e in manifest["entries"]:
        by_key[e["name"]] = e
        if "name_hex" in e:
            by_key[bytes.fromhex(e["name_hex"]).decode("utf-8", "replace")] = e
        if e.get("dir"):
            dirs.append(e)

    def entry_for(key):
        if key in by_key:
            return by_key[key]
        if unquote(key) in by_key:  # in case URIs become percent-encoded
            return by_key[unquote(key)]
        return next((d for d in dirs if key.startswith(d["name"] + "/")), None)

    def key_of(uri):
        return uri[len(prefix):] if uri.startswith(prefix) else uri

    # ---- timings: claim time from the watcher, else created_at
    created = {}
    if args.state_db and os.path.exists(args.state_db):
        try:
            db = sqlite3.connect(f"file:{args.state_db}?mode=ro", uri=True)
            created = dict(db.execute("SELECT uri, created_at FROM documents"))
            db.close()
        except sqlite3.Error:
            pass
    claimed = watch.get("claimed_at_ms", {})
    embedding_at = watch.get("embedding_at_ms", {})

    by_status = Counter()
    reasons = defaultdict(lambda: {"count": 0, "examples": []})
    seen = {}
    timings = []
    for d in docs:
        uri = d.get("source") or d.get("uri") or ""
        st = d.get("status", "?")
        by_status[st] += 1
        key = key_of(uri)
        seen[key] = d
        if st == "failed":
            cls = f"[{d.get('stage') or '-'}] {reason_class(d.get('reason') or '')}"
            reasons[cls]["count"] += 1
            if len(reasons[cls]["examples"]) < 3:
                reasons[cls]["examples"].append({"name": key, "reason": (d.get("reason") or "")[:200]})
        # Time from the claim (else from listing) to the final state, split
        # at the hand-over to the embedder when the watcher saw it: a long
        # embed time is mostly waiting behind other documents' chunks.
        claim, emb, end = claimed.get(uri), embedding_at.get(uri), d.get("updated_at")
        start = claim or emb or d.get("created_at") or created.get(uri)
        if start and end and st not in PENDING:
            t = {"name": key, "secs": round((end - start) / 1000, 1), "status": st}
            if claim and emb:
                t["extract_secs"] = round((emb - claim) / 1000, 1)
            if emb:
                t["embed_secs"] = round((end - emb) / 1000, 1)
            if d.get("reason"):
                t["reason"] = d["reason"][:120]
            timings.append(t)
    timings.sort(key=lambda t: -t["secs"])
    slow_extract = sorted((t for t in timings if "extract_secs" in t), key=lambda t: -t["extract_secs"])

    # ---- checks against the manifest
    checks = defaultdict(list)
    for e in manifest["entries"]:
        name, expect = e["name"], e["expect"]
        d = seen.get(name)
        if d is None and "name_hex" in e:
            d = seen.get(bytes.fromhex(e["name_hex"]).decode("utf-8", "replace"))
        st = d.get("status") if d else None
        info = {"name": name, "kind": e["kind"], "status": st}
        if d and d.get("reason"):
            info["reason"] = d["reason"][:200]
        if expect == "indexed" and st != "indexed":
            checks["good_not_indexed"].append(info)
        elif expect == "failed" and st == "indexed":
            checks["expected_failed_but_indexed"].append(info)
        elif expect == "failed" and st is None:
            checks["expected_failed_not_reported"].append(info)
        elif expect == "skipped" and st == "indexed":
            checks["skipped_but_indexed"].append(info)
    for d in docs:
        key = key_of(d.get("source", ""))
        st = d.get("status")
        if st in PENDING:
            checks["pending"].append({"name": key, "status": st})
        if st == "failed" and not (d.get("reason") or "").strip():
            checks["failed_without_reason"].append({"name": key})
        e = entry_for(key)
        if e is None:
            checks["not_in_manifest"].append({"name": key, "status": st})
        elif e["expect"] == "skipped" and st == "indexed" and e.get("dir"):
            checks["skipped_but_indexed"].append({"name": key, "via": e["name"], "status": st})
        if st == "indexed":
            path = unquote(d.get("source", "")[len("file://"):])
            real = os.path.realpath(path)
            if not d.get("source", "").startswith(prefix) or not (real == root or real.startswith(root + "/")):
                checks["indexed_outside_folder"].append({"name": key, "resolves_to": real})
            if (e or {}).get("leak_check") and args.bin:
                leak = leaked(args.bin, args.data_dir, d["id"], manifest.get("outside_marker", ""))
                if leak:
                    checks["leaked_content"].append({"name": key, "found": leak})

    ingest_exit = watch.get("exit_code")
    crashed = watch.get("signal") is not None or ingest_exit not in (0, 1)
    failing = [
        "good_not_indexed",
        "expected_failed_but_indexed",
        "expected_failed_not_reported",
        "skipped_but_indexed",
        "pending",
        "failed_without_reason",
        "indexed_outside_folder",
        "leaked_content",
    ]
    failing_indexed_unknown = [x for x in checks["not_in_manifest"] if x["status"] == "indexed"]
    problems = [k for k in failing if checks.get(k)]
    if failing_indexed_unknown:
        problems.append("indexed_not_in_manifest")
    if watch.get("cap_hit"):
        problems.append("rss_cap_hit")
    if watch.get("wall_hit"):
        problems.append("wall_limit_hit")
    if crashed:
        problems.append("ingest_crashed")

    skipped_reported = {k: v for k, v in status.items() if "skip" in k.lower()}
    summary = {
        "ok": not problems,
        "failed_checks": problems,
        "corpus": {"entries": len(manifest["entries"]), "small": manifest.get("small"), "by_kind": manifest.get("counts")},
        "documents": {"total": len(docs), "by_status": dict(by_status)},
        "status_counts": status.get("documents"),
        "skipped_reported_by_status": {k: len(v) if isinstance(v, list) else v for k, v in skipped_reported.items()} or None,
        "reasons_by_class": dict(sorted(reasons.items(), key=lambda kv: -kv[1]["count"])),
        "wall_secs": watch.get("wall_secs"),
        "peak_tree_rss_mib": watch.get("peak_tree_rss_mib"),
        "peak_at_secs": watch.get("peak_at_secs"),
        # Summed RSS counts shared pages twice (a child between fork and
        # exec looks as big as its parent); PSS splits them.
        "peak_tree_pss_mib": watch.get("peak_tree_pss_mib"),
        "peak_top_processes": watch.get("peak_top"),
        "in_flight_at_peak": [key_of(x["uri"]) for x in watch.get("in_flight_at_peak") or []],
        "root_hwm_mib": watch.get("root_hwm_mib"),
        "max_child_hwm_mib": max(watch.get("max_child_hwm_mib") or 0, watch.get("max_reaped_rss_mib") or 0),
        "rss_cap_mib": watch.get("cap_mib"),
        "cap_hit": watch.get("cap_hit"),
        "wall_limit_hit": watch.get("wall_hit"),
        "ingest_exit": ingest_exit,
        "ingest_signal": watch.get("signal"),
        "in_flight_when_stopped": [key_of(x["uri"]) for x in watch.get("in_flight_at_end") or []] if (watch.get("cap_hit") or watch.get("wall_hit")) else None,
        # The sync counts without its entry list (skipped entries are above).
        "ingest_report": {
            k: ({a: b for a, b in v.items() if not isinstance(b, list)} if isinstance(v, dict) else v)
            for k, v in ingest.items()
            if k in ("sync", "indexed", "chunks_stored", "truncated", "seconds")
        }
        if isinstance(ingest, dict)
        else None,
        "slowest": timings[: args.slowest],
        "slowest_extraction": slow_extract[: args.slowest],
        "slowest_basis": "claim (first seen extracting) to last update" if claimed else "created_at to updated_at",
        "checks": {k: v for k, v in checks.items() if v},
    }
    if failing_indexed_unknown:
        summary["checks"]["indexed_not_in_manifest"] = failing_indexed_unknown
    # Entries neither listed as documents nor named in a skipped report of
    # `status --json` (if it has one): the issue wants them shown to admins.
    reported = set()
    skip_classes = Counter()
    for v in skipped_reported.values():
        for item in v if isinstance(v, list) else []:
            k = item.get("key") or item.get("document") or item.get("uri") if isinstance(item, dict) else str(item)
            reported.add(key_of(k or ""))
            if isinstance(item, dict) and item.get("reason"):
                skip_classes[reason_class(item["reason"])] += 1
    summary["skipped_reasons_by_class"] = dict(skip_classes) or None

    def was_reported(e):
        names = {e["name"]}
        if "name_hex" in e:
            names.add(bytes.fromhex(e["name_hex"]).decode("utf-8", "replace"))
        return bool(names & reported) or any(r.startswith(e["name"] + "/") for r in reported)

    summary["silently_dropped"] = [
        e["name"]
        for e in manifest["entries"]
        if e["kind"] != "sidecar" and e["name"] not in seen and not was_reported(e)
        and e["expect"] in ("either", "skipped")  # indexed/failed ones are failing checks already
    ]
    json.dump(summary, sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write("\n")
    sys.exit(1 if problems else 0)


def leaked(binary, data_dir, doc_id, marker):
    """An indexed XXE file must not carry /etc/passwd (or the outside marker)."""
    try:
        run = subprocess.run(
            [binary, "--data-dir", data_dir, "chunks", doc_id, "--json"], capture_output=True, text=True, timeout=120
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"could not read chunks: {e}"
    if run.returncode != 0:  # unverified is not clean
        return f"could not read chunks: exit {run.returncode}: {run.stderr.strip()[-200:]}"
    return [s for s in (PASSWD, marker) if s and s in run.stdout]


if __name__ == "__main__":
    main()
