#!/usr/bin/env python3
"""rooted_cost_table.py [CHOREO]: steps and model time of the barrier,
scatter and gather generators (issue 25) against their textbook formulas,
printed as the markdown tables of docs/rooted.md. Model: alpha 1e-6 s,
beta 1e-9 s/B; scatter and gather move m = 1 KiB per member. Barrier:
dissemination ceil(log_k p) rounds (k - 1 messages per rank at once, on
k - 1 ports), recursive doubling log2 p' rounds plus two when p is not a
power of two, all alpha each (no payload). Scatter and gather: binomial
ceil(log2 p) alpha + (p - 1) m beta, linear (p - 1) (alpha + m beta)."""
import math
import sys

from costing import gen_cost

CHOREO = sys.argv[1] if len(sys.argv) > 1 else "build/bin/choreo"
A, B, M = 1e-6, 1e-9, 1024
PS = [2, 3, 4, 5, 7, 8, 12, 13, 16, 31, 32, 33, 48, 63, 64]
LARGE = [1000, 4096, 65536]


def ceil_log(k, p):
    n, d = 0, 1
    while d < p:
        d *= k
        n += 1
    return n


def model(args):
    j = gen_cost(CHOREO, args, ["--alpha", A, "--beta", B])
    return j["steps"], j["time"], j["time_lockstep"]


def barrier_rows(ps):
    print("| p | dissemination k=2 (= barrier-mpich) | k=3 | k=4 | "
          "recursive doubling | formula k=2 / k=3 / k=4 / rd |")
    print("|---|---|---|---|---|---|")
    for p in ps:
        cells, ok = [], True
        for args in (["barrier-dissemination", "--radix", "2"],
                     ["barrier-dissemination", "--radix", "3"],
                     ["barrier-dissemination", "--radix", "4"],
                     ["barrier-recursive-doubling"]):
            steps, t, tl = model(args + ["--p", str(p)])
            cells.append(f"{steps} steps, {t * 1e6:.0f} us")
        pp = 1 << (p.bit_length() - 1)
        rd = int(math.log2(pp)) + (0 if pp == p else 2)
        f = [ceil_log(2, p), ceil_log(3, p), ceil_log(4, p), rd]
        for c, x in zip(cells, f):
            ok &= c.startswith(f"{x} steps, {x} us")
        print(f"| {p} | " + " | ".join(cells) +
              f" | {' / '.join(map(str, f))} {'(equal)' if ok else '(DIFFERS)'} |")


def rooted_rows(ps):
    print("| p | scatter-binomial | gather-binomial | scatter-linear | "
          "gather-linear | formula binomial / linear (us) |")
    print("|---|---|---|---|---|---|")
    for p in ps:
        fb = ceil_log(2, p) * A + (p - 1) * M * B
        fl = (p - 1) * (A + M * B)
        cells, ok = [], True
        for algo, f in (("scatter-binomial", fb), ("gather-binomial", fb),
                        ("scatter-linear", fl), ("gather-linear", fl)):
            steps, t, tl = model([algo, "--p", str(p), "--bytes", str(M),
                                  "--root", str(p // 2)])
            cells.append(f"{steps} steps, {t * 1e6:.2f} us")
            ok &= abs(t - f) < 1e-12 and abs(tl - f) < 1e-12
        print(f"| {p} | " + " | ".join(cells) +
              f" | {fb * 1e6:.2f} / {fl * 1e6:.2f} "
              f"{'(equal)' if ok else '(DIFFERS)'} |")


if __name__ == "__main__":
    print("Barrier (model time, asynchronous):\n")
    barrier_rows(PS + LARGE)
    print("\nScatter and gather, root p/2, m = 1 KiB per member "
          "(model time, asynchronous and lock step alike):\n")
    rooted_rows(PS + LARGE)
