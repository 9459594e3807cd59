//===- tools/choreo/TuneFiles.h - MPI libraries' tuning files ---*- C++ -*-===//
///
/// \file
/// `choreo tune --mpich FILE` and `--ompi FILE`: tuning files for the MPI
/// libraries' own collectives, written from the cost model. Each names,
/// per collective, communicator size and message size, the library's
/// algorithm whose choreo model (a generator that sends what the library's
/// algorithm sends) the model prices lowest: MPICH 4.0.2's JSON selection
/// tree (MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE, MpichTuning.cpp) and
/// Open MPI 4.1.6's coll_tuned dynamic rules (OmpiRules.cpp).
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_TOOLS_TUNEFILES_H
#define CHOREO_TOOLS_TUNEFILES_H

#include "ir/CallBinding.h"
#include "pmpi/Selection.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace choreo {
namespace tune {

/// The grid a tuning file is priced on and the model it is priced with.
struct Grid {
  /// Communicator sizes, ascending, each from 1 to 1024.
  std::vector<uint64_t> Ps;
  /// Message sizes 8, 16, ... up to MaxBytes.
  uint64_t MaxBytes = 16 << 20;
  /// Reductions: bytes per element.
  uint64_t Elem = 8;
  pmpi::SelectionConfig Cfg;

  std::vector<uint64_t> sizes() const {
    std::vector<uint64_t> S;
    for (uint64_t N = 8; N <= MaxBytes; N *= 2)
      S.push_back(N);
    return S;
  }
};

/// One of a library's algorithms and the choreo generator that models it.
struct Candidate {
  std::string Name;               ///< the library's name or number
  std::string Generator;          ///< the choreo generator id
  std::vector<std::string> Extra; ///< its options ("--batch", "0")
  bool PowerOfTwoOnly = false;    ///< valid for p a power of two only
};

/// The model time of Cand's generator for call C at P ranks of Size bytes
/// (the whole vector for bcast and the reductions, a member's for the
/// gathers, a pair's block for alltoall), commutative, root 0; none when
/// the generator does not build that call.
std::optional<double> price(const Grid &G, MpiCall C, const Candidate &Cand,
                            uint64_t P, uint64_t Size);

/// The cheapest valid candidate (the first of equals) at P and Size; an
/// empty name when none builds.
std::string cheapest(const Grid &G, MpiCall C,
                     const std::vector<Candidate> &Cands, uint64_t P,
                     uint64_t Size);

/// A run of grid sizes with one choice: sizes up to Last (and above the
/// previous run's Last) choose Choice.
struct Run {
  uint64_t Last;
  std::string Choice;
};

/// The choices of call C at P over the grid's sizes, runs merged.
std::vector<Run> runsOf(const Grid &G, MpiCall C,
                        const std::vector<Candidate> &Cands, uint64_t P);

/// MPICH 4.0.2's whole selection tree: the tuned intracommunicator
/// subtrees of bcast, reduce, allreduce, reduce_scatter_block, allgather
/// and alltoall (and of ibcast, ireduce, iallreduce, iallgather and
/// ialltoall), and MPICH's own default choices for every other
/// collective and branch (MPICH asserts on a collective missing from the
/// tree).
nlohmann::ordered_json mpichTuningFile(const Grid &G);

/// The collectives MPICH 4.0.2 looks up in its tree (the `collective=`
/// names its csel.c parses).
const std::vector<std::string> &mpichCollectives();

/// Open MPI 4.1.6's coll_tuned dynamic rules file, text.
std::string ompiRulesFile(const Grid &G);

} // namespace tune
} // namespace choreo

#endif
