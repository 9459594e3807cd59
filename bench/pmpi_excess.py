#!/usr/bin/env python3
"""pmpi_excess.py RUN.md [RUN.md ...]: the tables of bench/pmpi_bench.sh
summarised against issue 26's bound, a preloaded call at most
max(5 %, 0.5 us) slower than native (docs/pmpi.md, "Native against
preloaded at 2 ranks, every served call"). One Markdown row per collective
and run: the 8-byte native and preloaded medians, how many sizes exceed the
bound, the largest excess (us, at which size, its ratio) and the 1 MiB
ratio. With several runs, one row per run in turn (the spread between
runs is the noise). --before-after BEFORE.md AFTER.md: one row per
collective, the two runs side by side (each against its own native run).
"""
import re
import sys


def tables(path):
    """{collective: [(bytes, native median, preloaded median)]}."""
    out, coll = {}, None
    for line in open(path):
        m = re.match(r"^(\S+), \d+ ranks, \d+ iterations", line)
        if m:
            coll = m.group(1)
            out[coll] = []
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if coll and len(cells) == 8 and cells[0].isdigit():
            out[coll].append((int(cells[0]), float(cells[2]), float(cells[5])))
    return out


def summary(rows):
    """(8 B native, 8 B preloaded, cells over, worst excess, 1 MiB ratio)."""
    over = [b for b, n, p in rows if p - n > max(0.05 * n, 0.5)]
    worst = max(((p - n, b, p / n) for b, n, p in rows))
    return rows[0][1], rows[0][2], len(over), worst, rows[-1][2] / rows[-1][1]


def before_after(before, after):
    print("| call | 8 B native / preloaded (us), before | after "
          "| cells over max(5 %, 0.5 us): before | after "
          "| largest excess after | 1 MiB ratio before | after |")
    print("|---|---|---|---|---|---|---|---|")
    for coll in after:
        if not before.get(coll) or not after[coll]:
            continue
        b, a = summary(before[coll]), summary(after[coll])
        w = a[3]
        print(f"| {coll} | {b[0]:.2f} / {b[1]:.2f} | {a[0]:.2f} / {a[1]:.2f} "
              f"| {b[2]} | {a[2]} | {w[0]:+.2f} us at {w[1]} B ({w[2]:.2f}x) "
              f"| {b[4]:.2f} | {a[4]:.2f} |")


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--before-after":
        before_after(tables(sys.argv[2]), tables(sys.argv[3]))
        return
    runs = [tables(p) for p in sys.argv[1:]]
    if not runs:
        sys.exit(__doc__)
    print("| call | run | 8 B: native / preloaded (us) | cells over max(5 %, 0.5 us) "
          "| largest excess | 1 MiB ratio |")
    print("|---|---|---|---|---|---|")
    for coll in runs[0]:
        for i, run in enumerate(runs):
            rows = run.get(coll, [])
            if not rows:
                continue
            over = [(p - n, b, p / n) for b, n, p in rows
                    if p - n > max(0.05 * n, 0.5)]
            worst = max(((p - n, b, p / n) for b, n, p in rows))
            first = rows[0]
            last = rows[-1]
            print(f"| {coll} | {i + 1} | {first[1]:.2f} / {first[2]:.2f} | "
                  f"{len(over)} | {worst[0]:+.2f} us at {worst[1]} B "
                  f"({worst[2]:.2f}x) | {last[2] / last[1]:.2f} |")


main()
