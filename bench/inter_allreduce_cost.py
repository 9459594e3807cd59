#!/usr/bin/env python3
"""inter_allreduce_cost.py [BUILD_DIR]: the model times (`choreo compare`,
asynchronous) of the intercommunicator allreduce generators for groups of
p, q in {2, 4, 8, 16, 64} and vectors of 8 B, 64 KiB and 4 MiB (8-byte
elements), alpha = 1 us, beta = 1 ns/B, gamma = 0.5 ns/B. Columns: MPICH's
reduce-exchange-broadcast, the Kang-style allreduce with its defaults (ring
reduce-scatter, ring allgathers) and with the halving reduce-scatter and
Bruck's allgathers, and the exchange's time over the Kang form's (its
speed-up). Prints a Markdown table."""
import json
import subprocess
import sys

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
CHOREO = BUILD + "/bin/choreo"
GROUPS = [2, 4, 8, 16, 64]
SIZES = [("8 B", 8), ("64 KiB", 65536), ("4 MiB", 4 << 20)]
ALGOS = ["inter-allreduce-exchange", "inter-allreduce-kang",
         "inter-allreduce-kang:reduce-scatter=halving:intra=bruck"]


def times(p, q):
    out = subprocess.run(
        [CHOREO, "compare"] + ALGOS +
        ["--p", str(p), "--q", str(q), "--sizes",
         ",".join(str(n) for _, n in SIZES), "--alpha", "1e-6", "--beta",
         "1e-9", "--gamma", "5e-10", "--json"],
        check=True, capture_output=True)
    return {r["size"]: r for r in json.loads(out.stdout)["rows"]}


print("| p | q | n | exchange (us) | steps | kang (us) | steps "
      "| kang halving + Bruck (us) | steps | exchange / kang |")
print("|---|---|---|---|---|---|---|---|---|---|")
for p in GROUPS:
    for q in GROUPS:
        rows = times(p, q)
        for label, n in SIZES:
            r = rows[n]
            t = [x * 1e6 for x in r["time"]]
            s = r["steps"]
            print(f"| {p} | {q} | {label} | {t[0]:.1f} | {s[0]} | {t[1]:.1f} "
                  f"| {s[1]} | {t[2]:.1f} | {s[2]} | {t[0] / t[1]:.2f} |")
