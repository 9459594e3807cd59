//===- template/TemplateBudget.cpp - The size of an expansion -------------===//
///
/// \file
/// What an expansion will cost before it is built: an upper bound on its
/// ops and loop iterations (counted cheaply, guards ignored), the check
/// against the generators' op budget, and the smallest sizes at which every
/// message of an instance is at least one byte.
///
//===----------------------------------------------------------------------===//

#include "template/Template.h"
#include "template/TemplateInternal.h"

#include "llvm/Support/FormatVariadic.h"

using namespace choreo;
using llvm::formatv;

//===----------------------------------------------------------------------===//
// The size of an expansion
//===----------------------------------------------------------------------===//

namespace {

bool mentions(const Expr &E, llvm::StringRef Name) {
  if (E.K == Expr::Kind::Var)
    return E.Name == Name;
  return (E.L && mentions(*E.L, Name)) || (E.R && mentions(*E.R, Name));
}

bool rangesMention(llvm::ArrayRef<Range> Rs, llvm::StringRef Name) {
  return llvm::any_of(Rs, [&](const Range &R) {
    return mentions(*R.Lo, Name) || mentions(*R.Hi, Name);
  });
}

uint64_t satAdd(uint64_t A, uint64_t B) {
  return A > UINT64_MAX - B ? UINT64_MAX : A + B;
}
uint64_t satMul(uint64_t A, uint64_t B) {
  uint64_t Out;
  return __builtin_mul_overflow(A, B, &Out) ? UINT64_MAX : Out;
}

/// Counts the loop iterations of an expansion (stage steps, every loop and
/// bundle iteration, group members and ranks): at least its ops and blocks,
/// and what the expander's time is proportional to. A loop whose inner
/// ranges do not mention its variable is counted by one multiplication, so
/// the count itself stays cheap; where they do, it iterates, and stops past
/// the budget.
class Estimator {
public:
  Estimator(const Template &T, Env V, uint64_t Budget)
      : T(T), V(std::move(V)), Budget(Budget) {}

  llvm::Expected<uint64_t> run() {
    auto N = evalExpr(*T.Ranks, V, T.Source);
    if (!N)
      return N.takeError();
    uint64_t Total = std::max<int64_t>(0, *N);
    for (const GroupDecl &G : T.Groups) {
      auto Lo = evalExpr(*G.Lo, V, T.Source);
      if (!Lo)
        return Lo.takeError();
      auto Hi = evalExpr(*G.Hi, V, T.Source);
      if (!Hi)
        return Hi.takeError();
      if (*Hi > *Lo)
        Total = satAdd(Total, uint64_t(*Hi) - uint64_t(*Lo));
    }
    for (const Stage &St : T.Stages) {
      auto Steps = evalExpr(*St.Steps, V, T.Source);
      if (!Steps)
        return Steps.takeError();
      if (*Steps <= 0)
        continue;
      bool DependsOnStep = llvm::any_of(St.Ops, [](const OpGen &O) {
        return rangesMention(O.Loops, "i") || rangesMention(O.Bundle, "i");
      });
      if (!DependsOnStep) {
        V["i"] = 0;
        auto C = stage(St);
        if (!C)
          return C.takeError();
        Total = satAdd(Total, satMul(uint64_t(*Steps), satAdd(*C, 1)));
      } else {
        for (int64_t I = 0; I < *Steps && Total <= Budget; ++I) {
          V["i"] = I;
          auto C = stage(St);
          if (!C)
            return C.takeError();
          Total = satAdd(Total, satAdd(*C, 1));
        }
      }
      if (Total > Budget)
        break;
    }
    return Total;
  }

private:
  const Template &T;
  Env V;
  uint64_t Budget;

  llvm::Expected<uint64_t> stage(const Stage &St) {
    uint64_t Sum = 0;
    for (const OpGen &O : St.Ops) {
      auto C = loops(O.Loops, O.Bundle);
      if (!C)
        return C.takeError();
      Sum = satAdd(Sum, *C);
    }
    return Sum;
  }

  /// Iterations of the nest Rs (then the bundle ranges Rest).
  llvm::Expected<uint64_t> loops(llvm::ArrayRef<Range> Rs,
                                 llvm::ArrayRef<Range> Rest) {
    if (Rs.empty())
      return Rest.empty() ? uint64_t(1) : loops(Rest, {});
    const Range &R = Rs.front();
    auto Lo = evalExpr(*R.Lo, V, T.Source);
    if (!Lo)
      return Lo.takeError();
    auto Hi = evalExpr(*R.Hi, V, T.Source);
    if (!Hi)
      return Hi.takeError();
    if (*Hi <= *Lo)
      return uint64_t(0);
    uint64_t N = uint64_t(*Hi) - uint64_t(*Lo);
    llvm::ArrayRef<Range> Inner = Rs.drop_front();
    if (!rangesMention(Inner, R.Var) && !rangesMention(Rest, R.Var)) {
      V[R.Var] = *Lo;
      auto C = loops(Inner, Rest);
      V.erase(R.Var);
      if (!C)
        return C.takeError();
      return satMul(N, satAdd(*C, 1));
    }
    uint64_t Sum = 0;
    for (int64_t X = *Lo; X < *Hi && Sum <= Budget; ++X) {
      V[R.Var] = X;
      auto C = loops(Inner, Rest);
      if (!C)
        return C.takeError();
      Sum = satAdd(Sum, satAdd(*C, 1));
    }
    V.erase(R.Var);
    return Sum;
  }
};

} // namespace

llvm::Expected<uint64_t> choreo::estimateTemplateOps(const Template &T,
                                                     const Env &Params,
                                                     uint64_t Budget) {
  auto V = bindParams(T, Params);
  if (!V)
    return V.takeError();
  return Estimator(T, *V, Budget).run();
}

llvm::Error choreo::checkTemplateBudget(const Template &T, const Env &Params,
                                        uint64_t Budget) {
  auto V = bindParams(T, Params);
  if (!V)
    return V.takeError();
  auto Size = Estimator(T, *V, Budget).run();
  if (!Size)
    return Size.takeError();
  if (*Size <= Budget)
    return llvm::Error::success();
  std::string Vals;
  for (const std::string &P : T.Params)
    Vals +=
        (Vals.empty() ? "" : ", ") + P + " = " + std::to_string(Params.at(P));
  return makeDiagError("template",
                       formatv("{0}: expanding {1} at {2} takes more than {3} "
                               "ranks, ops and loop iterations (counted "
                               "without guards): the generators' op budget",
                               T.Source, T.Name, Vals, Budget));
}

//===----------------------------------------------------------------------===//
// Sizes for an instance
//===----------------------------------------------------------------------===//

std::pair<std::vector<uint64_t>, std::vector<uint64_t>>
choreo::unitSizes(const Template &T, const Env &Params) {
  std::pair<std::vector<uint64_t>, std::vector<uint64_t>> Out;
  auto V = bindParams(T, Params);
  if (!V) {
    llvm::consumeError(V.takeError());
    return Out;
  }
  if (T.isReduction()) {
    // One byte per segment (with one-byte elements).
    auto K = evalExpr(*T.Messages.front().Parts, *V, T.Source);
    if (!K) {
      llvm::consumeError(K.takeError());
      return Out;
    }
    Out.first = {uint64_t(std::max<int64_t>(1, *K))};
    return Out;
  }
  if (T.Kind == Collective::Alltoall) { // one byte per block
    Out.first = {1};
    return Out;
  }
  for (const GroupDecl &G : T.Groups) {
    auto Lo = evalExpr(*G.Lo, *V, T.Source), Hi = evalExpr(*G.Hi, *V, T.Source);
    if (!Lo || !Hi) {
      llvm::consumeError(Lo.takeError());
      llvm::consumeError(Hi.takeError());
      continue;
    }
    uint64_t Bytes = 1;
    for (const MessageFamily &F : T.Messages)
      if (F.Group == G.Name && F.Parts) {
        auto N = evalExpr(*F.Parts, *V, T.Source);
        if (N && *N > 0)
          Bytes = std::max<uint64_t>(Bytes, *N);
        else
          llvm::consumeError(N.takeError());
      }
    bool Bcast = specOf(T.Kind).Data == DataKind::Broadcast;
    // A scatter's group holds the root's buffer of its members' slices.
    bool Silent = !specOf(T.Kind).contributes(G.Name) && !Bcast &&
                  specOf(T.Kind).Data != DataKind::Scatter;
    std::vector<uint64_t> Sizes(Bcast ? 1 : std::max<int64_t>(0, *Hi - *Lo),
                                Silent ? 0 : Bytes);
    (G.Name == "B" ? Out.second : Out.first) = std::move(Sizes);
  }
  return Out;
}
