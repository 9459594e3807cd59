#!/usr/bin/env python3
"""circulant_recv.py RANK E0,E1,...: reads a bcast-circulant schedule with
root 0 and one byte per block (`choreo gen bcast-circulant --p P --bytes N
--segments N`) on standard input and writes it with rank RANK's receive
schedule replaced by E0..E(q-1) (block numbers of a phase: the baseblock b
>= 0, or e - q < 0 for a block of the previous phase), so that `choreo
verify` can replay another computation's receive schedule. In round k of a
phase RANK receives from RANK - Skip[k]; see docs/errata.md (E-circ-1)."""
import json
import sys


def skips(p):
    q = 0
    while (1 << q) < p:
        q += 1
    s = [0] * (q + 1)
    s[q] = p
    for k in range(q - 1, -1, -1):
        s[k] = (s[k + 1] + 1) // 2
    return q, s


def main():
    rank = int(sys.argv[1])
    table = [int(x) for x in sys.argv[2].split(",")]
    sched = json.load(sys.stdin)
    p = sched["ranks"]
    steps = sched["steps"]
    q, s = skips(p)
    n = len(steps) - q + 1  # n - 1 + q steps
    assert len(table) == q, "the table needs ceil(log2 p) entries"
    x = (q - (n - 1) % q) % q
    for j, step in enumerate(steps):
        i = j + x
        k, offset = i % q, (i // q) * q - x
        src = (rank - s[k]) % p
        ops = [o for o in step["ops"] if o["dst"] != rank]
        b = table[k] + offset
        if b >= 0:
            b = min(b, n - 1)
            ops.append({"src": src, "dst": rank,
                        "blocks": [{"buf": "all", "lo": b, "hi": b + 1}]})
        step["ops"] = ops
    json.dump(sched, sys.stdout)


if __name__ == "__main__":
    main()
