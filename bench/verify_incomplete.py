#!/usr/bin/env python3
"""choreo verify on an allgather with no steps: every rank is incomplete.

Issue 18, item 5: the completeness report was quadratic in the incomplete
ranks (128k ranks 5.7 s, 256k 46 s, 1M over 5 min). It is linear now: the
requirements are computed once and each incomplete rank costs one lookup.
This prints the user time per size and its ratio to the smallest size;
linear means the ratio follows the rank count (x2, x4, x8), quadratic would
be x4, x16, x64.

usage: python3 bench/verify_incomplete.py [BUILD_DIR]
"""
import json
import os
import resource
import subprocess
import sys
import tempfile

build = sys.argv[1] if len(sys.argv) > 1 else "build"
choreo = os.path.join(build, "bin", "choreo")
sizes = [131072, 262144, 524288, 1048576]
print("| ranks | user s | ratio to 128k | expected if linear |")
print("|---|---|---|---|")
base = None
with tempfile.TemporaryDirectory() as tmp:
    for n in sizes:
        path = os.path.join(tmp, "s.json")
        doc = {"format": "choreo-schedule", "version": 1,
               "collective": "allgather", "ranks": n,
               "groups": {"all": list(range(n))}, "sizes": {"all": [1] * n},
               "steps": []}
        with open(path, "w") as f:
            json.dump(doc, f)
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
        r = subprocess.run([choreo, "verify", path], capture_output=True,
                           text=True)
        user = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - before
        assert r.returncode == 1 and "lack" in r.stdout + r.stderr, r
        base = base or user
        print(f"| {n} | {user:.2f} | {user / base:.1f} | {n // sizes[0]} |")
