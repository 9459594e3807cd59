#!/usr/bin/env python3
"""ring_listing.py P Q [--cond printed|prose] [--wrap]: Algorithm 3 of seed 001
(half-duplex intergroup allgather on a ring, p < q) exactly as printed, as a
format-v1 schedule with one byte per sender, so that `choreo verify` can
replay it. --cond picks line 40's condition: as printed (2j > 2i + p/2) or as
the prose proof has it (2j > 2i + q - p/2); --wrap takes every rank mod p + q
(the listing does so only in sequence #2). See docs/errata.md."""
import json
import sys


def listing(p, q, cond, wrap):
    n, h, g = p + q, p // 2, q // 2
    m = (lambda x: x % n) if wrap else (lambda x: x)
    ceil2 = lambda x: (x + 1) // 2
    steps = []
    for i in range(h):  # lines 1-18
        ops = [(j + i, j + i + 1, j) for j in range(h, p)]
        ops += [((j - i) % n, (j - i - 1) % n, j) for j in range(h)]
        ops += [(h - i + 2 * j, h - i + 2 * j + 1, h - i + j) for j in range(i)]
        ops += [(m(2 * j - i - h + 1), m(2 * j - i - h), j)
                for j in range(h, h + i)]
        steps.append(ops)
    for i in range(g):  # lines 19-44
        ops = [(m(h + j + i), m(h + j + i + 1), j) for j in range(h, p)]
        ops += [(m(h + q - i + j), m(h + q - i + j - 1), j) for j in range(h)
                if i < g - h]
        ops += [(2 * j + i, 2 * j + i + 1, j) for j in range(h)]
        ops += [(m(2 * j - i - p + 1), m(2 * j - i - p), j)
                for j in range(h + ceil2(i), p)]
        for j in range(h, h + ceil2(i)):
            c = 2 * j > 2 * i + h if cond == "printed" else 2 * j > 2 * i + q - h
            if c:
                ops.append((m(2 * j - i + q + 1), m(2 * j - i + q), j))
        steps.append(ops)
    for i in range(h):  # lines 45-60
        ops = [(m(h + g + j + i), m(h + g + j + i + 1), j) for j in range(h, p)
               if j + i + 1 < h + g]
        ops += [(m(g + p - i + 2 * j - 1), m(g + p - i + 2 * j - 2), j - 1)
                for j in range(1, i + 1)]
        ops += [(m(g + i + 2 * j), m(g + i + 2 * j + 1), j) for j in range(h)]
        steps.append(ops)
    return steps


def main():
    args = sys.argv[1:]
    p, q = int(args[0]), int(args[1])
    cond = args[args.index("--cond") + 1] if "--cond" in args else "printed"
    wrap = "--wrap" in args
    doc = {"format": "choreo-schedule", "version": 1,
           "collective": "half_allgather",
           "algorithm": "seed-001-algorithm-3-as-printed",
           "params": {"p": p, "q": q, "cond": cond, "wrap": wrap},
           "ranks": p + q, "groups": {"A": list(range(p)),
                                      "B": list(range(p, p + q))},
           "sizes": {"A": [1] * p, "B": [0] * q}, "root": None,
           "topology": {"kind": "ring"},
           "ports": {"send": 1, "recv": 1, "duplex": True},
           "steps": [{"ops": [{"src": a, "dst": b, "blocks": [
               {"buf": "A", "lo": msg, "hi": msg + 1}]} for a, b, msg in ops]}
               for ops in listing(p, q, cond, wrap)]}
    json.dump(doc, sys.stdout)


if __name__ == "__main__":
    main()
