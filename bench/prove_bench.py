#!/usr/bin/env python3
"""prove_bench.py [BUILD_DIR]: the SMT measures of the prover issue.

1. Each ring case (templates ring-equal, ring-senders-first,
   ring-receivers-first for even q; ring-single-receiver, ring-senders-
   first-odd, ring-receivers-first-odd for odd q) proved for every p, q:
   seconds (target < 60 s); and that their domains cover every p, q.
2. Kang's Algorithm 1 (q | p): seconds, and which obligations are bounded.
3. One-index mutations of the ring templates: every mutation must give a
   counterexample that the explicit engine confirms; seconds to the first
   counterexample (`choreo prove --first`, target < 10 s).
4. The concrete SMT engine on a schedule of 5,000 ops (target < 30 s).
Prints Markdown."""
import os
import re
import subprocess
import sys
import tempfile
import time

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
CHOREO = os.path.join(BUILD, "bin", "choreo")
SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                   "template", "builtin")
RING = ("ring-equal", "ring-senders-first", "ring-receivers-first",
        "ring-single-receiver", "ring-senders-first-odd",
        "ring-receivers-first-odd")
TMP = tempfile.mkdtemp()


def run(args):
    t = time.time()
    p = subprocess.run([CHOREO] + args, capture_output=True, text=True)
    return time.time() - t, p


print("## Parametric proofs\n")
print("| template | result | obligations | seconds |")
print("|---|---|---|---|")
for name in RING + ("kang-divisible",):
    extra = ["--timeout", "10"] if name.startswith("kang") else []
    secs, p = run(["prove", name] + extra)
    m = re.search(r": (.*) \((\d+) obligations", p.stdout)
    print(f"| {name} | {m.group(1)} | {m.group(2)} | {secs:.2f} |", flush=True)

# What `choreo prove half-allgather-ring` covers: its last line (the six
# templates' domains, disjoint and covering every p, q >= 1).
secs, p = run(["prove", "half-allgather-ring"])
assert p.returncode == 0, p.stderr
print(f"\n`choreo prove half-allgather-ring` ({secs:.2f} s in all): "
      f"{p.stdout.strip().splitlines()[-1]}")

print("\n## One-index mutations of the ring templates\n")
print("| template | line | mutation | counterexample | confirmed on the "
      "expanded schedule | seconds |")
print("|---|---|---|---|---|---|")
worst = 0
count = 0
for name in RING:
    lines = open(os.path.join(SRC, name + ".choreo")).read().split("\n")
    for n, line in enumerate(lines):
        if " send " not in line or line.strip().startswith("//"):
            continue
        # Two one-index mutations per op line: the source rank plus one, and
        # the message index plus one.
        src = re.search(r"from (.*) to ", line)
        msg = re.search(r"send m\[([^\]]*)\]", line)
        for what, m in (("source + 1", src), ("message + 1", msg)):
            mutated = line[:m.start(1)] + "(" + m.group(1) + ") + 1" + line[m.end(1):]
            text = "\n".join(lines[:n] + [mutated] + lines[n + 1:])
            path = os.path.join(TMP, f"{name}-{n}.choreo")
            open(path, "w").write(text)
            secs, p = run(["prove", "--first", path])
            worst = max(worst, secs)
            count += 1
            found = "counterexample" in p.stdout
            confirmed = "confirmed by the" in p.stderr
            first = next((l for l in p.stderr.split("\n") if l.startswith("error")), "")
            first = first.split(" fails: ")[0].split(": ", 2)[-1] if first else "-"
            label = line.strip().split()[0]
            print(f"| {name} | {n + 1} {label} | {what} | {first if found else 'NONE'} "
                  f"| {'yes' if confirmed else 'no'} | {secs:.2f} |", flush=True)
print(f"\n{count} mutations, slowest {worst:.2f} s.")

print("\n## The concrete SMT engine\n")
print("| schedule | ops | engine | seconds |")
print("|---|---|---|---|")
k = os.path.join(TMP, "k.json")
subprocess.run([CHOREO, "gen", "inter-allgather-kang", "--p", "50", "--q",
                "50", "--bytes-a", "64", "--bytes-b", "64", "-o", k],
               check=True)
for engine in ("explicit", "smt"):
    secs, p = run(["verify", "--engine", engine, k])
    assert p.returncode == 0, p.stderr
    print(f"| inter-allgather-kang 50, 50 | 5000 | {engine} | {secs:.2f} |")
