#!/usr/bin/env python3
"""executor_bench.py [BUILD_DIR] [--quick]: choreo's executor against MPICH
4.0.2 on this machine, as ratios measured in one run.

1. Intergroup: inter-allgather-kang (Algorithm 1) and inter-allgatherv-kang
   (Algorithm 2) executed by choreo, against MPICH's inter-communicator
   MPI_Allgather / MPI_Allgatherv (root gathering), blocking and non-blocking
   (waited on with MPI_Testall + sched_yield, as choreo waits), for
   (p, q) in {(2, 2), (4, 4), (6, 2)} and 64 KiB to 4 MiB per member.
2. Ring: choreo's allgather-ring against MPICH's ring allgather
   (MPIR_CVAR_ALLGATHER_INTRA_ALGORITHM=ring).
3. Overhead: choreo executing a schedule against a hand-written MPI
   implementation of the same algorithm (bench/Handwritten.cpp).

Times are medians over iterations of the slowest rank's time, the better of
two runs. Prints Markdown tables."""
import json
import os
import subprocess
import sys
import tempfile

BUILD = next((a for a in sys.argv[1:] if not a.startswith("--")), "build")
QUICK = "--quick" in sys.argv
BIN = os.path.join(BUILD, "bin")
ITER = "5" if QUICK else "20"
SIZES = [65536, 1048576] if QUICK else [65536, 262144, 1048576, 4194304]
PAIRS = [(6, 2)] if QUICK else [(2, 2), (4, 4), (6, 2)]
TMP = tempfile.mkdtemp()


def mpirun(n, args, env=None):
    e = dict(os.environ)
    e.update(env or {})
    out = subprocess.run(["mpiexec", "-n", str(n)] + args, check=True,
                         capture_output=True, text=True, env=e,
                         stdin=subprocess.DEVNULL)
    return json.loads(out.stdout.strip().splitlines()[-1])


def gen(algo, args):
    path = os.path.join(TMP, algo + ".cbor")
    subprocess.run([os.path.join(BIN, "choreo"), "gen", algo] + args +
                   ["-o", path], check=True)
    return path


def choreo_run(n, path, env=None):
    """Two runs; each time the better of the two medians (the machine is
    noisy: a hiccup can slow a whole run)."""
    best = None
    for _ in range(1 if QUICK else 2):
        r = mpirun(n, [os.path.join(BIN, "choreo-run"), path, "--iterations",
                       ITER, "--native", "--json"], env)
        if best is None:
            best = r
        else:
            for k in ("median_s", "native_blocking_median_s",
                      "native_nonblocking_median_s"):
                best[k] = min(best[k], r[k])
    return best


def kib(b):
    return f"{b // 1024} KiB"


print("## choreo vs MPICH's intercommunicator collectives\n")
print("| collective | p, q | per member | choreo | MPICH blocking | "
      "MPICH non-blocking | blocking / choreo | non-blocking / choreo |")
print("|---|---|---|---|---|---|---|---|")
for p, q in PAIRS:
    for b in SIZES:
        for algo, counts in (("inter-allgather-kang", False),
                             ("inter-allgatherv-kang", True)):
            if counts:
                # An arithmetic sequence with the same mean as b.
                ca = ",".join(str(2 * b * (i + 1) // (p + 1)) for i in range(p))
                cb = ",".join(str(2 * b * (j + 1) // (q + 1)) for j in range(q))
                args = ["--p", str(p), "--q", str(q), "--counts-a", ca,
                        "--counts-b", cb]
            else:
                args = ["--p", str(p), "--q", str(q), "--bytes-a", str(b),
                        "--bytes-b", str(b)]
            r = choreo_run(p + q, gen(algo, args))
            c, nb, nn = (r["median_s"], r["native_blocking_median_s"],
                         r["native_nonblocking_median_s"])
            print(f"| {r['native']} | {p}, {q} | {kib(b)} | {c * 1e3:.2f} ms | "
                  f"{nb * 1e3:.2f} ms | {nn * 1e3:.2f} ms | {nb / c:.2f} | "
                  f"{nn / c:.2f} |", flush=True)

print("\n## choreo's ring allgather vs MPICH's ring allgather\n")
print("| p | per rank | choreo | MPICH ring, blocking | MPICH ring, "
      "non-blocking | non-blocking / choreo |")
print("|---|---|---|---|---|---|")
ring_env = {"MPIR_CVAR_ALLGATHER_INTRA_ALGORITHM": "ring",
            "MPIR_CVAR_IALLGATHER_INTRA_ALGORITHM": "sched_ring"}
for p in ([4] if QUICK else [4, 8]):
    for b in SIZES:
        r = choreo_run(p, gen("allgather-ring", ["--p", str(p), "--bytes",
                                                  str(b)]), ring_env)
        c, nb, nn = (r["median_s"], r["native_blocking_median_s"],
                     r["native_nonblocking_median_s"])
        print(f"| {p} | {kib(b)} | {c * 1e3:.2f} ms | {nb * 1e3:.2f} ms | "
              f"{nn * 1e3:.2f} ms | {nn / c:.2f} |", flush=True)

print("\n## Executing a schedule vs the same algorithm written by hand\n")
print("| algorithm | ranks | per member | choreo | hand-written | "
      "choreo / hand-written |")
print("|---|---|---|---|---|---|")
hand = os.path.join(BIN, "choreo-bench-handwritten")
for b in SIZES:
    for name, n, hargs, algo, gargs in (
            ("ring allgather", 4, ["ring", "4", str(b), ITER],
             "allgather-ring", ["--p", "4", "--bytes", str(b)]),
            ("Kang Alg. 1", 8, ["kang", "6", "2", str(b), ITER],
             "inter-allgather-kang", ["--p", "6", "--q", "2", "--bytes-a",
                                      str(b), "--bytes-b", str(b)])):
        path = gen(algo, gargs)
        # Alternate, twice each, and keep each side's best median.
        c = h = float("inf")
        for _ in range(2):
            c = min(c, choreo_run(n, path)["median_s"])
            hr = mpirun(n, [hand] + hargs)
            assert hr["correct"], hr
            h = min(h, hr["median_s"])
        print(f"| {name} | {n} | {kib(b)} | {c * 1e3:.3f} ms | "
              f"{h * 1e3:.3f} ms | {c / h:.3f} |", flush=True)
