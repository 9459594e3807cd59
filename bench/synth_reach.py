#!/usr/bin/env python3
"""synth_reach.py [BUILD_DIR] [TIMEOUT_S]: the reach of `choreo synth
--minimize` on the clustered (--nodes) and reduction encodings: for growing
instances, the optimum, the time of the query proving T - 1 impossible and of
the one finding T, the wall time and the encoding's size; a family stops at
its first instance with a query over TIMEOUT_S seconds (default 60). The
flat instance beside each clustered one shows the steps node sharing costs."""
import json
import subprocess
import sys
import time

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
TIMEOUT = int(sys.argv[2]) if len(sys.argv) > 2 else 60
CHOREO = BUILD + "/bin/choreo"


def run(args):
    t0 = time.time()
    r = subprocess.run([CHOREO, "synth", *args, "--minimize", "--json",
                        "--timeout", str(TIMEOUT)],
                       capture_output=True, text=True)
    wall = time.time() - t0
    if r.returncode not in (0, 1):
        raise SystemExit(f"choreo synth {' '.join(args)}: {r.stderr}")
    return json.loads(r.stdout), wall


def nodes(k, m):
    return ",".join([str(m)] * k)


FAMILIES = [
    # (title, [(label, args of the clustered or reduction instance, args of
    #  the flat instance or None)])
    ("allgather, full graph, ports 2,2, k nodes of 2 ranks",
     [(f"p = {2 * k}, {k} x 2",
       ["--collective", "allgather", "--p", str(2 * k), "--ports", "2,2",
        "--nodes", nodes(k, 2)],
       ["--collective", "allgather", "--p", str(2 * k), "--ports", "2,2"])
      for k in range(2, 9)]),
    ("bcast, full graph, 4 chunks, k nodes of 2 ranks",
     [(f"p = {2 * k}, {k} x 2",
       ["--collective", "bcast", "--p", str(2 * k), "--chunks", "4",
        "--nodes", nodes(k, 2)],
       ["--collective", "bcast", "--p", str(2 * k), "--chunks", "4"])
      for k in range(2, 9)]),
    ("half_allgather, ring, A and B on one node each",
     [(f"p = q = {p}",
       ["--collective", "half_allgather", "--p", str(p), "--q", str(p),
        "--topology", "ring", "--nodes", f"{p},{p}"],
       ["--collective", "half_allgather", "--p", str(p), "--q", str(p),
        "--topology", "ring"])
      for p in range(2, 13, 2)]),
    ("reduce (root 0), full graph",
     [(f"p = {p}", ["--collective", "reduce", "--p", str(p)], None)
      for p in range(2, 17)]),
    ("allreduce, full graph",
     [(f"p = {p}", ["--collective", "allreduce", "--p", str(p)], None)
      for p in range(2, 17)]),
    ("allreduce, ring",
     [(f"p = {p}", ["--collective", "allreduce", "--p", str(p),
                    "--topology", "ring"], None)
      for p in range(2, 17)]),
    ("reduce_scatter, full graph, one unit per slice",
     [(f"p = {p}", ["--collective", "reduce_scatter", "--p", str(p)], None)
      for p in range(2, 17)]),
]


def cell(j):
    qs = j["queries"]
    last = qs[-1]
    opt = j["optimum"] if j["optimum"] is not None else f"? ({last['answer']} at {last['steps']})"
    unsat = [q["seconds"] for q in qs if q["answer"] == "unsat"]
    sat = [q["seconds"] for q in qs if q["answer"] == "sat"]
    return opt, unsat[-1] if unsat else None, sat[-1] if sat else None, last


for title, rows in FAMILIES:
    print(f"\n### {title}\n")
    print("| instance | flat optimum | optimum | lower bound | unsat T - 1 (s) "
          "| sat T (s) | wall (s) | variables |")
    print("|---|---|---|---|---|---|---|---|")
    for label, args, flat in rows:
        j, wall = run(args)
        opt, unsat, sat, last = cell(j)
        flat_opt = "—"
        if flat:
            fj, _ = run(flat)
            flat_opt = cell(fj)[0]
        fmt = lambda x: "—" if x is None else f"{x:.2f}"
        print(f"| {label} | {flat_opt} | {opt} | {j['lower_bound']} | "
              f"{fmt(unsat)} | {fmt(sat)} | {wall:.1f} | {j['variables']} |",
              flush=True)
        if last["answer"] == "unknown" or wall > 3 * TIMEOUT:
            break
