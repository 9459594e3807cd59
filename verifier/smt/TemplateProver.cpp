//===- verifier/smt/TemplateProver.cpp - Proofs of templates --------------===//
///
/// \file
/// The proof strategy of proveTemplate (Prover.h): the domain must not be
/// empty; each obligation (TemplateQueries.h) is refuted with Z3 for every
/// parameter value; a counterexample is shrunk to small parameters; an
/// undecided query is decided for every parameter value up to the bound,
/// the parameters fixed (products of parameters become linear); the run's
/// deadline leaves the obligations it reaches timed out, not attempted.
///
//===----------------------------------------------------------------------===//

#include "verifier/smt/Pow2Digits.h"
#include "verifier/smt/Prover.h"
#include "verifier/smt/Solver.h"
#include "verifier/smt/TemplateQueries.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <chrono>

using namespace choreo;
using namespace choreo::smt;
using llvm::formatv;

bool ProveReport::proved() const {
  for (const Obligation &O : Obligations)
    if (O.R != Obligation::Result::Proved &&
        O.R != Obligation::Result::ProvedBounded)
      return false;
  return true;
}

bool ProveReport::unbounded() const {
  for (const Obligation &O : Obligations)
    if (O.R != Obligation::Result::Proved)
      return false;
  return true;
}

const Obligation *ProveReport::firstCounterexample() const {
  for (const Obligation &O : Obligations)
    if (O.R == Obligation::Result::Counterexample)
      return &O;
  return nullptr;
}

namespace {

bool symbolicPow(const Expr *E) {
  if (!E)
    return false;
  if ((E->K == Expr::Kind::Pow2 && E->L->K != Expr::Kind::Num) ||
      E->K == Expr::Kind::Xor)
    return true;
  return symbolicPow(E->L.get()) || symbolicPow(E->R.get());
}

bool symbolicPow(const Cond *C) {
  if (!C)
    return false;
  return symbolicPow(C->A.get()) || symbolicPow(C->B.get()) ||
         symbolicPow(C->L.get()) || symbolicPow(C->R.get());
}

/// Whether T has a pow2 of a non-constant exponent, or an xor.
bool symbolicPow(const Template &T) {
  bool Any = symbolicPow(T.Ranks.get());
  for (const auto &[Name, E] : T.Lets)
    Any |= symbolicPow(E.get());
  for (const Stage &St : T.Stages) {
    for (const OpGen &G : St.Ops) {
      Any |= symbolicPow(G.Src.get()) || symbolicPow(G.Dst.get()) ||
             symbolicPow(G.Guard.get());
      for (const Range &R : G.Loops)
        Any |= symbolicPow(R.Lo.get()) || symbolicPow(R.Hi.get());
      for (const ExprPtr &X : G.MsgIndex)
        Any |= symbolicPow(X.get());
      for (const Range &R : G.Bundle)
        Any |= symbolicPow(R.Lo.get()) || symbolicPow(R.Hi.get());
      Any |= symbolicPow(G.BundleGuard.get());
    }
    for (const HoldsCase &H : St.Holds)
      Any |= symbolicPow(H.Lo.get()) || symbolicPow(H.Len.get()) ||
             symbolicPow(H.Guard.get());
  }
  return Any;
}

class Prover {
public:
  Prover(const Template &T, const ProveOptions &O)
      : T(T), Opts(O), Ses(Budget{O.TimeoutMs, O.Deadline}), C(Ses.ctx()) {}

  llvm::Expected<ProveReport> run() {
    auto Start = std::chrono::steady_clock::now();
    ProveReport Rep;
    Rep.Template = T.Name;
    if (auto E = checkDomain())
      return std::move(E);
    PowMax = powBound();
    Symbolic = symbolicPow(T);
    {
      QueryBuilder Builder(T, Symbolic && !PowBounded ? -1 : PowMax);
      std::vector<Query> Qs = Builder.build();
      // First pass: every obligation, an undecided one searched for a
      // counterexample at small parameter values only; then the bounded
      // proofs of those left (so that a refuted obligation is found before
      // the bounded proofs of the ones before it take the time).
      FirstPass = true;
      bool Found = false;
      for (size_t K = 0; K < Qs.size() && !Found; ++K) {
        Current = K;
        Rep.Obligations.push_back(solve(Qs[K]));
        Found = Opts.StopAtFirst && Rep.Obligations.back().R ==
                                        Obligation::Result::Counterexample;
      }
      FirstPass = false;
      // With StopAtFirst, those left when a counterexample is found are
      // not attempted, as the obligations after it: not reported.
      std::vector<size_t> Dropped;
      for (const Deferred &D : Pending) {
        Obligation &O = Rep.Obligations[D.Index];
        if (Found) {
          Dropped.push_back(D.Index);
          continue;
        }
        auto Start = std::chrono::steady_clock::now();
        O.Why = D.Why;
        try {
          bounded(Qs[D.Index], O, D.TimedOut, D.From);
        } catch (const z3::exception &Ex) {
          O.R = Obligation::Result::Unknown;
          O.Why = std::string("solver error: ") + Ex.msg();
        } catch (const std::exception &Ex) {
          O.R = Obligation::Result::Unknown;
          O.Why = Ex.what();
        }
        O.Seconds += std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - Start)
                         .count();
        Found = Opts.StopAtFirst && O.R == Obligation::Result::Counterexample;
      }
      for (size_t X = Dropped.size(); X-- > 0;)
        Rep.Obligations.erase(Rep.Obligations.begin() + Dropped[X]);
    } // the queries' expressions go before the context

    Rep.Seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
            .count();
    return Rep;
  }

private:
  const Template &T;
  ProveOptions Opts;
  /// One context for every query: the queries' decoders keep expressions
  /// of it until the report is built.
  Session Ses;
  z3::context &C;

  /// The largest exponent pow2 is encoded for: the largest value a
  /// parameter takes in the domain, plus 2 (the exponents of the templates
  /// are a parameter, a step index below it, or one more), at most
  /// MaxPow2. A shorter chain is a smaller formula; the range obligations
  /// prove every exponent stays within it, so the bound is never assumed.
  int64_t PowMax = MaxPow2;
  /// Whether the domain bounds the parameters (powBound found a maximum).
  bool PowBounded = false;
  /// Whether T has a pow2 of a non-constant exponent (or an xor): its
  /// obligations are tried in digits first (Pow2Digits.h).
  bool Symbolic = false;

  /// The first pass over the obligations: the bounded fallback tries the
  /// parameter values up to SmallMax only (a counterexample there is
  /// one), and leaves the rest Pending for after every obligation.
  bool FirstPass = false;
  static constexpr int64_t SmallMax = 4;
  size_t Current = 0;
  struct Deferred {
    size_t Index;  ///< the obligation
    bool TimedOut; ///< bounded's argument
    size_t From;   ///< the first value not yet proved
    std::string Why;
  };
  std::vector<Deferred> Pending;

  int64_t powBound() {
    try {
      TemplateEncoder E(C, T);
      E.prepare();
      Optimizer O(Ses);
      O.add(E.context());
      int64_t H = 0;
      for (const std::string &Name : T.Params) {
        std::optional<int64_t> X = O.maximum(E.param(Name), 5000);
        if (!X)
          return MaxPow2;
        H = std::max(H, *X);
      }
      PowBounded = true;
      return std::min<int64_t>(MaxPow2, H + 2);
    } catch (const z3::exception &) {
      return MaxPow2;
    }
  }

  /// An empty domain would make every obligation hold: refused.
  llvm::Error checkDomain() {
    std::string Failure;
    try {
      TemplateEncoder E(C, T);
      E.prepare();
      Solver S(Ses);
      S.add(E.context());
      Result R = S.check();
      if (R.K == Result::Kind::Error)
        Failure = R.Why;
      else if (!R.proved())
        return llvm::Error::success();
    } catch (const z3::exception &Ex) {
      Failure = Ex.msg();
    }
    if (!Failure.empty())
      return makeDiagError("template", formatv("{0}: solver error on the "
                                               "domain: {1}",
                                               T.Source, Failure));
    std::string Dom;
    for (const CondPtr &Cd : T.Domain)
      Dom += (Dom.empty() ? "" : ", ") + Cd->str();
    return makeDiagError(
        "template", formatv("{0}: the domain of {1} is empty: no value "
                            "of {2} satisfies `{3}`, so there is nothing "
                            "to prove",
                            T.Source, T.Name, llvm::join(T.Params, ", "), Dom));
  }

  /// Solves Q for every parameter value (and, if that is undecided, for
  /// each value up to the bound).
  Obligation solve(Query &Q) {
    Obligation O = Q.O;
    auto Start = std::chrono::steady_clock::now();
    try {
      solveInto(Q, O);
    } catch (const z3::exception &Ex) {
      O.R = Obligation::Result::Unknown;
      O.Why = std::string("solver error: ") + Ex.msg();
    } catch (const std::exception &Ex) {
      O.R = Obligation::Result::Unknown;
      O.Why = Ex.what();
    }
    O.Seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
            .count();
    return O;
  }

  /// An obligation not attempted: the deadline has passed.
  static void notAttempted(Obligation &O) {
    O.R = Obligation::Result::Timeout;
    O.Why = NotAttempted;
  }

  /// The witnessed form of Q, if any (TemplateQueries.h): proved means
  /// proved; anything else leaves the obligation to Q itself, with why.
  bool byWitnesses(Query &Q, Obligation &O) {
    if (!Q.Witnessed)
      return false;
    TemplateEncoder E(C, T);
    E.PowMax = PowMax;
    E.prepare();
    z3::expr F = Q.Witnessed(E);
    Solver S(Ses);
    S.add(E.context());
    S.add(F);
    Result R = S.check();
    if (R.K == Result::Kind::Proved) {
      O.R = Obligation::Result::Proved;
      O.Why = "by " + Q.WitnessedBy + " (no quantifier)";
      return true;
    }
    O.Why = R.K == Result::Kind::Refuted
                ? "the witnesses do not cover every case"
                : "the witnessed query is undecided (" + R.Why + ")";
    return false;
  }

  /// Q in digits of a symbolic 2^e (Pow2Digits.h), for every exponent:
  /// proved means proved; anything else leaves the obligation to the
  /// chain of pow2's values, with why.
  bool byDigits(Query &Q, Obligation &O, bool Witnessed = false) {
    TemplateEncoder E(C, T);
    E.SymbolicPow = true;
    E.prepare();
    z3::expr F = E.context() && (Witnessed ? Q.Witnessed(E) : Q.Build(E));
    std::string Why;
    std::optional<DigitForm> D = pow2Digits(C, F, Why);
    if (!D) {
      O.Why = "the pow2 digits do not apply (" + Why + ")";
      return false;
    }
    Solver Out(Ses);
    Out.add(D->Outside);
    Result R = Out.check();
    if (!R.proved()) {
      O.Why = "an exponent below " + D->Base + " is not excluded (" +
              (R.refuted() ? std::string("a model") : R.Why) + ")";
      return false;
    }
    Solver S(Ses);
    S.add(D->Formula);
    R = S.check();
    if (R.proved()) {
      O.R = Obligation::Result::Proved;
      O.Why = (Witnessed ? "by " + Q.WitnessedBy + ", " : std::string()) +
              "in digits of 2^" + D->Base + " (every exponent)";
      return true;
    }
    O.Why = "the pow2 digits leave it open (" +
            (R.refuted() ? std::string("they have a model") : R.Why) + ")";
    return false;
  }

  void solveInto(Query &Q, Obligation &O) {
    if (Ses.expired())
      return notAttempted(O);
    // The witnesses first (a quantifier-free form: a log2 witness names
    // the step of an earlier exponent, which the quantified form binds).
    if (Symbolic && Q.Witnessed && byDigits(Q, O, /*Witnessed=*/true))
      return;
    std::string WitnessWhy =
        Symbolic && Q.Witnessed ? "the witnesses: " + O.Why + "; " : "";
    if (Symbolic && byDigits(Q, O))
      return;
    if (!WitnessWhy.empty())
      O.Why = WitnessWhy + O.Why;
    if (Symbolic && !PowBounded) {
      // The chain of 63 values is too large a formula for an unbounded
      // exponent: each parameter value up to the bound instead, where a
      // counterexample of the chain is a real one.
      if (Ses.expired())
        return notAttempted(O);
      return bounded(Q, O, false);
    }
    if (byWitnesses(Q, O))
      return;
    // What the witnesses left, before the quantified query's own reason.
    std::string Before = O.Why.empty() ? "" : O.Why + "; ";
    TemplateEncoder E(C, T);
    E.PowMax = PowMax;
    E.prepare();
    z3::expr F = Q.Build(E);
    Solver S(Ses);
    S.add(E.context());
    S.add(F);
    Result R = S.check();
    switch (R.K) {
    case Result::Kind::Proved:
      O.R = Obligation::Result::Proved;
      return;
    case Result::Kind::Refuted: {
      O.R = Obligation::Result::Counterexample;
      O.Why.clear(); // the witnesses' note says nothing of it
      z3::model M = smallest(E, S, *R.Model);
      Q.Decode(E, M, O);
      return;
    }
    case Result::Kind::Unknown:
    case Result::Kind::Timeout:
      if (R.notStarted())
        return notAttempted(O);
      O.Why = Before + R.Why;
      if (E.Nonlinear)
        O.Why += " (the obligation has a nonlinear term)";
      bounded(Q, O, R.K == Result::Kind::Timeout);
      return;
    case Result::Kind::Error:
      O.R = Obligation::Result::Unknown;
      O.Why = "solver error: " + R.Why;
      return;
    }
  }

  /// A model of S with small parameters: the sum of the parameters is bound
  /// by 2, 4, 8, ... until the query is satisfiable (it is, at the latest,
  /// by the sum of First's). Small counterexamples are the ones a reader,
  /// and the explicit engine, can replay.
  z3::model smallest(TemplateEncoder &E, Solver &S, const z3::model &First) {
    z3::expr Sum = C.int_val(0);
    for (const std::string &P : T.Params)
      Sum = Sum + E.param(P);
    int64_t Found = First.eval(Sum, true).get_numeral_int64();
    for (int64_t K = 2; K < Found && !Ses.expired(); K *= 2) {
      S.push();
      S.add(Sum <= C.int_val(K));
      // Each try gets a short slice: a hard query keeps its first model.
      Result R = S.check(3000);
      S.pop();
      if (R.refuted())
        return *R.Model;
    }
    return First;
  }

  /// Every parameter value in [1, Bound] that lies in the domain, one query
  /// each with the parameters fixed (no longer nonlinear). An obligation
  /// left undecided is a timeout where the query that left it so ran out of
  /// time (TimedOut: the unbounded one), else unknown.
  ///
  /// The values go from small to large (by their largest parameter, then
  /// their sum), from the From-th; in the first pass only those with every
  /// parameter at most SmallMax, and the obligation is Pending unless
  /// they decide it.
  void bounded(Query &Q, Obligation &O, bool TimedOut, size_t From = 0) {
    std::vector<Env> Points; // parameters with their lets, in the domain
    Env Cur;
    std::function<void(size_t)> Enumerate = [&](size_t K) {
      if (K == T.Params.size()) {
        auto V = bindParams(T, Cur);
        if (V)
          Points.push_back(*V);
        else
          llvm::consumeError(V.takeError());
        return;
      }
      for (int64_t X = 1; X <= Opts.Bound; ++X) {
        Cur[T.Params[K]] = X;
        Enumerate(K + 1);
      }
    };
    Enumerate(0);
    auto Size = [&](const Env &Pt) {
      int64_t Max = 0, Sum = 0;
      for (const std::string &Name : T.Params) {
        Max = std::max(Max, Pt.at(Name));
        Sum += Pt.at(Name);
      }
      return std::make_pair(Max, Sum);
    };
    std::stable_sort(Points.begin(), Points.end(),
                     [&](const Env &A, const Env &B) {
                       return Size(A) < Size(B);
                     });
    size_t To = Points.size();
    if (FirstPass) {
      To = 0;
      while (To < Points.size() && Size(Points[To]).first <= SmallMax)
        ++To;
    }
    if (Points.empty()) {
      // "Proved for each of 0 values" would be vacuous.
      O.R =
          TimedOut ? Obligation::Result::Timeout : Obligation::Result::Unknown;
      O.Why += formatv("; no parameter value with every parameter in [1, {0}] "
                       "lies in the domain, so the bounded proof proves "
                       "nothing",
                       Opts.Bound)
                   .str();
      return;
    }
    for (size_t X = From; X < To; ++X) {
      const Env &Pt = Points[X];
      TemplateEncoder E(C, T);
      int64_t Largest = 0;
      for (const std::string &Name : T.Params)
        Largest = std::max(Largest, Pt.at(Name));
      E.PowMax = std::min<int64_t>(PowMax, Largest + 2);
      Result R = Result{Result::Kind::Timeout, NotAttempted, std::nullopt};
      if (!Ses.expired()) {
        E.prepare(&Pt);
        z3::expr F = Q.Build(E);
        Solver S(Ses);
        S.add(E.context());
        S.add(F);
        R = S.check();
      }
      if (R.notStarted()) {
        O.R = Obligation::Result::Timeout;
        O.Why += "; the run's --timeout passed during the bounded proof";
        return;
      }
      switch (R.K) {
      case Result::Kind::Proved:
        continue;
      case Result::Kind::Refuted:
        O.R = Obligation::Result::Counterexample;
        Q.Decode(E, *R.Model, O);
        return;
      case Result::Kind::Unknown:
      case Result::Kind::Timeout: {
        std::string At;
        for (const std::string &Name : T.Params)
          At += (At.empty() ? "" : ", ") + Name + " = " +
                std::to_string(Pt.at(Name));
        O.R = R.K == Result::Kind::Timeout ? Obligation::Result::Timeout
                                           : Obligation::Result::Unknown;
        O.Why += "; unknown for " + At + " too (" + R.Why + ")";
        return;
      }
      case Result::Kind::Error:
        O.R = Obligation::Result::Unknown;
        O.Why = "solver error: " + R.Why;
        return;
      }
    }
    if (To < Points.size()) {
      Pending.push_back(Deferred{Current, TimedOut, To, O.Why});
      O.R = Obligation::Result::Timeout;
      O.Why += "; pending";
      return;
    }
    O.R = Obligation::Result::ProvedBounded;
    O.Why += formatv("; proved for each of the {0} parameter values with "
                     "every parameter in [1, {1}]",
                     Points.size(), Opts.Bound)
                 .str();
  }
};

} // namespace

llvm::Expected<ProveReport> choreo::proveTemplate(const Template &T,
                                                  const ProveOptions &O) {
  // Parsed templates passed this already; one built in code must too.
  if (auto E = checkAgainstSpec(T))
    return std::move(E);
  return Prover(T, O).run();
}
