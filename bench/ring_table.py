#!/usr/bin/env python3
"""ring_table.py [BUILD_DIR]: steps of half-allgather-ring against the paper's
p + q/2 and against the baseline's p + q - 1 (half-allgather-intraring), for
every p, q in 1..40: a summary by class, then a sample as a Markdown table."""
import sys

import ring_steps

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
CHOREO = BUILD + "/bin/choreo"


def steps(algo, p, q):
    return ring_steps.steps(CHOREO, algo, p, q)


rows, excess = [], {}
for p in range(1, 41):
    for q in range(1, 41):
        s = steps("half-allgather-ring", p, q)
        e = s - (p + q / 2)
        cls = "q even" if q % 2 == 0 else ("q = 1" if q == 1 else "q odd > 1")
        excess.setdefault(cls, set()).add(e)
        rows.append((p, q, s))
print("| class | pairs (p, q in 1..40) | steps − (p + q/2) |")
print("|---|---|---|")
for cls in ("q even", "q odd > 1", "q = 1"):
    n = sum(1 for p, q, s in rows if (q % 2 == 0 if cls == "q even" else
                                      (q == 1 if cls == "q = 1" else
                                       q % 2 and q > 1)))
    print(f"| {cls} | {n} | {', '.join(f'{x:+g}' for x in sorted(excess[cls]))} |")
print()
print("| p | q | steps | p + q/2 | baseline p + q − 1 | baseline / ring |")
print("|---|---|---|---|---|---|")
for p in (1, 2, 4, 6, 7, 16, 40):
    for q in (1, 2, 3, 4, 6, 7, 16, 40):
        s = next(s for pp, qq, s in rows if (pp, qq) == (p, q))
        b = steps("half-allgather-intraring", p, q)
        assert b == p + q - 1
        print(f"| {p} | {q} | {s} | {p + q / 2:g} | {b} | {b / s:.2f} |")
