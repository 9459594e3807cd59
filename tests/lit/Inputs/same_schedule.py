#!/usr/bin/env python3
"""Compares two choreo schedules (JSON) as schedules: collective, ranks,
groups, sizes, root, topology, ports, op and the steps, each step's ops as
a multiset of (src, dst, blocks) with every block's buffer, range, reduce
flag and contributor set. Ignores "algorithm" and "params" (a template's
expansion names itself) and the order of ops within a step. Prints "same"
or the first difference and exits 1."""
import json
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def op_key(op):
    blocks = tuple(
        (b["buf"], b["lo"], b["hi"], bool(b.get("reduce", False)),
         tuple(tuple(x) for x in b.get("contrib", [])))
        for b in op["blocks"])
    return (op["src"], op["dst"], blocks)


def main():
    a, b = load(sys.argv[1]), load(sys.argv[2])
    for field in ("collective", "ranks", "groups", "sizes", "root",
                  "topology", "ports", "op"):
        if a.get(field) != b.get(field):
            print(f"differ in {field}: {a.get(field)} vs {b.get(field)}")
            return 1
    sa, sb = a["steps"], b["steps"]
    if len(sa) != len(sb):
        print(f"differ in the number of steps: {len(sa)} vs {len(sb)}")
        return 1
    for i, (x, y) in enumerate(zip(sa, sb)):
        kx = sorted(op_key(o) for o in x["ops"])
        ky = sorted(op_key(o) for o in y["ops"])
        if kx != ky:
            only = [k for k in kx if k not in ky][:1] or [k for k in ky if k not in kx][:1]
            print(f"differ in step {i}: {only}")
            return 1
    print("same")
    return 0


if __name__ == "__main__":
    sys.exit(main())
