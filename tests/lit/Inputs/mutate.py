#!/usr/bin/env python3
"""mutate.py MUTATION [ARGS]: reads a format-v1 JSON schedule on stdin, writes
it to stdout with one mutation applied (for the verifier's negative tests).

  drop-last-step              remove the last step
  second-send STEP            duplicate op 0 of STEP towards another rank
  move-op FROM INDEX TO       move op INDEX of step FROM to step TO
  set STEP OP FIELD VALUE     set an op field (src, dst) to VALUE
  set-block STEP OP BLK FIELD VALUE   set a block field (lo, hi, buf)
  set-top FIELD JSON          set a top-level member to a JSON value
"""
import json
import sys


def main(argv):
    doc = json.load(sys.stdin)
    steps = doc["steps"]
    what = argv[1]
    if what == "drop-last-step":
        steps.pop()
    elif what == "second-send":
        step = steps[int(argv[2])]["ops"]
        op = dict(step[0])
        used = {o["dst"] for o in step} | {op["src"]}
        op["dst"] = next(r for r in range(doc["ranks"]) if r not in used)
        step.append(op)
    elif what == "move-op":
        src, index, dst = int(argv[2]), int(argv[3]), int(argv[4])
        steps[dst]["ops"].append(steps[src]["ops"].pop(index))
    elif what == "set":
        steps[int(argv[2])]["ops"][int(argv[3])][argv[4]] = json.loads(argv[5])
    elif what == "set-block":
        op = steps[int(argv[2])]["ops"][int(argv[3])]
        op["blocks"][int(argv[4])][argv[5]] = json.loads(argv[6])
    elif what == "set-top":
        doc[argv[2]] = json.loads(argv[3])
    else:
        sys.exit("mutate.py: unknown mutation " + what)
    json.dump(doc, sys.stdout)


if __name__ == "__main__":
    main(sys.argv)
