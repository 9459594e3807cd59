//===- generators/scan/Scan.cpp - Scan and exscan algorithms --------------===//
///
/// \file
/// `scan-recursive-doubling`, `exscan-recursive-doubling` (after MPICH's
/// MPIR_Scan_intra_recursive_doubling and MPIR_Exscan_intra_recursive_
/// doubling), `scan-chain`, `exscan-chain` (a linear pipeline of whole
/// vectors), and `scan-mpich`, `exscan-mpich`: MPICH 4.0's choice for an
/// intracommunicator (recursive doubling whatever p, n and the operator),
/// the baseline `auto` must beat. A rank keeps two accumulators
/// (docs/format.md, "Accumulators"): scan: 0 the result, 1 the running total it
/// sends; exscan: 0 the running total, 1 the result (written by the first
/// receipt from below). Every combination keeps rank order: a receipt from a
/// lower partner is the left operand, from a higher one the right.
///
//===----------------------------------------------------------------------===//

#include "generators/Generators.h"
#include "generators/SizeChecks.h"
#include "generators/blocks/Reduction.h"

using namespace choreo;

namespace {

enum class Variant { RecursiveDoubling, Chain, Mpich };

class ScanGenerator : public PartGenerator {
public:
  ScanGenerator(Collective Kind, Variant V)
      : Kind(Kind), Chain(V == Variant::Chain), Mpich(V == Variant::Mpich) {
    Options = {opt::ranks(), opt::vectorBytes(), opt::elementBytes(),
               opt::reductionOp()};
  }
  llvm::StringRef id() const override {
    if (Mpich)
      return Kind == Collective::Scan ? "scan-mpich" : "exscan-mpich";
    if (Kind == Collective::Scan)
      return Chain ? "scan-chain" : "scan-recursive-doubling";
    return Chain ? "exscan-chain" : "exscan-recursive-doubling";
  }
  llvm::StringRef summary() const override {
    if (Mpich)
      return "MPICH 4.0's choice for an intracommunicator: recursive "
             "doubling";
    return Chain ? "a linear chain: rank i passes its prefix to i + 1, p - 1 "
                   "steps"
                 : "recursive doubling: partners at distance 1, 2, 4, ... "
                   "exchange running totals, ceil(lg p) steps (MPICH)";
  }
  llvm::ArrayRef<OptionDecl> options() const override { return Options; }
  CollectiveSet collectives() const override { return {Kind}; }
  bool keepsRankOrder() const override { return true; }
  /// The chain scan's template (docs/templates.md), proved for every p and
  /// an operator that does not commute; the recursive-doubling scan's and
  /// exscan's for p = 2^k (their two accumulators), proved for every k.
  llvm::ArrayRef<GeneratorTemplate> templates() const override {
    static const GeneratorTemplate Chained[] = {
        {"scan-chain", "--op noncommutative"}};
    static const GeneratorTemplate Doubling[] = {
        {"scan-recursive-doubling", "--op noncommutative", "p = pow2(k)"}};
    static const GeneratorTemplate ExDoubling[] = {
        {"exscan-recursive-doubling", "--op noncommutative", "p = pow2(k)"}};
    if (Mpich)
      return {};
    if (Chain)
      return Kind == Collective::Scan ? llvm::ArrayRef(Chained)
                                      : llvm::ArrayRef<GeneratorTemplate>();
    return Kind == Collective::Scan ? llvm::ArrayRef(Doubling)
                                    : llvm::ArrayRef(ExDoubling);
  }

  llvm::Expected<Schedule> buildPart(const OptionValues &V,
                                     std::optional<Rank> Only) const override {
    auto In = readReductionInput(V, Kind);
    if (!In)
      return In.takeError();
    if (Only && *Only >= In->P)
      return optionError("p", llvm::Twine("rank ") + llvm::Twine(*Only) +
                                  " is not one of the " + llvm::Twine(In->P) +
                                  " ranks");
    uint64_t Ops = Chain ? In->P : uint64_t(In->P) * (ceilLog2(In->P) + 1);
    if (auto E = checkOpBudget(id(), Ops))
      return E;
    Schedule S;
    S.Kind = Kind;
    setIntragroup(S, In->P, {In->N});
    if (!In->Commutative)
      S.ReduceOp = ReductionOp{false};
    if (In->N == 0)
      return S;
    auto Add = [&](Rank Src, Rank Dst, Rank Lo, Rank Hi, unsigned From,
                   unsigned Into) {
      if (Only && Src != *Only && Dst != *Only)
        return;
      Block B{0, In->N, 0, true, 0, S.Steps.addContrib(RankSet(Lo, Hi))};
      B.setAcc(From, Into);
      S.Steps.addOp(Src, Dst, {B});
    };
    bool Ex = Kind == Collective::Exscan;
    if (Chain) {
      // Rank i sends [0, i + 1) from accumulator 0; i + 1 combines it into
      // accumulator 0 (scan) or 0 and 1 (exscan: 1 is its result). A rank's
      // part: its two ops, in steps numbered as the whole's.
      for (Rank I = 0; I + 1 < In->P; ++I) {
        S.Steps.newStep();
        if (!Only || *Only == I || *Only == I + 1)
          Add(I, I + 1, 0, I + 1, 0, Ex ? (I + 2 < In->P ? 3 : 2) : 1);
      }
      return S;
    }
    // Round M (M = 1, 2, 4, ...): rank r sends its running total to r xor M
    // (when that is a rank), ops in order of the sender. A total is the
    // interval from r with its low lg M bits cleared to totalHi (for p not
    // a power of two it may miss ranks of that block that had no partner:
    // p = 7, rank 5 sends {4-5} at mask 4, not {4-6}).
    unsigned Total = Ex ? 0 : 1, Result = Ex ? 1 : 0;
    auto Send = [&](Rank R, Rank D, uint64_t M) {
      uint64_t Into = 1u << Total;
      if (R < D)
        Into |= 1u << Result;
      Add(R, D, Rank(R & ~(M - 1)), totalHi(R, M, In->P), Total,
          unsigned(Into));
    };
    for (uint64_t M = 1; M < In->P; M <<= 1) {
      S.Steps.newStep();
      if (Only) {
        uint64_t D = *Only ^ M;
        if (D >= In->P)
          continue;
        Rank Lo = std::min<Rank>(*Only, Rank(D)),
             Hi = std::max<Rank>(*Only, Rank(D));
        Send(Lo, Hi, M);
        Send(Hi, Lo, M);
        continue;
      }
      for (Rank R = 0; R < In->P; ++R)
        if (uint64_t D = R ^ M; D < In->P)
          Send(R, Rank(D), M);
    }
    return S;
  }

private:
  /// The end of rank R's running total before round M (its start is R with
  /// the low lg M bits cleared). Round M/2 united it with the partner's
  /// when R is in the lower half of its block of M and the partner R + M/2
  /// is a rank; the lower half's total is then all of that half.
  static Rank totalHi(Rank R, uint64_t M, uint32_t P) {
    for (; M > 1; M >>= 1) {
      uint64_t H = M >> 1;
      if (!(R & H) && R + H < P)
        R = Rank(R + H);
    }
    return R + 1;
  }

  Collective Kind;
  bool Chain, Mpich;
  std::vector<OptionDecl> Options;
};

} // namespace

std::unique_ptr<Generator> choreo::makeScanRecursiveDoubling() {
  return std::make_unique<ScanGenerator>(Collective::Scan,
                                         Variant::RecursiveDoubling);
}
std::unique_ptr<Generator> choreo::makeExscanRecursiveDoubling() {
  return std::make_unique<ScanGenerator>(Collective::Exscan,
                                         Variant::RecursiveDoubling);
}
std::unique_ptr<Generator> choreo::makeScanChain() {
  return std::make_unique<ScanGenerator>(Collective::Scan, Variant::Chain);
}
std::unique_ptr<Generator> choreo::makeExscanChain() {
  return std::make_unique<ScanGenerator>(Collective::Exscan, Variant::Chain);
}
std::unique_ptr<Generator> choreo::makeScanMpich() {
  return std::make_unique<ScanGenerator>(Collective::Scan, Variant::Mpich);
}
std::unique_ptr<Generator> choreo::makeExscanMpich() {
  return std::make_unique<ScanGenerator>(Collective::Exscan, Variant::Mpich);
}
