#!/usr/bin/env python3
"""Rounds, measurements and the table of scripts/compare-peers.sh.

  peers_bench.py --corpus DIR --model-dir DIR --ragpipe BIN --work DIR
      [--threads 2[,1]] [--rounds 3] [--variants fp32,int8]

Runs every pipeline — LangChain and LlamaIndex (scripts/peer_pipelines.py)
and `ragpipe ingest` once per model variant — as its own process, one after
another, --rounds times; the order rotates each round so no pipeline always
follows the same neighbour. Each run starts from nothing: a fresh process, a
fresh --data-dir (ragpipe) or output directory (peers), the model loaded from
disk. Measured from outside, identically for all:

  * wall seconds from spawn to exit (imports and model load included);
  * peak RSS of the whole process tree, sampled every 50 ms from /proc: the
    sum over the process and all its descendants at each sample, the largest
    sum kept. /usr/bin/time -v cannot do this: its figure is the largest
    single process (getrusage's ru_maxrss), and ragpipe parses every document
    in a child process beside the parent. RSS counts shared pages once per
    process that maps them, so a tree's sum is an upper bound;
  * chunks and word-pieces from each pipeline's own chunk texts (the peers
    write the texts they embedded; ragpipe's come from `ragpipe chunks`),
    counted with the model's tokenizer.json as the model sees them: [CLS] and
    [SEP] included, capped at the 256 window ("truncated" counts the chunks
    that did not fit, 0 for all three by construction).

The table keeps each pipeline's best (lowest) wall time over the rounds and
its highest peak RSS; the per-round lines show every measurement and the
ratios within the round, which is what a busy machine leaves trustworthy.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path

PAGE = os.sysconf("SC_PAGE_SIZE")
MIB = 1024 * 1024
WINDOW = 256
PEERS = {"langchain": "LangChain", "llamaindex": "LlamaIndex"}


def say(msg: str) -> None:
    print(f"compare-peers: {msg}", file=sys.stderr, flush=True)


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def tree_rss(root: int) -> tuple[int, int]:
    """Resident bytes of `root` and all its descendants, and how many there are."""
    parent, rss = {}, {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:  # exited between listdir and open
            continue
        fields = stat[stat.rindex(b")") + 2:].split()  # the name may hold spaces and parentheses
        parent[int(name)] = int(fields[1])
        rss[int(name)] = int(fields[21]) * PAGE
    children = defaultdict(list)
    for pid, ppid in parent.items():
        children[ppid].append(pid)
    total, count, stack = 0, 0, [root]
    while stack:
        pid = stack.pop()
        total += rss.get(pid, 0)
        count += 1
        stack.extend(children.get(pid, ()))
    return total, count


def measure(label: str, cmd: list[str], env: dict, log_path: Path) -> dict:
    """Runs cmd; wall seconds, peak tree RSS and most processes at once.

    The command's stdout goes to log_path (ragpipe's JSON summary); its
    stderr (the peers' stage lines) comes through to ours."""
    with open(log_path, "wb") as out:
        started = time.perf_counter()
        proc = subprocess.Popen(cmd, env=env, stdout=out, stderr=sys.stderr)
        peak, most, done = 0, 0, threading.Event()

        def sample() -> None:
            nonlocal peak, most
            next_note = started + 15
            while not done.is_set():
                rss, count = tree_rss(proc.pid)
                peak, most = max(peak, rss), max(most, count)
                now = time.perf_counter()
                if now >= next_note:  # never a silent terminal
                    say(f"  ... {label}: {now - started:.0f}s, {rss / MIB:.0f} MiB now in {count} processes")
                    next_note = now + 15
                done.wait(0.05)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        rc = proc.wait()
        wall = time.perf_counter() - started
        done.set()
        sampler.join()
    if rc != 0:
        raise SystemExit(f"compare-peers: {label} exited with {rc} (command: {' '.join(cmd)}; stdout in {log_path})")
    return {"wall": wall, "rss_mib": peak / MIB, "processes": most}


def run_peer(args, pipeline: str, threads: int, rnd: int) -> dict:
    tag = f"{pipeline}-t{threads}-r{rnd}"
    out = args.work / tag
    result, texts = args.work / f"{tag}.json", args.work / f"{tag}-texts.json"
    cmd = [sys.executable, str(Path(__file__).with_name("peer_pipelines.py")), pipeline,
           "--corpus", str(args.corpus), "--model-dir", str(args.model_dir), "--threads", str(threads),
           "--out-dir", str(out), "--result", str(result), "--texts", str(texts)]
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads))
    m = measure(f"{PEERS[pipeline]} threads {threads}", cmd, env, args.work / f"{tag}.log")
    shutil.rmtree(out, ignore_errors=True)
    r = json.loads(result.read_text())
    m.update(documents=r["documents"], chunks=r["chunks"], stages=r["stages"], versions=r["versions"],
             texts=json.loads(texts.read_text()))
    return m


def ragpipe_config(args, variant: str, threads: int) -> Path:
    path = args.work / f"ragpipe-{variant}-t{threads}.toml"
    path.write_text(f'[model]\nvariant = "{variant}"\nthreads = {threads}\n')
    return path


def run_ragpipe(args, variant: str, threads: int, rnd: int, want_texts: bool) -> dict:
    tag = f"ragpipe-{variant}-t{threads}-r{rnd}"
    data = args.work / tag
    config = ragpipe_config(args, variant, threads)
    base = [str(args.ragpipe), "--config", str(config), "--data-dir", str(data)]
    # The config file decides; variables that would override it are dropped.
    env = {k: v for k, v in os.environ.items() if k not in ("RAGPIPE_MODEL_VARIANT", "RAGPIPE_THREADS")}
    m = measure(f"ragpipe {variant} threads {threads}", base + ["ingest", "--json", str(args.corpus)], env,
                args.work / f"{tag}.log")
    summary = json.loads((args.work / f"{tag}.log").read_text())
    if summary["failed_total"]:
        raise SystemExit(f"compare-peers: ragpipe failed {summary['failed_total']} documents: {summary['failed']}")
    m.update(documents=summary["indexed"], chunks=summary["chunks_stored"], stages={}, texts=None)
    if want_texts:  # after the clock stopped: what ragpipe embedded, file by file
        say(f"  reading ragpipe's chunk texts back ({variant}, `ragpipe chunks --json` per file)")
        listed = []
        for f in sorted(p for p in args.corpus.rglob("*") if p.is_file()):
            out = subprocess.run(base + ["chunks", "--json", str(f)], env=env, check=True,
                                 capture_output=True, text=True).stdout
            listed += json.loads(out)
        if len(listed) != m["chunks"]:
            raise SystemExit(f"compare-peers: ragpipe stored {m['chunks']} chunks but `chunks` lists {len(listed)}")
        m["texts"] = [c["text"] for c in listed]
        m["own_count"] = sum(c["tokens"] for c in listed)  # ragpipe's word-pieces, to check ours against
    shutil.rmtree(data, ignore_errors=True)
    return m


def wordpieces(tokenizer, texts: list[str]) -> tuple[int, int]:
    lengths = [len(e.ids) for e in tokenizer.encode_batch(texts)]
    return sum(min(n, WINDOW) for n in lengths), sum(n > WINDOW for n in lengths)


def fingerprint(texts: list[str]) -> str:
    return hashlib.sha256(json.dumps(texts).encode()).hexdigest()


def num(x: float, digits: int = 0) -> str:
    return f"{x:,.{digits}f}"


def print_report(runs: dict, counts: dict, threads: list[int], rounds: int, load_before: str, load_after: str) -> None:
    labels = list(dict.fromkeys(label for label, _ in runs))
    peers = [lb for lb in labels if lb in PEERS.values()]
    ours = [lb for lb in labels if lb not in PEERS.values()]
    what = f"best of {rounds} rounds: lowest wall, highest peak RSS" if rounds > 1 else "one round"
    for t in threads:
        best = {}
        print(f"== threads {t} ({what})")
        head = (f"{'pipeline':<13} {'docs':>4} {'chunks':>6} {'word-pieces':>11} {'trunc':>5} {'wall s':>7}"
                f" {'chunks/s':>8} {'wp/s':>7} {'peak RSS MiB':>12} {'procs':>5}")
        print(head)
        print("-" * len(head))
        for label in labels:
            ms = runs[(label, t)]
            _, chunks, wp, trunc = counts[(label, t)]
            wall = min(m["wall"] for m in ms)
            rss = max(m["rss_mib"] for m in ms)
            best[label] = (wall, chunks, wp, rss)
            print(f"{label:<13} {ms[0]['documents']:>4} {num(chunks):>6} {num(wp):>11} {trunc:>5} {wall:>7.1f}"
                  f" {chunks / wall:>8.1f} {num(wp / wall):>7} {num(rss):>12} {max(m['processes'] for m in ms):>5}")
        print("-" * len(head))
        if ours and peers:
            print("ragpipe / peer: speed = peer wall / ragpipe wall (same folder; > 1: ragpipe faster),")
            print("chunks/s and word-pieces/s ragpipe over peer, peak RSS ragpipe over peer (< 1: ragpipe smaller)")
            print(f"{'':<27} {'speed':>6} {'chunks/s':>8} {'wp/s':>6} {'RSS':>6}")
            for o in ours:
                for p in peers:
                    (wo, co, po, ro), (wp_, cp, pp, rp) = best[o], best[p]
                    print(f"{o + ' / ' + p:<27} {wp_ / wo:>6.2f} {(co / wo) / (cp / wp_):>8.2f}"
                          f" {(po / wo) / (pp / wp_):>6.2f} {ro / rp:>6.2f}")
        print("per round (wall s / peak RSS MiB; speed = peer wall / ragpipe wall within the round):")
        for i in range(rounds):
            cells = [f"{lb} {runs[(lb, t)][i]['wall']:.1f}/{runs[(lb, t)][i]['rss_mib']:.0f}" for lb in labels]
            print(f"  #{i + 1}  " + " | ".join(cells))
            if ours and peers:
                ratios = [f"{o.split()[-1]}/{p} {runs[(p, t)][i]['wall'] / runs[(o, t)][i]['wall']:.2f}"
                          for o in ours for p in peers]
                print("       speed " + ", ".join(ratios))
        for p in peers:
            m = min(runs[(p, t)], key=lambda m: m["wall"])
            stages = "  ".join(f"{k} {v:.1f}" for k, v in m["stages"].items())
            rest = m["wall"] - sum(m["stages"].values())
            print(f"{p} by stage, its best round (s): {stages}  (interpreter start and exit {rest:.1f})")
        print()
    for p in peers:
        print(f"{p}: {runs[(p, threads[0])][0]['versions']}")
    print(f"load average (1, 5, 15 min) before: {load_before}, after: {load_after}, on {os.cpu_count()} cores")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, required=True)
    ap.add_argument("--model-dir", type=Path, required=True)
    ap.add_argument("--ragpipe", type=Path, required=True)
    ap.add_argument("--work", type=Path, required=True)
    ap.add_argument("--threads", default="2")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--variants", default="fp32,int8")
    ap.add_argument("--only", default="langchain,llamaindex,ragpipe", help="pipelines to run (for trials)")
    args = ap.parse_args()
    threads = [int(t) for t in args.threads.split(",")]
    only = args.only.split(",")
    pipelines = [("peer", p, None) for p in PEERS if p in only]
    if "ragpipe" in only:
        pipelines += [("ragpipe", f"ragpipe {v}", v) for v in args.variants.split(",")]

    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(args.model_dir / "tokenizer.json"))
    tokenizer.no_truncation()  # the file bakes in 128; count everything, cap at the window ourselves
    tokenizer.no_padding()

    load_before = load()
    runs: dict = defaultdict(list)  # (label, threads) -> one dict per round
    counts: dict = {}  # (label, threads) -> (texts fingerprint, chunks, word-pieces, truncated)
    for rnd in range(1, args.rounds + 1):
        for t in threads:
            shift = (rnd - 1) % len(pipelines)
            for kind, name, variant in pipelines[shift:] + pipelines[:shift]:
                label = PEERS.get(name, name)
                say(f"round {rnd}/{args.rounds}, threads {t}: {label} (load {load()})")
                first = (label, t) not in counts
                if kind == "peer":
                    m = run_peer(args, name, t, rnd)
                else:
                    m = run_ragpipe(args, variant, t, rnd, want_texts=first)
                if first:
                    wp, trunc = wordpieces(tokenizer, m["texts"])
                    if m.get("own_count", wp) != wp:
                        say(f"  warning: ragpipe counts {m['own_count']} word-pieces in its chunks, tokenizer.json {wp}")
                    counts[(label, t)] = (fingerprint(m["texts"]), m["chunks"], wp, trunc)
                elif m["chunks"] != counts[(label, t)][1] or (
                        m["texts"] is not None and fingerprint(m["texts"]) != counts[(label, t)][0]):
                    raise SystemExit(f"compare-peers: {label} chunked differently in round {rnd}; rounds would not compare")
                m.pop("texts")
                runs[(label, t)].append(m)
                say(f"  {label}: {m['chunks']} chunks in {m['wall']:.1f}s, peak {m['rss_mib']:.0f} MiB "
                    f"({m['processes']} processes at most)")
    load_after = load()

    print_report(runs, counts, threads, args.rounds, load_before, load_after)
    return 0


if __name__ == "__main__":
    sys.exit(main())
