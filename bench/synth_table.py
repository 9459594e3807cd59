#!/usr/bin/env python3
"""synth_table.py [BUILD_DIR] [MAX]: the optimum of the ring half-allgather
(whole messages, one send and one receive per rank and step, ring links only)
found by `choreo synth --minimize` for every p, q in 1..MAX (default 8),
against ceil(p + q/2 - 1), half-allgather-ring-opt, half-allgather-ring
(seed 001's Algorithms 1 and 3, corrected) and the baseline
half-allgather-intraring; then the solver's reach on p = q (time of the
query that proves T - 1 impossible and of the one that finds T)."""
import json
import math
import subprocess
import sys

import ring_steps
import time

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
MAX = int(sys.argv[2]) if len(sys.argv) > 2 else 8
CHOREO = BUILD + "/bin/choreo"


def synth(p, q, timeout=600):
    r = subprocess.run([CHOREO, "synth", "--collective", "half_allgather",
                        "--p", str(p), "--q", str(q), "--topology", "ring",
                        "--minimize", "--json"],
                       capture_output=True, text=True, timeout=timeout)
    return json.loads(r.stdout)


def steps(algo, p, q):
    return ring_steps.steps(CHOREO, algo, p, q)


def bound(p, q):
    return math.ceil(p + q / 2 - 1)


print(f"optimum (choreo synth --minimize) for p, q in 1..{MAX}; "
      "* marks an optimum above ceil(p + q/2 - 1)\n")
print("| p \\ q | " + " | ".join(str(q) for q in range(1, MAX + 1)) + " |")
print("|---" * (MAX + 1) + "|")
rows, total = [], 0.0
for p in range(1, MAX + 1):
    cells = []
    for q in range(1, MAX + 1):
        t0 = time.time()
        j = synth(p, q)
        total += time.time() - t0
        opt = j["optimum"]
        # Z3 answered unsat one step below the optimum.
        assert j["queries"][-1]["answer"] == "sat"
        assert any(x["answer"] == "unsat" and x["steps"] == opt - 1
                   for x in j["queries"]) or opt == 0
        rows.append((p, q, opt))
        cells.append(f"{opt}{'*' if opt != bound(p, q) else ''}")
    print(f"| {p} | " + " | ".join(cells) + " |")
print(f"\n{MAX * MAX} instances, {total:.1f} s wall in all\n")

print("| p | q | optimum | ceil(p+q/2-1) | ring-opt | ring (Alg. 1/3) | "
      "intraring |")
print("|---|---|---|---|---|---|---|")
mismatch = []
for p, q, opt in rows:
    o = steps("half-allgather-ring-opt", p, q)
    if o != opt:
        mismatch.append((p, q, opt, o))
    if p in (1, 2, 3, 4, 6, 8, 10) and q in (1, 2, 3, 4, 5, 8, 10):
        print(f"| {p} | {q} | {opt} | {bound(p, q)} | {o} | "
              f"{steps('half-allgather-ring', p, q)} | "
              f"{steps('half-allgather-intraring', p, q)} |")
print(f"\nhalf-allgather-ring-opt differs from the optimum at: "
      f"{mismatch if mismatch else 'no (p, q)'}\n")

print("reach, p = q (seconds per query; the last two are T - 1 unsat and "
      "T sat):\n")
print("| p = q | ranks | optimum | unsat T-1 (s) | sat T (s) | wall (s) |")
print("|---|---|---|---|---|---|")
for p in (4, 8, 12, 16, 20, 24):
    t0 = time.time()
    try:
        j = synth(p, p, timeout=300)
    except subprocess.TimeoutExpired:
        print(f"| {p} | {2 * p} | - | - | - | > 300 |")
        break
    wall = time.time() - t0
    qs = j["queries"]
    print(f"| {p} | {2 * p} | {j['optimum']} | {qs[-2]['seconds']:.2f} | "
          f"{qs[-1]['seconds']:.2f} | {wall:.1f} |")
