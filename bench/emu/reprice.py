#!/usr/bin/env python3
"""bench/emu/reprice.py - price measured emulation results again under a changed model, without a new run.

    python3 bench/emu/reprice.py --build build --results DIR/results.json [--machine-dir DIR] [--machine FILE]
        [--after "MODEL OPTIONS"]
    python3 bench/emu/reprice.py --build build --study DIR/study.json [--after "MODEL OPTIONS"]

--results: the rows of emu_bench.py's results.json (each case's measured
times); every algorithm and baseline is generated again (emu_bench.py's
CASES) and priced with `choreo cost --machine` before and after adding
--after's options (e.g. "--eager all"), one machine file per layout:
--machine-dir's machine-<nodes>x<per node>.json, else --machine. Prints per
case measured/model of the speed-up and of each time, before and after.

--study: select_study.py's study.json; asks `choreo select` with the
study's machine file, before and after --after's options, for its pick in
each cell, and counts the cells whose pick measured within 10 % of the best.
Needs no root and no emulation: the measured times are the files'.
"""
import argparse, json, os, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import emu_bench  # noqa: E402  (CASES, resolve)


run = emu_bench.run


def reprice_results(a, choreo, after):
    rows = json.load(open(a.results))["rows"]
    work = tempfile.mkdtemp()
    out = []
    print("| case | algorithm | machine | measured s | model before s | model after s | baseline measured s | "
          "baseline model before s | baseline model after s | measured/model before | after |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        per_node, algs, base = emu_bench.CASES[r["case"]]
        files = {}
        for label, gen in algs:
            f = os.path.join(work, f"{label}.json")
            run([choreo, "gen"] + emu_bench.resolve(gen, files) + ["-o", f])
            if per_node > 1:
                S = json.load(open(f))
                n = S["ranks"]
                S["nodes"] = [list(range(i, min(i + per_node, n))) for i in range(0, n, per_node)]
                json.dump(S, open(f, "w"))
            files[label] = f
        ranks = json.load(open(files[algs[0][0]]))["ranks"]
        nodes = -(-ranks // per_node)
        machine = a.machine
        if a.machine_dir:
            m = os.path.join(a.machine_dir, f"machine-{nodes}x{per_node}.json")
            if os.path.exists(m):
                machine = m
        if not machine:
            print(f"| {r['case']} | {r['algorithm']} | no machine file | | | | | | | | |")
            continue

        def cost(f, extra):
            return json.loads(run([choreo, "cost", f, "--machine", machine, "--json"] + extra))["time"]
        mb, ma = cost(files[r["algorithm"]], []), cost(files[r["algorithm"]], after)
        bb, ba = cost(files[base], []), cost(files[base], after)
        sm = r["baseline_measured_s"] / r["measured_s"]
        before, aft = sm / (bb / mb), sm / (ba / ma)
        out.append({"case": r["case"], "algorithm": r["algorithm"], "machine": os.path.basename(machine),
                    "measured_s": r["measured_s"], "model_before_s": mb, "model_after_s": ma,
                    "baseline_measured_s": r["baseline_measured_s"], "baseline_model_before_s": bb,
                    "baseline_model_after_s": ba, "ratio_before": before, "ratio_after": aft})
        print(f"| {r['case']} | {r['algorithm']} vs {base} | {os.path.basename(machine)} | {r['measured_s']:.4f} | "
              f"{mb:.4f} | {ma:.4f} | {r['baseline_measured_s']:.4f} | {bb:.4f} | {ba:.4f} | "
              f"{before:.2f} | **{aft:.2f}** |", flush=True)
    return out


def reprice_study(a, choreo, after):
    d = json.load(open(a.study))
    machine = os.path.join(tempfile.mkdtemp(), "machine.json")
    json.dump(d["meta"]["machine"], open(machine, "w"))
    p = d["meta"]["nodes"]
    hits = {"before": 0, "after": 0}
    out = []
    print("| collective | bytes | best measured | best s | pick before | its s | pick/best | pick after | its s | "
          "pick/best |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for c in d["cells"]:
        extra = ["--element-bytes", "4"] if c["collective"] == "allreduce" else []
        row = {"collective": c["collective"], "size": c["size"], "best": c["best"], "best_s": c["best_s"]}
        for when, opts in (("before", []), ("after", after)):
            sel = json.loads(run([choreo, "select", "--collective", c["collective"], "--p", str(p), "--bytes",
                                  c["size"], "--machine", machine, "--json"] + extra + opts))
            ranking = [x["algorithm"] for x in sel["ranking"]]
            pick = next((x for x in ranking if x in c["measured"]), ranking[0])
            t = c["measured"].get(pick)
            ratio = t / c["best_s"] if t else float("inf")
            hits[when] += ratio <= 1.10
            row[when] = {"pick": pick, "pick_s": t, "ratio": ratio,
                         "model": {x["algorithm"]: x["time"] for x in sel["ranking"]}}
        out.append(row)
        b, f = row["before"], row["after"]
        print(f"| {c['collective']} | {c['size']} | {c['best']} | {c['best_s']:.4g} | {b['pick']} | "
              f"{b['pick_s']:.4g} | {b['ratio']:.2f} | {f['pick']} | {f['pick_s']:.4g} | {f['ratio']:.2f} |",
              flush=True)
    print(f"\nwithin 10 % of the best measured: {hits['before']} of {len(out)} before, "
          f"{hits['after']} of {len(out)} after")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--results")
    ap.add_argument("--study")
    ap.add_argument("--machine-dir")
    ap.add_argument("--machine")
    ap.add_argument("--after", default="--eager all", help="model options added after (default: --eager all)")
    ap.add_argument("--out", help="write the rows as JSON")
    a = ap.parse_args()
    if bool(a.results) == bool(a.study):
        sys.exit("reprice: give one of --results FILE and --study FILE")
    choreo = os.path.abspath(os.path.join(a.build, "bin", "choreo"))
    after = a.after.split()
    out = reprice_results(a, choreo, after) if a.results else reprice_study(a, choreo, after)
    if a.out:
        json.dump(out, open(a.out, "w"), indent=1)


if __name__ == "__main__":
    main()
