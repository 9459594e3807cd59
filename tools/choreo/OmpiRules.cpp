//===- tools/choreo/OmpiRules.cpp - Open MPI's dynamic rules file ---------===//
///
/// \file
/// `choreo tune --ompi FILE`: Open MPI's coll_tuned dynamic rules
/// (coll_tuned_dynamic_rules_filename, read by coll_tuned_dynamic_file.c
/// of Open MPI 4.1.6, the classic numeric format): the number of
/// collectives; per collective its id (COLLTYPE_T, coll_base_functions.h),
/// the number of communicator sizes; per size the size and the number of
/// message sizes; per message size the size, the algorithm's number (the
/// coll_tuned_<coll>_algorithms table), the topology fan-in/out and the
/// segment size. Open MPI takes the last communicator size at or below the
/// communicator's (the first for smaller ones) and the last message size
/// at or below the call's; the first message size must be 0. `#` starts a
/// comment. Collectives left out keep Open MPI's fixed decisions.
///
//===----------------------------------------------------------------------===//

#include "TuneFiles.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace choreo;
using namespace choreo::tune;

namespace {

/// A collective of the rules: Open MPI's id and name, the call priced, the
/// candidates (their Name: "ALG FANINOUT SEGSIZE"), and whether Open MPI
/// measures a member's bytes times p (the gathers, alltoall).
struct OmpiCollective {
  unsigned Id;
  const char *Name;
  MpiCall Call;
  std::vector<Candidate> Cands;
  bool TimesP;
};

const std::vector<OmpiCollective> &ompiCollectives() {
  static const std::vector<OmpiCollective> Colls = {
      {0,
       "allgather",
       MpiCall::Allgather,
       {{"2 0 0", "allgather-bruck", {}},
        {"3 0 0", "allgather-recdbl", {}, true},
        {"4 0 0", "allgather-ring", {}}},
       true},
      {2,
       "allreduce",
       MpiCall::Allreduce,
       {{"3 0 0", "allreduce-recursive-doubling", {}},
        {"4 0 0", "allreduce-ring", {}},
        {"6 0 0", "allreduce-halving-doubling", {}}},
       false},
      {3,
       "alltoall",
       MpiCall::Alltoall,
       {{"1 0 0", "alltoall-scattered", {"--batch", "0"}},
        {"2 0 0", "alltoall-pairwise", {}},
        {"3 0 0", "alltoall-bruck", {}}},
       true},
      {6,
       "barrier",
       MpiCall::Barrier,
       {{"3 0 0", "barrier-recursive-doubling", {}},
        {"4 0 0", "barrier-dissemination", {}}},
       false},
      {7,
       "bcast",
       MpiCall::Bcast,
       {{"6 0 0", "bcast-binomial", {}},
        {"1 0 0", "bcast-flat", {}},
        {"2 1 0", "bcast-chain", {}},
        {"3 0 8192", "bcast-pipeline", {"--segment-bytes", "8192"}},
        {"3 0 65536", "bcast-pipeline", {"--segment-bytes", "65536"}},
        {"4 0 0", "bcast-split-binary", {}},
        {"5 0 0", "bcast-binary", {}},
        {"8 0 0", "bcast-scatter-rd", {}},
        {"9 0 0", "bcast-scatter-ring", {}}},
       false},
      {9,
       "gather",
       MpiCall::Gather,
       {{"2 0 0", "gather-binomial", {}}, {"1 0 0", "gather-linear", {}}},
       true},
      {11,
       "reduce",
       MpiCall::Reduce,
       {{"5 0 0", "reduce-binary-tree", {}},
        {"7 0 0", "reduce-halving-doubling", {}}},
       false},
      {12,
       "reduce_scatter",
       MpiCall::ReduceScatter,
       {{"2 0 0", "reduce-scatter-halving-doubling", {}},
        {"3 0 0", "reduce-scatter-ring", {}}},
       false},
      {15,
       "scatter",
       MpiCall::Scatter,
       {{"2 0 0", "scatter-binomial", {}}, {"1 0 0", "scatter-linear", {}}},
       true},
  };
  return Colls;
}

} // namespace

std::string tune::ompiRulesFile(const Grid &G) {
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  const auto &Colls = ompiCollectives();
  OS << "# Open MPI coll_tuned dynamic rules (4.1.x format) written by "
        "choreo tune\n"
     << "# collective: id, number of communicator sizes; per size: size, "
        "number of message sizes;\n"
     << "# per message size: bytes, algorithm, fan-in/out, segment size\n"
     << Colls.size() << " # collectives\n";
  for (const OmpiCollective &C : Colls) {
    OS << C.Id << " # " << C.Name << "\n" << G.Ps.size() << "\n";
    for (uint64_t P : G.Ps) {
      std::vector<Run> Runs = runsOf(G, C.Call, C.Cands, P);
      if (Runs.empty())
        Runs.push_back({0, C.Cands.front().Name});
      OS << P << " # comm size\n" << Runs.size() << "\n";
      for (size_t I = 0; I < Runs.size(); ++I) {
        uint64_t From = I ? Runs[I - 1].Last * (C.TimesP ? P : 1) + 1 : 0;
        OS << From << " " << Runs[I].Choice << "\n";
      }
    }
  }
  return Text;
}
