//===- generators/Generator.h - Algorithm generators and registry -*- C++ -*-=//
///
/// \file
/// A Generator turns option values (process counts, sizes, root, topology)
/// into a Schedule for one algorithm of the seed papers. Each generator
/// declares the options it takes (options/Option.h); `generate` refuses
/// others, fills in the defaults and echoes the given options as the
/// schedule's params. Generators are found by id in a registry.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_GENERATORS_GENERATOR_H
#define CHOREO_GENERATORS_GENERATOR_H

#include "options/Help.h"
#include "options/Parse.h"
#include "ir/Schedule.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace choreo {

class Generator {
public:
  virtual ~Generator();
  virtual llvm::StringRef id() const = 0;
  virtual llvm::StringRef summary() const = 0;
  /// The options this generator takes, each declared once: its help,
  /// parsing, default, params echo and place in compare's size sweep derive
  /// from the declaration. The declarations live as long as the generator.
  virtual llvm::ArrayRef<OptionDecl> options() const = 0;
  /// Builds the schedule from values bound to options(): only declared
  /// options, admitted choices, defaults filled in.
  virtual llvm::Expected<Schedule> build(const OptionValues &V) const = 0;

  /// Binds Args (parsed by parseGenArgs) to options(), builds, and records
  /// the algorithm id and the given options as params.
  llvm::Expected<Schedule> generate(const OptionValues &Args) const;

  /// Whether buildRank builds rank Me's ops alone, in time and memory
  /// proportional to them (what a rank of an MPI job needs).
  virtual bool hasRankForm() const { return false; }
  /// The schedule with only the ops rank Me sends or receives, steps
  /// numbered as build's (the header is build's): with a rank form, exactly
  /// those ops of build's schedule; without one, build's whole schedule.
  virtual llvm::Expected<Schedule> buildRank(const OptionValues &V,
                                             Rank Me) const {
    return build(V);
  }
  /// generate for buildRank.
  llvm::Expected<Schedule> generateRank(const OptionValues &Args,
                                        Rank Me) const;
};

llvm::ArrayRef<const Generator *> allGenerators();
const Generator *findGenerator(llvm::StringRef Id);

/// Every option some generator takes, one declaration per name
/// (mergeOptionDecls of all generators): what parseGenArgs reads and
/// `choreo help gen` lists.
llvm::ArrayRef<OptionDecl> allGenOptions();

/// Parses "--name value" / "--name=value" pairs by allGenOptions(). Sizes
/// accept K, M, G suffixes (powers of 1024); size lists are comma-separated.
/// Generator::generate then checks them against one generator.
llvm::Expected<OptionValues> parseGenArgs(llvm::ArrayRef<std::string> Args);

/// Refuses schedules whose op count would not fit in memory comfortably.
llvm::Error checkOpBudget(llvm::StringRef Id, uint64_t EstimatedOps);

} // namespace choreo

#endif
