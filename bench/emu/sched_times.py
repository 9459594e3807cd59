#!/usr/bin/env python3
"""bench/emu/sched_times.py - measured against modelled time of a few schedules on the emulated cluster.

    python3 bench/emu/sched_times.py --build build [--nodes 8] [--rate 200mbit] [--burst 16k|packet] [--mtu M]
        [--iterations 15] [--warmup 1] [--runs 1] [--calibrate SECONDS | --machine FILE] [--out FILE]
        "bcast-circulant --bytes 4K" "bcast-binomial --bytes 4K" ...

Needs root (docs/emulation.md). Brings up --nodes nodes of one rank each, and
for every schedule (a generator and its options; `--p` is the number of
nodes) generates it, runs it (`choreo-run --json`, the median makespan over
--iterations, the median over --runs jobs) and prices it with the machine
file (`--machine`, or one `choreo-calibrate` measures there first with
--calibrate) twice: as the file says, and with every message eager
(`choreo cost --eager all`, docs/machine.md "Eager sends share the ports").
Prints one row per schedule: steps, ops, measured s, measured per step, the
two models and measured/model. --out writes the rows as JSON.
"""
import argparse, functools, json, os, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import emu_bench  # noqa: E402  (run)

run = functools.partial(emu_bench.run, timeout=600)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--nodes", type=int, default=8)
    ap.add_argument("--rate", default="200mbit")
    ap.add_argument("--burst", help="the ports' token bucket (cluster.sh --burst: bytes, or 'packet' for one frame; "
                                    "default 16kb)")
    ap.add_argument("--mtu", help="the ports' MTU (cluster.sh --mtu; default 9000)")
    ap.add_argument("--iterations", type=int, default=15)
    ap.add_argument("--warmup", type=int, default=1, help="untimed iterations first (choreo-run --warmup)")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--calibrate", type=int, metavar="SECONDS", help="measure the machine file here first")
    ap.add_argument("--machine", help="price with this machine file")
    ap.add_argument("--out", help="write the rows as JSON")
    ap.add_argument("schedules", nargs="+", help="'GENERATOR OPTIONS' (without --p)")
    a = ap.parse_args()
    if not a.calibrate and not a.machine:
        sys.exit("sched_times: give --calibrate SECONDS or --machine FILE")
    bindir = os.path.abspath(os.path.join(a.build, "bin"))
    choreo = os.path.join(bindir, "choreo")
    env = dict(os.environ, CHOREO_EMU_SHIM=os.path.abspath(os.path.join(a.build, "lib", "libchoreo-emu-finalize.so")),
               CHOREO_EMU_PER_NODE="1")
    env.setdefault("CHOREO_EMU_PREFIX", "choreo-emu-t")
    cluster = os.path.join(HERE, "cluster.sh")
    rank_sh = os.path.join(HERE, "rank.sh")
    work = tempfile.mkdtemp()
    p = a.nodes
    machine = a.machine
    rows, load = [], [os.getloadavg()[0]]
    try:
        up = ([cluster, "up", str(p), "--rate", a.rate] + (["--burst", a.burst] if a.burst else [])
              + (["--mtu", a.mtu] if a.mtu else []))
        run(up, env=env)
        if a.calibrate:
            machine = os.path.join(work, "machine.json")
            run(["mpiexec", "-n", str(p), rank_sh, os.path.join(bindir, "choreo-calibrate"), "-o", machine,
                 "--seconds", str(a.calibrate), "--max-bytes", "4M"], env=env, stdin=subprocess.DEVNULL)
            if a.out:
                run(["cp", machine, os.path.splitext(a.out)[0] + "-machine.json"])
        M = json.load(open(machine))
        print(f"machine: alpha {M['alpha']:.3g} s, beta {M['beta']:.3g} s/B, step_startup "
              f"{M.get('step_startup', 0):.3g} s, eager_bytes {M.get('eager_bytes', 0)}", flush=True)
        files = []
        for i, spec in enumerate(a.schedules):
            words = spec.split()
            f = os.path.join(work, f"s{i}.json")
            run([choreo, "gen", words[0], "--p", str(p)] + words[1:] + ["-o", f])
            files.append(f)
        # The runs interleaved (every schedule once, then again), so that a
        # change of load meets every schedule alike.
        outs = [[] for _ in files]
        for _ in range(a.runs):
            for i, f in enumerate(files):
                outs[i].append(json.loads(run(["timeout", "300", "mpiexec", "-n", str(p), rank_sh,
                                               os.path.join(bindir, "choreo-run"), f, "--json",
                                               "--iterations", str(a.iterations), "--warmup", str(a.warmup)],
                                              timeout=320, env=env, stdin=subprocess.DEVNULL)))
                load.append(os.getloadavg()[0])
        for spec, f, jobs in zip(a.schedules, files, outs):
            S = json.load(open(f))
            steps = len(S["steps"])
            ops = sum(len(s["ops"]) for s in S["steps"])
            times = sorted(o.get("makespan_median_s", o["median_s"]) for o in jobs)
            t = times[len(times) // 2]
            model = json.loads(run([choreo, "cost", f, "--machine", machine, "--json"]))["time"]
            eager = json.loads(run([choreo, "cost", f, "--machine", machine, "--eager", "all", "--json"]))["time"]
            rows.append({"schedule": spec, "steps": steps, "ops": ops, "measured_s": t, "jobs": jobs,
                         "model_s": model, "model_eager_s": eager})
            print(f"{spec:40s} steps {steps:3d} ops {ops:4d}  measured {t:.4g} s ({t / steps * 1e6:.0f} us/step; "
                  f"jobs {', '.join(f'{x:.3g}' for x in times)}; slowest rank min {min(o['min_s'] for o in jobs):.3g})  "
                  f"model {model:.4g} ({t / model:.2f})  eager {eager:.4g} ({t / eager:.2f})", flush=True)
    finally:
        subprocess.run([cluster, "down"], env=env)
    print(f"load (1 min) {min(load):.1f}-{max(load):.1f}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    if a.out:
        json.dump({"nodes": p, "rate": a.rate, "burst": a.burst, "mtu": a.mtu, "iterations": a.iterations, "warmup": a.warmup, "machine": M, "load_1min": load, "rows": rows},
                  open(a.out, "w"), indent=1)


if __name__ == "__main__":
    main()
