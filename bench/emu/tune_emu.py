#!/usr/bin/env python3
"""bench/emu/tune_emu.py - MPICH under `choreo tune --mpich` against its defaults.

    flock /work/.buildlock python3 bench/emu/tune_emu.py --build build --nodes 4 --rounds 3
    python3 bench/emu/tune_emu.py --build build --nodes 4 --machine machine.json --choices-only

    options: [--nodes 4] [--rate 200mbit] [--colls bcast,allreduce,...]
        [--min 8] [--max 1M] [--iterations 15] [--warmup 5] [--rounds 3]
        [--seconds 3] [--bind core] [--env NAME=VALUE] [--machine FILE]
        [--choices-only]
        [--out DIR]

Brings up --nodes nodes of one rank each (cluster.sh), calibrates the model
there (choreo-calibrate over all the ranks, CHOREO_NODES=1: each namespace a
node, so the per-step start-ups, choreo's executor's and MPICH's own
(library_step_startup, which prices MPICH's algorithms), are what this many
ranks cost), writes MPICH's
tuning file from it (`choreo tune --machine FILE --p N --mpich tuned.json`,
and `--ompi tuned.rules` for the record), then for each collective the file
tunes (bcast, allreduce, reduce, reduce_scatter_block, allgather, alltoall)
runs the OSU-style program (choreo-bench-pmpi-osu, bench/pmpi_osu.c) with
MPICH's defaults, with the file
(MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE), and with the defaults again
(the control: the difference of two default jobs is the cell's noise
floor), the three alternating, --rounds times. Prints one Markdown row per
collective and size: the median over the rounds of the slowest rank's
median time (microseconds) with defaults and tuned, the rounds' ranges,
tuned / default, the algorithm MPICH runs by default and the one the file
chose (the file's tree evaluated for this call as MPICH's csel.c does), and
a verdict: "same algorithm" where both run the same one (the ratio is then
noise), else "faster", "slower" or "within noise" as the difference
compares with the noise floor (the larger of |control - default| of the
medians and the median over rounds of |control - default| of one round).
--machine FILE skips the calibration (its file is used as is);
--choices-only (with --machine) prints the choices only, without a cluster.
Writes machine.json, tuned.json, tuned.rules, tune.json and tune.md to
--out (default /tmp/tune-emu). Needs root (network namespaces) unless
--choices-only; see docs/emulation.md.
"""
import argparse
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import emu_bench  # noqa: E402  (run, mpi, size_bytes)
from emu_bench import size_bytes  # noqa: E402
from osu_emu import rows_of  # noqa: E402  (the OSU-style program's medians by size)

TUNED = ["bcast", "allreduce", "reduce", "reduce_scatter_block", "allgather", "alltoall"]


def pof2(p):
    q = 1
    while q * 2 <= p:
        q *= 2
    return q


def call_info(coll, p, size):
    """What MPICH's csel.c measures for the OSU program's call of SIZE bytes
    (bench/pmpi_osu.c: reductions are MPI_SUM of SIZE/4 ints; the block of
    reduce_scatter_block is SIZE/4/p ints, at least one; allgather and
    alltoall send SIZE bytes per member)."""
    ints = size // 4
    info = {"comm_size": p, "avg_msg_size": size, "total_msg_size": size, "count": size,
            "is_op_built_in": True, "is_commutative": True, "is_sendbuf_inplace": False}
    if coll in ("allreduce", "reduce"):
        info["count"] = ints
    elif coll == "reduce_scatter_block":
        block = max(ints // p, 1)
        info["total_msg_size"] = block * p * 4
        info["count"] = block
    elif coll == "allgather":
        info["total_msg_size"] = size * p
    elif coll == "alltoall":
        info["total_msg_size"] = size * p
    return info


def csel_choice(tree, coll, info):
    """The algorithm MPICH 4.0.2's csel.c picks from a tuning file's tree:
    at each level the first key whose condition holds (a leaf is
    algorithm=...)."""
    node = tree.get("collective=" + coll)
    if node is None:
        return "?"
    while True:
        for key, sub in node.items():
            if key.startswith("algorithm="):
                return key[len("algorithm=MPIR_"):]
            if holds(key, info):
                node = sub
                break
        else:
            return "?"


def holds(key, info):
    p = info["comm_size"]
    if key == "comm_type=intra":
        return True
    if key == "comm_type=inter":
        return False
    if key.startswith("comm_hierarchy="):
        return key != "comm_hierarchy=parent"  # no node hierarchy here (CHOREO_NODES aside, MPICH sees one rank a node)
    if key.endswith("=any"):
        return True
    if key == "comm_size=pow2":
        return p & (p - 1) == 0
    if key == "count<pow2":
        return info["count"] < pof2(p)
    for name in ("is_op_built_in", "is_commutative", "is_sendbuf_inplace", "is_node_consecutive",
                 "is_multi_threaded", "is_block_regular"):
        if key.startswith(name + "="):
            return info.get(name, False) == (key.endswith("=yes"))
    for name in ("comm_size", "avg_msg_size", "total_msg_size", "count"):
        for op in ("<=", "<"):
            if key.startswith(name + op):
                bound = int(key[len(name) + len(op):])
                return info[name] <= bound if op == "<=" else info[name] < bound
    raise ValueError(f"tune_emu.py: a condition this script does not evaluate: {key}")


def mpich_default(coll, p, size):
    """MPICH 4.0.2's built-in choice for the OSU program's call (its
    generic.json as the choreo generators restate it: bcast-mpich,
    allreduce-mpich, reduce-mpich, reduce-scatter-mpich, allgather-mpich,
    alltoall-mpich)."""
    i = call_info(coll, p, size)
    pow2 = p & (p - 1) == 0
    if coll == "bcast":
        if p < 8 or size <= 12288:
            return "Bcast_intra_binomial"
        return ("Bcast_intra_scatter_recursive_doubling_allgather" if pow2 and size <= 524288
                else "Bcast_intra_scatter_ring_allgather")
    if coll == "allreduce":
        return ("Allreduce_intra_recursive_doubling" if size <= 8 or i["count"] < pof2(p)
                else "Allreduce_intra_reduce_scatter_allgather")
    if coll == "reduce":
        return ("Reduce_intra_binomial" if size <= 2048 or i["count"] < pof2(p)
                else "Reduce_intra_reduce_scatter_gather")
    if coll == "reduce_scatter_block":
        return ("Reduce_scatter_block_intra_recursive_halving" if i["total_msg_size"] < 524288
                else "Reduce_scatter_block_intra_pairwise")
    if coll == "allgather":
        t = i["total_msg_size"]
        if pow2:
            return "Allgather_intra_recursive_doubling" if t < 524288 else "Allgather_intra_ring"
        return "Allgather_intra_brucks" if t < 81920 else "Allgather_intra_ring"
    if coll == "alltoall":
        if p > 8 and size <= 256:
            return "Alltoall_intra_brucks"
        return "Alltoall_intra_scattered" if size <= 32768 else "Alltoall_intra_pairwise"
    return "?"


def short(alg):
    """Bcast_intra_scatter_recursive_doubling_allgather -> scatter_recursive_doubling_allgather."""
    return alg.split("_intra_", 1)[-1]


def sizes(lo, hi):
    s, out = lo, []
    while s <= hi:
        out.append(s)
        s *= 2
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--nodes", type=int, default=4, help="nodes, one rank each (the tuning's p)")
    ap.add_argument("--rate", default="200mbit", help="each port's rate (cluster.sh --rate)")
    ap.add_argument("--colls", default=",".join(TUNED),
                    help="the collectives to time, among those the file tunes: " + ",".join(TUNED))
    ap.add_argument("--min", default="8", help="smallest message (bytes; K, M suffixes)")
    ap.add_argument("--max", default="1M", help="largest message (doubling from --min)")
    ap.add_argument("--iterations", type=int, default=15, help="timed calls per size in a job (their median)")
    ap.add_argument("--warmup", type=int, default=5, help="untimed calls per size before them")
    ap.add_argument("--rounds", type=int, default=3,
                    help="default, tuned and control jobs alternate this many times per collective; a cell is "
                         "the median over the rounds")
    ap.add_argument("--seconds", type=int, default=3, help="choreo-calibrate's budget")
    ap.add_argument("--bind", default="",
                    help="hydra's process binding for every job (HYDRA_BINDING: core, socket...)")
    ap.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                    help="set in every job, default and tuned alike (repeatable), e.g. "
                         "MPIR_CVAR_POLLS_BEFORE_YIELD=1")
    ap.add_argument("--machine", metavar="FILE",
                    help="a machine file to tune with instead of calibrating on the cluster")
    ap.add_argument("--choices-only", action="store_true",
                    help="with --machine: write the files and print each size's default and tuned algorithm, "
                         "without bringing up a cluster")
    ap.add_argument("--out", default="/tmp/tune-emu")
    a = ap.parse_args()
    if a.nodes < 2:
        sys.exit("tune_emu.py: --nodes must be at least 2")
    if a.choices_only and not a.machine:
        sys.exit("tune_emu.py: --choices-only needs --machine FILE (nothing is calibrated without a cluster)")
    colls = a.colls.split(",")
    for c in colls:
        if c not in TUNED:
            sys.exit(f"tune_emu.py: --colls: '{c}' is not one the file tunes ({','.join(TUNED)})")
    lo, hi = size_bytes(a.min), size_bytes(a.max)
    if lo < 1 or hi < lo:
        sys.exit("tune_emu.py: --min must be at least 1 and at most --max")
    build = os.path.abspath(a.build)
    bindir = os.path.join(build, "bin")
    osu = os.path.join(bindir, "choreo-bench-pmpi-osu")
    choreo = os.path.join(bindir, "choreo")
    need = [choreo] + ([] if a.choices_only else [osu, os.path.join(bindir, "choreo-calibrate")])
    for f in need:
        if not os.path.exists(f):
            sys.exit(f"tune_emu.py: no {f} (build it first)")
    os.makedirs(a.out, exist_ok=True)
    machine = os.path.join(a.out, "machine.json")
    tuned = os.path.join(a.out, "tuned.json")
    rules = os.path.join(a.out, "tuned.rules")
    env = dict(os.environ, CHOREO_EMU_SHIM=os.path.join(build, "lib", "libchoreo-emu-finalize.so"),
               CHOREO_EMU_PER_NODE="1")
    env.setdefault("CHOREO_EMU_PREFIX", "choreo-emu-t")
    for k in ("MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE", "LD_PRELOAD"):
        env.pop(k, None)
    if a.bind:
        env["HYDRA_BINDING"] = a.bind
    for kv in a.env:
        if "=" not in kv:
            sys.exit(f"tune_emu.py: --env wants NAME=VALUE, got '{kv}'")
        env[kv.split("=", 1)[0]] = kv.split("=", 1)[1]
    cluster = os.path.join(HERE, "cluster.sh")
    load = [os.getloadavg()[0]]
    uptime = open("/proc/loadavg").read().split()[:3]

    def tune():
        emu_bench.run([choreo, "tune", "--machine", machine, "--p", str(a.nodes), "--max-bytes", str(max(hi, 8)),
                       "--mpich", tuned, "--ompi", rules])
        return json.load(open(tuned))

    runs = {}
    if a.choices_only:
        if os.path.abspath(a.machine) != machine:
            open(machine, "w").write(open(a.machine).read())
        tree = tune()
    else:
        try:
            emu_bench.run([cluster, "up", str(a.nodes), "--rate", a.rate], env=env)
            if a.machine:
                if os.path.abspath(a.machine) != machine:
                    open(machine, "w").write(open(a.machine).read())
            else:
                emu_bench.mpi([os.path.join(bindir, "choreo-calibrate"), "-o", machine, "--seconds",
                               str(a.seconds), "--max-bytes", "4M"], a.nodes, dict(env, CHOREO_NODES="1"), 600)
            tree = tune()
            tenv = dict(env, MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=tuned)
            args = [str(lo), str(hi), str(a.iterations), str(a.warmup)]
            for coll in colls:
                r = runs[coll] = {"default": [], "tuned": [], "control": []}
                for _ in range(a.rounds):
                    r["default"].append(rows_of(emu_bench.mpi([osu, coll] + args, a.nodes, env, 1200)))
                    r["tuned"].append(rows_of(emu_bench.mpi([osu, coll] + args, a.nodes, tenv, 1200)))
                    r["control"].append(rows_of(emu_bench.mpi([osu, coll] + args, a.nodes, env, 1200)))
                load.append(os.getloadavg()[0])
        finally:
            emu_bench.run([cluster, "down"], env=env)

    M = json.load(open(machine))
    table = []
    for coll in colls:
        for b in sizes(lo, hi):
            d_alg = mpich_default(coll, a.nodes, b)
            t_alg = csel_choice(tree, coll, call_info(coll, a.nodes, b))
            row = {"coll": coll, "bytes": b, "default_alg": d_alg, "tuned_alg": t_alg}
            if coll in runs:
                r = runs[coll]
                ds = [x[b] for x in r["default"] if b in x]
                ts = [x[b] for x in r["tuned"] if b in x]
                cs = [x[b] for x in r["control"] if b in x]
                if not ds or not ts:
                    continue
                d, t, c = statistics.median(ds), statistics.median(ts), statistics.median(cs) if cs else None
                noise = 0.0
                if cs:
                    pairs = [abs(x[b] - y[b]) for x, y in zip(r["control"], r["default"]) if b in x and b in y]
                    noise = max(abs(c - d), statistics.median(pairs))
                if d_alg == t_alg:
                    verdict = "same algorithm"
                elif t - d > noise:
                    verdict = "slower"
                elif d - t > noise:
                    verdict = "faster"
                else:
                    verdict = "within noise"
                row.update(default_us=d, tuned_us=t, ratio=t / d if d else 0, control_us=c, noise_us=noise,
                           default_rounds=[min(ds), max(ds)], tuned_rounds=[min(ts), max(ts)],
                           control_rounds=[min(cs), max(cs)] if cs else None, verdict=verdict)
            table.append(row)

    over = "" if a.nodes <= (os.cpu_count() or 1) else f" ({a.nodes} ranks on {os.cpu_count()} cores: oversubscribed)"
    head = (f"{a.nodes} nodes at {a.rate}, one rank each{over}; machine file "
            f"{'given (' + a.machine + ')' if a.machine else 'calibrated there'}: alpha {M['alpha']:.3g} s, "
            f"beta {M['beta']:.3g} s/B, step_startup {M.get('step_startup', 0):.3g} s, "
            f"library_step_startup {('%.3g s' % M['library_step_startup']) if 'library_step_startup' in M else 'absent'}, "
            f"eager_bytes {M.get('eager_bytes', 0)}; `choreo tune --p {a.nodes} --mpich`; ")
    if a.choices_only:
        head += "choices only (nothing run)."
    else:
        head += (f"median of {a.iterations} calls (slowest rank) per job, median over {a.rounds} round(s) of "
                 f"default, tuned, default again{', bound ' + a.bind if a.bind else ''}"
                 f"{', with ' + ' '.join(a.env) if a.env else ''}; "
                 f"load (1 min) at the start {uptime[0]} ({' '.join(uptime)}), during "
                 f"{min(load):.1f}-{max(load):.1f}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.")
    md = [head, ""]
    if a.choices_only:
        md += ["| call | bytes | MPICH's default | tuned file's choice |", "|---|---|---|---|"]
        for t in table:
            md.append(f"| {t['coll']} | {t['bytes']} | {short(t['default_alg'])} | {short(t['tuned_alg'])} |")
    else:
        md += ["| call | bytes | default us | tuned us | tuned/default | default again us | noise floor us | "
               "default rounds | tuned rounds | MPICH's default | tuned file's choice | verdict |",
               "|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for t in table:
            if "default_us" not in t:
                continue
            c = t["control_us"]
            md.append(f"| {t['coll']} | {t['bytes']} | {t['default_us']:.1f} | {t['tuned_us']:.1f} | "
                      f"{t['ratio']:.2f} | {'-' if c is None else f'{c:.1f}'} | {t['noise_us']:.1f} | "
                      f"{t['default_rounds'][0]:.1f}-{t['default_rounds'][1]:.1f} | "
                      f"{t['tuned_rounds'][0]:.1f}-{t['tuned_rounds'][1]:.1f} | {short(t['default_alg'])} | "
                      f"{short(t['tuned_alg'])} | {t['verdict']} |")
        cells = [t for t in table if "verdict" in t]
        md.append("")
        counts = {v: sum(t["verdict"] == v for t in cells)
                  for v in ("faster", "within noise", "slower", "same algorithm")}
        md.append(f"Cells: {len(cells)}; where the file chose another algorithm than MPICH's: "
                  f"{counts['faster']} faster, {counts['within noise']} within noise, {counts['slower']} slower; "
                  f"{counts['same algorithm']} run the same algorithm.")
    json.dump({"meta": {"nodes": a.nodes, "rate": a.rate, "machine": M, "load": load, "uptime": uptime,
                        "rounds": a.rounds, "iterations": a.iterations, "bind": a.bind, "env": a.env},
               "rows": table}, open(os.path.join(a.out, "tune.json"), "w"), indent=1)
    open(os.path.join(a.out, "tune.md"), "w").write("\n".join(md) + "\n")
    print("\n".join(md))


if __name__ == "__main__":
    main()
