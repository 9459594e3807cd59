//===- generators/reduce/ReduceCirculant.cpp - Circulant-graph reduce -----===//
///
/// \file
/// `reduce-circulant`: Träff's circulant-graph broadcast (bcast/Circulant.h)
/// run backwards as a reduce (the paper's application to reduction; MPICH
/// main's circ_graph reduce): the vector cut into n blocks on element
/// boundaries, step j the broadcast's step T - 1 - j with every op turned
/// around and combining at its receiver, so each block climbs the spanning
/// tree the broadcast sends it down: n - 1 + ceil(log2 p) steps.
/// Commutative operators only; no rank form (the contributor sets are the
/// senders' subtrees, written by the replay of the whole).
///
//===----------------------------------------------------------------------===//

#include "generators/Generators.h"
#include "generators/SizeChecks.h"
#include "generators/bcast/Circulant.h"
#include "generators/blocks/Reduction.h"

#include "llvm/Support/FormatVariadic.h"

using namespace choreo;
using llvm::formatv;

namespace {

class ReduceCirculant final : public Generator {
public:
  ReduceCirculant()
      : Segments(countOption("segments",
                             "reduce-circulant: cut the vector into X "
                             "near-equal runs of whole elements (default: "
                             "runs of about 8K)")) {
    Options = {opt::ranks(),
               opt::vectorBytes(),
               opt::elementBytes(),
               opt::commutativeOp(
                   "a rank combines its children's partial results in the "
                   "order of the circulant graph's rounds, and a block's "
                   "subtrees are not consecutive ranges of ranks, so the "
                   "operands do not come in rank order; use a "
                   "halving-doubling, binary-tree or binary-blocks "
                   "algorithm"),
               opt::root(),
               Segments};
  }
  llvm::StringRef id() const override { return "reduce-circulant"; }
  llvm::StringRef summary() const override {
    return "Traff's circulant-graph broadcast backwards, the vector in n "
           "blocks (--segments): n - 1 + ceil(log2 p) steps, commutative "
           "operators";
  }
  CollectiveSet collectives() const override { return {Collective::Reduce}; }
  llvm::ArrayRef<OptionDecl> options() const override { return Options; }

  llvm::Expected<Schedule> build(const OptionValues &V) const override {
    auto In = readReductionInput(V, Collective::Reduce);
    if (!In)
      return In.takeError();
    uint64_t Elems = In->Elem ? In->N / In->Elem : 0;
    uint64_t X = std::max<uint64_t>(1, ceilDiv(In->N, 8192));
    if (auto Given = V.lookup(Segments)) {
      X = *Given;
      if (X == 0)
        return optionError("segments", "at least one segment");
      if (X > std::max<uint64_t>(Elems, 1))
        return optionError(
            "segments",
            formatv("{0} segments of {1} elements of {2} bytes: at most {1} "
                    "(one element each)",
                    X, Elems, In->Elem));
    }
    X = std::min<uint64_t>(X, std::max<uint64_t>(Elems, 1));
    uint64_t Steps = satAdd(X, 32);
    if (auto E = checkOpBudget(id(), satMul(In->P, Steps)))
      return E;
    std::vector<uint64_t> Cuts = elementCuts(In->N, In->Elem, X);
    StepList Down = circulantBcast(In->P, Cuts, In->Root);
    RawSteps R(In->P);
    unsigned T = Down.numSteps();
    for (unsigned J = 0; J < T; ++J)
      for (const Op &O : Down.step(T - 1 - J))
        for (const Block &B : Down.blocks(O))
          R.add(J, O.Dst, O.Src, B.Lo, B.Hi, /*Reduce=*/true, R.everyone());
    return reductionSchedule(Collective::Reduce, *In, R, /*Replay=*/true);
  }

private:
  Option<uint64_t> Segments;
  std::vector<OptionDecl> Options;
};

} // namespace

std::unique_ptr<Generator> choreo::makeReduceCirculant() {
  return std::make_unique<ReduceCirculant>();
}
