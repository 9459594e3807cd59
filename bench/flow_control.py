#!/usr/bin/env python3
"""bench/flow_control.py - what the executor's flow control costs where ports are not shared.

    python3 bench/flow_control.py [--build build] [--ranks 2] [--iterations 40]
        [--repeats 3] [--threshold 32K] [--sizes 64K,256K,1M,4M]

For each collective (bcast-binomial, allgather-ring) and size, runs choreo-run
--json with and without --flow-control THRESHOLD, alternating, --repeats jobs
of --iterations each, and reports the median time of each and their ratio
(on / off). Every message of these sizes is gated, so the ratio is the price
of one clear-to-send and one acknowledgement per message (docs/executor.md,
"Flow control"). Run at 2 ranks on this 2-core machine (no oversubscription).
"""
import argparse, json, os, statistics, subprocess, tempfile

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--iterations", type=int, default=40)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--threshold", default="32K")
    ap.add_argument("--sizes", default="64K,256K,1M,4M")
    a = ap.parse_args()
    b = os.path.abspath(os.path.join(a.build, "bin"))
    work = tempfile.mkdtemp()
    print(f"{a.ranks} ranks, flow control from {a.threshold} bytes; median of {a.repeats} jobs x {a.iterations} iterations")
    print("| collective | bytes | off s | on s | on/off |")
    print("|---|---|---|---|---|")
    for gen in ("bcast-binomial", "allgather-ring"):
        for size in a.sizes.split(","):
            f = os.path.join(work, f"{gen}-{size}.json")
            subprocess.run([os.path.join(b, "choreo"), "gen", gen, "--p", str(a.ranks), "--bytes", size, "-o", f], check=True)
            t = {"off": [], "on": []}
            for _ in range(a.repeats):
                for mode in ("off", "on"):
                    fc = ["--flow-control", a.threshold] if mode == "on" else []
                    out = subprocess.run(["mpiexec", "-n", str(a.ranks), os.path.join(b, "choreo-run"), f, "--json",
                                          "--iterations", str(a.iterations)] + fc,
                                         check=True, capture_output=True, text=True, stdin=subprocess.DEVNULL).stdout
                    r = json.loads(out)
                    t[mode].append(r.get("makespan_median_s", r["median_s"]))
            off, on = statistics.median(t["off"]), statistics.median(t["on"])
            print(f"| {gen} | {size} | {off:.3e} | {on:.3e} | {on / off:.2f} |", flush=True)

if __name__ == "__main__":
    main()
