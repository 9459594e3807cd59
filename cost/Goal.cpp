//===- cost/Goal.cpp - A schedule in LogGOPSim's GOAL format --------------===//
///
/// \file
/// Groups the ops by rank (counting sort, ops stay in schedule order), then
/// writes each rank's block step by step.
///
//===----------------------------------------------------------------------===//

#include "cost/Goal.h"

#include <cmath>
#include <string>
#include <vector>

using namespace choreo;

namespace {

/// "o12s", "j3", "c3": a GOAL label.
std::string label(char Kind, uint64_t N, const char *Suffix = "") {
  std::string L(1, Kind);
  L += std::to_string(N);
  L += Suffix;
  return L;
}

/// One end of an op, as seen by one rank.
struct End {
  uint64_t OpIndex;
  uint32_t Step;
  bool Send;
};

void writeRank(const Schedule &S, Rank Me, llvm::ArrayRef<End> Ends,
               llvm::ArrayRef<uint64_t> OpBytes,
               llvm::ArrayRef<uint64_t> OpCombined,
               llvm::ArrayRef<const Op *> Ops, double Gamma,
               llvm::raw_ostream &OS) {
  OS << "rank " << Me << " {\n";
  // Labels the previous step's ops complete with; the current step's.
  std::vector<std::string> Prev, Cur;
  for (size_t I = 0; I < Ends.size();) {
    uint32_t Step = Ends[I].Step;
    uint64_t Combined = 0;
    Cur.clear();
    for (; I < Ends.size() && Ends[I].Step == Step; ++I) {
      const End &E = Ends[I];
      const Op &O = *Ops[E.OpIndex];
      std::string Label = label('o', E.OpIndex, E.Send ? "s" : "r");
      OS << Label << ": " << (E.Send ? "send " : "recv ")
         << OpBytes[E.OpIndex] << "b " << (E.Send ? "to " : "from ")
         << (E.Send ? O.Dst : O.Src) << " tag " << E.OpIndex << "\n";
      if (!E.Send)
        Combined += OpCombined[E.OpIndex];
      Cur.push_back(std::move(Label));
    }
    // Every op of this step requires every op of the previous one; a join
    // node says the same in fewer lines when both steps have several ops.
    if (!Prev.empty()) {
      if (Prev.size() * Cur.size() > Prev.size() + Cur.size()) {
        std::string Join = label('j', Step);
        OS << Join << ": calc 0\n";
        for (const std::string &P : Prev)
          OS << Join << " requires " << P << "\n";
        Prev = {Join};
      }
      for (const std::string &C : Cur)
        for (const std::string &P : Prev)
          OS << C << " requires " << P << "\n";
    }
    if (Gamma > 0 && Combined > 0) {
      std::string Calc = label('c', Step);
      OS << Calc << ": calc "
         << static_cast<uint64_t>(std::llround(Gamma * double(Combined)))
         << "\n";
      for (const std::string &C : Cur)
        OS << Calc << " requires " << C << "\n";
      Cur = {Calc};
    }
    std::swap(Prev, Cur);
  }
  OS << "}\n\n";
}

} // namespace

llvm::Error choreo::writeGoal(const Schedule &S, llvm::raw_ostream &OS,
                              double Gamma) {
  const StepList &L = S.Steps;
  size_t NumOps = L.numOps();
  std::vector<const Op *> Ops(NumOps);
  std::vector<uint64_t> Bytes(NumOps), Combined(NumOps);
  std::vector<uint32_t> StepOf(NumOps);
  std::vector<size_t> PerRank(S.NumRanks + 1, 0);
  // No rank combines more in one step than every op together carries.
  double AllCombined = 0;
  size_t K = 0;
  for (unsigned I = 0; I < L.numSteps(); ++I)
    for (const Op &O : L.step(I)) {
      Ops[K] = &O;
      StepOf[K] = I;
      for (const Block &B : L.blocks(O)) {
        Bytes[K] += L.bytes(B); // a lattice block's elements
        if (B.Reduce)
          Combined[K] += L.bytes(B);
      }
      AllCombined += double(Combined[K]);
      ++PerRank[O.Src + 1];
      ++PerRank[O.Dst + 1];
      ++K;
    }
  if (!(Gamma * AllCombined < 9.2e18))
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "--gamma: %g x %.0f combined bytes does not fit GOAL's 63-bit calc "
        "times; give gamma in a larger time unit",
        Gamma, AllCombined);
  for (Rank R = 0; R < S.NumRanks; ++R)
    PerRank[R + 1] += PerRank[R];
  std::vector<End> Ends(2 * NumOps);
  std::vector<size_t> Fill(PerRank.begin(), PerRank.end() - 1);
  for (size_t I = 0; I < NumOps; ++I) {
    Ends[Fill[Ops[I]->Src]++] = {I, StepOf[I], true};
    Ends[Fill[Ops[I]->Dst]++] = {I, StepOf[I], false};
  }

  OS << "// " << (S.Algorithm.empty() ? "schedule" : S.Algorithm) << " ("
     << collectiveName(S.Kind) << "), " << S.NumRanks << " ranks, "
     << L.numSteps() << " steps, " << NumOps
     << " ops, exported by choreo export --goal\n"
     << "// op i is oIs at its sender and oIr at its receiver, tag i; a "
        "rank's step requires its previous step\n"
     << "num_ranks " << S.NumRanks << "\n\n";
  for (Rank R = 0; R < S.NumRanks; ++R)
    writeRank(S, R,
              llvm::ArrayRef<End>(Ends).slice(PerRank[R],
                                              PerRank[R + 1] - PerRank[R]),
              Bytes, Combined, Ops, Gamma, OS);
  return llvm::Error::success();
}
