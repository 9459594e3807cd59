#!/usr/bin/env python3
"""cost_tables.py [BUILD_DIR]: the seed papers' cost claims against choreo's
cost model (`choreo compare` / `choreo cost`), as the Markdown tables of
docs/cost.md:

  1. Seed 000, Eq. (5): root gathering over Algorithm 1, transfer time only
     (alpha 0, beta 1, 8 MiB largest block), settings 1-4, against the
     asymptotic ratio and against Eq. (2) / Theorem 1 at the same p, q.
  2. Seed 001, Table I: half-duplex allgather, fully connected: start-ups
     (alpha 1, beta 0) and bandwidth (alpha 0, beta 1, in k) of the root
     gathering baseline and the proposed algorithm.
  3. Seed 001, Table II: the ring algorithm against an allgather over all
     p + q processes, in rounds of (t_s + k t_w).
  4. The simulator's speed on large schedules.
"""
import json
import math
import os
import subprocess
import sys
import tempfile
import time

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
CHOREO = os.path.join(BUILD, "bin", "choreo")
M8 = 8 << 20


def run(*args, stdin=None):
    return subprocess.run([CHOREO] + [str(a) for a in args], check=True,
                          capture_output=True, input=stdin).stdout


def compare_row(algos, gen, size, alpha=0, beta=1):
    """One size: the row of `choreo compare --json` (asynchronous times in
    "time", lock-step ones in "time_lockstep")."""
    args = ["compare"] + algos + gen.split() + ["--sizes", size, "--alpha",
                                                 alpha, "--beta", beta,
                                                 "--json"]
    return json.loads(run(*args))["rows"][0]


def compare(algos, gen, size, alpha=0, beta=1):
    return compare_row(algos, gen, size, alpha, beta)["time"]


def lg(x):
    return math.log2(x)


def eq5():
    print("### Seed 000, Eq. (5): root gathering / Algorithm 1, transfer "
          "time (alpha 0, beta 1, largest block 8 MiB)\n")
    print("| setting | p, q | k_A : k_B | ours, asynchronous | ours, lock step "
          "| as listed (subgroups) | Eq. (2) / Thm 1 at p, q | Eq. (5) "
          "(paper) | ours vs Eq. (5) |")
    print("|---|---|---|---|---|---|---|---|---|")
    settings = [(1, 128, 128, 1, 1, 7.0), (1, 32, 32, 1, 1, 7.0),
                (2, 100, 28, 1, 1, 4.84), (3, 100, 28, 4, 1, 4.21),
                (4, 100, 28, 1, 4, 6.68), (2, 200, 56, 1, 1, 4.84),
                (3, 200, 56, 4, 1, 4.21), (4, 200, 56, 1, 4, 6.68)]
    algos = ["inter-allgather-root", "inter-allgather-kang"]
    for s, p, q, ka, kb, paper in settings:
        gen = f"--p {p} --q {q} --bytes-a {ka} --bytes-b {kb}"
        row = compare_row(algos, gen, "8M")
        t, tl = row["time"], row["time_lockstep"]
        listed = "same"
        if max(p, q) % min(p, q):
            root = t[0]
            kang = compare(["inter-allgather-kang"],
                           gen + " --exchange subgroups", "8M")[0]
            listed = f"{root / kang:.3f}"
        M = max(p * ka, q * kb)
        eq2 = max((p - 1) * ka, (q - 1) * kb) + 3 * p * ka + 3 * q * kb
        thm1 = M + (kb if p >= q else ka)
        ours = t[0] / t[1]
        print(f"| {s} | {p}, {q} | {ka} : {kb} | {ours:.3f} | "
              f"{tl[0] / tl[1]:.3f} | {listed} | {eq2 / thm1:.3f} | {paper} "
              f"| {100 * (ours / paper - 1):+.1f} % |")
    print()


def table1():
    print("### Seed 001, Table I: half-duplex allgather, fully connected\n")
    print("| p, q | root: start-ups (ours / log p + 2 log q) | proposed: "
          "start-ups (ours / formula) | root: bandwidth in k (ours / 4p) | "
          "proposed: bandwidth in k (ours / p) | ratio, bandwidth |")
    print("|---|---|---|---|---|---|")
    algos = ["half-allgather-root", "half-allgather-kang"]
    for p, q in [(16, 16), (64, 64), (128, 64), (64, 128), (256, 256),
                 (32, 96)]:
        gen = f"--p {p} --q {q}"
        a = compare(algos, gen, "1M", alpha=1, beta=0)
        b = compare(algos, gen, "1M", alpha=0, beta=1)
        k = 1 << 20
        proposed = lg(p) + (0 if p >= q else 2 * lg(q / p + 1))
        print(f"| {p}, {q} | {a[0]:.0f} / {lg(p) + 2 * lg(q):.1f} | "
              f"{a[1]:.0f} / {proposed:.1f} | {b[0] / k:.1f} / {4 * p} | "
              f"{b[1] / k:.1f} / {p} | {b[0] / b[1]:.2f} |")
    print()


def table2():
    print("### Seed 001, Table II: ring topology, rounds of (t_s + k t_w) "
          "(alpha 1, beta 1/k)\n")
    print("| p, q | intra-ring allgather (ours / p + q - 1) | proposed "
          "(ours / p + q/2) | ratio (ours / Table II) | paper's text |")
    print("|---|---|---|---|---|")
    algos = ["half-allgather-intraring", "half-allgather-ring"]
    text = {(64, 64): "1.5", (128, 64): "1.14", (64, 128): "1.6"}
    k = 1 << 20
    for p, q in [(64, 64), (128, 64), (64, 128), (256, 256), (512, 256),
                 (256, 768)]:
        t = compare(algos, f"--p {p} --q {q}", "1M", alpha=1, beta=1 / k)
        r0, r1 = t[0] / 2, t[1] / 2
        print(f"| {p}, {q} | {r0:.0f} / {p + q - 1} | {r1:.0f} / "
              f"{p + q / 2:g} | {r0 / r1:.3f} / "
              f"{(p + q - 1) / (p + q / 2):.3f} | {text.get((p, q), '')} |")
    print()


def timed(*args):
    """Runs choreo; returns (seconds, peak RSS in MiB) of that process."""
    t0 = time.perf_counter()
    out = subprocess.run(["/usr/bin/time", "-f", "%M", CHOREO] +
                         [str(a) for a in args], check=True,
                         capture_output=True, text=True)
    dt = time.perf_counter() - t0
    return dt, int(out.stderr.strip().splitlines()[-1]) / 1024, out.stdout


def speed():
    print("### Simulator speed: `choreo cost` (read + both evaluations) "
          "against `choreo stats` (read + one pass)\n")
    print("| schedule | ops | stats (s) | cost (s) | evaluations alone "
          "(ops/s) | peak RSS, cost (MiB) |")
    print("|---|---|---|---|---|---|")
    cases = [("inter-allgather-kang", "--p 1024 --q 1024 --bytes-a 1M "
              "--bytes-b 1M"),
             ("half-allgather-ring", "--p 2000 --q 2000 --bytes-a 64K"),
             ("inter-allgather-root", "--p 2048 --q 2048 --bytes-a 1K "
              "--bytes-b 1K")]
    with tempfile.TemporaryDirectory() as d:
        for algo, gen in cases:
            path = os.path.join(d, "s.cbor")
            run("gen", algo, *gen.split(), "-o", path)
            # Best of three, alternating, against the machine's noise.
            ts = tc = float("inf")
            for _ in range(3):
                ts = min(ts, timed("stats", path)[0])
                t, rss, out = timed("cost", path, "--json")
                tc = min(tc, t)
            ops = json.loads(out)["ops"]
            extra = tc - ts
            rate = (f"{ops / extra:.3g}" if extra > 0.05 * ts else
                    "within noise of the read")
            print(f"| {algo} {gen} | {ops} | {ts:.2f} | {tc:.2f} | "
                  f"{rate} | {rss:.0f} |")
    print()


eq5()
table1()
table2()
if "--no-speed" not in sys.argv:
    speed()
