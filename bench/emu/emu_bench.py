#!/usr/bin/env python3
"""bench/emu/emu_bench.py - the papers' speed-ups measured on an emulated cluster.

    python3 bench/emu/emu_bench.py --build build [--rate 200mbit] [--burst BYTES|packet] [--mtu M] [--runs 3]
        [--iterations 5] [--case NAME ...] [--out bench/emu/results]
        [--flow-control BYTES] [--calibrate SECONDS]

For each case: bring up the nodes (cluster.sh), measure alpha and beta of the
links with a ping-pong, and the per-step start-up alpha_step that this many
ranks see (a ring allgather of 8 bytes per rank: makespan / (ranks - 1)),
and for each algorithm generate the schedule, prove
it (choreo verify), run it under the emulation with choreo-run --check
--native --json (median makespan on one clock over the iterations; the median
of --runs such jobs), and predict it with choreo cost (alpha from the
ping-pong, beta = 8 / rate; and again with alpha_step; with --calibrate, also
from a machine file that choreo-calibrate measures over the case's ranks in
the emulation, as a user's job would: `choreo cost --machine`). Writes results.json, results.md (one table) and results.svg
(measured against model speed-up over the baseline) to --out. Needs root
(network namespaces). See docs/emulation.md.
"""
import argparse, json, os, re, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))

# name: (ranks per node, [(label, generator args)], baseline label)
CASES = {}
def inter(p, q, size, per_node=1):
    args = ["--p", str(p), "--q", str(q), "--bytes-a", size, "--bytes-b", size]
    name = f"inter-allgather ({p},{q}) {size}" + (f" x{per_node}/node" if per_node > 1 else "")
    CASES[name] = (per_node, [("kang", ["inter-allgather-kang"] + args),
                              ("root", ["inter-allgather-root"] + args)], "root")
for size in ("1M", "4M"):
    inter(6, 2, size); inter(4, 4, size); inter(12, 4, size); inter(8, 8, size, per_node=2)
for size in ("1M",):
    args = ["--p", "4", "--q", "6", "--bytes-a", size]
    CASES[f"half-allgather ring (4,6) {size}"] = (1, [
        ("ring", ["half-allgather-ring"] + args),
        ("intraring", ["half-allgather-intraring"] + args)], "intraring")

# Broadcasts (seed 002): the hierarchical form (Algorithm 1, G groups) against
# the plain flat tree and the plain scatter-ring-allgather (SRGA).
for p, size, groups in ((16, "1M", 4),):
    for alg, label in (("bcast-flat", "flat"), ("bcast-scatter-ring", "srga")):
        args = ["--p", str(p), "--bytes", size]
        CASES[f"bcast {label} p={p} {size}"] = (1, [
            ("hier-" + label, [alg] + args + ["--groups", str(groups)]),
            (label, [alg] + args)], label)
# Allgatherv (seed 003): the pipelined ring against the linear ring (one
# message per contribution, allgather-ring with the same counts) on the
# broadcast and spike distributions, 1 MiB in all.
for dist in ("broadcast", "spike"):
    CASES[f"allgatherv {dist} p=8 1M"] = (1, [
        ("pipelined", ["allgatherv-pipelined-ring", "--p", "8", "--distribution", dist, "--base", "1M",
                       "--alpha", "1e-5", "--beta", "4e-8"]),
        ("linear", ["allgather-ring", "--p", "8", "--counts", "{counts:pipelined}"])], "linear")
# Allreduce (seed 004): halving-doubling and the ring against MPICH 4.0's
# algorithm (reduce_scatter + allgather), 4 MiB vectors of 4-byte ints.
for p in (8, 13):
    args = ["--p", str(p), "--bytes", "4M", "--element-bytes", "4"]
    CASES[f"allreduce p={p} 4M"] = (1, [
        ("halving-doubling", ["allreduce-halving-doubling"] + args),
        ("ring", ["allreduce-ring"] + args),
        ("mpich", ["allreduce-mpich"] + args)], "mpich")

# Broadcast on a circulant graph (Traff, arXiv 2312.11236; issue 25) against
# the pipelined chain and MPICH's long-message scatter + ring allgather, 1 MiB
# in 16 segments: the circulant's n - 1 + ceil(log2 p) steps against the
# chain's n + p - 2.
for p in (16,):
    args = ["--p", str(p), "--bytes", "1M"]
    CASES[f"bcast circulant p={p} 1M"] = (1, [
        ("circulant", ["bcast-circulant"] + args + ["--segments", "16"]),
        ("pipeline", ["bcast-pipeline"] + args + ["--segments", "16"]),
        ("srga", ["bcast-scatter-ring"] + args)], "srga")
# Intercommunicator allreduce (issue 29): Kang-style reduce-scatter, swap,
# allgather against reduce in each group, exchange, broadcast; 1 MiB of ints.
for p, q in ((4, 4), (6, 2)):
    args = ["--p", str(p), "--q", str(q), "--bytes", "1M", "--element-bytes", "4"]
    CASES[f"inter-allreduce ({p},{q}) 1M"] = (1, [
        ("kang", ["inter-allreduce-kang"] + args),
        ("exchange", ["inter-allreduce-exchange"] + args)], "exchange")

def resolve(gen, files):
    """Substitutes {counts:LABEL}: the per-rank sizes of LABEL's schedule."""
    out = []
    for g in gen:
        m = re.fullmatch(r"\{counts:(\w[\w-]*)\}", g)
        if m:
            sizes = json.load(open(files[m.group(1)]))["sizes"]["all"]
            g = ",".join(str(x) for x in sizes)
        out.append(g)
    return out

def rate_bits(rate):
    m = re.fullmatch(r"([0-9.]+)([kmg]?)bit", rate)
    if not m:
        sys.exit(f"emu_bench: --rate must look like 200mbit, got {rate}")
    return float(m.group(1)) * {"": 1, "k": 1e3, "m": 1e6, "g": 1e9}[m.group(2)]

def size_bytes(s):
    """'8', '4K', '1M' -> bytes (the scripts' --sizes, --min, --max)."""
    m = {"K": 1024, "M": 1 << 20}
    return int(s[:-1]) * m[s[-1]] if s[-1] in m else int(s)

def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")
    return r.stdout

def mpi(args, n, env, timeout):
    return run(["timeout", str(timeout), "mpiexec", "-n", str(n), os.path.join(HERE, "rank.sh")] + args,
               env=env, stdin=subprocess.DEVNULL)

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--rate", default="200mbit")
    ap.add_argument("--burst", help="the ports' token bucket (cluster.sh --burst: bytes, or 'packet' for one frame; "
                                    "default cluster.sh's, 16kb)")
    ap.add_argument("--mtu", help="the ports' MTU (cluster.sh --mtu; default 9000)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--iterations", type=int, default=5)
    ap.add_argument("--case", action="append", help="a case name (repeatable); default all: " + "; ".join(CASES))
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    ap.add_argument("--flow-control", metavar="BYTES",
                    help="run choreo's schedules with choreo-run --flow-control BYTES (receiver-driven flow "
                         "control for messages of at least BYTES; docs/executor.md)")
    ap.add_argument("--calibrate", metavar="SECONDS", type=int,
                    help="also price every algorithm with a machine file measured by choreo-calibrate over the "
                         "case's ranks and nodes (SECONDS its budget; docs/machine.md): the 'calibrated' columns")
    ap.add_argument("--append", action="store_true",
                    help="keep the rows of --out's results.json for the cases not run now (one table from several runs)")
    a = ap.parse_args()
    bits = rate_bits(a.rate)
    cases = a.case or list(CASES)
    for c in cases:
        if c not in CASES:
            sys.exit(f"emu_bench: unknown --case '{c}'; cases: {', '.join(CASES)}")
    bindir = os.path.abspath(os.path.join(a.build, "bin"))
    env = dict(os.environ, CHOREO_EMU_SHIM=os.path.abspath(os.path.join(a.build, "lib", "libchoreo-emu-finalize.so")))
    env.setdefault("CHOREO_EMU_PREFIX", "choreo-emu-b")
    cluster = os.path.join(HERE, "cluster.sh")
    os.makedirs(a.out, exist_ok=True)
    work = tempfile.mkdtemp()
    rows, up_nodes, machines = [], None, {}
    try:
        for c in cases:
            per_node, algs, base = CASES[c]
            files = {}
            for label, gen in algs:
                f = os.path.join(work, f"{label}.json")
                run([os.path.join(bindir, "choreo"), "gen"] + resolve(gen, files) + ["-o", f])
                run([os.path.join(bindir, "choreo"), "verify", f])
                files[label] = f
            S = json.load(open(files[algs[0][0]]))
            ranks = S["ranks"]
            nodes = -(-ranks // per_node)
            if up_nodes != nodes:
                run([cluster, "up", str(nodes), "--rate", a.rate] + (["--burst", a.burst] if a.burst else [])
                    + (["--mtu", a.mtu] if a.mtu else []), env=env)
                up_nodes = nodes
                machines = {}
                pp = json.loads(mpi([os.path.join(bindir, "choreo-emu-pingpong"), "1048576", "20"], 2,
                                    dict(env, CHOREO_EMU_PER_NODE="1"), 120))
                alpha = pp["alpha"]
            beta = 8 / bits
            # The start-up a step costs with this many ranks on 2 cores: every
            # rank must be scheduled once per step, which a 2-rank ping-pong
            # does not see.
            env_case = dict(env, CHOREO_EMU_PER_NODE=str(per_node))
            ring8 = os.path.join(work, "ring8.json")
            run([os.path.join(bindir, "choreo"), "gen", "allgather-ring", "--p", str(ranks), "--bytes", "8", "-o", ring8])
            r8 = json.loads(mpi([os.path.join(bindir, "choreo-run"), ring8, "--json", "--iterations", "20"],
                                ranks, env_case, 600))
            alpha_step = r8.get("makespan_median_s", r8["median_s"]) / max(1, ranks - 1)
            machine = None
            if a.calibrate:
                # One machine file per cluster and layout, measured with the
                # case's ranks and ranks per node (the start-up depends on both).
                machine = machines.get((ranks, per_node))
                if machine is None:
                    machine = os.path.join(a.out, f"machine-{nodes}x{per_node}.json")
                    # The emulated nodes are namespaces, which shared memory
                    # does not tell apart: CHOREO_NODES gives the layout.
                    mpi([os.path.join(bindir, "choreo-calibrate"), "-o", machine, "--seconds", str(a.calibrate),
                         "--max-bytes", "4M"], ranks, dict(env_case, CHOREO_NODES=str(per_node)), 600)
                    machines[(ranks, per_node)] = machine
                    M = json.load(open(machine))
                    print(f"calibrated on {ranks} ranks, {nodes} nodes: alpha {M['alpha']:.3g} s, "
                          f"beta {M['beta']:.3g} s/B, step_startup {M.get('step_startup', 0):.3g} s", flush=True)
            res = {}
            for label, _ in algs:
                f = files[label]
                if per_node > 1:  # the model sees the shared ports
                    Sm = json.load(open(f))
                    Sm["nodes"] = [list(range(i, min(i + per_node, ranks))) for i in range(0, ranks, per_node)]
                    fm = f + ".nodes.json"
                    json.dump(Sm, open(fm, "w"))
                else:
                    fm = f
                # The model prices the flow control the runs use (its handshakes).
                fcm = ["--flow-control", a.flow_control] if a.flow_control else []
                cost = lambda a: json.loads(run([os.path.join(bindir, "choreo"), "cost", fm, "--alpha", str(a),
                                                 "--beta", str(beta), "--json"] + fcm))["time"]
                model, model_step = cost(alpha), cost(alpha_step)
                model_cal = (json.loads(run([os.path.join(bindir, "choreo"), "cost", fm, "--machine", machine,
                                             "--json"] + fcm))["time"] if machine else None)
                meas, nb, nnb = [], [], []
                for r in range(a.runs):
                    native = ["--native"] if label == base else []
                    fc = ["--flow-control", a.flow_control] if a.flow_control else []
                    out = json.loads(mpi([os.path.join(bindir, "choreo-run"), f, "--check", "--json",
                                          "--iterations", str(a.iterations)] + native + fc,
                                         ranks, env_case, 1800))
                    if out.get("check") != "passed":
                        raise RuntimeError(f"{c} {label}: check {out.get('check')}")
                    meas.append(out.get("makespan_median_s", out["median_s"]))
                    if native:
                        nb.append(out.get("native_blocking_makespan_median_s", out["native_blocking_median_s"]))
                        nnb.append(out.get("native_nonblocking_makespan_median_s", out["native_nonblocking_median_s"]))
                res[label] = {"measured": statistics.median(meas), "runs": meas, "model": model,
                              "model_step": model_step, "model_cal": model_cal}
                if nb:
                    res["native"] = {"blocking": statistics.median(nb), "nonblocking": statistics.median(nnb)}
                print(f"{c}: {label} measured {res[label]['measured']:.4f} s, model {model:.4f} s", flush=True)
            for label, _ in algs:
                if label == base:
                    continue
                m, b = res[label], res[base]
                ms, mo = b["measured"] / m["measured"], b["model"] / m["model"]
                mo_step = b["model_step"] / m["model_step"]
                rows.append({"case": c, "ranks": ranks, "nodes": nodes, "algorithm": label, "baseline": base,
                             "measured_s": m["measured"], "model_s": m["model"],
                             "baseline_measured_s": b["measured"], "baseline_model_s": b["model"],
                             "speedup_measured": ms, "speedup_model": mo, "ratio": ms / mo,
                             "native_blocking_s": res["native"]["blocking"],
                             "native_nonblocking_s": res["native"]["nonblocking"],
                             "model_step_s": m["model_step"], "baseline_model_step_s": b["model_step"],
                             "speedup_model_step": mo_step, "ratio_step": ms / mo_step,
                             "alpha": alpha, "alpha_step": alpha_step, "beta": beta})
                if machine:
                    mo_cal = b["model_cal"] / m["model_cal"]
                    rows[-1].update({"machine": os.path.basename(machine), "model_cal_s": m["model_cal"],
                                     "baseline_model_cal_s": b["model_cal"], "speedup_model_cal": mo_cal,
                                     "ratio_cal": ms / mo_cal,
                                     # time: model over measured, each algorithm on its own
                                     "time_ratio_cal": m["model_cal"] / m["measured"],
                                     "baseline_time_ratio_cal": b["model_cal"] / b["measured"]})
    finally:
        subprocess.run([cluster, "down"], env=env)
    old = os.path.join(a.out, "results.json")
    if a.append and os.path.exists(old):
        rows = [r for r in json.load(open(old))["rows"] if r["case"] not in cases] + rows
    meta = {"rate": a.rate, "burst": a.burst or os.environ.get("CHOREO_EMU_BURST", "16kb"),
            "mtu": a.mtu or os.environ.get("CHOREO_EMU_MTU", "9000"), "runs": a.runs, "ucx_rndv_thresh": os.environ.get("UCX_RNDV_THRESH"),
            "flow_control": a.flow_control, "calibrate_seconds": a.calibrate, "iterations": a.iterations, "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    json.dump({"meta": meta, "rows": rows}, open(os.path.join(a.out, "results.json"), "w"), indent=1)
    with open(os.path.join(a.out, "results.md"), "w") as md:
        md.write(f"Rate {a.rate} per port each way (burst {meta['burst']}, MTU {meta['mtu']}); median of {a.runs} jobs of {a.iterations} iterations (makespan on one clock); "
                 f"model: choreo cost, beta = 8/rate, alpha from the 2-rank ping-pong (α) or per step of an "
                 f"8-byte ring allgather over the case's ranks (α step)"
                 f"{'; flow control from ' + a.flow_control + ' bytes' if a.flow_control else ''}. {meta['date']}.\n\n")
        md.write("| case | ranks/nodes | algorithm | measured s | model s | baseline measured s | baseline model s | "
                 "speed-up measured | speed-up model | measured/model | α µs | α step µs | speed-up model (α step) | "
                 "measured/model (α step) | MPICH blocking s | MPICH non-blocking s | MPICH/algorithm |\n")
        md.write("|" + "---|" * 17 + "\n")
        for r in rows:
            md.write(f"| {r['case']} | {r['ranks']}/{r['nodes']} | {r['algorithm']} vs {r['baseline']} | {r['measured_s']:.4f} | "
                     f"{r['model_s']:.4f} | {r['baseline_measured_s']:.4f} | {r['baseline_model_s']:.4f} | "
                     f"{r['speedup_measured']:.2f} | {r['speedup_model']:.2f} | {r['ratio']:.2f} | "
                     f"{r['alpha'] * 1e6:.0f} | {r.get('alpha_step', float('nan')) * 1e6:.0f} | "
                     f"{r.get('speedup_model_step', float('nan')):.2f} | {r.get('ratio_step', float('nan')):.2f} | "
                     f"{r['native_blocking_s']:.4f} | {r['native_nonblocking_s']:.4f} | "
                     f"{r['native_blocking_s'] / r['measured_s']:.2f} |\n")
        if any("ratio_cal" in r for r in rows):
            md.write("\nWith the calibrated machine file (`choreo-calibrate` over each case's ranks in the emulation, "
                     "`choreo cost --machine`): model/measured is each algorithm's modelled time over its measured time, "
                     "measured/model the speed-ups' ratio as above.\n\n")
            md.write("| case | algorithm | measured s | model (calibrated) s | model/measured | baseline measured s | "
                     "baseline model (calibrated) s | baseline model/measured | speed-up measured | "
                     "speed-up model (calibrated) | measured/model (calibrated) |\n")
            md.write("|" + "---|" * 11 + "\n")
            for r in rows:
                if "ratio_cal" not in r:
                    continue
                md.write(f"| {r['case']} | {r['algorithm']} vs {r['baseline']} | {r['measured_s']:.4f} | "
                         f"{r['model_cal_s']:.4f} | {r['time_ratio_cal']:.2f} | {r['baseline_measured_s']:.4f} | "
                         f"{r['baseline_model_cal_s']:.4f} | {r['baseline_time_ratio_cal']:.2f} | "
                         f"{r['speedup_measured']:.2f} | {r['speedup_model_cal']:.2f} | **{r['ratio_cal']:.2f}** |\n")
    write_svg(rows, os.path.join(a.out, "results.svg"), meta)
    print(open(os.path.join(a.out, "results.md")).read())

def write_svg(rows, path, meta):
    W, H, L, B, T = 860, 360, 60, 150, 40
    n = max(1, len(rows))
    top = max([1.0] + [max(r["speedup_measured"], r["speedup_model"]) for r in rows]) * 1.1
    slot = (W - L - 20) / n
    y = lambda v: T + (H - T - B) * (1 - v / top)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="11">',
           f'<text x="{L}" y="20" font-size="13">Speed-up over the baseline on the emulated cluster ({meta["rate"]} ports): measured (dark) and model (light)</text>',
           f'<line x1="{L}" y1="{y(0)}" x2="{W-20}" y2="{y(0)}" stroke="black"/>',
           f'<line x1="{L}" y1="{T}" x2="{L}" y2="{y(0)}" stroke="black"/>']
    step = 1 if top < 8 else 2
    v = 0
    while v <= top:
        out.append(f'<text x="{L-6}" y="{y(v)+4}" text-anchor="end">{v}</text>'
                   f'<line x1="{L}" y1="{y(v)}" x2="{W-20}" y2="{y(v)}" stroke="#ddd"/>')
        v += step
    for i, r in enumerate(rows):
        x = L + i * slot + slot * 0.15
        w = slot * 0.35
        for k, (val, col) in enumerate(((r["speedup_measured"], "#1f4e79"), (r["speedup_model"], "#9dc3e6"))):
            out.append(f'<rect x="{x + k*w:.1f}" y="{y(val):.1f}" width="{w:.1f}" height="{y(0)-y(val):.1f}" fill="{col}"/>')
        lx = L + i * slot + slot / 2
        out.append(f'<text transform="translate({lx:.1f},{y(0)+8}) rotate(50)" font-size="10">{r["case"]}: {r["algorithm"]}</text>')
    out.append("</svg>")
    open(path, "w").write("\n".join(out))

if __name__ == "__main__":
    main()
