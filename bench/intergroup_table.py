#!/usr/bin/env python3
"""intergroup_table.py [BUILD_DIR]: steps, the bytes the busiest rank receives
and the lock-step bandwidth term of the intergroup generators at a few (p, q),
next to the seed papers' formulas. Prints a Markdown table."""
import json
import math
import subprocess
import sys

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
CHOREO = BUILD + "/bin/choreo"
K = 65536  # bytes per member (uniform cases)


def stats(algo, args):
    gen = subprocess.run([CHOREO, "gen", algo] + args.split(), check=True,
                         capture_output=True)
    out = subprocess.run([CHOREO, "stats", "-", "--json"], input=gen.stdout,
                         check=True, capture_output=True)
    return json.loads(out.stdout)


def lg(x):
    return math.ceil(math.log2(x)) if x > 1 else 0


def row(algo, p, q, args, steps_formula, bytes_formula, note):
    s = stats(algo, args)
    print(f"| {algo} | {p}, {q} | {s['steps']} | {steps_formula} | "
          f"{s['max_received'] // 1024} | {s['lockstep_bytes'] // 1024} | "
          f"{bytes_formula} | {note} |")


print("| generator | p, q | steps | paper's start-ups | max received (KiB) "
      "| lock-step t_w term (KiB) | paper's t_w term (KiB) | formula |")
print("|---|---|---|---|---|---|---|---|")
k = K // 1024
for p, q in [(16, 16), (25, 7), (64, 16)]:
    a = f"--p {p} --q {q} --bytes-a {K} --bytes-b {K}"
    P, Q = max(p, q), min(p, q)
    row("inter-allgather-kang", p, q, a, math.ceil(P / Q) + lg(p),
        max(p, q) * k + k, "Thm 1: M + k_B (steps with Bruck: ⌈P/Q⌉ + log p)")
    row("inter-allgather-kang", p, q, a + " --intra bruck",
        math.ceil(P / Q) + lg(P), max(p, q) * k + k, "same, --intra bruck")
    row("inter-allgather-root", p, q, a, 2 + 2 * lg(p) + lg(q),
        max((p - 1) * k, (q - 1) * k) + 3 * p * k + 3 * q * k,
        "Eq. 2: β = 2 + 2 log p + log q")
    counts_a = ",".join(str(1024 * (i + 1)) for i in range(p))
    counts_b = ",".join(str(1024 * (i + 1)) for i in range(q))
    sa = sum(1024 * (i + 1) for i in range(p))
    sb = sum(1024 * (i + 1) for i in range(q))
    c = f"--p {p} --q {q} --counts-a {counts_a} --counts-b {counts_b}"
    row("inter-allgatherv-kang", p, q, c, "-",
        max(sa + 1024 * p, sb + 1024 * q) // 1024,
        "Thm 3: max(ΣkA + max kA, ΣkB + max kB); counts 1..p KiB")
    row("inter-allgatherv-root", p, q, c, "-",
        (max(sa, sb) + 3 * sa + 3 * sb) // 1024, "Eq. 5 numerator, counts")
for p, q in [(16, 16), (32, 8), (8, 32), (12, 40)]:
    h = f"--p {p} --q {q} --bytes-a {K}"
    if p >= q:
        sf, bf = 1 + lg(p), p * k
    else:
        sf, bf = f"{lg(p) + 2 * lg(q // p + 1)}", (p + 1) * k
    row("half-allgather-kang", p, q, h, sf, bf,
        "Table I: log p + 1 / log p + 2 log(q/p+1); p k / (p+1) k")
    row("half-allgather-root", p, q, h, lg(p) + 2 * lg(q), 4 * p * k,
        "Table I: log p + 2 log q; 4 p k")
