#!/usr/bin/env python3
"""bcast_bench.py [BUILD_DIR] [table|speed|native|all]: the broadcast family
of seed 002 (Hasanov et al.) against the paper, as in docs/bcast.md:

  table   steps and lock-step time of every generator and its hierarchical
          form (G = round(sqrt p)) against Eqs. 1-17, p in {7, 16, 64, 100,
          5000} (p = 5000 where generation is quick), m = 1 MiB, X = 16,
          alpha 1e-6 s, beta 1e-10 s/B. The paper's formulas beside the
          model's value.
  speed   generation time of bcast-pipeline p = 4096, X = 1024 and of
          hierarchical SRGA p = 5000 (G = 71 and --groups auto), to
          /dev/null in CBOR.
  native  choreo-run --native: each broadcast against MPICH's MPI_Bcast on
          8 ranks (one mpiexec job, every schedule in turn).
"""
import json
import math
import os
import subprocess
import sys
import tempfile
import time

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
WHAT = sys.argv[2] if len(sys.argv) > 2 else "all"
CHOREO = os.path.join(BUILD, "bin", "choreo")
RUN = os.path.join(BUILD, "bin", "choreo-run")
ALPHA, BETA = 1e-6, 1e-10
M = 1 << 20
X = 16


def run(*args, stdin=None):
    return subprocess.run([CHOREO] + [str(a) for a in args], check=True,
                          capture_output=True, input=stdin).stdout


def model(algo, p, groups=None):
    gen = ["gen", "bcast-" + algo, "--p", p, "--bytes", M, "--format", "cbor"]
    if algo == "pipeline":
        gen += ["--segments", X]
    if groups:
        gen += ["--groups", groups]
    s = run(*gen)
    j = json.loads(run("cost", "-", "--alpha", ALPHA, "--beta", BETA,
                       "--json", stdin=s))
    return j["steps"], j["time_lockstep"]


def lg(x):
    return math.log2(x)


def paper(algo, p, G=None):
    a, b, m = ALPHA, BETA, M
    if G is None:
        return {
            "flat": (p - 1) * (a + m * b),
            "chain": (p - 1) * (a + m * b),
            "pipeline": (X + p - 2) * (a + m / X * b),
            "binary": lg(p) * (a + m * b),
            "binomial": lg(p) * (a + m * b),
            "split-binary": 2 * (lg(p + 1) - 2) * (a + m * b) + a + m / 2 * b,
            "scatter-ring": (lg(p) + p - 1) * a + 2 * (p - 1) / p * m * b,
            "scatter-rd": 2 * lg(p) * a + 2 * (p - 1) / p * m * b,
        }[algo]
    return {
        "flat": (G + p / G - 2) * (a + m * b),                       # Eq. 8
        "chain": (G + p / G - 2) * (a + m * b),                      # Eq. 8
        "pipeline": (2 * X + G + p / G - 4) * (a + m / X * b),       # Eq. 11
        "binary": lg(p) * (a + m * b),                               # 3.3
        "binomial": lg(p) * (a + m * b),                             # 3.3
        "split-binary": 2 * (lg(p) + 1 - 4) * (a + b * m) + 2 * (a + b * m / 2),
        "scatter-ring": (lg(p) + G + p / G - 2) * a
        + 2 * m * (2 - 1 / G - G / p) * b,                           # Eq. 12
        "scatter-rd": 2 * lg(p) * a + 2 * m * (2 - 1 / G - G / p) * b,  # 16
    }[algo]


EQ = {"flat": ("1", "8"), "chain": ("2", "8"), "pipeline": ("3", "11"),
      "binary": ("4", "3.3"), "binomial": ("4", "3.3"),
      "split-binary": ("7", "17, X = 1"), "scatter-ring": ("5*", "12"),
      "scatter-rd": ("6", "16")}
# Quadratic algorithms are left out at p = 5000 (25 M ops: see `speed`).
BIG_OK = {"flat", "chain", "binary", "binomial", "split-binary", "scatter-rd",
          "pipeline"}


def table():
    print("| algorithm | p | steps | model (us) | paper (us) | Eq. "
          "| G | steps | model (us) | paper (us) | Eq. |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for algo in EQ:
        for p in (7, 16, 64, 100, 5000):
            if p == 5000 and algo not in BIG_OK:
                continue
            G = max(1, round(math.sqrt(p)))
            s, t = model(algo, p)
            hs, ht = model(algo, p, G)
            print(f"| {algo} | {p} | {s} | {t * 1e6:.1f} | "
                  f"{paper(algo, p) * 1e6:.1f} | {EQ[algo][0]} | {G} | {hs} | "
                  f"{ht * 1e6:.1f} | {paper(algo, p, G) * 1e6:.1f} | "
                  f"{EQ[algo][1]} |")
    sys.stdout.flush()


def timed(*args):
    """Wall and CPU (user + system) seconds of one run: the machine is
    shared, so CPU time is the one to compare with the 2 s target."""
    t, c = time.perf_counter(), os.times()
    run(*args)
    c2 = os.times()
    return (time.perf_counter() - t,
            c2.children_user - c.children_user + c2.children_system
            - c.children_system)


def speed():
    cases = [
        ("bcast-pipeline p=4096 X=1024",
         ["gen", "bcast-pipeline", "--p", 4096, "--segments", 1024, "--bytes",
          "1M"]),
        ("bcast-scatter-ring p=5000 --groups 71",
         ["gen", "bcast-scatter-ring", "--p", 5000, "--groups", 71, "--bytes",
          "2M"]),
        ("bcast-scatter-ring p=5000 --groups auto (512K)",
         ["gen", "bcast-scatter-ring", "--p", 5000, "--groups", "auto",
          "--bytes", "512K"]),
        ("bcast-scatter-ring p=5000 (plain, 25 M ops)",
         ["gen", "bcast-scatter-ring", "--p", 5000, "--bytes", "2M"]),
    ]
    for name, args in cases:
        runs = [timed(*(args + ["--format", "cbor", "-o", "/dev/null"]))
                for _ in range(3 if "plain" not in name else 1)]
        wall = min(r[0] for r in runs)
        cpu = min(r[1] for r in runs)
        print(f"| {name} | {cpu:.2f} s | {wall:.2f} s |")
    sys.stdout.flush()


def native():
    p, size = 8, "256K"
    algos = ["flat", "chain", "pipeline", "binary", "binomial",
             "split-binary", "scatter-ring", "scatter-rd", "mpich"]
    with tempfile.TemporaryDirectory() as d:
        files = []
        for a in algos:
            f = os.path.join(d, a + ".json")
            extra = ["--segments", 16] if a == "pipeline" else []
            run("gen", "bcast-" + a, "--p", p, "--bytes", size, "--root", 3,
                "-o", f, *extra)
            files.append(f)
        f = os.path.join(d, "hier.json")
        run("gen", "bcast-scatter-ring", "--p", p, "--bytes", size, "--root",
            3, "--groups", 3, "-o", f)
        files.append(f)
        out = subprocess.run(["mpiexec", "-n", str(p), RUN] + files +
                             ["--native", "--iterations", "20", "--json"],
                             check=True, capture_output=True, text=True,
                             stdin=subprocess.DEVNULL).stdout
        for line in out.splitlines():
            if line.startswith("{"):
                j = json.loads(line)
                print(f"| {j.get('algorithm')} | {j['median_s'] * 1e6:.0f} | "
                      f"{j['native_blocking_median_s'] * 1e6:.0f} |")


if WHAT in ("table", "all"):
    table()
if WHAT in ("speed", "all"):
    speed()
if WHAT in ("native", "all"):
    native()
