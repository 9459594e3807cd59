#!/usr/bin/env python3
"""bench/emu/osu_emu.py - native against preloaded latency on the emulated cluster.

    python3 bench/emu/osu_emu.py --build build [--nodes 8] [--rate 200mbit]
        [--colls bcast,allreduce,allgather,alltoall] [--min 8] [--max 1M]
        [--iterations 20] [--warmup 3] [--seconds 3] [--rounds 1] [--loop 1]
        [--control] [--before LIB] [--rotate] [--bind core] [--out DIR]

Brings up --nodes nodes of one rank each (cluster.sh), calibrates the model
there (choreo-calibrate over all ranks, CHOREO_NODES=1: each namespace a
node), then for each collective runs the OSU-style program
(choreo-bench-pmpi-osu, bench/pmpi_osu.c) natively and with
LD_PRELOAD=libchoreo-mpi.so under the library's defaults (`auto`, the
margin) and CHOREO_MACHINE set to that file, the two alternating per
collective (--rounds times; --control adds a second native job per round,
whose difference from the first is the cell's noise floor; --before adds a
job preloading another build of the library, the library before a change;
--rotate changes the jobs' order from round to round). Prints one Markdown row per collective and size: the median of
the slowest rank's time natively and preloaded (microseconds), the
difference and the ratio, and whether it is within the issue's bound (at
most 5 % or 0.5 us over native, whichever is larger). Writes osu.json and
osu.md to --out (default /tmp/osu-emu). Needs root (network namespaces);
see docs/emulation.md.
"""
import argparse
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import emu_bench  # noqa: E402  (run, mpi, size_bytes)
from emu_bench import size_bytes  # noqa: E402


def rows_of(text):
    """The program's lines: size, min, median, max (us); comments skipped."""
    out = {}
    for line in text.splitlines():
        f = line.split()
        if len(f) >= 4 and f[0].isdigit():
            out[int(f[0])] = float(f[2])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--nodes", type=int, default=8)
    ap.add_argument("--rate", default="200mbit")
    ap.add_argument("--colls", default="bcast,allreduce,allgather,alltoall")
    ap.add_argument("--min", default="8")
    ap.add_argument("--max", default="1M")
    ap.add_argument("--iterations", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--seconds", type=int, default=3, help="choreo-calibrate's budget")
    ap.add_argument("--rounds", type=int, default=1,
                    help="native and preloaded jobs alternate this many times per collective; a cell is the "
                         "median over the rounds (the rounds' range is printed beside it)")
    ap.add_argument("--loop", type=int, default=1,
                    help="calls back to back per timed sample (the program's LOOP: its time divided by LOOP)")
    ap.add_argument("--control", action="store_true",
                    help="a third job per round, native again: the difference between two native jobs "
                         "(the noise floor of a cell) is printed beside the preloaded one")
    ap.add_argument("--before", metavar="LIB",
                    help="another libchoreo-mpi.so (the library before a change), preloaded in a job of its own "
                         "each round: its difference from native is printed beside the preloaded one")
    ap.add_argument("--rotate", action="store_true",
                    help="rotate the configurations' order from round to round (round i starts with the i-th): "
                         "the first job of a round can differ from the others by up to 0.5 us under load, so "
                         "with a fixed order that place goes to native every round")
    ap.add_argument("--bind", default="",
                    help="hydra's process binding for every job (HYDRA_BINDING: core, socket...): with ranks "
                         "pinned, jobs do not differ by where the scheduler put them")
    ap.add_argument("--out", default="/tmp/osu-emu")
    a = ap.parse_args()
    if a.nodes < 2:
        sys.exit("osu_emu.py: --nodes must be at least 2")
    build = os.path.abspath(a.build)
    bindir = os.path.join(build, "bin")
    lib = os.path.join(build, "lib", "libchoreo-mpi.so")
    osu = os.path.join(bindir, "choreo-bench-pmpi-osu")
    for f in (lib, osu, os.path.join(bindir, "choreo-calibrate")):
        if not os.path.exists(f):
            sys.exit(f"osu_emu.py: no {f} (build it first)")
    env = dict(os.environ, CHOREO_EMU_SHIM=os.path.join(build, "lib", "libchoreo-emu-finalize.so"),
               CHOREO_EMU_PER_NODE="1")
    env.setdefault("CHOREO_EMU_PREFIX", "choreo-emu-u")
    if a.bind:
        env["HYDRA_BINDING"] = a.bind
    cluster = os.path.join(HERE, "cluster.sh")
    os.makedirs(a.out, exist_ok=True)
    machine = os.path.join(a.out, "machine.json")
    load = [os.getloadavg()[0]]
    table = []
    try:
        emu_bench.run([cluster, "up", str(a.nodes), "--rate", a.rate], env=env)
        emu_bench.mpi([os.path.join(bindir, "choreo-calibrate"), "-o", machine, "--seconds", str(a.seconds),
                       "--max-bytes", "4M"], a.nodes, dict(env, CHOREO_NODES="1"), 600)
        pre = dict(env, LD_PRELOAD=lib, CHOREO_MACHINE=machine, CHOREO_NODES="1", CHOREO_VERBOSE="1")
        args = [str(size_bytes(a.min)), str(size_bytes(a.max)), str(a.iterations), str(a.warmup), str(a.loop)]
        for coll in a.colls.split(","):
            runs = {"native": [], "preloaded": [], "control": [], "before": []}
            chosen = set()
            def job(kind):
                if kind in ("native", "control"):
                    return rows_of(emu_bench.mpi([osu, coll] + args, a.nodes, env, 1200))
                if kind == "before":
                    return rows_of(emu_bench.mpi([osu, coll] + args, a.nodes,
                                                 dict(pre, LD_PRELOAD=os.path.abspath(a.before)), 1200))
                r = emu_bench.subprocess.run(["timeout", "1200", "mpiexec", "-n", str(a.nodes),
                                              os.path.join(HERE, "rank.sh"), osu, coll] + args,
                                             env=pre, stdin=emu_bench.subprocess.DEVNULL, capture_output=True,
                                             text=True)
                if r.returncode != 0:
                    raise RuntimeError(f"{coll} preloaded failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")
                # CHOREO_VERBOSE's line for each call shape: what ran (its first words).
                chosen.update(" ".join(l.split()[:16]) for l in r.stderr.splitlines() if "choreo" in l)
                return rows_of(r.stdout)
            kinds = ["native", "preloaded"] + (["control"] if a.control else []) + (["before"] if a.before else [])
            for i in range(a.rounds):
                # --rotate: round i starts at the i-th configuration (a job's place in the round is
                # not always the same configuration's).
                at = i % len(kinds) if a.rotate else 0
                for kind in kinds[at:] + kinds[:at]:
                    runs[kind].append(job(kind))
            for b in sorted(runs["native"][0]):
                ns = sorted(x[b] for x in runs["native"] if b in x)
                ps = sorted(x[b] for x in runs["preloaded"] if b in x)
                cs = sorted(x[b] for x in runs["control"] if b in x)
                bs = sorted(x[b] for x in runs["before"] if b in x)
                if not ps:
                    continue
                n, p = statistics.median(ns), statistics.median(ps)
                ok = p - n <= max(0.05 * n, 0.5)
                row = {"coll": coll, "bytes": b, "native_us": n, "preloaded_us": p,
                       "diff_us": p - n, "ratio": p / n if n else 0, "within": ok,
                       "native_rounds": [ns[0], ns[-1]], "preloaded_rounds": [ps[0], ps[-1]]}
                if cs:
                    row["control_us"] = statistics.median(cs)
                    row["control_diff_us"] = row["control_us"] - n
                if bs:
                    row["before_us"] = statistics.median(bs)
                    row["before_diff_us"] = row["before_us"] - n
                table.append(row)
            table.append({"coll": coll, "verbose": sorted(chosen)[:12]})
            load.append(os.getloadavg()[0])
    finally:
        emu_bench.run([cluster, "down"], env=env)
    M = json.load(open(machine))
    head = (f"{a.nodes} nodes at {a.rate}, one rank each; model calibrated there (alpha {M['alpha']:.3g} s, "
            f"beta {M['beta']:.3g} s/B, step_startup {M.get('step_startup', 0):.3g} s); median of {a.iterations} "
            f"samples of {a.loop} call(s) (slowest rank), median over {a.rounds} round(s); load (1 min) {min(load):.1f}-{max(load):.1f}; "
            f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.")
    ctl = a.control
    md = [head, "", "| call | bytes | native us | preloaded us | difference us | ratio | within max(5 %, 0.5 us) |"
          + (" native rounds | preloaded rounds |" if a.rounds > 1 else "")
          + (" native again − native us |" if ctl else "")
          + (" before − native us |" if a.before else ""),
          "|---|---|---|---|---|---|---|" + ("---|---|" if a.rounds > 1 else "") + ("---|" if ctl else "")
          + ("---|" if a.before else "")]
    for t in table:
        if "bytes" in t:
            line = (f"| {t['coll']} | {t['bytes']} | {t['native_us']:.2f} | {t['preloaded_us']:.2f} | "
                    f"{t['diff_us']:+.2f} | {t['ratio']:.2f} | {'yes' if t['within'] else 'no'} |")
            if a.rounds > 1:
                line += (f" {t['native_rounds'][0]:.2f}-{t['native_rounds'][1]:.2f} |"
                         f" {t['preloaded_rounds'][0]:.2f}-{t['preloaded_rounds'][1]:.2f} |")
            if ctl:
                line += f" {t.get('control_diff_us', 0):+.2f} |"
            if a.before:
                line += f" {t.get('before_diff_us', 0):+.2f} |"
            md.append(line)
    cells = [t for t in table if "bytes" in t]
    md.append("")
    md.append(f"Within the bound: {sum(t['within'] for t in cells)} of {len(cells)} cells.")
    for t in table:
        if "verbose" in t:
            md.append(f"- {t['coll']}: the library said: " + ("; ".join(t["verbose"]) or "(nothing)"))
    json.dump({"meta": {"nodes": a.nodes, "rate": a.rate, "machine": M, "load": load}, "rows": table},
              open(os.path.join(a.out, "osu.json"), "w"), indent=1)
    open(os.path.join(a.out, "osu.md"), "w").write("\n".join(md) + "\n")
    print("\n".join(md))


if __name__ == "__main__":
    main()
