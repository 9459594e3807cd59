//===- verifier/smt/SynthEncoding.h - Synthesis encodings -------*- C++ -*-===//
///
/// \file
/// What the synthesis encodings share (private to verifier/smt): the
/// instance analysed without Z3 (units, links, distances, requirements,
/// nodes), and the incremental encoder every collective's encoding derives
/// from: one solver, one layer of variables per step, the port, duplex and
/// node-port constraints over a step's op variables, "T steps?" as an
/// assumption g_T, and the decoding of a model into steps. The gather-type
/// encoding is in SynthEncoder.cpp, the reductions' in SynthReduction.cpp,
/// the upper bound's schedule and the encoding's size in SynthBounds.cpp.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_VERIFIER_SMT_SYNTHENCODING_H
#define CHOREO_VERIFIER_SMT_SYNTHENCODING_H

#include "verifier/smt/Solver.h"
#include "verifier/smt/Synth.h"

#include <map>
#include <memory>
#include <optional>

namespace choreo::synth {

constexpr unsigned Unreachable = ~0u;

llvm::Error refuse(const llvm::Twine &Msg);

/// A one-byte piece of an initial holding.
struct Unit {
  BufferId Buf;
  uint64_t Lo;
  std::vector<Rank> Origins;
};

/// What the encodings need of an instance, without Z3.
struct Instance {
  Rank N = 0;
  /// A reduction: every rank holds a partial of every unit at the start,
  /// and Required lists the (rank, unit) that must hold every contribution.
  bool Reduction = false;
  std::vector<Unit> Units;
  std::vector<std::pair<Rank, Rank>> Links;
  std::vector<std::vector<unsigned>> In, Out;      // link indices per rank
  std::vector<std::vector<unsigned>> RankDist;     // hops between ranks
  std::vector<std::vector<unsigned>> Dist;         // [u][r]: hops from origins
  std::vector<std::vector<bool>> Initially;        // [u][r]
  std::vector<std::vector<bool>> Needs;            // [u][r]: required, not held
  std::vector<std::pair<Rank, unsigned>> Required; // (r, u) of Needs
  std::vector<uint32_t> NodeOf;                    // empty without nodes
  uint32_t NumNodes = 0;
};

llvm::Expected<Instance> analyse(const Schedule &H);
std::string unitName(const Schedule &H, const Instance &I, unsigned U);

/// One op variable of a step: link L carries unit U (a reduction's op
/// combines, Reduce, or replaces).
struct SendVar {
  unsigned L, U;
  z3::expr E;
  bool Reduce = false;
};

/// The incremental encoder: layers of steps on one solver.
class Encoder {
public:
  Encoder(const Schedule &H, const Instance &I, const SynthOptions &O);
  virtual ~Encoder() = default;

  /// Adds step layers up to T.
  void extendTo(unsigned T);
  /// Is there a schedule of T steps? (Layers up to T must exist.)
  SynthQuery ask(unsigned T);
  /// The schedule of the last sat answer, T steps.
  StepList decode(unsigned T);

  size_t variables() const { return NumVars; }
  size_t constraints() const { return NumCons; }

protected:
  /// Adds step T's variables and constraints, its op variables to Sends
  /// (with addPortConstraints over them).
  virtual void addLayer(unsigned T) = 0;
  /// g_T: the assumption "the requirements hold after T steps".
  virtual z3::expr makeGoal(unsigned T) = 0;
  /// The block op V of step St carries in the model M (its contributor set
  /// added to L for a reduction).
  virtual Block blockOf(const z3::model &M, unsigned St, const SendVar &V,
                        StepList &L) = 0;

  void add(const z3::expr &E);
  z3::expr fresh(const std::string &Name);
  /// Per rank at most `send` / `recv` of Ss, never both unless duplex; per
  /// node at most `node_ports` of the ops that leave / enter it.
  void addPortConstraints(llvm::ArrayRef<SendVar> Ss);

  const Schedule &H;
  const Instance &I;
  smt::Session Ses;
  z3::context &C;
  smt::Solver Solver;
  /// Sends[t - 1]: the op variables of step t that are not constant false.
  std::vector<std::vector<SendVar>> Sends;

private:
  std::map<unsigned, z3::expr> Goals;
  /// The model of the last sat answer.
  std::optional<z3::model> Model;
  size_t NumVars = 0, NumCons = 0;
};

std::unique_ptr<Encoder> gatherEncoder(const Schedule &H, const Instance &I,
                                       const SynthOptions &O);
std::unique_ptr<Encoder> reductionEncoder(const Schedule &H,
                                          const Instance &I,
                                          const SynthOptions &O);

/// The reductions' counting bound: every contributor set at most doubles
/// per step (one receive port), the farthest contribution's distance, one
/// receive per unit a rank must complete.
std::pair<unsigned, std::string> reductionLowerBound(const Schedule &H,
                                                     const Instance &I);

/// An upper bound on the optimum (SynthBounds.cpp): the steps of a
/// schedule of one op per step that exists whenever analyse accepts the
/// instance, and how it is built.
std::pair<unsigned, std::string> upperBound(const Instance &I);
/// That schedule's steps, built without Z3.
StepList upperBoundSchedule(const Instance &I);

/// The Boolean variables the encoding makes per step, at most (the later
/// steps'; the first ones have fewer).
uint64_t variablesPerStep(const Instance &I);

} // namespace choreo::synth

#endif
