#!/usr/bin/env python3
"""bench/emu/select_study.py - how often `choreo select` with a calibrated machine file picks a winner.

    python3 bench/emu/select_study.py --build build [--nodes 8] [--rate 200mbit]
        [--burst BYTES|packet] [--mtu M] [--collectives bcast,allreduce,allgather] [--sizes 8,4K,64K,1M]
        [--iterations 5] [--warmup 10] [--runs 1] [--seconds 10] [--flow-control BYTES] [--out DIR]

On the emulated cluster (docs/emulation.md; needs root): brings up --nodes
nodes of one rank each, calibrates the model there (choreo-calibrate over all
ranks: alpha and beta of a pair of nodes, the per-step start-up with every
rank busy), then for every cell (collective, size) asks `choreo select
--machine` for its ranking, generates and runs every candidate it lists
(choreo-run --json, the median makespan over --iterations, the median over
--runs jobs), and reports
whether select's pick is within 10 % of the best measured. Writes
study.json and study.md to --out (default /tmp/select-study) and prints the
table. bytes: the broadcast vector, the allreduce vector (4-byte ints), an
allgather member's contribution.
"""
import argparse, functools, json, os, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import emu_bench  # noqa: E402  (run, size_bytes)
from emu_bench import size_bytes  # noqa: E402

run = functools.partial(emu_bench.run, timeout=600)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--nodes", type=int, default=8)
    ap.add_argument("--rate", default="200mbit")
    ap.add_argument("--burst", help="the ports' token bucket (cluster.sh --burst: bytes, or 'packet' for one frame; "
                                    "default cluster.sh's, 16kb)")
    ap.add_argument("--mtu", help="the ports' MTU (cluster.sh --mtu; default 9000)")
    ap.add_argument("--collectives", default="bcast,allreduce,allgather")
    ap.add_argument("--sizes", default="8,4K,64K,1M")
    ap.add_argument("--iterations", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=10,
                    help="untimed iterations before them (choreo-run --warmup; default 10: a job's first few "
                         "iterations on the 2 cores ran up to 10 times slower, so with 1, as before 14:20 on "
                         "2026-11-27, a 4 KiB cell's jobs varied 0.4-5 ms; docs/emulation.md, 'A port without a burst')")
    ap.add_argument("--runs", type=int, default=1,
                    help="jobs per algorithm, the median taken (a sub-millisecond cell's jobs vary 2-4x: "
                         "docs/emulation.md, 'Eager sends, priced')")
    ap.add_argument("--seconds", type=int, default=10, help="choreo-calibrate's budget")
    ap.add_argument("--flow-control", metavar="BYTES", help="choreo-run --flow-control BYTES for every candidate")
    ap.add_argument("--out", default="/tmp/select-study")
    a = ap.parse_args()
    bindir = os.path.abspath(os.path.join(a.build, "bin"))
    choreo = os.path.join(bindir, "choreo")
    env = dict(os.environ, CHOREO_EMU_SHIM=os.path.abspath(os.path.join(a.build, "lib", "libchoreo-emu-finalize.so")),
               CHOREO_EMU_PER_NODE="1")
    env.setdefault("CHOREO_EMU_PREFIX", "choreo-emu-s")
    cluster = os.path.join(HERE, "cluster.sh")
    rank_sh = os.path.join(HERE, "rank.sh")
    os.makedirs(a.out, exist_ok=True)
    work = tempfile.mkdtemp()
    p = a.nodes
    machine = os.path.join(a.out, "machine.json")
    load = [os.getloadavg()]
    cells = []
    try:
        run([cluster, "up", str(p), "--rate", a.rate] + (["--burst", a.burst] if a.burst else [])
            + (["--mtu", a.mtu] if a.mtu else []), env=env)
        run(["mpiexec", "-n", str(p), rank_sh, os.path.join(bindir, "choreo-calibrate"), "-o", machine,
             "--seconds", str(a.seconds), "--max-bytes", "4M"], env=env, stdin=subprocess.DEVNULL)
        M = json.load(open(machine))
        print(f"calibrated on {p} nodes: alpha {M['alpha']:.3g} s, beta {M['beta']:.3g} s/B, "
              f"step_startup {M.get('step_startup', 0):.3g} s", flush=True)
        for coll in a.collectives.split(","):
            extra = ["--element-bytes", "4"] if coll == "allreduce" else []
            for size in a.sizes.split(","):
                sel = json.loads(run([choreo, "select", "--collective", coll, "--p", str(p), "--bytes", size,
                                      "--machine", machine, "--json"] + extra))
                ranking = [r["algorithm"] for r in sel["ranking"]]
                measured = {}
                for alg in ranking:
                    f = os.path.join(work, f"{coll}-{size}-{alg}.json")
                    try:
                        run([choreo, "gen", alg, "--p", str(p), "--bytes", size, "-o", f] + extra)
                        fc = ["--flow-control", a.flow_control] if a.flow_control else []
                        jobs = []
                        for _ in range(a.runs):
                            out = json.loads(run(["timeout", "300", "mpiexec", "-n", str(p), rank_sh,
                                                  os.path.join(bindir, "choreo-run"), f, "--json",
                                                  "--iterations", str(a.iterations), "--warmup", str(a.warmup)] + fc,
                                                 timeout=320, env=env, stdin=subprocess.DEVNULL))
                            jobs.append(out.get("makespan_median_s", out["median_s"]))
                        measured[alg] = sorted(jobs)[len(jobs) // 2]
                    except (RuntimeError, subprocess.TimeoutExpired) as e:
                        print(f"{coll} {size} {alg}: failed: {str(e)[:200]}", flush=True)
                if not measured:
                    continue
                best = min(measured, key=measured.get)
                pick = ranking[0]
                ratio = measured.get(pick, float("inf")) / measured[best]
                cells.append({"collective": coll, "bytes": size_bytes(size), "size": size, "pick": pick,
                              "best": best, "pick_s": measured.get(pick), "best_s": measured[best],
                              "ratio": ratio, "within_10pct": ratio <= 1.10, "measured": measured,
                              "model": {r["algorithm"]: r["time"] for r in sel["ranking"]}})
                print(f"{coll} {size}: pick {pick} {measured.get(pick, float('nan')):.4g} s, "
                      f"best {best} {measured[best]:.4g} s, ratio {ratio:.2f}", flush=True)
                load.append(os.getloadavg())
    finally:
        subprocess.run([cluster, "down"], env=env)
    hits = sum(c["within_10pct"] for c in cells)
    meta = {"nodes": p, "rate": a.rate, "burst": a.burst or os.environ.get("CHOREO_EMU_BURST", "16kb"),
            "mtu": a.mtu or os.environ.get("CHOREO_EMU_MTU", "9000"), "runs": a.runs,
            "iterations": a.iterations, "warmup": a.warmup, "flow_control": a.flow_control,
            "machine": json.load(open(machine)) if os.path.exists(machine) else None,
            "load_1min": [round(l[0], 1) for l in load],
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    json.dump({"meta": meta, "cells": cells}, open(os.path.join(a.out, "study.json"), "w"), indent=1)
    with open(os.path.join(a.out, "study.md"), "w") as md:
        md.write(f"{p} nodes at {a.rate} (burst {meta['burst']}, MTU {meta['mtu']}), one rank each; model calibrated there "
                 f"(alpha {meta['machine']['alpha']:.3g} s, beta {meta['machine']['beta']:.3g} s/B, "
                 f"step_startup {meta['machine'].get('step_startup', 0):.3g} s, eager_bytes "
                 f"{meta['machine'].get('eager_bytes', 0)}); median makespan of "
                 f"{a.iterations} iterations after {a.warmup} untimed, the median of {a.runs} jobs; load (1 min) {min(meta['load_1min'])}–{max(meta['load_1min'])}; "
                 f"{meta['date']}.\n\n")
        md.write("| collective | bytes | select's pick | its time s | best measured | best s | pick / best | within 10 % |\n")
        md.write("|---|---|---|---|---|---|---|---|\n")
        for c in cells:
            md.write(f"| {c['collective']} | {c['size']} | {c['pick']} | {c['pick_s'] or float('nan'):.4g} | "
                     f"{c['best']} | {c['best_s']:.4g} | {c['ratio']:.2f} | {'yes' if c['within_10pct'] else 'no'} |\n")
        md.write(f"\nWithin 10 % of the best measured: {hits} of {len(cells)} cells.\n")
    print(open(os.path.join(a.out, "study.md")).read())


if __name__ == "__main__":
    main()
