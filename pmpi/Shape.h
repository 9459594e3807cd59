//===- pmpi/Shape.h - What an intercepted MPI call asks for ------*- C++
//-*-===//
///
/// \file
/// A CallShape is the part of an intercepted collective call that every rank
/// of the communicator knows alike (MPI requires it): which call, intra or
/// inter, the bytes each member contributes (or the vector length), the
/// root. It is the key of the per-communicator plan cache and what a
/// generator is asked to build: generatorArgs turns it into options by the
/// generator's own declarations (options/Option.h), so a generator added
/// to the registry is usable here by its id, with no code in pmpi/.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_PMPI_SHAPE_H
#define CHOREO_PMPI_SHAPE_H

#include "generators/Generator.h"
#include "ir/CollectiveSpec.h"
#include "ir/Digest.h"
#include "ir/Schedule.h"

#include <string>
#include <vector>

namespace choreo {
namespace pmpi {

/// The collectives the library intercepts, as named in CHOREO_<COLL> and in
/// selection rules.
enum class Coll : uint8_t {
  Allgather,
  Allgatherv,
  Bcast,
  Reduce,
  Allreduce,
  ReduceScatter,
  ReduceScatterBlock,
};

/// "allgather", "reduce_scatter_block" (selection rules' `collective=`).
const char *collName(Coll C);
/// "MPI_Allgather".
const char *mpiName(Coll C);

struct CallShape {
  Coll C = Coll::Allgather;
  bool Inter = false;
  /// Gather-type: bytes of every member of the one group (intra) or of
  /// group A, the low group (inter). Bcast, MPI_Reduce, MPI_Allreduce: one
  /// entry per rank, the first the vector length n, the others 0.
  /// MPI_Reduce_scatter(_block): every rank's result slice in bytes (they
  /// sum to n).
  std::vector<uint64_t> SizesA;
  /// Inter only: group B's members.
  std::vector<uint64_t> SizesB;
  uint32_t Root = 0;
  /// Not part of the key (a rank's own business): MPI_IN_PLACE.
  bool InPlace = false;
  /// Reductions: whether the operator commutes.
  bool Commutative = true;
  /// Reductions: bytes per element (the datatype's extent); blocks never
  /// split one.
  uint64_t ElemBytes = 0;

  bool isReduction() const {
    return C == Coll::Reduce || C == Coll::Allreduce ||
           C == Coll::ReduceScatter || C == Coll::ReduceScatterBlock;
  }
  uint32_t commSize() const { return SizesA.size(); }
  uint32_t remoteSize() const { return SizesB.size(); }
  uint64_t totalBytes() const;
  /// Total over the number of contributions (the vector length for bcast).
  uint64_t averageBytes() const;
  /// The cache key: everything above but InPlace, as text.
  std::string key() const;
  /// For messages: "MPI_Allgatherv (intercommunicator 3 + 4, 112 bytes)".
  std::string describe() const;
};

/// The options a generator is given for Shape, from its declarations: group
/// sizes to its counts `p` (and `q`), the members' bytes to its size option
/// (every member alike) or size-list option, the root to `root`, and Extra
/// ("--intra", "bruck", ...) from the selection. Reductions: the vector
/// length to `bytes`, the slices to `slices` (reduce_scatter), the element
/// size to `element-bytes`, the operator's commutativity to `op`. An error
/// when it declares none of what the call needs.
llvm::Expected<std::vector<std::string>>
generatorArgs(const Generator &G, const CallShape &Shape,
              llvm::ArrayRef<std::string> Extra);

/// Whether S implements the call Shape describes, laid out as the library
/// runs it (intra: group `all` is 0..n-1; inter: A = 0..p-1, B = p..p+q-1
/// with the members' sizes). Empty when it does; else why not.
std::string servesCall(const Schedule &S, const CallShape &Shape);

/// Builds the schedule of generator Id (with Extra options) for Shape and
/// checks that it serves the call. With Only, a generator with a rank form
/// builds rank Only's ops alone (Generator::buildRank); others build all.
llvm::Expected<Schedule> buildFor(llvm::StringRef Id,
                                  llvm::ArrayRef<std::string> Extra,
                                  const CallShape &Shape,
                                  std::optional<Rank> Only = {});

} // namespace pmpi
} // namespace choreo

#endif
