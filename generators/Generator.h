//===- generators/Generator.h - Algorithm generators and registry -*- C++ -*-=//
///
/// \file
/// A Generator turns parameters (process counts, sizes, root, topology) into
/// a Schedule for one algorithm of the seed papers. Generators are found by
/// id in a registry; `generate` rejects options the generator does not take
/// and impossible values with an error that names the option.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_GENERATORS_GENERATOR_H
#define CHOREO_GENERATORS_GENERATOR_H

#include "ir/Schedule.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace choreo {

/// The parameters of `choreo gen`, each optional; a generator reads those it
/// takes.
struct GenParams {
  std::optional<uint64_t> P, Q, Root;
  std::optional<uint64_t> Bytes, BytesA, BytesB;
  std::optional<std::vector<uint64_t>> Counts, CountsA, CountsB;
  std::optional<std::string> Topology, Intra, Bcast, Exchange;
  /// Names of the options given, in order (for errors and the params echo).
  std::vector<std::string> Given;

  /// The given options as the schedule's "params" object.
  nlohmann::ordered_json toJson() const;
};

/// Parses "--name value" / "--name=value" pairs. Sizes accept K, M, G
/// suffixes (powers of 1024); count lists are comma-separated.
llvm::Expected<GenParams> parseGenArgs(llvm::ArrayRef<std::string> Args);

/// "4096", "64K", "1M", "2G" -> bytes. Option names the flag in errors.
llvm::Expected<uint64_t> parseSize(llvm::StringRef Text,
                                   llvm::StringRef Option);

/// Every option parseGenArgs knows, with a one-line description.
struct OptionInfo {
  const char *Name;
  const char *Help;
};
llvm::ArrayRef<OptionInfo> allGenOptions();

class Generator {
public:
  virtual ~Generator();
  virtual llvm::StringRef id() const = 0;
  virtual llvm::StringRef summary() const = 0;
  /// The options this generator takes (names without "--").
  virtual llvm::ArrayRef<const char *> options() const = 0;
  /// Builds the schedule; parameters are already checked against options().
  virtual llvm::Expected<Schedule> build(const GenParams &P) const = 0;

  /// Checks the options, builds, and records algorithm id and params.
  llvm::Expected<Schedule> generate(const GenParams &P) const;
};

llvm::ArrayRef<const Generator *> allGenerators();
const Generator *findGenerator(llvm::StringRef Id);

//===----------------------------------------------------------------------===//
// Helpers shared by generators
//===----------------------------------------------------------------------===//

/// A group's size from --p / --q: present and at least 1.
llvm::Expected<uint32_t> groupCount(const std::optional<uint64_t> &V,
                                    const char *Option, const char *What);

/// Per-member sizes of a group of N from a bytes option (every member alike)
/// or a counts option (one per member); exactly one must be given.
/// Irregular is set when counts were given.
llvm::Expected<std::vector<uint64_t>>
memberSizes(const std::optional<uint64_t> &Bytes,
            const std::optional<std::vector<uint64_t>> &Counts, uint32_t N,
            const char *BytesOpt, const char *CountsOpt, bool &Irregular);

/// The sizes of groups A (--p) and B (--q) from --bytes-a/--counts-a and
/// --bytes-b/--counts-b. Irregular when counts were given for either group.
struct IntergroupSizes {
  std::vector<uint64_t> A, B;
  bool Irregular = false;
};
llvm::Expected<IntergroupSizes> intergroupSizes(const GenParams &P);
/// The same for half_allgather: group B contributes nothing (B is all
/// zeros); A's sizes from --bytes-a or --counts-a.
llvm::Expected<IntergroupSizes> halfIntergroupSizes(const GenParams &P);

/// Refuses schedules whose op count would not fit in memory comfortably.
llvm::Error checkOpBudget(llvm::StringRef Id, uint64_t EstimatedOps);

/// An error about one option: "--p: ...".
llvm::Error optionError(llvm::StringRef Option, const llvm::Twine &Msg);

} // namespace choreo

#endif
