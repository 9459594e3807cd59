#!/usr/bin/env python3
"""inter_cost_table.py [CHOREO]: steps and model time of the
intercommunicator generators (issues 25 and 29: alltoall, gather, scatter,
barrier, bcast, reduce, allreduce on an intercommunicator of p + q ranks)
against their textbook formulas, printed as the markdown tables of
docs/format.md. Model: alpha 1e-6 s, beta 1e-9 s/B, gamma 5e-10 s/B;
L(g) = ceil(log2 g).

- inter-alltoall-pairwise (MPICH's pairwise exchange), b bytes a block:
  m = max(p, q) steps of one block out and one in, m (alpha + b beta).
- inter-gather-root / inter-scatter-root (root A's first rank, m bytes per
  member of B): below 2048 bytes in all, a binomial gather in B to its
  first rank and one message of q m to the root (a scatter: the mirror),
  sum over j < L(q) of (alpha + min(2^j, q - 2^j) m beta) + alpha + q m beta;
  else linear, q (alpha + m beta).
- inter-barrier-bcast: each group's dissemination barrier at once, A's
  first rank to B's, a binomial broadcast in B, B's first rank to A's, a
  binomial broadcast in A: max(L(p), L(q)) + 1 + L(q) + 1 + L(p) rounds of
  alpha (no payload).
- inter-barrier-dissemination (not MPICH's): one dissemination barrier over
  the p + q ranks, L(p + q) rounds of alpha.
- inter-bcast-root (n bytes, short: MPICH's binomial broadcast in B):
  (1 + L(q)) (alpha + n beta).
- inter-reduce-root: a binomial reduce in B, then one message to the root:
  L(q) (alpha + n beta + n gamma) + alpha + n beta.
- inter-allreduce-exchange: both groups' binomial reduces at once, the
  first ranks' exchange, both binomial broadcasts at once:
  max(L(p), L(q)) (alpha + n beta + n gamma) + alpha + n beta
  + max(L(p), L(q)) (alpha + n beta).
Each cell: steps, asynchronous model time, and whether the lock-step and
asynchronous times both equal the formula."""
import sys

from costing import gen_cost

CHOREO = sys.argv[1] if len(sys.argv) > 1 else "build/bin/choreo"
A, B, G = 1e-6, 1e-9, 5e-10
SHAPES = [(1, 1), (2, 2), (3, 2), (4, 4), (5, 3), (3, 8), (7, 2), (8, 8),
          (12, 5), (16, 16), (31, 33), (64, 64)]
LARGE = [(1000, 1000), (4096, 4096), (65536, 65536)]


def L(g):
    n, d = 0, 1
    while d < g:
        d *= 2
        n += 1
    return n


def model(args):
    j = gen_cost(CHOREO, args, ["--alpha", A, "--beta", B, "--gamma", G])
    return j["steps"], j["time"], j["time_lockstep"]


def rooted_formula(q, m):
    if q * m < 2048:
        t = sum(A + min(1 << j, q - (1 << j)) * m * B for j in range(L(q)))
        return t + A + q * m * B
    return q * (A + m * B)


def formulas(p, q, n, m):
    red = A + n * B + n * G
    return {
        "inter-alltoall-pairwise": max(p, q) * (A + n * B),
        "inter-gather-root": rooted_formula(q, m),
        "inter-scatter-root": rooted_formula(q, m),
        "inter-barrier-bcast": (max(L(p), L(q)) + 2 + L(q) + L(p)) * A,
        "inter-barrier-dissemination": L(p + q) * A,
        "inter-bcast-root": (1 + L(q)) * (A + n * B),
        "inter-reduce-root": L(q) * red + A + n * B,
        "inter-allreduce-exchange":
            max(L(p), L(q)) * red + A + n * B + max(L(p), L(q)) * (A + n * B),
    }


def args_of(algo, p, q, n, m):
    base = [algo, "--p", p, "--q", q]
    if algo == "inter-alltoall-pairwise":
        return base + ["--bytes", n]
    if algo in ("inter-gather-root", "inter-scatter-root"):
        return base + ["--bytes-b", m, "--root", 0]
    if algo.startswith("inter-barrier-"):
        return base
    return base + ["--bytes", n]


def table(shapes, n, m, algos):
    print("| p, q | " + " | ".join(f"`{a}`" for a in algos) + " |")
    print("|---|" + "---|" * len(algos))
    bad = 0
    for p, q in shapes:
        f = formulas(p, q, n, m)
        cells = []
        for a in algos:
            steps, t, tl = model(args_of(a, p, q, n, m))
            ok = abs(t - f[a]) < 1e-12 * max(1, f[a] * 1e6) and \
                abs(tl - f[a]) < 1e-12 * max(1, f[a] * 1e6)
            bad += not ok
            cells.append(f"{steps}, {t * 1e6:.3f} us"
                         f"{'' if ok else f' (formula {f[a] * 1e6:.3f})'}")
        print(f"| {p}, {q} | " + " | ".join(cells) + " |")
    return bad


if __name__ == "__main__":
    ALL = ["inter-alltoall-pairwise", "inter-gather-root",
           "inter-scatter-root", "inter-barrier-bcast",
           "inter-barrier-dissemination", "inter-bcast-root",
           "inter-reduce-root", "inter-allreduce-exchange"]
    bad = 0
    print("Blocks, members and vectors of 1 KiB (steps, asynchronous model "
          "time; a formula is shown only where a time differs from it):\n")
    bad += table(SHAPES, 1024, 1024, ALL)
    print("\nShort members: 16 bytes per member of B (the binomial forms of "
          "the rooted collectives below 2048 bytes in all):\n")
    bad += table(SHAPES, 16, 16, ["inter-gather-root", "inter-scatter-root"])
    print("\nLarge groups (the alltoall's (p + q) max(p, q) ops stop at "
          "p = q = 1000):\n")
    bad += table(LARGE[:1], 1024, 1024, ALL)
    print()
    bad += table(LARGE[1:], 1024, 1024, ALL[1:])
    print(f"\n{'every cell equals its formula' if bad == 0 else f'{bad} cells differ from their formulas'}")
    sys.exit(1 if bad else 0)
