//===- verifier/smt/DomainCover.cpp - Templates' domains cover ------------===//
///
/// \file
/// proveDomainsCover (Prover.h): the domains of an algorithm's templates
/// are pairwise disjoint and cover every parameter value, each refuted with
/// Z3 over every template's domain in one context; an undecided query is
/// decided for every value up to the bound by the templates' own domain
/// checks (bindParams).
///
//===----------------------------------------------------------------------===//

#include "verifier/smt/Prover.h"
#include "verifier/smt/Solver.h"
#include "verifier/smt/TemplateEncoder.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <chrono>

using namespace choreo;
using namespace choreo::smt;
using llvm::formatv;

namespace {

/// The parameter values with each parameter in [1, Bound], smallest sum
/// first.
std::vector<Env> smallParams(const std::vector<std::string> &Params,
                             int64_t Bound) {
  std::vector<Env> Out{Env()};
  for (const std::string &P : Params) {
    std::vector<Env> Next;
    for (const Env &E : Out)
      for (int64_t X = 1; X <= Bound; ++X) {
        Next.push_back(E);
        Next.back()[P] = X;
      }
    Out = std::move(Next);
  }
  auto Sum = [](const Env &E) {
    int64_t S = 0;
    for (const auto &[N, V] : E)
      S += V;
    return S;
  };
  std::stable_sort(Out.begin(), Out.end(),
                   [&](const Env &A, const Env &B) { return Sum(A) < Sum(B); });
  return Out;
}

bool inDomain(const Template &T, const Env &Params) {
  auto V = bindParams(T, Params);
  if (V)
    return true;
  llvm::consumeError(V.takeError());
  return false;
}

/// proveDomainsCover: every template's domain in one context, its lets
/// (and the quotients and remainders they introduce) bound existentially,
/// so that a domain holds exactly where bindParams accepts the parameters.
class DomainCover {
public:
  DomainCover(llvm::ArrayRef<const Template *> Ts, const ProveOptions &O)
      : Ts(Ts), Opts(O), Params(Ts.front()->Params),
        Ses(smt::Budget{O.TimeoutMs, O.Deadline}), C(Ses.ctx()) {}

  ProveReport run() {
    ProveReport Rep;
    Rep.Template = "domains";
    std::string Region, Names;
    for (const std::string &P : Params) {
      Region += (Region.empty() ? "" : ", ") + P + " >= 1";
      InRegion.push_back(C.int_const(P.c_str()) >= 1);
    }
    for (const Template *T : Ts) {
      Names += (Names.empty() ? "" : ", ") + T->Name;
      Dom.push_back(domain(*T, "t" + std::to_string(Dom.size()) + "."));
    }
    for (size_t A = 0; A < Ts.size(); ++A)
      for (size_t B = A + 1; B < Ts.size(); ++B) {
        Obligation O;
        O.Kind = "disjoint";
        O.Name = formatv("disjoint {0} {1}", Ts[A]->Name, Ts[B]->Name);
        O.Claim = formatv("no parameter value with {0} lies in the domains "
                          "of both {1} and {2}",
                          Region, Ts[A]->Name, Ts[B]->Name);
        Rep.Obligations.push_back(
            solve(O, {Dom[A], Dom[B]}, [&](const Env &Pt) {
              return inDomain(*Ts[A], Pt) && inDomain(*Ts[B], Pt);
            }));
      }
    Obligation O;
    O.Kind = O.Name = "cover";
    O.Claim = formatv("every parameter value with {0} lies in the domain of "
                      "one of {1}",
                      Region, Names);
    std::vector<z3::expr> None;
    for (const z3::expr &D : Dom)
      None.push_back(!D);
    Rep.Obligations.push_back(solve(O, None, [&](const Env &Pt) {
      return llvm::none_of(Ts,
                           [&](const Template *T) { return inDomain(*T, Pt); });
    }));
    for (const Obligation &Ob : Rep.Obligations)
      Rep.Seconds += Ob.Seconds;
    return Rep;
  }

private:
  llvm::ArrayRef<const Template *> Ts;
  ProveOptions Opts;
  const std::vector<std::string> &Params;
  smt::Session Ses;
  z3::context &C;
  std::vector<z3::expr> InRegion, Dom;
  bool Nonlinear = false;

  z3::expr domain(const Template &T, const std::string &Prefix) {
    TemplateEncoder E(C, T);
    E.Prefix = Prefix;
    E.prepare();
    Nonlinear |= E.Nonlinear;
    z3::expr_vector Bound(C);
    for (const auto &[Name, Ex] : T.Lets)
      Bound.push_back(E.Top.Vars.at(Name));
    for (const z3::expr &V : E.Top.Fresh)
      Bound.push_back(V);
    return Bound.empty() ? E.context() : z3::exists(Bound, E.context());
  }

  /// Refutes F (with the parameters >= 1): satisfiable means a parameter
  /// value Fails confirms, reported as the smallest one in [1, Bound] if
  /// there is one. An unknown query is decided by Fails up to the bound.
  Obligation solve(Obligation O, const std::vector<z3::expr> &F,
                   const std::function<bool(const Env &)> &Fails) {
    auto Start = std::chrono::steady_clock::now();
    O.R = Obligation::Result::Unknown;
    smt::Solver S(Ses);
    for (const z3::expr &X : InRegion)
      S.add(X);
    for (const z3::expr &X : F)
      S.add(X);
    smt::Result R = S.check();
    switch (R.K) {
    case smt::Result::Kind::Proved:
      O.R = Obligation::Result::Proved;
      break;
    case smt::Result::Kind::Refuted:
      try {
        for (const std::string &Pm : Params)
          O.Model[Pm] =
              R.Model->eval(C.int_const(Pm.c_str()), true).get_numeral_int64();
        O.R = Obligation::Result::Counterexample;
      } catch (const z3::exception &Ex) {
        O.Model.clear();
        O.Why = std::string("solver error: ") + Ex.msg();
      }
      break;
    case smt::Result::Kind::Unknown:
    case smt::Result::Kind::Timeout:
      O.Why = R.Why;
      if (Nonlinear && !R.notStarted())
        O.Why += " (a domain has a nonlinear term)";
      break;
    case smt::Result::Kind::Error:
      O.Why = "solver error: " + R.Why;
      break;
    }
    if (O.R != Obligation::Result::Proved) {
      for (const Env &Pt : smallParams(Params, Opts.Bound))
        if (Fails(Pt)) {
          O.R = Obligation::Result::Counterexample;
          O.Model = std::map<std::string, int64_t>(Pt.begin(), Pt.end());
          break;
        }
      if (O.R == Obligation::Result::Unknown) {
        O.R = Obligation::Result::ProvedBounded;
        O.Why += formatv("; holds for every parameter in [1, {0}]", Opts.Bound)
                     .str();
      }
    }
    O.Seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
            .count();
    return O;
  }
};

} // namespace

llvm::Expected<ProveReport>
choreo::proveDomainsCover(llvm::ArrayRef<const Template *> Ts,
                          const ProveOptions &O) {
  if (Ts.empty())
    return ProveReport{"domains", {}, 0};
  for (const Template *T : Ts)
    if (T->Params != Ts.front()->Params)
      return makeDiagError("template",
                           formatv("{0} takes {1} but {2} takes {3}",
                                   Ts.front()->Name,
                                   llvm::join(Ts.front()->Params, ", "),
                                   T->Name, llvm::join(T->Params, ", ")));
  return DomainCover(Ts, O).run();
}
