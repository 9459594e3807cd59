#!/usr/bin/env python3
"""synth_reach.py [BUILD_DIR] [TIMEOUT_S] [FAMILIES]: the reach of `choreo synth
--minimize` on the clustered (--nodes) and reduction encodings: for growing
instances, the optimum, the time of the query proving T - 1 impossible and of
the one finding T, the wall time and the encoding's size; a family stops at
its first instance with a query over TIMEOUT_S seconds (default 60). The
flat instance beside each clustered one shows the steps node sharing costs.
FAMILIES: a comma list of family indices (0-based, in the order printed) to
run only those."""
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


def clustered(title, collective, extra, ks):
    """Instances of 2k ranks on k nodes of 2, beside the flat ones."""
    rows = []
    for k in ks:
        flat = ["--collective", collective, "--p", str(2 * k), *extra]
        rows.append((f"p = {2 * k}, {k} x 2",
                     flat + ["--nodes", ",".join(["2"] * k)], flat))
    return (title, rows)


def growing(title, collective, extra, ps):
    """Instances of p ranks, no flat counterpart."""
    return (title, [(f"p = {p}", ["--collective", collective, "--p", str(p),
                                  *extra], None) for p in ps])


FAMILIES = [
    clustered("allgather, full graph, ports 2,2, k nodes of 2 ranks",
              "allgather", ["--ports", "2,2"], range(2, 9)),
    clustered("bcast, full graph, 4 chunks, k nodes of 2 ranks",
              "bcast", ["--chunks", "4"], range(2, 9)),
    ("half_allgather, ring, A and B on one node each",
     [(f"p = q = {p}",
       ["--collective", "half_allgather", "--p", str(p), "--q", str(p),
        "--topology", "ring", "--nodes", f"{p},{p}"],
       ["--collective", "half_allgather", "--p", str(p), "--q", str(p),
        "--topology", "ring"])
      for p in range(2, 13, 2)]),
    growing("reduce (root 0), full graph", "reduce", [], range(2, 17)),
    growing("allreduce, full graph", "allreduce", [], range(2, 17)),
    growing("allreduce, ring", "allreduce", ["--topology", "ring"],
            range(2, 17)),
    growing("reduce_scatter, full graph, one unit per slice",
            "reduce_scatter", [], range(2, 17)),
]
ONLY = [int(x) for x in sys.argv[3].split(",")] if len(sys.argv) > 3 else None


def cell(j):
    qs = j["queries"]
    last = qs[-1]
    opt = j["optimum"] if j["optimum"] is not None else f"? ({last['answer']} at {last['steps']})"
    unsat = [q["seconds"] for q in qs if q["answer"] == "unsat"]
    sat = [q["seconds"] for q in qs if q["answer"] == "sat"]
    return opt, unsat[-1] if unsat else None, sat[-1] if sat else None, last


for index, (title, rows) in enumerate(FAMILIES):
    if ONLY is not None and index not in ONLY:
        continue
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
