#!/usr/bin/env python3
"""swap_ranks.py U V < schedule.json > schedule.json: the same schedule with
ranks U and V exchanged everywhere (groups, ops, root, topology), so a group
lists its members out of rank order while the schedule stays proved."""
import json
import sys


def main():
    u, v = int(sys.argv[1]), int(sys.argv[2])
    swap = lambda r: v if r == u else u if r == v else r
    d = json.load(sys.stdin)
    d["groups"] = {g: [swap(r) for r in m] for g, m in d["groups"].items()}
    if d.get("root") is not None:
        d["root"] = swap(d["root"])
    for step in d["steps"]:
        for op in step["ops"]:
            op["src"], op["dst"] = swap(op["src"]), swap(op["dst"])
    json.dump(d, sys.stdout)


main()
