#!/usr/bin/env python3
"""alltoall_table.py [CHOREO]: the alltoall generators' steps, bytes and
model time against the textbook formulas, as the tables of docs/alltoall.md.

Bruck (radix k, Bruck et al. 1997): ceil(log_k p) rounds; one step per
nonzero digit value single-port, sum_d min(k - 1, (p - 1) // k^d) steps;
each rank sends every block once per nonzero digit of its offset, which is
(k - 1)/k * p * b * log_k p bytes when p is a power of k (b: bytes per
block). Pairwise: p - 1 steps of b bytes. Scattered: ceil(p / batch) steps.
Model: alpha 2e-6 s, beta 1e-9 s/B (the library's defaults), lock step and
asynchronous; the textbook time of the concurrent (k-port) Bruck is
ceil(log_k p) (alpha + (p / k) b beta). Large p: 256 and 1024 (generation is fast: p^2 log p
blocks)."""
import json
import math
import subprocess
import sys

CHOREO = sys.argv[1] if len(sys.argv) > 1 else "build/bin/choreo"
A, B = 2e-6, 1e-9


def run(*args):
    return subprocess.run([CHOREO, *args], check=True, capture_output=True,
                          text=True).stdout


def cost(algo, p, b, *opts):
    sched = run("gen", algo, "--p", str(p), "--bytes", str(b), *opts)
    out = subprocess.run([CHOREO, "cost", "-", "--alpha", str(A), "--beta",
                          str(B), "--json"], input=sched, check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


def rounds(p, k):
    n, w = 0, 1
    while w < p:
        n, w = n + 1, w * k
    return n


def steps1(p, k):
    n, w = 0, 1
    while w < p:
        n, w = n + min(k - 1, (p - 1) // w), w * k
    return n


def moves(p, k):
    """Blocks a rank sends: every offset once per nonzero digit."""
    total = 0
    for off in range(1, p):
        while off:
            total += off % k != 0
            off //= k
    return total


def bruck_table(ps, ks, b):
    print(f"\nBruck, {b}-byte blocks: steps and bytes per rank (ours / "
          "formula), model times (s)\n")
    print("| p | k | steps, single-port (ours / formula) | steps, --concurrent on "
          "(ours / ceil(log_k p)) | bytes per rank (ours / formula) | "
          "(k-1)/k p b log_k p | lock step, single-port | async, concurrent "
          "| ceil(log_k p)(alpha + (p/k) b beta) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for p in ps:
        for k in ks:
            if k > p:
                continue
            s = cost("alltoall-bruck", p, b, "--radix", str(k))
            c = cost("alltoall-bruck", p, b, "--radix", str(k),
                     "--concurrent", "on")
            sent = s["max_sent"]["bytes"]
            ideal = (k - 1) / k * p * b * math.log(p, k)
            # Textbook (k-port): ceil(log_k p) rounds of alpha + (p/k) b beta.
            formula = rounds(p, k) * (A + p / k * b * B)
            print(f"| {p} | {k} | {s['steps']} / {steps1(p, k)} | "
                  f"{c['steps']} / {rounds(p, k)} | {sent} / {moves(p, k) * b} | "
                  f"{ideal:.0f} | {s['time_lockstep']:.3e} | {c['time']:.3e} | "
                  f"{formula:.3e} |")


def others_table(ps, b):
    print(f"\nPairwise and scattered (batch 32), {b}-byte blocks, model "
          "time (s) against (p - 1)(alpha + b beta); scattered on its own "
          "ports and on one (--machine-ports 1)\n")
    print("| p | pairwise steps | pairwise | (p-1)(alpha+b beta) | scattered "
          "steps | scattered, own ports | scattered, 1 port |")
    print("|---|---|---|---|---|---|---|")
    for p in ps:
        pw = cost("alltoall-pairwise", p, b)
        sc = cost("alltoall-scattered", p, b)
        sched = run("gen", "alltoall-scattered", "--p", str(p), "--bytes",
                    str(b))
        one = json.loads(subprocess.run(
            [CHOREO, "cost", "-", "--alpha", str(A), "--beta", str(B),
             "--machine-ports", "1", "--json"], input=sched, check=True,
            capture_output=True, text=True).stdout)
        print(f"| {p} | {pw['steps']} | {pw['time']:.3e} | "
              f"{(p - 1) * (A + b * B):.3e} | {sc['steps']} | "
              f"{sc['time']:.3e} | {one['time']:.3e} |")


def choice_table(ps, sizes):
    print("\nThe model's choice (choreo select --machine-ports 1, as the "
          "library's auto), alltoall, bytes per block\n")
    print("| p | " + " | ".join(str(n) for n in sizes) + " |")
    print("|---|" + "---|" * len(sizes))
    for p in ps:
        row = []
        for n in sizes:
            out = json.loads(run("select", "--collective", "alltoall", "--p",
                                 str(p), "--bytes", str(n), "--alpha", str(A),
                                 "--beta", str(B), "--machine-ports", "1",
                                 "--json"))
            best = out["ranking"][0]
            # Ties: the first in registry order, as auto keeps it.
            row.append(best["algorithm"].replace("alltoall-", ""))
        print(f"| {p} | " + " | ".join(row) + " |")


if __name__ == "__main__":
    bruck_table([2, 3, 5, 8, 16, 27, 32, 63, 64, 256, 1024], [2, 3, 4, 8], 8)
    others_table([2, 5, 8, 16, 33, 64, 256], 1024)
    choice_table([2, 4, 8, 16, 32, 64, 128],
                 [8, 64, 256, 1024, 4096, 16384, 65536, 1048576])
