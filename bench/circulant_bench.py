#!/usr/bin/env python3
"""circulant_bench.py [BUILD_DIR] [table|large]: Träff's circulant-graph
broadcast (bcast-circulant) against its round count n - 1 + ceil(log2 p), as
in docs/circulant.md: for m = 1 MiB cut into n = 16 blocks (the pipelined
chain with the same 16 segments beside it, and MPICH's scatter + ring
allgather, the scatter-allgather broadcast), the schedule's steps, the
formula's, and the lock-step time of `choreo cost` (alpha 1e-6 s, beta
1e-10 s/B) beside (n - 1 + q)(alpha + beta m / n); generation time of the
circulant schedule (to /dev/null in CBOR, best of 3).

  table   p = 2..64
  large   p in {100, 1000, 4096, 16384, 65536} (scatter-ring only up to
          1000: its p (p - 1) ops)
"""
import json
import math
import os
import subprocess
import sys
import time

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
WHAT = sys.argv[2] if len(sys.argv) > 2 else "table"
CHOREO = os.path.join(BUILD, "bin", "choreo")
ALPHA, BETA = 1e-6, 1e-10
M = 1 << 20
N = 16


def run(*args, stdin=None):
    return subprocess.run([CHOREO] + [str(a) for a in args], check=True,
                          capture_output=True, input=stdin).stdout


def gen_args(algo, p):
    a = ["gen", "bcast-" + algo, "--p", p, "--bytes", M, "--format", "cbor"]
    if algo in ("circulant", "pipeline"):
        a += ["--segments", N]
    return a


def model(algo, p):
    s = run(*gen_args(algo, p))
    j = json.loads(run("cost", "-", "--alpha", ALPHA, "--beta", BETA,
                       "--json", stdin=s))
    return j["steps"], j["time_lockstep"]


def gen_time(algo, p):
    best = None
    for _ in range(3):
        t = time.perf_counter()
        run(*gen_args(algo, p), "-o", "/dev/null")
        t = time.perf_counter() - t
        best = t if best is None else min(best, t)
    return best


def row(p, ring=True):
    q = math.ceil(math.log2(p)) if p > 1 else 0
    steps, t = model("circulant", p)
    want = N - 1 + q
    formula = want * (ALPHA + BETA * M / N)
    _, tp = model("pipeline", p)
    tr = model("scatter-ring", p)[1] if ring else None
    g = gen_time("circulant", p)
    assert steps == want, (p, steps, want)
    cells = [p, q, steps, want, "%.1f" % (t * 1e6), "%.1f" % (formula * 1e6),
             "%.1f" % (tp * 1e6), "%.1f" % (tr * 1e6) if tr else "-",
             "%.0f" % (g * 1e3)]
    print("| " + " | ".join(str(c) for c in cells) + " |", flush=True)


def main():
    print("| p | q | steps | n - 1 + q | model (us) | formula (us) "
          "| pipeline (us) | scatter-ring (us) | gen (ms) |")
    print("|---|---|---|---|---|---|---|---|---|")
    if WHAT == "table":
        for p in range(2, 65):
            row(p)
    else:
        for p in (100, 1000, 4096, 16384, 65536):
            row(p, ring=p <= 1000)


if __name__ == "__main__":
    main()
