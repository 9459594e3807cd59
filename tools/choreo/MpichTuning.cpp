//===- tools/choreo/MpichTuning.cpp - MPICH's JSON tuning file ------------===//
///
/// \file
/// `choreo tune --mpich FILE`: MPICH 4.0.2's collective selection tree
/// (MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE; src/mpi/coll/src/csel.c reads
/// it). The file replaces MPICH's whole built-in tree, and MPICH asserts on
/// the first call of a collective the tree lacks, so it names every
/// collective csel.c knows. Six intracommunicator subtrees are tuned (and
/// five of their non-blocking twins, ireduce_scatter_block left out: MPICH
/// measures its total_msg_size in elements): per
/// grid size a `comm_size<=P` branch (the last `comm_size=any`), in it one
/// `<=` bound per run of message sizes with the same cheapest MPICH
/// algorithm; the conditions under which MPICH's own tree keeps to one
/// algorithm for correctness (a user-defined operator, fewer elements than
/// the power of two below p, MPI_IN_PLACE, a non-commutative operator, p
/// not a power of two for recursive doubling) keep MPICH's choice. Every
/// other collective and branch is MPICH 4.0.2's default (its
/// maint/tuning/coll/mpir/generic.json, restated here).
///
//===----------------------------------------------------------------------===//

#include "TuneFiles.h"

#include "llvm/Support/FormatVariadic.h"

#include <climits>
#include <utility>

using namespace choreo;
using namespace choreo::tune;
using J = nlohmann::ordered_json;

namespace {

J alg(const std::string &Name) {
  J O = J::object();
  O["algorithm=MPIR_" + Name] = J::object();
  return O;
}

J tree(std::initializer_list<std::pair<std::string, J>> Kids) {
  J O = J::object();
  for (const auto &[K, V] : Kids)
    O[K] = V;
  return O;
}

J intraInter(J Intra, J Inter) {
  return tree({{"comm_type=intra", std::move(Intra)},
               {"comm_type=inter", std::move(Inter)}});
}

bool isPowerOfTwo(uint64_t P) { return P && !(P & (P - 1)); }

/// How a tuned collective is measured in MPICH's tree: the key's name and
/// the factor from a grid size to MPICH's measure at P ranks.
struct Measure {
  const char *Key; ///< "avg_msg_size", "total_msg_size"
  bool TimesP;     ///< total_msg_size of a gather: a member's bytes times p
};

/// One rule per run: `Key<=Bound` (the last `Key=any`); a bound beyond
/// MPICH's int ends the list there.
J sizeRules(const std::vector<Run> &Runs, Measure M, uint64_t P,
            const std::string &Fallback) {
  J O = J::object();
  const std::string Key = M.Key;
  for (size_t I = 0; I < Runs.size(); ++I) {
    uint64_t Bound = Runs[I].Last * (M.TimesP ? P : 1);
    if (I + 1 == Runs.size() || Bound > uint64_t(INT_MAX)) {
      O[Key + "=any"] = alg(Runs[I].Choice);
      return O;
    }
    O[llvm::formatv("{0}<={1}", Key, Bound).str()] = alg(Runs[I].Choice);
  }
  O[Key + "=any"] = alg(Fallback);
  return O;
}

/// Whether the sizes a branch serves, (Prev, P] or (Prev, any) for the
/// last, hold one that is not a power of two.
bool holdsNonPowerOfTwo(uint64_t Prev, uint64_t P, bool Last) {
  if (Last)
    return true;
  for (uint64_t K = Prev + 1; K < P; ++K)
    if (!isPowerOfTwo(K))
      return true;
  return !isPowerOfTwo(P);
}

/// The tuned subtree of call C: per grid size P a `comm_size<=P` branch
/// (the last `comm_size=any`). Where a candidate runs on powers of two
/// only and the branch holds other sizes too, a `comm_size=pow2` branch
/// priced at P comes first, then the rest priced without it at P - 1 (3
/// for P <= 2).
J commTree(const Grid &G, MpiCall C, const std::vector<Candidate> &Cands,
           Measure M, const std::string &Fallback) {
  bool SomePow2Only = false;
  for (const Candidate &X : Cands)
    SomePow2Only |= X.PowerOfTwoOnly;
  J O = J::object();
  for (size_t I = 0; I < G.Ps.size(); ++I) {
    uint64_t P = G.Ps[I], Prev = I ? G.Ps[I - 1] : 0;
    bool Last = I + 1 == G.Ps.size();
    J Rules = sizeRules(runsOf(G, C, Cands, P), M, P, Fallback);
    if (SomePow2Only && isPowerOfTwo(P) && holdsNonPowerOfTwo(Prev, P, Last)) {
      uint64_t Q = P > 2 ? P - 1 : 3;
      Rules = tree({{"comm_size=pow2", Rules},
                    {"comm_size=any",
                     sizeRules(runsOf(G, C, Cands, Q), M, Q, Fallback)}});
    }
    O[Last ? std::string("comm_size=any")
           : llvm::formatv("comm_size<={0}", P).str()] = Rules;
  }
  return O;
}

/// Object A's keys followed by B's.
J concat(J A, const J &B) {
  for (const auto &[K, V] : B.items())
    A[K] = V;
  return A;
}

/// The tuned subtrees name a family's algorithms by Pre: "Bcast_intra_"
/// for MPI_Bcast, "Ibcast_intra_sched_" for MPI_Ibcast, whose algorithms
/// send the same messages (scheduled, not blocking).
J tunedBcast(const Grid &G, const std::string &Pre) {
  std::vector<Candidate> C = {
      {Pre + "binomial", "bcast-binomial", {}},
      {Pre + "scatter_recursive_doubling_allgather", "bcast-scatter-rd", {}},
      {Pre + "scatter_ring_allgather", "bcast-scatter-ring", {}}};
  return commTree(G, MpiCall::Bcast, C, {"avg_msg_size", false},
                  Pre + "binomial");
}

/// Allreduce and reduce: MPICH's reduce-scatter algorithms serve built-in
/// operators on at least p' elements; allreduce-mpich and reduce-mpich are
/// those algorithms there (and the tree, a tie, below).
J tunedReduction(const Grid &G, MpiCall Call, const std::string &Tree,
                 const std::string &TreeGen, const std::string &Split,
                 const std::string &SplitGen) {
  std::vector<Candidate> C = {{Tree, TreeGen, {}}, {Split, SplitGen, {}}};
  return concat(
      tree({{"is_op_built_in=no", alg(Tree)}, {"count<pow2", alg(Tree)}}),
      commTree(G, Call, C, {"avg_msg_size", false}, Tree));
}

J tunedReduceScatterBlock(const Grid &G) {
  std::vector<Candidate> C = {
      {"Reduce_scatter_block_intra_pairwise", "reduce-scatter-ring", {}},
      {"Reduce_scatter_block_intra_recursive_halving",
       "reduce-scatter-mpich",
       {}}};
  return tree(
      {{"is_commutative=yes",
        commTree(G, MpiCall::ReduceScatterBlock, C, {"total_msg_size", false},
                 "Reduce_scatter_block_intra_pairwise")},
       {"is_commutative=no",
        tree({{"comm_size=pow2",
               alg("Reduce_scatter_block_intra_noncommutative")},
              {"comm_size=any",
               alg("Reduce_scatter_block_intra_recursive_doubling")}})}});
}

J tunedAllgather(const Grid &G, const std::string &Pre) {
  std::vector<Candidate> C = {
      {Pre + "recursive_doubling", "allgather-recdbl", {}, true},
      {Pre + "brucks", "allgather-bruck", {}},
      {Pre + "ring", "allgather-ring", {}}};
  return commTree(G, MpiCall::Allgather, C, {"total_msg_size", true},
                  Pre + "ring");
}

/// Scattered: MPI_Alltoall's batches of sends and receives in flight,
/// MPI_Ialltoall's permuted_sendrecv.
J tunedAlltoall(const Grid &G, const std::string &Pre,
                const std::string &Scattered, const std::string &InPlace) {
  std::vector<Candidate> C = {{Pre + "brucks", "alltoall-bruck", {}},
                              {Pre + Scattered, "alltoall-scattered", {}},
                              {Pre + "pairwise", "alltoall-pairwise", {}}};
  return tree({{"is_sendbuf_inplace=yes", alg(Pre + InPlace)},
               {"is_sendbuf_inplace=no",
                commTree(G, MpiCall::Alltoall, C, {"avg_msg_size", false},
                         Pre + "pairwise")}});
}

/// MPICH's default subtree of a collective whose choice follows the size
/// of a gather over the communicator: recursive doubling on powers of two
/// below 512 KiB, Bruck below 80 KiB, else the ring (allgatherv and both
/// non-blocking allgathers).
J gatherLike(const std::string &Pre) {
  return tree(
      {{"comm_size=pow2",
        tree({{"total_msg_size<524288", alg(Pre + "recursive_doubling")},
              {"total_msg_size=any", alg(Pre + "ring")}})},
       {"comm_size=any", tree({{"total_msg_size<81920", alg(Pre + "brucks")},
                               {"total_msg_size=any", alg(Pre + "ring")}})}});
}

/// MPICH's default reduce_scatter(_block) subtree (Pre names the family).
J reduceScatterLike(const std::string &Pre, bool Block) {
  J NonCommutative = tree({{"comm_size=pow2", alg(Pre + "noncommutative")},
                           {"comm_size=any", alg(Pre + "recursive_doubling")}});
  if (!Block)
    NonCommutative =
        tree({{"is_block_regular=yes", NonCommutative},
              {"is_block_regular=no", alg(Pre + "recursive_doubling")}});
  return tree({{"is_commutative=yes",
                tree({{"total_msg_size<524288", alg(Pre + "recursive_halving")},
                      {"total_msg_size=any", alg(Pre + "pairwise")}})},
               {"is_commutative=no", NonCommutative}});
}

/// The non-blocking collectives: ibcast, iallreduce, ireduce, iallgather
/// and ialltoall tuned as their blocking twins (MPICH's guards kept),
/// the rest MPICH's defaults.
void addNonblocking(J &O, const Grid &G) {
  O["collective=ibarrier"] =
      intraInter(alg("Ibarrier_intra_sched_recursive_doubling"),
                 alg("Ibarrier_inter_sched_bcast"));
  const std::string IAr = "Iallreduce_intra_sched_";
  O["collective=iallreduce"] = intraInter(
      tunedReduction(G, MpiCall::Allreduce, IAr + "recursive_doubling",
                     "allreduce-recursive-doubling",
                     IAr + "reduce_scatter_allgather", "allreduce-mpich"),
      alg("Iallreduce_inter_sched_remote_reduce_local_bcast"));
  O["collective=iallgather"] =
      intraInter(tunedAllgather(G, "Iallgather_intra_sched_"),
                 alg("Iallgather_inter_sched_local_gather_remote_bcast"));
  O["collective=iallgatherv"] =
      intraInter(gatherLike("Iallgatherv_intra_sched_"),
                 alg("Iallgatherv_inter_sched_remote_gather_local_bcast"));
  const std::string IB = "Ibcast_intra_sched_";
  O["collective=ibcast"] =
      intraInter(concat(tree({{"comm_hierarchy=parent", alg(IB + "smp")}}),
                        tunedBcast(G, IB)),
                 alg("Ibcast_inter_sched_flat"));
  const std::string IR = "Ireduce_intra_sched_";
  O["collective=ireduce"] = intraInter(
      concat(tree({{"comm_hierarchy=parent",
                    tree({{"is_commutative=yes", alg(IR + "smp")},
                          {"is_commutative=no", alg(IR + "binomial")}})}}),
             tunedReduction(G, MpiCall::Reduce, IR + "binomial",
                            "reduce-binary-tree", IR + "reduce_scatter_gather",
                            "reduce-mpich")),
      alg("Ireduce_inter_sched_local_reduce_remote_send"));
  O["collective=ireduce_scatter"] = intraInter(
      reduceScatterLike("Ireduce_scatter_intra_sched_", false),
      alg("Ireduce_scatter_inter_sched_remote_reduce_local_scatterv"));
  O["collective=igather"] = intraInter(
      alg("Igather_intra_sched_binomial"),
      tree({{"total_msg_size<2048", alg("Igather_inter_sched_short")},
            {"total_msg_size=any", alg("Igather_inter_sched_long")}}));
  O["collective=iscatter"] = intraInter(
      alg("Iscatter_intra_sched_binomial"),
      tree({{"total_msg_size<2048",
             alg("Iscatter_inter_sched_remote_send_local_scatter")},
            {"total_msg_size=any", alg("Iscatter_inter_sched_linear")}}));
  O["collective=igatherv"] = alg("Igatherv_allcomm_sched_linear");
  O["collective=iscatterv"] = alg("Iscatterv_allcomm_sched_linear");
  O["collective=iexscan"] = alg("Iexscan_intra_sched_recursive_doubling");
  O["collective=ialltoall"] =
      intraInter(tunedAlltoall(G, "Ialltoall_intra_sched_", "permuted_sendrecv",
                               "inplace"),
                 alg("Ialltoall_inter_sched_pairwise_exchange"));
  for (const char *V : {"v", "w"})
    O[std::string("collective=ialltoall") + V] = intraInter(
        tree({{"is_sendbuf_inplace=yes",
               alg(std::string("Ialltoall") + V + "_intra_sched_inplace")},
              {"is_sendbuf_inplace=no",
               alg(std::string("Ialltoall") + V + "_intra_sched_blocked")}}),
        alg(std::string("Ialltoall") + V + "_inter_sched_pairwise_exchange"));
  O["collective=ireduce_scatter_block"] = intraInter(
      reduceScatterLike("Ireduce_scatter_block_intra_sched_", true),
      alg("Ireduce_scatter_block_inter_sched_remote_reduce_local_scatterv"));
  O["collective=iscan"] = tree(
      {{"comm_hierarchy=parent", alg("Iscan_intra_sched_smp")},
       {"comm_hierarchy=any", alg("Iscan_intra_sched_recursive_doubling")}});
  for (const char *N :
       {"allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw"})
    O[std::string("collective=ineighbor_") + N] =
        alg(std::string("Ineighbor_") + N + "_allcomm_sched_linear");
}

} // namespace

const std::vector<std::string> &tune::mpichCollectives() {
  static const std::vector<std::string> Names = {"allgather",
                                                 "allgatherv",
                                                 "allreduce",
                                                 "alltoall",
                                                 "alltoallv",
                                                 "alltoallw",
                                                 "barrier",
                                                 "bcast",
                                                 "exscan",
                                                 "gather",
                                                 "gatherv",
                                                 "iallgather",
                                                 "iallgatherv",
                                                 "iallreduce",
                                                 "ialltoall",
                                                 "ialltoallv",
                                                 "ialltoallw",
                                                 "ibarrier",
                                                 "ibcast",
                                                 "iexscan",
                                                 "igather",
                                                 "igatherv",
                                                 "ineighbor_allgather",
                                                 "ineighbor_allgatherv",
                                                 "ineighbor_alltoall",
                                                 "ineighbor_alltoallv",
                                                 "ineighbor_alltoallw",
                                                 "ireduce",
                                                 "ireduce_scatter",
                                                 "ireduce_scatter_block",
                                                 "iscan",
                                                 "iscatter",
                                                 "iscatterv",
                                                 "neighbor_allgather",
                                                 "neighbor_allgatherv",
                                                 "neighbor_alltoall",
                                                 "neighbor_alltoallv",
                                                 "neighbor_alltoallw",
                                                 "reduce",
                                                 "reduce_scatter",
                                                 "reduce_scatter_block",
                                                 "scan",
                                                 "scatter",
                                                 "scatterv"};
  return Names;
}

J tune::mpichTuningFile(const Grid &G) {
  J O = J::object();
  // Tuned: the blocking intracommunicator calls choreo models.
  O["collective=bcast"] =
      intraInter(tunedBcast(G, "Bcast_intra_"),
                 alg("Bcast_inter_remote_send_local_bcast"));
  O["collective=allreduce"] =
      intraInter(tunedReduction(G, MpiCall::Allreduce,
                                "Allreduce_intra_recursive_doubling",
                                "allreduce-recursive-doubling",
                                "Allreduce_intra_reduce_scatter_allgather",
                                "allreduce-mpich"),
                 alg("Allreduce_inter_reduce_exchange_bcast"));
  O["collective=reduce"] = intraInter(
      tunedReduction(G, MpiCall::Reduce, "Reduce_intra_binomial",
                     "reduce-binary-tree", "Reduce_intra_reduce_scatter_gather",
                     "reduce-mpich"),
      alg("Reduce_inter_local_reduce_remote_send"));
  O["collective=reduce_scatter_block"] =
      intraInter(tunedReduceScatterBlock(G),
                 alg("Reduce_scatter_block_inter_remote_reduce_local_scatter"));
  O["collective=allgather"] =
      intraInter(tunedAllgather(G, "Allgather_intra_"),
                 alg("Allgather_inter_local_gather_remote_bcast"));
  O["collective=alltoall"] =
      intraInter(tunedAlltoall(G, "Alltoall_intra_", "scattered",
                               "pairwise_sendrecv_replace"),
                 alg("Alltoall_inter_pairwise_exchange"));

  // MPICH's defaults for the rest.
  O["collective=allgatherv"] =
      intraInter(gatherLike("Allgatherv_intra_"),
                 alg("Allgatherv_inter_remote_gather_local_bcast"));
  O["collective=reduce_scatter"] =
      intraInter(reduceScatterLike("Reduce_scatter_intra_", false),
                 alg("Reduce_scatter_inter_remote_reduce_local_scatter"));
  O["collective=gather"] =
      intraInter(alg("Gather_intra_binomial"),
                 tree({{"total_msg_size<2048",
                        alg("Gather_inter_local_gather_remote_send")},
                       {"total_msg_size=any", alg("Gather_inter_linear")}}));
  O["collective=scatter"] =
      intraInter(alg("Scatter_intra_binomial"),
                 tree({{"total_msg_size<2048",
                        alg("Scatter_inter_remote_send_local_scatter")},
                       {"total_msg_size=any", alg("Scatter_inter_linear")}}));
  O["collective=gatherv"] = alg("Gatherv_allcomm_linear");
  O["collective=scatterv"] = alg("Scatterv_allcomm_linear");
  O["collective=scan"] = intraInter(
      tree({{"is_node_consecutive=yes", alg("Scan_intra_smp")},
            {"is_node_consecutive=no", alg("Scan_intra_recursive_doubling")}}),
      alg("Scan_intra_smp"));
  O["collective=exscan"] = alg("Exscan_intra_recursive_doubling");
  O["collective=barrier"] = intraInter(
      tree({{"comm_hierarchy=parent", alg("Barrier_intra_smp")},
            {"comm_hierarchy=any", alg("Barrier_intra_dissemination")}}),
      alg("Barrier_inter_bcast"));
  for (const char *V : {"v", "w"})
    O[std::string("collective=alltoall") + V] = intraInter(
        tree({{"is_sendbuf_inplace=yes",
               alg(std::string("Alltoall") + V +
                   "_intra_pairwise_sendrecv_replace")},
              {"is_sendbuf_inplace=no",
               alg(std::string("Alltoall") + V + "_intra_scattered")}}),
        alg(std::string("Alltoall") + V + "_inter_pairwise_exchange"));
  for (const char *N :
       {"allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw"})
    O[std::string("collective=neighbor_") + N] =
        alg(std::string("Neighbor_") + N + "_allcomm_nb");
  addNonblocking(O, G);
  return O;
}
