#!/usr/bin/env python3
"""Run a command under a process-tree memory cap and a wall-clock limit.

    watch.py --stats OUT.json [--cap-mib N] [--wall-secs S] [--stdout FILE]
             [--state-db PATH] -- COMMAND ARGS...

Why not `ulimit -v` or a cgroup: ulimit caps each process's address space
(the ONNX runtime maps far more than it touches), and cgroups need privileges
the CI runner lacks. The issue's figure is *resident* memory of the whole
tree -- ragpipe plus its `__extract` children -- so every 100 ms this walks
/proc/*/stat for the descendants of the command and sums their VmRSS. Above
the cap (or past the wall limit) the whole tree is SIGKILLed.

Sampling can miss a spike shorter than 100 ms; the stats also carry each
process's own kernel-kept peak (VmHWM, and getrusage for reaped children) so
a short spike in one process still shows. Summed RSS counts pages shared by
two processes twice -- notably a child between fork and exec, which briefly
looks as large as its parent -- so the tree's PSS (shared pages split between
their users, /proc/PID/smaps_rollup) is recorded too, and the cap must be
exceeded on two samples in a row before the tree is killed.

With --state-db the ragpipe state store (SQLite) is read once a second, to
learn when each document was claimed (first seen extracting/embedding) and
which documents were in flight when the run ended: that names the files that
hang when the cap or the wall limit is hit.
"""

import argparse
import json
import os
import resource
import signal
import sqlite3
import subprocess
import sys
import time


def children_map():
    """ppid -> [pid] over every process; the comm field may hold spaces and
    parentheses, so split after the last ')'."""
    kids = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                rest = f.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue  # exited between listdir and open
        kids.setdefault(int(rest[1]), []).append(int(entry))
    return kids


def tree(root):
    kids, out, todo = children_map(), [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(kids.get(pid, []))
    return out


def mem_kib(pid):
    """(VmRSS, VmHWM) in KiB; (0, 0) for a process gone or a zombie."""
    rss = hwm = 0
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    rss = int(line.split()[1])
                elif line.startswith("VmHWM:"):
                    hwm = int(line.split()[1])
    except OSError:
        pass
    return rss, hwm


def pss_kib(pid):
    """Proportional set size: the kernel walks the page tables for it, so it
    is read once per sample per process (a few ms for a GiB-sized one)."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace").strip()[:200]
    except OSError:
        return ""


def kill_tree(root):
    # Children first is not needed with SIGKILL; list again after the group
    # kill in case a child left the process group.
    try:
        os.killpg(root, signal.SIGKILL)
    except OSError:
        pass
    for pid in tree(root):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


class StatePoller:
    """Claim times and in-flight documents from the state store, read-only."""

    def __init__(self, path):
        self.path, self.claimed, self.embedding, self.in_flight, self.last = path, {}, {}, [], 0.0

    def poll(self, now):
        if not self.path or now - self.last < 1.0 or not os.path.exists(self.path):
            return
        self.last = now
        try:
            db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=0.2)
            try:
                rows = db.execute(
                    "SELECT uri, status, updated_at FROM documents WHERE status IN ('extracting', 'embedding')"
                ).fetchall()
            finally:
                db.close()
        except sqlite3.Error:
            return  # locked or not migrated yet: try again next second
        self.in_flight = [{"uri": u, "status": s} for u, s, _ in rows]
        # updated_at is when the row entered its status; the first poll that
        # sees a status keeps it. A stage shorter than a poll may be unseen.
        for uri, status, updated in rows:
            (self.claimed if status == "extracting" else self.embedding).setdefault(uri, updated)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--stats", required=True)
    ap.add_argument("--cap-mib", type=int, default=int(os.environ.get("HOSTILE_RSS_CAP_MIB", 2048)))
    ap.add_argument("--wall-secs", type=float, default=float(os.environ.get("HOSTILE_WALL_SECS", 1800)))
    ap.add_argument("--stdout", help="file for the command's stdout")
    ap.add_argument("--state-db")
    ap.add_argument("--interval", type=float, default=0.1)
    ap.add_argument("--report-every", type=float, default=10.0)
    ap.add_argument("command", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    cmd = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not cmd:
        ap.error("no command")
    out = open(args.stdout, "wb") if args.stdout else None
    started = time.monotonic()
    # A new session: the tree can be killed as a group without killing us.
    proc = subprocess.Popen(cmd, stdout=out, start_new_session=True)
    cap_kib = args.cap_mib << 10
    peak = {"kib": 0, "at_secs": 0.0, "processes": 0, "top": [], "in_flight": []}
    hwm, names, procs_seen = {}, {}, set()
    state = StatePoller(args.state_db)
    cap_hit = wall_hit = False
    over = 0  # consecutive samples over the cap
    peak_pss = 0
    next_report = started + args.report_every
    while proc.poll() is None:
        now = time.monotonic()
        pids = tree(proc.pid)
        usage = {}
        for pid in pids:
            rss, h = mem_kib(pid)
            usage[pid] = rss
            if pid not in names:
                names[pid] = cmdline(pid)
            hwm[pid] = max(hwm.get(pid, 0), h)
        procs_seen.update(pids)
        total = sum(usage.values())
        peak_pss = max(peak_pss, sum(pss_kib(p) for p in pids))
        if total > peak["kib"]:
            top = sorted(usage.items(), key=lambda kv: -kv[1])[:3]
            peak = {
                "kib": total,
                "at_secs": round(now - started, 1),
                "processes": len(pids),
                "top": [{"pid": p, "rss_mib": round(k / 1024, 1), "cmd": names.get(p, "")} for p, k in top],
                # Which documents were being worked on (as of the last poll,
                # up to a second old): a child's cmdline does not say.
                "in_flight": list(state.in_flight),
            }
        state.poll(now)
        over = over + 1 if total > cap_kib else 0
        if over >= 2:
            cap_hit = True
            print(f"watch: tree RSS {total >> 10} MiB over the cap {args.cap_mib} MiB: killing", file=sys.stderr)
            kill_tree(proc.pid)
            break
        if now - started > args.wall_secs:
            wall_hit = True
            print(f"watch: wall limit {args.wall_secs:.0f}s reached: killing", file=sys.stderr)
            kill_tree(proc.pid)
            break
        if now >= next_report:
            next_report += args.report_every
            print(
                f"watch: {now - started:6.0f}s  tree RSS {total >> 10} MiB over {len(pids)} process(es), "
                f"peak {peak['kib'] >> 10} MiB",
                file=sys.stderr,
            )
        time.sleep(args.interval)
    code = proc.wait()
    wall = time.monotonic() - started
    if out:
        out.close()
    rusage = resource.getrusage(resource.RUSAGE_CHILDREN)  # ru_maxrss: KiB on Linux
    stats = {
        "command": cmd,
        "exit_code": code if code >= 0 else None,
        "signal": -code if code < 0 else None,
        "wall_secs": round(wall, 1),
        "cap_mib": args.cap_mib,
        "wall_limit_secs": args.wall_secs,
        "cap_hit": cap_hit,
        "wall_hit": wall_hit,
        "peak_tree_rss_mib": round(peak["kib"] / 1024, 1),
        "peak_at_secs": peak["at_secs"],
        "peak_tree_pss_mib": round(peak_pss / 1024, 1),
        "peak_processes": peak["processes"],
        "peak_top": peak["top"],
        "in_flight_at_peak": peak.get("in_flight", []),
        "processes_seen": len(procs_seen),
        # The root's kernel-kept peak is exact; children are kept per pid
        # only while sampled, so getrusage adds the largest reaped one.
        "root_hwm_mib": round(hwm.get(proc.pid, 0) / 1024, 1),
        "max_child_hwm_mib": round(max([v for p, v in hwm.items() if p != proc.pid] or [0]) / 1024, 1),
        "max_reaped_rss_mib": round(rusage.ru_maxrss / 1024, 1),
        "claimed_at_ms": state.claimed,
        "embedding_at_ms": state.embedding,
        "in_flight_at_end": state.in_flight,
    }
    with open(args.stats, "w") as f:
        json.dump(stats, f, indent=1)
    print(
        f"watch: done in {wall:.1f}s, exit {code}, peak tree RSS {stats['peak_tree_rss_mib']} MiB"
        + (" (CAP HIT)" if cap_hit else "")
        + (" (WALL LIMIT HIT)" if wall_hit else ""),
        file=sys.stderr,
    )
    sys.exit(0 if code == 0 else (code if code > 0 else 128 - code))


if __name__ == "__main__":
    main()
