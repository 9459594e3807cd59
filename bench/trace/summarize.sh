#!/bin/sh
# bench/trace/summarize.sh - the rows of bench/trace/sweep.sh as the
# Markdown table of docs/trace.md ("MPICH against the generators"): per
# collective, encoding and generator, the p covered and each verdict's
# count; then the traced call's time and the untraced one's, per p.
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
# The traced call runs first (cold: UCX connects lazily), the program's own
# call after it: percentiles of each, in ms, per p.
med() { sort -g | awk '{ r[NR] = $1 } END { if (NR) printf "%.3f / %.3f / %.3f", r[int(NR * 0.1) + 1], r[int((NR + 1) / 2)], r[int(NR * 0.9)] }'; }
echo
echo "| p | calls | traced ms (10% / median / 90%) | untraced ms (10% / median / 90%) |"
echo "|---|---|---|---|"
for P in $(grep -v '^#' "$1" | cut -f2 | sort -nu); do
  ROWS=$(grep -v '^#' "$1" | awk -F'\t' -v p="$P" '$2 == p && $10 != "-"')
  [ -n "$ROWS" ] || continue
  echo "| $P | $(printf '%s\n' "$ROWS" | wc -l) | $(printf '%s\n' "$ROWS" | cut -f10 | med) | $(printf '%s\n' "$ROWS" | cut -f11 | med) |"
done
