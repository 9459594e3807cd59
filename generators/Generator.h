//===- generators/Generator.h - Algorithm generators and registry -*- C++ -*-=//
///
/// \file
/// A Generator turns option values (process counts, sizes, root, topology)
/// into a Schedule for one algorithm of the seed papers. Each generator
/// declares the options it takes (options/Option.h); `generate` refuses
/// others, fills in the defaults and echoes the given options as the
/// schedule's params. It also declares, without building, the collectives
/// it builds (what a caller filters candidates by) and the built-in
/// templates that describe its schedules (what `choreo prove ID` proves).
/// Generators are found by id in a registry.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_GENERATORS_GENERATOR_H
#define CHOREO_GENERATORS_GENERATOR_H

#include "ir/Schedule.h"
#include "options/Help.h"
#include "options/Parse.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace choreo {

/// The collectives a generator builds: one, or one of a few that its
/// options choose between (allgather-ring builds allgatherv when given
/// --counts).
class CollectiveSet {
public:
  CollectiveSet(std::initializer_list<Collective> Cs) {
    for (Collective C : Cs)
      Bits |= bit(C);
  }
  bool contains(Collective C) const { return Bits & bit(C); }
  /// The members in the order of the Collective enum.
  std::vector<Collective> members() const;
  /// "allgather, allgatherv": the members' format names.
  std::string str() const;

private:
  static uint32_t bit(Collective C) { return uint32_t(1) << unsigned(C); }
  uint32_t Bits = 0;
};

/// A built-in template (template/builtin/) that describes some of a
/// generator's schedules: on the template's domain, `choreo gen ID --p P
/// [--q Q] OPTIONS` with some sizes is the template's expansion with the
/// same sizes (tests/unit/TemplateEquivalenceTest.cpp compares them op for
/// op).
struct GeneratorTemplate {
  const char *Template;
  /// Options beyond the counts and the sizes, read as `choreo gen` reads
  /// them (by this generator's declarations).
  const char *Options;
  /// The generator's options that take the template's parameters, each an
  /// expression of the parameters and lets: "p = groups * n, groups =
  /// groups, root = g * n + o" (`--p` the template's ranks, `--groups` ...).
  /// Empty: every parameter P of the template is the option --P (p, q,
  /// root, segments).
  const char *Bind = "";
};

class Generator {
public:
  virtual ~Generator();
  virtual llvm::StringRef id() const = 0;
  virtual llvm::StringRef summary() const = 0;
  /// The collectives this generator builds, declared without building:
  /// every schedule it builds has one of them as its Kind, and each of them
  /// is built for some options (GeneratorDeclarations checks both).
  virtual CollectiveSet collectives() const = 0;
  /// Reductions: whether its schedules combine in rank order, so that it
  /// builds for an operator that does not commute (--op noncommutative).
  virtual bool keepsRankOrder() const { return false; }
  /// Whether a schedule of this generator may serve a call of collective
  /// Kind, by the declarations alone: one of collectives() has the spec of
  /// Kind but perhaps for the name (the same data, groups, root and result:
  /// allgather and allgatherv differ only in whether the members' sizes are
  /// alike), and, for an operator that does not commute, it keeps rank
  /// order. The build may still refuse the call's sizes.
  bool mayServe(Collective Kind, bool Commutative = true) const;
  bool mayServe(const CallHeader &H) const {
    return mayServe(H.Kind, H.commutative());
  }
  /// The built-in templates that describe this generator's schedules, their
  /// domains disjoint (empty for most generators): what `choreo prove ID`
  /// proves, and what the equivalence tests compare the generator with.
  virtual llvm::ArrayRef<GeneratorTemplate> templates() const { return {}; }
  /// Choices of this generator's own options, besides its defaults, that an
  /// `auto` also prices (the library's, `choreo select`'s): each a list of
  /// "--name", "value" pairs (an algorithm with stages whose best form
  /// depends on the size). Empty for most generators.
  virtual std::vector<std::vector<std::string>> pricedVariants() const {
    return {};
  }
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
  /// Whether buildRank's part for V is the whole schedule: no rank form,
  /// or none for these options. `auto` in a job leaves such a candidate
  /// out (every rank would build the whole to price it).
  virtual bool partIsWhole(const OptionValues &V) const {
    return !hasRankForm();
  }
  /// generate for buildRank.
  llvm::Expected<Schedule> generateRank(const OptionValues &Args,
                                        Rank Me) const;

  /// Builds for a call's header: H's fields as this generator's options
  /// (callOptions, generators/CallOptions.h; ElemBytes is a reduction's
  /// element size) on top of Own, this algorithm's own choices; with Only
  /// and a rank form, rank Only's ops alone. An error naming the first
  /// field that differs when the schedule's header is not H
  /// (headerMismatch, ir/CallBinding.h).
  llvm::Expected<Schedule> generateFor(const CallHeader &H, uint64_t ElemBytes,
                                       const OptionValues &Own = {},
                                       std::optional<Rank> Only = {}) const;
};

/// A generator with a rank form, written once: buildPart builds the whole
/// schedule (no Only) or rank Only's ops alone, and build, buildRank and
/// hasRankForm follow from it.
class PartGenerator : public Generator {
public:
  llvm::Expected<Schedule> build(const OptionValues &V) const final {
    return buildPart(V, std::nullopt);
  }
  bool hasRankForm() const final { return true; }
  llvm::Expected<Schedule> buildRank(const OptionValues &V,
                                     Rank Me) const final {
    return buildPart(V, Me);
  }

protected:
  /// The whole schedule, or with Only exactly the ops of it that rank Only
  /// sends or receives (steps numbered as the whole's, the same header), in
  /// time and memory proportional to them.
  virtual llvm::Expected<Schedule>
  buildPart(const OptionValues &V, std::optional<Rank> Only) const = 0;
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
