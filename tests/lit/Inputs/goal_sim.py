#!/usr/bin/env python3
"""goal_sim.py FILE.goal --alpha A --beta B: reads a GOAL schedule strictly
(the grammar of LogGOPSim's txt2bin: num_ranks, rank blocks, labelled send /
recv / calc lines, `requires` and `irequires` on labels defined earlier in the
rank), checks that every send has exactly one matching receive (peer, size,
tag), and simulates it independently of choreo: an op starts when the ops it
requires have ended; a send and its receive start together, once both may,
and take alpha + bytes * beta; a calc of n takes n. Prints
{"time": ..., "ops": ...}; with --against COST.json (the output of
`choreo cost --json`) prints whether the two times agree (to 1e-9
relative) instead. Exits 1 with a message on any error (a deadlock
included) or disagreement."""
import argparse
import json
import re
import sys

LINE_OP = re.compile(
    r"^([A-Za-z][A-Za-z0-9_]*):\s+(?:(send|recv)\s+(\d+)b\s+(to|from)\s+(\d+)"
    r"\s+tag\s+(\d+)|calc\s+(\d+))$")
LINE_DEP = re.compile(r"^([A-Za-z][A-Za-z0-9_]*)\s+(requires|irequires)\s+"
                      r"([A-Za-z][A-Za-z0-9_]*)$")


def fail(msg):
    print("goal_sim: error: " + msg, file=sys.stderr)
    sys.exit(1)


def parse(path):
    ranks = None
    ops = {}  # (rank, label) -> op
    current = None
    seen = set()
    with open(path) as f:
        for n, raw in enumerate(f, 1):
            line = raw.strip()
            if not line or line.startswith("//"):
                continue
            where = "%s:%d" % (path, n)
            m = re.match(r"^num_ranks\s+(\d+)$", line)
            if m:
                if ranks is not None:
                    fail(where + ": num_ranks twice")
                ranks = int(m.group(1))
                continue
            m = re.match(r"^rank\s+(\d+)\s*\{$", line)
            if m:
                if ranks is None or current is not None:
                    fail(where + ": rank block outside the top level or "
                         "before num_ranks")
                current = int(m.group(1))
                if current >= ranks or current in seen:
                    fail(where + ": bad or repeated rank %d" % current)
                seen.add(current)
                continue
            if line == "}":
                if current is None:
                    fail(where + ": unmatched }")
                current = None
                continue
            if current is None:
                fail(where + ": statement outside a rank block")
            m = LINE_OP.match(line)
            if m:
                label = m.group(1)
                if (current, label) in ops:
                    fail(where + ": label %s defined twice" % label)
                if m.group(2):
                    kind, size, peer = m.group(2), int(m.group(3)), int(m.group(5))
                    if (kind == "send") != (m.group(4) == "to"):
                        fail(where + ": send takes `to`, recv `from`")
                    if peer >= ranks or peer == current:
                        fail(where + ": bad peer %d" % peer)
                    op = dict(kind=kind, size=size, peer=peer,
                              tag=int(m.group(6)))
                else:
                    op = dict(kind="calc", size=int(m.group(7)))
                op.update(rank=current, label=label, deps=[], ideps=[])
                ops[(current, label)] = op
                continue
            m = LINE_DEP.match(line)
            if m:
                a, b = (current, m.group(1)), (current, m.group(3))
                if a not in ops or b not in ops:
                    fail(where + ": dependency on an undefined label")
                ops[a]["deps" if m.group(2) == "requires" else "ideps"].append(b)
                continue
            fail(where + ": cannot parse: " + line)
    if current is not None:
        fail("missing } at the end")
    if ranks is None:
        fail("no num_ranks")
    return ranks, ops


def simulate(ops, alpha, beta):
    # Match sends to receives by (src, dst, tag).
    sends, recvs = {}, {}
    for key, op in ops.items():
        if op["kind"] == "send":
            k = (op["rank"], op["peer"], op["tag"])
            table = sends
        elif op["kind"] == "recv":
            k = (op["peer"], op["rank"], op["tag"])
            table = recvs
        else:
            continue
        if k in table:
            fail("two %ss with src %d, dst %d, tag %d" % ((op["kind"],) + k))
        table[k] = key
    if sends.keys() != recvs.keys():
        fail("unmatched messages: %s" % sorted(sends.keys() ^ recvs.keys())[:3])
    partner = {}
    for k in sends:
        s, r = ops[sends[k]], ops[recvs[k]]
        if s["size"] != r["size"]:
            fail("message %s: send of %d bytes, receive of %d" %
                 (k, s["size"], r["size"]))
        partner[sends[k]], partner[recvs[k]] = recvs[k], sends[k]
    start, end = {}, {}
    pending = set(ops)
    while pending:
        progress = False
        for key in list(pending):
            if key not in pending:
                continue
            op = ops[key]
            if any(d not in end for d in op["deps"]) or \
               any(d not in start for d in op["ideps"]):
                continue
            ready = max([end[d] for d in op["deps"]] +
                        [start[d] for d in op["ideps"]] + [0.0])
            if op["kind"] == "calc":
                start[key], end[key] = ready, ready + op["size"]
                pending.discard(key)
                progress = True
                continue
            other = ops[partner[key]]
            if any(d not in end for d in other["deps"]) or \
               any(d not in start for d in other["ideps"]):
                continue
            t = max(ready, max([end[d] for d in other["deps"]] +
                               [start[d] for d in other["ideps"]] + [0.0]))
            for k in (key, partner[key]):
                start[k], end[k] = t, t + alpha + op["size"] * beta
                pending.discard(k)
            progress = True
        if not progress:
            fail("deadlock: %d ops can never start" % len(pending))
    return max(end.values(), default=0.0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--alpha", type=float, default=0.0)
    ap.add_argument("--beta", type=float, default=1.0)
    ap.add_argument("--against")
    args = ap.parse_args()
    ranks, ops = parse(args.file)
    t = simulate(ops, args.alpha, args.beta)
    if args.against:
        with open(args.against) as f:
            theirs = json.load(f)["time"]
        if abs(t - theirs) > 1e-9 * max(abs(t), abs(theirs), 1.0):
            fail("GOAL simulation gives %r, choreo cost %r" % (t, theirs))
        print("agree: %d ranks, %d GOAL ops, time %r" % (ranks, len(ops), t))
        return
    print(json.dumps({"ranks": ranks, "ops": len(ops), "time": t}))


main()
