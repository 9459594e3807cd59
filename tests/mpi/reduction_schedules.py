#!/usr/bin/env python3
"""reduction_schedules.py KIND P N: prints a format-v1 reduction schedule for
the executor's tests, until reduction generators land.

  allreduce-rd P N     recursive doubling (P a power of two)
  allreduce-ring P N   ring reduce-scatter then ring allgather (N = P chunks)
  reduce-binomial P N  binomial reduce to rank 0
  reduce-scatter P N   ring reduce-scatter, slices of N / P bytes
"""
import json
import sys


def doc(collective, p, n, steps, root=None, slices=None):
    sizes = {"all": [n]}
    if slices is not None:
        sizes["slices"] = slices
    return {"format": "choreo-schedule", "version": 1, "collective": collective,
            "algorithm": "test-" + sys.argv[1], "ranks": p,
            "groups": {"all": list(range(p))}, "sizes": sizes, "root": root,
            "steps": [{"ops": ops} for ops in steps]}


def block(lo, hi, contrib, reduce):
    return {"buf": "all", "lo": lo, "hi": hi, "contrib": contrib,
            "reduce": reduce}


def intervals(ranks):
    out = []
    for r in sorted(ranks):
        if out and out[-1][1] == r:
            out[-1][1] = r + 1
        else:
            out.append([r, r + 1])
    return out


def ring_reduce_scatter(p, n):
    chunk = n // p
    held = [{c: {r} for c in range(p)} for r in range(p)]
    steps = []
    for s in range(p - 1):
        ops = []
        for r in range(p):
            c = (r - s) % p
            ops.append((r, (r + 1) % p, c, set(held[r][c])))
        steps.append([{"src": a, "dst": b, "blocks": [
            block(c * chunk, (c + 1) * chunk, intervals(sets), True)]}
            for a, b, c, sets in ops])
        for a, b, c, sets in ops:
            held[b][c] |= sets
    return steps, chunk


def main():
    kind, p, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    if kind == "allreduce-rd":
        steps, mask = [], 1
        while mask < p:
            steps.append([{"src": r, "dst": r ^ mask, "blocks": [
                block(0, n, [[r & ~(mask - 1), (r & ~(mask - 1)) + mask]],
                      True)]} for r in range(p)])
            mask *= 2
        print(json.dumps(doc("allreduce", p, n, steps)))
    elif kind == "allreduce-ring":
        steps, chunk = ring_reduce_scatter(p, n)
        for s in range(p - 1):
            steps.append([{"src": r, "dst": (r + 1) % p, "blocks": [
                block(((r + 1 - s) % p) * chunk, ((r + 1 - s) % p + 1) * chunk,
                      [[0, p]], False)]} for r in range(p)])
        print(json.dumps(doc("allreduce", p, n, steps)))
    elif kind == "reduce-binomial":
        steps, mask = [], 1
        while mask < p:
            steps.append([{"src": r, "dst": r - mask, "blocks": [
                block(0, n, [[r, min(r + mask, p)]], True)]}
                for r in range(mask, p, 2 * mask)])
            mask *= 2
        print(json.dumps(doc("reduce", p, n, steps, root=0)))
    elif kind == "reduce-scatter":
        steps, chunk = ring_reduce_scatter(p, n)
        # After p - 1 steps rank r holds chunk r + 1 reduced: send it home.
        steps.append([{"src": r, "dst": (r + 1) % p, "blocks": [
            block(((r + 1) % p) * chunk, ((r + 1) % p + 1) * chunk,
                  [[0, p]], False)]} for r in range(p)] if p > 1 else [])
        print(json.dumps(doc("reduce_scatter", p, n, steps,
                             slices=[chunk] * p)))
    else:
        sys.exit("reduction_schedules.py: unknown kind " + kind)


if __name__ == "__main__":
    main()
