//===- verifier/smt/SynthReduction.cpp - Synthesis of reductions ----------===//
///
/// \file
/// The reductions' encoding (reduce, allreduce, reduce_scatter; commutative
/// operator, one receive port per rank). Every rank holds a partial of
/// every unit (one byte of `all`) at all times; what it holds is its
/// contributor set, a bit vector over the ranks:
///
/// - `k_t_r_u_x`: after t steps rank r's partial of unit u has combined
///   rank x's contribution (k_0: x = r only);
/// - `c_t_a_b_u`: a sends its partial of u to b in step t, and b combines
///   it with its own (`reduce: true`); the two sets must be disjoint (every
///   contribution combined exactly once);
/// - `r_t_a_b_u`: the same, but b replaces its partial by a's (the format's
///   op without `reduce`, which an allreduce needs to hand out a finished
///   result);
/// - k_t(b, u, x) <-> (k_{t-1}(b, u, x) and no replace into b) or some op
///   a -> b of u with k_{t-1}(a, u, x). One receive port makes at most one
///   op per receiver and step, so the union is exact;
/// - ports, duplex and node ports as for every encoding (SynthEncoding.h).
///
/// g_T implies every bit of every required (rank, unit) after T steps. Each
/// set of step t also gets the implied bound "at most 2^t bits", which
/// turns the proof that T < log2 p is impossible from a search into a count.
///
//===----------------------------------------------------------------------===//

#include "verifier/smt/SynthEncoding.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace choreo;
using namespace choreo::synth;
using llvm::formatv;

namespace {

class ReductionEncoder : public Encoder {
public:
  ReductionEncoder(const Schedule &H, const Instance &I,
                   const SynthOptions &O)
      : Encoder(H, I, O) {
    auto &L0 = Sets.emplace_back();
    for (Rank R = 0; R < I.N; ++R)
      for (unsigned U = 0; U < I.Units.size(); ++U)
        for (Rank X = 0; X < I.N; ++X)
          L0.push_back(C.bool_val(X == R));
  }

private:
  /// Sets[t][(r * units + u) * N + x].
  std::vector<std::vector<z3::expr>> Sets;

  size_t at(Rank R, unsigned U, Rank X) const {
    return (size_t(R) * I.Units.size() + U) * I.N + X;
  }

  void addLayer(unsigned T) override {
    const Rank N = I.N;
    const unsigned NU = I.Units.size();
    const std::vector<z3::expr> &Prev = Sets[T - 1];
    auto &Ss = Sends.emplace_back();
    // Incoming[b * units + u]: the ops into b of u, and the replacing ones.
    std::vector<std::vector<const SendVar *>> Incoming(size_t(N) * NU);
    for (unsigned U = 0; U < NU; ++U)
      for (unsigned L = 0; L < I.Links.size(); ++L) {
        auto [A, B] = I.Links[L];
        for (bool Reduce : {true, false}) {
          z3::expr S = fresh(formatv("{0}_{1}_{2}_{3}_u{4}",
                                     Reduce ? "c" : "r", T, A, B, U)
                                 .str());
          Ss.push_back({L, U, S, Reduce});
          if (Reduce)
            for (Rank X = 0; X < N; ++X)
              add(z3::implies(S, !(Prev[at(A, U, X)] && Prev[at(B, U, X)])));
        }
      }
    for (const SendVar &V : Ss)
      Incoming[size_t(I.Links[V.L].second) * NU + V.U].push_back(&V);
    std::vector<z3::expr> Cur;
    for (Rank B = 0; B < N; ++B)
      for (unsigned U = 0; U < NU; ++U) {
        const auto &Inc = Incoming[size_t(B) * NU + U];
        z3::expr_vector Replaced(C);
        for (const SendVar *V : Inc)
          if (!V->Reduce)
            Replaced.push_back(V->E);
        z3::expr Keep = Replaced.empty() ? C.bool_val(true)
                                         : !z3::mk_or(Replaced);
        for (Rank X = 0; X < N; ++X) {
          z3::expr_vector Any(C);
          Any.push_back(Prev[at(B, U, X)] && Keep);
          for (const SendVar *V : Inc)
            Any.push_back(V->E && Prev[at(I.Links[V->L].first, U, X)]);
          z3::expr K = fresh(formatv("k_{0}_{1}_u{2}_{3}", T, B, U, X).str());
          add(K == z3::mk_or(Any));
          Cur.push_back(K);
        }
        // Implied (a set at most doubles per step), but it lets the SAT
        // core refute T < log2 p by counting instead of by search.
        if (T < 32 && (1u << T) < N) {
          z3::expr_vector Bits(C);
          for (Rank X = 0; X < N; ++X)
            Bits.push_back(Cur[Cur.size() - N + X]);
          add(z3::atmost(Bits, 1u << T));
        }
      }
    addPortConstraints(Ss);
    Sets.push_back(std::move(Cur));
  }

  z3::expr makeGoal(unsigned T) override {
    z3::expr G = fresh(formatv("g_{0}", T).str());
    for (auto [R, U] : I.Required)
      for (Rank X = 0; X < I.N; ++X)
        add(z3::implies(G, Sets[T][at(R, U, X)]));
    return G;
  }

  Block blockOf(const z3::model &M, unsigned St, const SendVar &V,
                StepList &L) override {
    Rank A = I.Links[V.L].first;
    RankSet Set;
    for (Rank X = 0; X < I.N; ++X)
      if (M.eval(Sets[St - 1][at(A, V.U, X)], true).is_true())
        Set.insert(X, uint64_t(X) + 1);
    Block B;
    B.Buf = I.Units[V.U].Buf;
    B.Lo = I.Units[V.U].Lo;
    B.Hi = B.Lo + 1;
    B.Reduce = V.Reduce;
    B.Contrib = L.addContrib(Set);
    return B;
  }
};

} // namespace

std::unique_ptr<Encoder> synth::reductionEncoder(const Schedule &H,
                                                 const Instance &I,
                                                 const SynthOptions &O) {
  return std::make_unique<ReductionEncoder>(H, I, O);
}

std::pair<unsigned, std::string>
synth::reductionLowerBound(const Schedule &, const Instance &I) {
  unsigned Best = 0;
  std::string Why = "nothing to combine";
  if (I.Required.empty() || I.N < 2)
    return {Best, Why};
  unsigned Log = 0;
  while ((1ull << Log) < I.N)
    ++Log;
  Best = Log;
  Why = formatv("a contributor set at most doubles per step, and {0} "
                "contributions must meet",
                I.N);
  std::vector<unsigned> PerRank(I.N, 0);
  for (auto [R, U] : I.Required) {
    ++PerRank[R];
    for (Rank X = 0; X < I.N; ++X)
      if (I.RankDist[X][R] > Best) {
        Best = I.RankDist[X][R];
        Why = formatv("rank {0} is {1} links from rank {2}, whose "
                      "contribution it needs",
                      R, Best, X);
      }
  }
  for (Rank R = 0; R < I.N; ++R)
    if (PerRank[R] > Best) {
      Best = PerRank[R];
      Why = formatv("rank {0} receives at least once for each of its {1} "
                    "units, one op per step",
                    R, PerRank[R]);
    }
  return {Best, Why};
}
