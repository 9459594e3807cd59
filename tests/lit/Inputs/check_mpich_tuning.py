"""check_mpich_tuning.py FILE: checks an MPICH 4.0.2 JSON tuning file.

The rules are those of MPICH 4.0.2's reader (src/mpi/coll/src/csel.c) and
of its lookup, restated: every collective csel.c knows has a tree (a
missing one makes MPICH assert on its first call); every key is one csel.c
parses; a condition that is not an `=any`, a boolean or `collective=` is
followed by a sibling (its failure path must not be empty); an `=any` is
the last of its siblings; a leaf is an algorithm of MPICH 4.0.2's
containers (csel_container.h) of the collective's own family; the message
measures are used only for the collectives csel.c defines them for (it
asserts otherwise). Prints "mpich tuning: ok, N collectives, M leaves",
else the problems, exit 1.
"""
import json
import re
import sys

COLLECTIVES = """allgather allgatherv allreduce alltoall alltoallv alltoallw barrier
bcast exscan gather gatherv iallgather iallgatherv iallreduce ialltoall
ialltoallv ialltoallw ibarrier ibcast iexscan igather igatherv
ineighbor_allgather ineighbor_allgatherv ineighbor_alltoall
ineighbor_alltoallv ineighbor_alltoallw ireduce ireduce_scatter
ireduce_scatter_block iscan iscatter iscatterv neighbor_allgather
neighbor_allgatherv neighbor_alltoall neighbor_alltoallv neighbor_alltoallw
reduce reduce_scatter reduce_scatter_block scan scatter scatterv""".split()

# MPICH 4.0.2's algorithm containers (src/mpi/coll/include/csel_container.h),
# by collective, without the MPIR_<Coll>_ prefix.
ALGORITHMS = {
    "allgather": "allcomm_nb inter_local_gather_remote_bcast intra_brucks intra_recursive_doubling intra_ring",
    "allgatherv": "allcomm_nb inter_remote_gather_local_bcast intra_brucks intra_recursive_doubling intra_ring",
    "allreduce": "allcomm_nb inter_reduce_exchange_bcast intra_recursive_doubling intra_reduce_scatter_allgather intra_smp",
    "alltoall": "allcomm_nb inter_pairwise_exchange intra_brucks intra_pairwise intra_pairwise_sendrecv_replace intra_scattered",
    "alltoallv": "allcomm_nb inter_pairwise_exchange intra_pairwise_sendrecv_replace intra_scattered",
    "alltoallw": "allcomm_nb inter_pairwise_exchange intra_pairwise_sendrecv_replace intra_scattered",
    "barrier": "allcomm_nb inter_bcast intra_dissemination intra_smp",
    "bcast": "allcomm_nb inter_remote_send_local_bcast intra_binomial intra_scatter_recursive_doubling_allgather intra_scatter_ring_allgather intra_smp",
    "exscan": "allcomm_nb intra_recursive_doubling",
    "gather": "allcomm_nb inter_linear inter_local_gather_remote_send intra_binomial",
    "gatherv": "allcomm_linear allcomm_nb",
    "reduce": "allcomm_nb inter_local_reduce_remote_send intra_binomial intra_reduce_scatter_gather intra_smp",
    "reduce_scatter": "allcomm_nb inter_remote_reduce_local_scatter intra_noncommutative intra_pairwise intra_recursive_doubling intra_recursive_halving",
    "reduce_scatter_block": "allcomm_nb inter_remote_reduce_local_scatter intra_noncommutative intra_pairwise intra_recursive_doubling intra_recursive_halving",
    "scan": "allcomm_nb intra_recursive_doubling intra_smp",
    "scatter": "allcomm_nb inter_linear inter_remote_send_local_scatter intra_binomial",
    "scatterv": "allcomm_linear allcomm_nb",
}
for n in ("allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw"):
    ALGORITHMS["neighbor_" + n] = "allcomm_nb"
# The non-blocking families: the schedule-based algorithms the default
# tree names (a subset of csel_container.h's).
NONBLOCKING = {
    "ibarrier": "intra_sched_recursive_doubling inter_sched_bcast",
    "iallreduce": "intra_sched_recursive_doubling intra_sched_reduce_scatter_allgather inter_sched_remote_reduce_local_bcast",
    "iallgather": "intra_sched_recursive_doubling intra_sched_brucks intra_sched_ring inter_sched_local_gather_remote_bcast",
    "iallgatherv": "intra_sched_recursive_doubling intra_sched_brucks intra_sched_ring inter_sched_remote_gather_local_bcast",
    "ibcast": "intra_sched_smp intra_sched_binomial intra_sched_scatter_recursive_doubling_allgather intra_sched_scatter_ring_allgather inter_sched_flat",
    "ireduce": "intra_sched_smp intra_sched_binomial intra_sched_reduce_scatter_gather inter_sched_local_reduce_remote_send",
    "ireduce_scatter": "intra_sched_recursive_halving intra_sched_pairwise intra_sched_noncommutative intra_sched_recursive_doubling inter_sched_remote_reduce_local_scatterv",
    "ireduce_scatter_block": "intra_sched_recursive_halving intra_sched_pairwise intra_sched_noncommutative intra_sched_recursive_doubling inter_sched_remote_reduce_local_scatterv",
    "igather": "intra_sched_binomial inter_sched_short inter_sched_long",
    "iscatter": "intra_sched_binomial inter_sched_remote_send_local_scatter inter_sched_linear",
    "igatherv": "allcomm_sched_linear",
    "iscatterv": "allcomm_sched_linear",
    "iexscan": "intra_sched_recursive_doubling",
    "ialltoall": "intra_sched_inplace intra_sched_permuted_sendrecv intra_sched_pairwise intra_sched_brucks inter_sched_pairwise_exchange",
    "ialltoallv": "intra_sched_inplace intra_sched_blocked inter_sched_pairwise_exchange",
    "ialltoallw": "intra_sched_inplace intra_sched_blocked inter_sched_pairwise_exchange",
    "iscan": "intra_sched_smp intra_sched_recursive_doubling",
}
for n in ("allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw"):
    NONBLOCKING["ineighbor_" + n] = "allcomm_sched_linear"
ALGORITHMS.update(NONBLOCKING)

# Where csel.c defines a measure (its get_avg_msgsize, get_count,
# is_commutative, is_op_built_in, is_sendbuf_inplace, is_block_regular
# assert on any other collective).
AVG = {"allreduce", "iallreduce", "bcast", "ibcast", "reduce", "ireduce",
       "alltoall", "ialltoall"}
COUNT = {"bcast", "allreduce", "iallreduce", "reduce", "ireduce", "allgather",
         "allgatherv", "reduce_scatter", "reduce_scatter_block", "iallgather",
         "iallgatherv", "ireduce_scatter", "ireduce_scatter_block"}
TOTAL = {"allreduce", "bcast", "reduce", "alltoall", "alltoallv", "alltoallw",
         "allgather", "allgatherv", "gather", "scatter", "reduce_scatter",
         "reduce_scatter_block", "iallreduce", "ibcast", "ireduce",
         "ialltoall", "ialltoallv", "ialltoallw", "iallgather",
         "iallgatherv", "ireduce_scatter", "ireduce_scatter_block",
         "igather", "iscatter"}
COMMUTATIVE = {"allreduce", "iallreduce", "reduce", "ireduce",
               "reduce_scatter", "ireduce_scatter", "reduce_scatter_block",
               "ireduce_scatter_block"}
BUILT_IN = {"allreduce", "iallreduce", "reduce", "ireduce"}
INPLACE = {"alltoall", "ialltoall", "alltoallv", "ialltoallv", "alltoallw",
           "ialltoallw"}
REGULAR = {"reduce_scatter", "ireduce_scatter"}

BOOLEAN = re.compile(r"^(is_multi_threaded|is_commutative|is_sendbuf_inplace|"
                     r"is_op_built_in|is_block_regular|is_node_consecutive)="
                     r"(yes|no)$|^comm_type=(intra|inter)$|"
                     r"^comm_hierarchy=(parent|node_roots|node|flat|any)$")
ANY = re.compile(r"^(comm_size|avg_msg_size|total_msg_size|count)=any$")
BOUND = re.compile(r"^(comm_size|avg_msg_size|total_msg_size|count)(<=|<)"
                   r"(\d+)$|^comm_size=(pow2|node_comm_size)$|^count<pow2$|"
                   r"^comm_avg_ppn<=\d+$")

problems = []
leaves = 0


def family(coll, name):
    """The MPIR_ family of an algorithm name, e.g. Reduce_scatter_block."""
    return "MPIR_" + coll[0].upper() + coll[1:] + "_"


def walk(coll, node, path):
    global leaves
    if not isinstance(node, dict) or not node:
        problems.append("%s: not a non-empty object" % path)
        return
    keys = list(node)
    for i, key in enumerate(keys):
        where = path + "/" + key
        last = i + 1 == len(keys)
        if key.startswith("algorithm="):
            leaves += 1
            name = key[len("algorithm="):]
            prefix = family(coll, name)
            rest = name[len(prefix):] if name.startswith(prefix) else None
            if rest is None or rest not in ALGORITHMS[coll].split():
                problems.append("%s: not an MPICH 4.0.2 algorithm of %s"
                                % (where, coll))
            if len(keys) != 1:
                problems.append("%s: an algorithm beside other keys" % where)
            return
        if ANY.match(key):
            if not last:
                problems.append("%s: an '=any' before other siblings" % where)
        elif BOOLEAN.match(key):
            pass
        elif BOUND.match(key):
            if last:
                problems.append("%s: no sibling after it (MPICH asserts: "
                                "empty failure path)" % where)
            m = BOUND.match(key)
            if m.group(3) and int(m.group(3)) > 2**31 - 1:
                problems.append("%s: the bound overflows MPICH's int" % where)
        else:
            problems.append("%s: a key MPICH's reader does not know" % where)
        measure = key.split("=")[0].split("<")[0]
        allowed = {"avg_msg_size": AVG, "count": COUNT,
                   "total_msg_size": TOTAL, "is_commutative": COMMUTATIVE,
                   "is_op_built_in": BUILT_IN, "is_sendbuf_inplace": INPLACE,
                   "is_block_regular": REGULAR}.get(measure)
        if allowed is not None and coll not in allowed:
            problems.append("%s: %s is not defined for %s (MPICH asserts)"
                            % (where, measure, coll))
        walk(coll, node[key], where)


tree = json.load(open(sys.argv[1]))
names = [k[len("collective="):] for k in tree if k.startswith("collective=")]
if len(names) != len(tree):
    problems.append("a top-level key is not collective=NAME")
missing = sorted(set(COLLECTIVES) - set(names))
extra = sorted(set(names) - set(COLLECTIVES))
if missing:
    problems.append("missing collectives: " + " ".join(missing))
if extra:
    problems.append("unknown collectives: " + " ".join(extra))
for coll in names:
    if coll in ALGORITHMS:
        walk(coll, tree["collective=" + coll], "/collective=" + coll)
for p in problems:
    print("error: " + p)
if problems:
    sys.exit(1)
print("mpich tuning: ok, %d collectives, %d leaves" % (len(names), leaves))
