#!/usr/bin/env python3
"""inter_reduce_cost.py [BUILD_DIR]: the model times (`choreo compare`,
asynchronous) of the intercommunicator reduce generators, the root in A
and the g = q ranks of B contributing, for p = 2 and q in {2, 3, 4, 8, 16,
64} and vectors of 8 B, 4 KiB, 64 KiB and 4 MiB (8-byte elements), alpha =
1 us, beta = 1 ns/B, gamma = 0.5 ns/B. Columns: MPICH's binomial reduce
and send (inter-reduce-root), the reduce-scatter and gather with the ring
reduce-scatter and with the halving one, and the root form's time over
the better of the two (the speed-up). Where g is a power of two and every
member gets a piece (n >= 8g), each cell is checked against its formula
(L = lg g): root L(a + n(b + c)) + a + nb; ring (g - 1)(a + (n/g)(b + c))
+ ga + nb; halving La + (g - 1)/g n(b + c) + ga + nb (the root's port takes
the g pieces one a step); exits 1 when one differs by more than 0.01 %.
Prints a Markdown table."""
import json
import subprocess
import sys

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
CHOREO = BUILD + "/bin/choreo"
GROUPS = [2, 3, 4, 8, 16, 64]
SIZES = [("8 B", 8), ("4 KiB", 4096), ("64 KiB", 65536), ("4 MiB", 4 << 20)]
ALGOS = ["inter-reduce-root", "inter-reduce-kang",
         "inter-reduce-kang:reduce-scatter=halving"]


def times(q):
    out = subprocess.run(
        [CHOREO, "compare"] + ALGOS +
        ["--p", "2", "--q", str(q), "--root", "0", "--sizes",
         ",".join(str(n) for _, n in SIZES), "--alpha", "1e-6", "--beta",
         "1e-9", "--gamma", "5e-10", "--json"],
        check=True, capture_output=True)
    return {r["size"]: r for r in json.loads(out.stdout)["rows"]}


A, B, C = 1e-6, 1e-9, 5e-10


def formulas(g, n):
    L = g.bit_length() - 1
    return [L * (A + n * (B + C)) + A + n * B,
            (g - 1) * (A + n / g * (B + C)) + g * A + n * B,
            L * A + (g - 1) / g * n * (B + C) + g * A + n * B]


bad = 0
print("| g | n | root (us) | steps | kang ring (us) | steps "
      "| kang halving (us) | steps | root / best kang |")
print("|---|---|---|---|---|---|---|---|---|")
for q in GROUPS:
    rows = times(q)
    for label, n in SIZES:
        r = rows[n]
        t = [x * 1e6 for x in r["time"]]
        s = r["steps"]
        print(f"| {q} | {label} | {t[0]:.1f} | {s[0]} | {t[1]:.1f} | {s[1]} "
              f"| {t[2]:.1f} | {s[2]} | {t[0] / min(t[1], t[2]):.2f} |")
        if q & (q - 1) == 0 and n >= 8 * q:
            for got, want in zip(r["time"], formulas(q, n)):
                if abs(got - want) > 1e-4 * want:
                    print(f"formula: g = {q}, n = {n}: model {got:.6e} s, "
                          f"formula {want:.6e} s", file=sys.stderr)
                    bad += 1
sys.exit(1 if bad else 0)
