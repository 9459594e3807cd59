#!/usr/bin/env python3
"""scan_cost_table.py [CHOREO]: steps and model time of the scan and exscan
generators (issue 25) against their textbook formulas, printed as the
markdown table of docs/reductions.md ("Scan and exscan"). Model: alpha
1e-6 s, beta 1e-9 s/B, gamma 0 (the combining is priced apart from the
messages and is not in the formulas); n = 1 KiB vectors. Recursive
doubling (MPICH's): ceil(log2 p) exchanges of the running total,
ceil(log2 p) (alpha + n beta); the chain passes the prefix on rank by rank,
(p - 1) (alpha + n beta). Exits 1 if an entry differs."""
import sys

from costing import gen_cost

CHOREO = sys.argv[1] if len(sys.argv) > 1 else "build/bin/choreo"
A, B, N = 1e-6, 1e-9, 1024
PS = [2, 3, 4, 5, 7, 8, 12, 13, 16, 31, 32, 33, 48, 63, 64, 1000, 4096,
      65536]
ALGOS = ["scan-recursive-doubling", "exscan-recursive-doubling",
         "scan-chain", "exscan-chain"]


def ceil_log2(p):
    return (p - 1).bit_length()


def model(args):
    j = gen_cost(CHOREO, args, ["--alpha", A, "--beta", B])
    return j["steps"], j["time"], j["time_lockstep"]


def main():
    bad = 0
    print("| p | " + " | ".join(ALGOS) +
          " | formula recursive doubling / chain (us) |")
    print("|---|---|---|---|---|---|")
    for p in PS:
        frd = ceil_log2(p) * (A + N * B)
        fch = (p - 1) * (A + N * B)
        cells, ok = [], True
        for algo in ALGOS:
            steps, t, tl = model([algo, "--p", str(p), "--bytes", str(N)])
            f = fch if "chain" in algo else frd
            cells.append(f"{steps} steps, {t * 1e6:.2f} us")
            ok &= abs(t - f) < 1e-9 * f and abs(tl - f) < 1e-9 * f
        bad += not ok
        print(f"| {p} | " + " | ".join(cells) +
              f" | {frd * 1e6:.2f} / {fch * 1e6:.2f} "
              f"{'(equal)' if ok else '(DIFFERS)'} |")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
