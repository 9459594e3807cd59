"""check_ompi_rules.py FILE: parses an Open MPI coll_tuned dynamic rules file.

A parser of the classic numeric format as Open MPI 4.1.6 reads it
(ompi/mca/coll/tuned/coll_tuned_dynamic_file.c; numbers as its
ompi_coll_base_file_getnext_long takes them, `#` to the end of the line a
comment): the number of collectives; per collective its id and the number
of communicator sizes; per size the size and the number of message sizes;
per message size the size, the algorithm, the fan-in/out and the segment
size. It checks what Open MPI's reader refuses (a count or id out of range,
a first message size other than 0, a negative value, a collective twice)
and more: ids, communicator sizes and message sizes strictly ascending
(Open MPI takes the last at or below the call's), every algorithm a valid
number of its collective (Open MPI 4.1.6's coll_tuned_<coll>_algorithms
tables, 0 "ignore" excluded), nothing after the last rule, and the
round trip: the parsed rules written back in the format give the same
numbers. Prints a summary line per collective and "ompi rules: ok", else
the problems, exit 1.
"""
import re
import sys

# COLLTYPE_T (ompi/mca/coll/base/coll_base_functions.h), and the largest
# algorithm number of each collective's table in Open MPI 4.1.6.
COLLECTIVES = ["allgather", "allgatherv", "allreduce", "alltoall",
               "alltoallv", "alltoallw", "barrier", "bcast", "exscan",
               "gather", "gatherv", "reduce", "reduce_scatter",
               "reduce_scatter_block", "scan", "scatter", "scatterv",
               "neighbor_allgather", "neighbor_allgatherv",
               "neighbor_alltoall", "neighbor_alltoallv",
               "neighbor_alltoallw"]
MAX_ALGORITHM = {"allgather": 6, "allgatherv": 5, "allreduce": 6,
                 "alltoall": 5, "alltoallv": 2, "barrier": 6, "bcast": 9,
                 "exscan": 2, "gather": 3, "reduce": 7, "reduce_scatter": 4,
                 "reduce_scatter_block": 4, "scan": 2, "scatter": 3}


def numbers(text):
    """The numbers Open MPI's reader takes, '#' comments skipped; a token
    that is no number is an error here (Open MPI would skip it silently)."""
    out = []
    for lineno, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0]
        for tok in line.split():
            if not re.fullmatch(r"-?(0|[1-9][0-9]*)", tok):
                raise SystemExit("error: line %d: '%s' is not a decimal "
                                 "number (Open MPI reads %%li: a leading 0 "
                                 "is octal)" % (lineno, tok))
            out.append(int(tok))
    return out


def parse(nums):
    pos = 0

    def take(what):
        nonlocal pos
        if pos >= len(nums):
            raise SystemExit("error: the file ends before " + what)
        v = nums[pos]
        pos += 1
        if v < 0:
            raise SystemExit("error: %s is negative (%d)" % (what, v))
        return v

    rules = []
    n = take("the number of collectives")
    if n > len(COLLECTIVES):
        raise SystemExit("error: %d collectives, Open MPI has %d"
                         % (n, len(COLLECTIVES)))
    for _ in range(n):
        cid = take("a collective id")
        if cid >= len(COLLECTIVES):
            raise SystemExit("error: collective id %d out of range" % cid)
        coms = []
        for _ in range(take("the number of communicator sizes")):
            cs = take("a communicator size")
            msgs = []
            for _ in range(take("the number of message sizes")):
                ms = take("a message size")
                msgs.append((ms, take("an algorithm"), take("a fan-in/out"),
                             take("a segment size")))
            coms.append((cs, msgs))
        rules.append((cid, coms))
    if pos != len(nums):
        raise SystemExit("error: %d numbers after the last rule"
                         % (len(nums) - pos))
    return rules


def write(rules):
    out = [len(rules)]
    for cid, coms in rules:
        out += [cid, len(coms)]
        for cs, msgs in coms:
            out += [cs, len(msgs)]
            for m in msgs:
                out += list(m)
    return out


nums = numbers(open(sys.argv[1]).read())
rules = parse(nums)
problems = []
if write(rules) != nums:
    problems.append("the rules written back differ from the file")
ids = [cid for cid, _ in rules]
if ids != sorted(set(ids)):
    problems.append("collective ids not strictly ascending: %s" % ids)
for cid, coms in rules:
    name = COLLECTIVES[cid]
    if name not in MAX_ALGORITHM:
        problems.append("%s: coll_tuned has no algorithms for it" % name)
        continue
    if not coms:
        problems.append("%s: no communicator sizes" % name)
    sizes = [cs for cs, _ in coms]
    if sizes != sorted(set(sizes)) or (sizes and sizes[0] < 1):
        problems.append("%s: communicator sizes not ascending from 1: %s"
                        % (name, sizes))
    nrules = 0
    for cs, msgs in coms:
        if not msgs or msgs[0][0] != 0:
            problems.append("%s, %d ranks: the first message size is not 0"
                            % (name, cs))
        ms = [m[0] for m in msgs]
        if ms != sorted(set(ms)):
            problems.append("%s, %d ranks: message sizes not ascending: %s"
                            % (name, cs, ms))
        for size, alg, fan, seg in msgs:
            nrules += 1
            if not 1 <= alg <= MAX_ALGORITHM[name]:
                problems.append("%s, %d ranks, %d bytes: algorithm %d is not "
                                "one of 1..%d" % (name, cs, size, alg,
                                                  MAX_ALGORITHM[name]))
    print("%s (id %d): %d communicator sizes, %d rules, algorithms %s"
          % (name, cid, len(coms), nrules,
             sorted({m[1] for _, msgs in coms for m in msgs})))
for p in problems:
    print("error: " + p)
if problems:
    sys.exit(1)
print("ompi rules: ok, %d collectives" % len(rules))
