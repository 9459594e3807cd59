#!/usr/bin/env python3
"""reduce_cost_table.py [CHOREO]: the model's lock-step time of every seed 004
reduction generator against the paper's T formulas (Sec. 3.3-3.7) for
p in {8, 13, 16, 100, 128}, printed as the markdown tables of
docs/reductions.md. Model: alpha 1e-6 s, beta 1e-9 s/B, gamma 5e-10 s/B,
n = 1 MiB, for f_alpha = f_beta = 1 and for 0.5 (simplex)."""
import math
import sys

from costing import gen_cost

CHOREO = sys.argv[1] if len(sys.argv) > 1 else "build/bin/choreo"
A, B, G, N = 1e-6, 1e-9, 5e-10, 1 << 20
PS = [8, 13, 16, 100, 128]


def paper(algo, p, fa, fb):
    """The paper's formula, typos corrected (see docs/errata.md, E-R1..)."""
    au, bu = fa * A, fb * B
    lg = math.ceil(math.log2(p))
    pp = 1 << int(math.floor(math.log2(p)))
    lgp = int(math.log2(pp))
    pow2 = pp == p
    n = N
    if algo == "reduce-binary-tree":
        return lg * (au + n * bu + n * G)
    if algo == "allreduce-binary-tree":
        return lg * (2 * au + 2 * n * bu + n * G)
    if algo == "allreduce-recursive-doubling":
        return lg * (A + n * B + n * G) + (0 if pow2 else au + n * bu)
    if algo == "allreduce-halving-doubling":
        if pow2:
            return 2 * lgp * A + 2 * n * B + n * G - (2 * n * B + n * G) / p
        return ((2 * lgp + 2 + fa) * A + (3 + (1 + fb) / 2) * n * B
                + 1.5 * n * G - (2 * n * B + n * G) / pp)
    if algo == "reduce-halving-doubling":
        if pow2:
            return (lgp * (1 + fa) * A + (1 + fb) * n * B + n * G
                    - (n * (B + bu) + n * G) / p)
        return (lgp * (1 + fa) * A + (1 + fa) * A
                + (1 + (1 + fb) / 2 + fb) * n * B + 1.5 * n * G
                - ((1 + fb) * n * B + n * G) / pp)
    if algo == "allreduce-ring":
        return 2 * (p - 1) * A + 2 * n * B + n * G - (2 * n * B + n * G) / p
    if algo == "reduce-ring":
        return ((p - 1) * (A + au) + n * (B + bu) + n * G
                - (n * (B + bu) + n * G) / p)
    return None


ALGOS = ["reduce-binary-tree", "allreduce-binary-tree",
         "allreduce-recursive-doubling", "allreduce-halving-doubling",
         "reduce-halving-doubling", "allreduce-ring", "reduce-ring",
         "allreduce-binary-blocks", "reduce-binary-blocks"]


def model(algo, p, fa, fb):
    j = gen_cost(CHOREO, [algo, "--p", p, "--bytes", N],
                 ["--alpha", A, "--beta", B, "--gamma", G, "--f-alpha", fa,
                  "--f-beta", fb])
    return j["time_lockstep"], j["time"], j["steps"]


for fa in (1.0, 0.5):
    print(f"\n#### f_alpha = f_beta = {fa}\n")
    print("| algorithm | p | steps | model lock step (us) | model async (us) "
          "| paper (us) | model / paper |")
    print("|---|---|---|---|---|---|---|")
    for algo in ALGOS:
        for p in PS:
            lock, asy, steps = model(algo, p, fa, fa)
            t = paper(algo, p, fa, fa)
            ratio = f"{lock / t:.3f}" if t else "-"
            ts = f"{t * 1e6:.1f}" if t else "(none)"
            print(f"| {algo} | {p} | {steps} | {lock * 1e6:.1f} | "
                  f"{asy * 1e6:.1f} | {ts} | {ratio} |")
