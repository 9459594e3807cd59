#!/bin/sh
# bench/trace/summarize.sh - the rows of bench/trace/sweep.sh as the
# Markdown table of docs/trace.md ("MPICH against the generators"): per
# collective, encoding and generator, the p covered and each verdict's
# count; then the traced call's time over the untraced one.
# usage: bench/trace/summarize.sh rows.tsv
T=$(printf '\t')
echo "| collective | encoding | generator | p | cases | equal | asap | messages | differ | error |"
echo "|---|---|---|---|---|---|---|---|---|---|"
grep -v '^#' "$1" | sed 's/:counts=[0-9,]*//' |
  sort -t "$T" -k1,1 -k5,5 -k6,6 -k2,2n | awk -F'\t' '
function flush() {
  if (key == "") return
  printf "| %s | %s | %s | %s | %d | %d | %d | %d | %d | %d |\n", c, e, g,
    (pmin == pmax ? pmin : pmin ".." pmax), n, v["equal"], v["asap"],
    v["messages"], v["differ"], v["error"]
  split("", v)
}
{
  k = $1 "|" $5 "|" $6
  if (k != key) { flush(); key = k; c = $1; e = $5; g = $6; pmin = $2; n = 0 }
  pmax = $2; n++; v[$7]++
}
END { flush() }'
echo
grep -v '^#' "$1" | awk -F'\t' '$10 != "-" && $11 > 0 { print $10 / $11 }' |
  sort -g | awk '{ r[NR] = $1 } END { if (NR) printf "traced/untraced time of the call (the slowest rank), %d calls: median %.2f, 10th percentile %.2f, 90th %.2f, largest %.2f\n", NR, r[int((NR + 1) / 2)], r[int(NR * 0.1) + 1], r[int(NR * 0.9)], r[NR] }'
