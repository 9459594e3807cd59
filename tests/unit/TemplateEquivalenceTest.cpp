//===- tests/unit/TemplateEquivalenceTest.cpp - Generators = templates ----===//
///
/// \file
/// The generators whose families have templates (Generator::templates: what
/// `choreo prove GENERATOR` proves) against the templates' expansions, op
/// for op and step for step, so that "proved for every p, q" speaks of the
/// schedules `choreo gen` emits (for the parameters swept here):
///
/// - half-allgather-ring, every p, q in 1..40, each against the one
///   template whose domain holds there (the test fails if none or several
///   do), with one byte per sender, 1K per sender, and irregular counts
///   with zeros;
/// - half-allgather-ring-opt likewise, against ring-opt, ring-opt-wide and
///   ring-opt-one-sender;
/// - inter-allgather-kang --exchange subgroups --intra ring against
///   kang-divisible, every p, q in 1..40 with q | p, with unit sizes (one
///   byte per message unit, as `choreo gen --template` defaults to), one
///   byte for both groups (empty segments), two other regular sizes, and
///   irregular counts with zeros;
/// - every pair any generator declares (the rings' reduction templates,
///   the broadcasts' plain and hierarchical ones, the uniform allgatherv
///   too), every value of the template's parameters in 0..8 in its
///   domain, the generator's options bound to them as declared
///   (GeneratorTemplate::Bind), with unit sizes (a 104-byte vector for a
///   reduction, also 1001 bytes for a broadcast);
/// - sampled above: 30 pairs p, q <= 128 (p or q above 40) for each ring,
///   20 pairs q | p <= 128 for Kang, 12 values in 0..128 of each declared
///   pair's parameters (at most 200,000 ops).
///
/// Both sides get the same member sizes: the generator from --bytes-* /
/// --counts-*, the template as its SizesA / SizesB (what `choreo gen
/// --template` passes for the same options).
///
/// Normalisation before comparing, and nothing else:
/// - the ops of a step are compared as a multiset (their order within a
///   step is ignored; the Kang generator lists the two allgathers' ops
///   group by group);
/// - the collective's name is compared up to the `v` of an irregular
///   allgather (the generator says inter_allgatherv when counts are given,
///   allgatherv-pipelined-ring always allgatherv; a template's `collective`
///   line is fixed);
/// - a ring's order that is the identity is the ring without an order.
/// Compared exactly: the number of steps, every op's source, destination
/// and block list (buffer and byte range of each block, in order), ranks,
/// groups, member sizes, topology and ports.
///
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "template/Template.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <functional>
#include <map>

using namespace choreo;
using namespace choreo::test;

namespace {

/// The built-in templates, parsed once.
const Template &builtin(llvm::StringRef Name) {
  static std::map<std::string, Template> Cache;
  auto It = Cache.find(Name.str());
  if (It != Cache.end())
    return It->second;
  for (auto [N, Text] : builtinTemplates())
    if (Name == N) {
      auto T = parseTemplate(Text, N);
      EXPECT_TRUE(bool(T)) << llvm::toString(T.takeError());
      if (T)
        return Cache.emplace(Name.str(), std::move(*T)).first->second;
    }
  ADD_FAILURE() << "no built-in template " << Name.str();
  static const Template Empty;
  return Empty;
}

/// The templates of generator Gen whose domain holds at (P, Q).
std::vector<GeneratorTemplate> templatesAt(llvm::StringRef Gen, int64_t P,
                                           int64_t Q) {
  std::vector<GeneratorTemplate> Out;
  for (const GeneratorTemplate &G : findGenerator(Gen)->templates()) {
    auto V = bindParams(builtin(G.Template), {{"p", P}, {"q", Q}});
    if (V)
      Out.push_back(G);
    else
      llvm::consumeError(V.takeError());
  }
  return Out;
}

/// Each step's ops as "src>dst blocks", sorted: a multiset per step.
/// Steps without ops are left out: a generator drops a step that moves no
/// bytes (the halving-doubling fold's second step when the vector's upper
/// half is empty), a template's step count is its stages'.
std::vector<std::vector<std::string>> opMultisets(const Schedule &S) {
  std::vector<std::vector<std::string>> Out;
  for (unsigned St = 0; St < S.Steps.numSteps(); ++St) {
    if (S.Steps.step(St).empty())
      continue;
    std::vector<std::string> &Ops = Out.emplace_back();
    for (const Op &O : S.Steps.step(St))
      Ops.push_back(std::to_string(O.Src) + ">" + std::to_string(O.Dst) + " " +
                    S.blocksString(S.Steps.blocks(O)));
    llvm::sort(Ops);
  }
  return Out;
}

Collective withoutV(Collective C) {
  return C == Collective::InterAllgatherv ? Collective::InterAllgather
         : C == Collective::Allgatherv    ? Collective::Allgather
                                          : C;
}

/// A ring's order, with the identity (ranks 0, 1, ..., n - 1 in turn) as
/// the empty order that means it.
std::vector<Rank> ringOrder(const Schedule &S) {
  std::vector<Rank> O = S.Topo.Order;
  for (size_t K = 0; K < O.size(); ++K)
    if (O[K] != K)
      return O;
  return {};
}

std::string listOps(const std::vector<std::string> &Ops) {
  std::string Out =
      llvm::join(llvm::ArrayRef(Ops).take_front(6), llvm::StringRef("; "));
  if (Ops.size() > 6)
    Out += "; ... (" + std::to_string(Ops.size()) + " in all)";
  return Out;
}

/// The first difference between the generator's schedule G and the
/// template's expansion T after the normalisation above, or "".
std::string difference(const Schedule &G, const Schedule &T) {
  if (withoutV(G.Kind) != withoutV(T.Kind))
    return "collective " + collectiveName(G.Kind).str() + " vs " +
           collectiveName(T.Kind).str();
  if (G.NumRanks != T.NumRanks)
    return "ranks " + std::to_string(G.NumRanks) + " vs " +
           std::to_string(T.NumRanks);
  if (G.Groups.size() != T.Groups.size())
    return "number of groups";
  for (size_t K = 0; K < G.Groups.size(); ++K)
    if (G.Groups[K].Name != T.Groups[K].Name ||
        G.Groups[K].Members != T.Groups[K].Members)
      return "group " + G.Groups[K].Name;
  if (G.Sizes.size() != T.Sizes.size())
    return "number of size lists";
  for (size_t K = 0; K < G.Sizes.size(); ++K)
    if (G.Sizes[K].Name != T.Sizes[K].Name ||
        G.Sizes[K].Values != T.Sizes[K].Values)
      return "sizes " + G.Sizes[K].Name;
  if (G.Root != T.Root)
    return "root " + (G.Root ? std::to_string(*G.Root) : "none") + " vs " +
           (T.Root ? std::to_string(*T.Root) : "none");
  if (G.commutative() != T.commutative())
    return "the operator's commutativity";
  if (G.Topo.K != T.Topo.K || ringOrder(G) != ringOrder(T))
    return "topology " + G.Topo.kindName().str() + " vs " +
           T.Topo.kindName().str();
  if (G.Port.Send != T.Port.Send || G.Port.Recv != T.Port.Recv ||
      G.Port.Duplex != T.Port.Duplex)
    return "ports";
  auto GS = opMultisets(G), TS = opMultisets(T);
  for (size_t St = 0; St < std::min(GS.size(), TS.size()); ++St) {
    if (GS[St] == TS[St])
      continue;
    std::vector<std::string> OnlyG, OnlyT;
    std::set_difference(GS[St].begin(), GS[St].end(), TS[St].begin(),
                        TS[St].end(), std::back_inserter(OnlyG));
    std::set_difference(TS[St].begin(), TS[St].end(), GS[St].begin(),
                        GS[St].end(), std::back_inserter(OnlyT));
    return "step " + std::to_string(St) + ": only in the generator: [" +
           listOps(OnlyG) + "], only in the template: [" + listOps(OnlyT) + "]";
  }
  if (GS.size() != TS.size())
    return std::to_string(GS.size()) + " steps vs " + std::to_string(TS.size());
  return "";
}

std::string joinCounts(const std::vector<uint64_t> &V) {
  std::vector<std::string> Parts;
  for (uint64_t X : V)
    Parts.push_back(std::to_string(X));
  return llvm::join(Parts, ",");
}

/// One size setting: generator options and the sizes they stand for.
struct Sizes {
  std::string Options;
  std::vector<uint64_t> A, B;
};

/// Generates Gen at (P, Q) with the template's options and the sizes, and
/// expands template Name with the same sizes; "" if they agree.
std::string compareAt(llvm::StringRef Gen, const GeneratorTemplate &GT,
                      int64_t P, int64_t Q, const Sizes &Sz) {
  std::string Args = "--p " + std::to_string(P) + " --q " + std::to_string(Q) +
                     " " + Sz.Options + " " + GT.Options;
  Schedule G = gen(Gen, Args);
  auto T =
      expandTemplate(builtin(GT.Template), {{"p", P}, {"q", Q}}, Sz.A, Sz.B);
  if (!T)
    return "the expansion fails: " + llvm::toString(T.takeError());
  std::string D = difference(G, *T);
  return D.empty() ? D
                   : Gen.str() + " " + Args + " vs " + GT.Template + ": " + D;
}

/// Stops a sweep after a few reported differences.
constexpr unsigned MaxReported = 5;

} // namespace

TEST(TemplateEquivalence, TheComparisonSeesAOneIndexChange) {
  // Control: ring-senders-first with stage 3's #2 sending one message
  // further down; the comparison must name the step where it differs.
  std::string Text;
  for (auto [N, T] : builtinTemplates())
    if (llvm::StringRef(N) == "ring-senders-first")
      Text = T;
  const std::string Was = "send m[j - 1] from p + q - g - i";
  size_t At = Text.find(Was);
  ASSERT_NE(At, std::string::npos);
  Text.replace(At, Was.size(), "send m[j] from p + q - g - i");
  auto T = parseTemplate(Text, "mutant");
  ASSERT_TRUE(bool(T)) << llvm::toString(T.takeError());
  std::vector<uint64_t> A(8, 1), B(4, 0);
  auto S = expandTemplate(*T, {{"p", 8}, {"q", 4}}, A, B);
  ASSERT_TRUE(bool(S)) << llvm::toString(S.takeError());
  Schedule G = gen("half-allgather-ring", "--p 8 --q 4 --bytes-a 1");
  // Stage 3 starts at step g + p - g = 8; its #2 first sends at i = 1.
  std::string D = difference(G, *S);
  EXPECT_EQ(D.substr(0, 7), "step 9:") << D;
  // Sizes are compared as well.
  std::vector<uint64_t> A2(8, 2);
  auto S2 = expandTemplate(builtin("ring-senders-first"), {{"p", 8}, {"q", 4}},
                           A2, B);
  ASSERT_TRUE(bool(S2));
  EXPECT_EQ(difference(G, *S2), "sizes A");
}

TEST(TemplateEquivalence, KangWithAnotherIntraAllgatherDiffers) {
  // Control: the template's ring allgathers are not Bruck's.
  GeneratorTemplate Bruck{"kang-divisible",
                          "--exchange subgroups --intra bruck"};
  std::vector<uint64_t> A(8, 1), B(2, 4);
  std::string D = compareAt("inter-allgather-kang", Bruck, 8, 2,
                            {"--bytes-a 1 --bytes-b 4", A, B});
  // r = 4 exchange steps, then Bruck sends left where the ring sends right.
  EXPECT_NE(D.find(": step 4: only in the generator: [0>7 B[0,1); 1>0 "),
            std::string::npos)
      << D;
}

/// Every (p, q) in 1..Max.
std::vector<std::pair<int64_t, int64_t>> everyPair(int64_t Max) {
  std::vector<std::pair<int64_t, int64_t>> Out;
  for (int64_t P = 1; P <= Max; ++P)
    for (int64_t Q = 1; Q <= Max; ++Q)
      Out.push_back({P, Q});
  return Out;
}

/// N pairs (p, q) in 1..128 with p or q above 40, drawn by a fixed
/// generator (the sweeps up to 40 take every pair), after the corners
/// (128, 128), (128, 1), (1, 128), (128, 64), (64, 127) and (127, 126).
/// Keep(p, q) filters the draws (Kang: q | p).
std::vector<std::pair<int64_t, int64_t>>
sampledPairs(unsigned N, std::function<bool(int64_t, int64_t)> Keep) {
  std::vector<std::pair<int64_t, int64_t>> Out;
  for (auto [P, Q] : std::initializer_list<std::pair<int64_t, int64_t>>{
           {128, 128}, {128, 1}, {1, 128}, {128, 64}, {64, 127}, {127, 126}})
    if (Keep(P, Q))
      Out.push_back({P, Q});
  uint64_t X = 0x2545F4914F6CDD1Dull;
  while (Out.size() < N) {
    X ^= X << 13, X ^= X >> 7, X ^= X << 17;
    int64_t P = int64_t(X % 128) + 1, Q = int64_t((X >> 32) % 128) + 1;
    if ((P > 40 || Q > 40) && Keep(P, Q))
      Out.push_back({P, Q});
  }
  return Out;
}

/// A ring generator against its templates at each of Pairs.
void sweepRing(llvm::StringRef Id,
               const std::vector<std::pair<int64_t, int64_t>> &Pairs) {
  // Which (p, q) have a template at all: the domains are the statement of
  // what `choreo prove Id` proves.
  unsigned Reported = 0, Compared = 0, Uncovered = 0;
  for (auto [P, Q] : Pairs) {
    std::vector<GeneratorTemplate> Ts = templatesAt(Id, P, Q);
    ASSERT_LE(Ts.size(), 1u)
        << "p=" << P << " q=" << Q << ": the domains overlap";
    if (Ts.empty()) {
      ++Uncovered;
      continue;
    }
    std::vector<uint64_t> Irregular(P), Zeros(Q, 0);
    for (int64_t J = 0; J < P; ++J)
      Irregular[J] = (5 * J + 3) % 7;
    // One byte per sender is also what `gen --template` defaults to.
    auto Unit = unitSizes(builtin(Ts[0].Template), {{"p", P}, {"q", Q}});
    ASSERT_EQ(Unit.first, std::vector<uint64_t>(P, 1));
    ASSERT_EQ(Unit.second, Zeros);
    for (const Sizes &Sz :
         {Sizes{"--bytes-a 1", Unit.first, Unit.second},
          Sizes{"--bytes-a 1K", std::vector<uint64_t>(P, 1024), Zeros},
          Sizes{"--counts-a " + joinCounts(Irregular), Irregular, Zeros}}) {
      std::string D = compareAt(Id, Ts[0], P, Q, Sz);
      ++Compared;
      if (!D.empty()) {
        ADD_FAILURE() << D;
        ASSERT_LT(++Reported, MaxReported);
      }
    }
  }
  EXPECT_EQ(Uncovered, 0u);
  EXPECT_EQ(Compared, 3u * Pairs.size());
}

TEST(TemplateEquivalence, RingEveryPAndQUpTo40) {
  sweepRing("half-allgather-ring", everyPair(40));
}

TEST(TemplateEquivalence, RingOptEveryPAndQUpTo40) {
  sweepRing("half-allgather-ring-opt", everyPair(40));
}

// Above 40, sampled: 30 pairs up to 128 each (issue 27's wider sweep).
TEST(TemplateEquivalence, RingSampledUpTo128) {
  sweepRing("half-allgather-ring",
            sampledPairs(30, [](int64_t, int64_t) { return true; }));
}

TEST(TemplateEquivalence, RingOptSampledUpTo128) {
  sweepRing("half-allgather-ring-opt",
            sampledPairs(30, [](int64_t, int64_t) { return true; }));
}

/// inter-allgather-kang against kang-divisible at each of Pairs (the
/// template must hold exactly where q | p), counting the comparisons in
/// Compared.
void sweepKang(const std::vector<std::pair<int64_t, int64_t>> &Pairs,
               unsigned &Compared) {
  unsigned Reported = 0;
  Compared = 0;
  for (auto [P, Q] : Pairs) {
    std::vector<GeneratorTemplate> Ts =
        templatesAt("inter-allgather-kang", P, Q);
    ASSERT_EQ(Ts.size(), size_t(Q <= P && P % Q == 0))
        << "p=" << P << " q=" << Q;
    if (Ts.empty())
      continue;
    const int64_t R = P / Q;
    // Unit sizes: one byte per A member, r per B member, so that every
    // part mB[j, s] of r is one byte: `gen --template`'s default.
    auto Unit = unitSizes(builtin(Ts[0].Template), {{"p", P}, {"q", Q}});
    ASSERT_EQ(Unit.first, std::vector<uint64_t>(P, 1));
    ASSERT_EQ(Unit.second, std::vector<uint64_t>(Q, R));
    std::vector<uint64_t> IrrA(P), IrrB(Q);
    for (int64_t X = 0; X < P; ++X)
      IrrA[X] = (3 * X + 1) % 5;
    for (int64_t J = 0; J < Q; ++J)
      IrrB[J] = (7 * J + 2) % 11;
    auto Same = [](int64_t N, uint64_t V) {
      return std::vector<uint64_t>(N, V);
    };
    for (const Sizes &Sz :
         {Sizes{"--bytes-a 1 --bytes-b " + std::to_string(R), Unit.first,
                Unit.second},
          Sizes{"--bytes-a 1 --bytes-b 1", Same(P, 1), Same(Q, 1)},
          Sizes{"--bytes-a 7 --bytes-b 5", Same(P, 7), Same(Q, 5)},
          Sizes{"--bytes-a 3 --bytes-b 1000", Same(P, 3), Same(Q, 1000)},
          Sizes{"--counts-a " + joinCounts(IrrA) + " --counts-b " +
                    joinCounts(IrrB),
                IrrA, IrrB}}) {
      std::string D = compareAt("inter-allgather-kang", Ts[0], P, Q, Sz);
      ++Compared;
      if (!D.empty()) {
        ADD_FAILURE() << D;
        ASSERT_LT(++Reported, MaxReported);
      }
    }
  }
}

TEST(TemplateEquivalence, KangEveryQDividingPUpTo40) {
  // 158 pairs q | p <= 40 (the divisor counts of 1..40 add up to 158).
  unsigned Compared;
  sweepKang(everyPair(40), Compared);
  EXPECT_EQ(Compared, 5u * 158u);
}

TEST(TemplateEquivalence, KangSampledUpTo128) {
  // 20 pairs q | p up to 128 with p > 40, and two outside the domain,
  // which must have no template.
  unsigned Compared;
  sweepKang(sampledPairs(
                20, [](int64_t P, int64_t Q) { return Q <= P && P % Q == 0; }),
            Compared);
  EXPECT_EQ(Compared, 5u * 20u);
  sweepKang({{128, 3}, {100, 7}}, Compared);
  EXPECT_EQ(Compared, 0u);
}

/// The generator's arguments for the template's parameters and lets V:
/// GT.Bind's options, or --P for every parameter P.
std::string boundArgs(const GeneratorTemplate &GT, const Template &T,
                      const Env &V) {
  std::string Args;
  if (!*GT.Bind) {
    for (const std::string &P : T.Params)
      Args += " --" + P + " " + std::to_string(V.at(P));
    return Args;
  }
  auto Bs = parseBindings(GT.Bind, GT.Template);
  if (!Bs) {
    ADD_FAILURE() << llvm::toString(Bs.takeError());
    return Args;
  }
  for (const auto &[Name, E] : *Bs) {
    auto X = evalExpr(*E, V, GT.Template);
    if (!X) {
      ADD_FAILURE() << llvm::toString(X.takeError());
      continue;
    }
    Args += " --" + Name + " " + std::to_string(*X);
  }
  return Args;
}

/// Every value of T's parameters with each in [0, Max] that lies in its
/// domain, with the lets.
std::vector<std::pair<Env, Env>> smallValues(const Template &T, int64_t Max) {
  std::vector<std::pair<Env, Env>> Out;
  Env Cur;
  std::function<void(size_t)> Walk = [&](size_t K) {
    if (K == T.Params.size()) {
      auto V = bindParams(T, Cur);
      if (V)
        Out.push_back({Cur, *V});
      else
        llvm::consumeError(V.takeError());
      return;
    }
    for (int64_t X = 0; X <= Max; ++X) {
      Cur[T.Params[K]] = X;
      Walk(K + 1);
    }
  };
  Walk(0);
  return Out;
}

/// Gen against template T (declared as GT) at the parameter values Params
/// (with lets V): with its unit sizes (a vector of 104 bytes for a
/// reduction, in 8-byte elements as the generators' default; a broadcast
/// also with 1001 bytes). Adds the comparisons made to Compared.
void compareDeclared(const Generator &Gen, const GeneratorTemplate &GT,
                     const Template &T, const Env &Params, const Env &V,
                     unsigned &Compared, unsigned &Reported) {
  bool Bcast = specOf(T.Kind).Data == DataKind::Broadcast;
  bool Alltoall = T.Kind == Collective::Alltoall;
  bool Inter =
      llvm::any_of(T.Groups, [](const GroupDecl &G) { return G.Name == "A"; });
  auto [A, B] = unitSizes(T, Params);
  std::vector<std::vector<uint64_t>> SizeSets{A};
  if (Bcast && A.front() < 1001)
    SizeSets.push_back({1001});
  // An alltoall's one size is every block's bytes: 1 and 3.
  if (Alltoall)
    SizeSets.push_back({3});
  // A gather's, scatter's or Bruck allgather's members: irregular sizes
  // too (1, 2, 3, 1, ...).
  if ((T.Kind == Collective::Gather || T.Kind == Collective::Scatter ||
       T.Name.rfind("allgather-bruck", 0) == 0 ||
       T.Name == "allgather-recdbl") &&
      A.size() > 1) {
    std::vector<uint64_t> Irregular;
    for (size_t K = 0; K < A.size(); ++K)
      Irregular.push_back(A[K] * (K % 3 + 1));
    SizeSets.push_back(Irregular);
  }
  for (const std::vector<uint64_t> &Sz : SizeSets) {
    std::string Args = boundArgs(GT, T, V);
    uint64_t Elem = 1;
    std::vector<uint64_t> SA = Sz;
    if (T.isReduction()) {
      SA = {104};
      Elem = 8;
      Args += " --bytes 104";
    } else if (specOf(T.Kind).NoPayload) {
      // A barrier's sizes are one byte per rank, not an option.
    } else if (Bcast || Alltoall) {
      Args += " --bytes " + std::to_string(Sz.front());
    } else if (!Inter) {
      Args += " --counts " + joinCounts(Sz);
    } else {
      Args += " --counts-a " + joinCounts(Sz);
      if (llvm::any_of(B, [](uint64_t X) { return X != 0; }))
        Args += " --counts-b " + joinCounts(B);
    }
    Args += std::string(" ") + GT.Options;
    Schedule G = gen(Gen.id(), Args);
    auto S = expandTemplate(T, Params, SA, B, TemplateOpBudget, Elem);
    ASSERT_TRUE(bool(S)) << GT.Template << ": "
                         << llvm::toString(S.takeError());
    std::string D = difference(G, *S);
    ++Compared;
    if (!D.empty()) {
      ADD_FAILURE() << Gen.id().str() << Args << " vs " << GT.Template << ": "
                    << D;
      ASSERT_LT(++Reported, MaxReported);
    }
  }
}

TEST(TemplateEquivalence, EveryDeclaredPairAtSmallParameters) {
  // Whichever generator declares a template is compared with it: every
  // value of the template's parameters in [0, 8] in its domain, its
  // options bound as the declaration says (GeneratorTemplate::Bind).
  unsigned Reported = 0;
  std::map<std::string, unsigned> Compared;
  for (const Generator *Gen : allGenerators())
    for (const GeneratorTemplate &GT : Gen->templates()) {
      const Template &T = builtin(GT.Template);
      for (const auto &[Params, V] : smallValues(T, 8)) {
        compareDeclared(*Gen, GT, T, Params, V, Compared[GT.Template],
                        Reported);
        if (Reported >= MaxReported)
          return;
      }
    }
  // Every declared template is compared somewhere, the broadcasts' and
  // the uniform allgatherv's too (the hierarchical ones at every G, n <= 8,
  // every root: 1296 values, each with two sizes).
  for (const Generator *Gen : allGenerators())
    for (const GeneratorTemplate &GT : Gen->templates())
      EXPECT_GT(Compared[GT.Template], 0u) << GT.Template;
  EXPECT_EQ(Compared["bcast-hier-flat"], 2u * 1296u);
  EXPECT_EQ(Compared["bcast-hier-chain"], 2u * 1296u);
  EXPECT_EQ(Compared["allgatherv-ring-uniform"], 8u);
  // p = 2^k for k = 0..8 (p <= 256), against `--op noncommutative`; the
  // fold's p = 2^k + m for k, m in 1..8, 1 <= m < 2^k (51 values).
  EXPECT_EQ(Compared["allreduce-recursive-doubling"], 9u);
  EXPECT_EQ(Compared["allreduce-recursive-doubling-fold"], 51u);
  // Halving-doubling at p = 2^k, k <= 8: bit-reversed segments, stale
  // partials (docs/templates.md, "Halving and doubling").
  EXPECT_EQ(Compared["allreduce-halving-doubling"], 9u);
  EXPECT_EQ(Compared["allreduce-halving-doubling-fold"], 51u);
  for (const char *Name : {"bcast-flat", "bcast-chain", "bcast-pipeline"})
    EXPECT_GT(Compared[Name], 70u) << Name;
  // Issue 25's loop nests: p in 1..8 (every root; a gather or scatter
  // also with irregular slices, an alltoall with 1- and 3-byte blocks),
  // and the pairwise shift at p = 2^k + m, k, m in 1..8 (51 values).
  EXPECT_EQ(Compared["scan-chain"], 8u);
  // The recursive-doubling scan and exscan (two accumulators) at p = 2^k,
  // k <= 8.
  EXPECT_EQ(Compared["scan-recursive-doubling"], 9u);
  EXPECT_EQ(Compared["exscan-recursive-doubling"], 9u);
  // Bruck's allgather and the dissemination barrier at p = 2^k, k <= 8,
  // and p = 2^k + m, k, m in 1..8 (51 values); the allgather also with
  // irregular contributions.
  EXPECT_EQ(Compared["allgather-bruck"], 9u + 8u);
  EXPECT_EQ(Compared["allgather-bruck-fold"], 2u * 51u);
  EXPECT_EQ(Compared["barrier-dissemination"], 9u);
  EXPECT_EQ(Compared["barrier-dissemination-fold"], 51u);
  // Issue 27: the recursive-doubling allgather at p = 2^k, k <= 8 (also
  // with irregular contributions), the recursive-doubling barrier there
  // and at p = 2^k + m (51 values), the binomial gather and scatter at
  // p = 2^k and p = 2^k + m (every root <= 8 below p), each also with
  // irregular slices.
  EXPECT_EQ(Compared["allgather-recdbl"], 9u + 8u);
  EXPECT_EQ(Compared["barrier-recursive-doubling"], 9u);
  EXPECT_EQ(Compared["barrier-recursive-doubling-fold"], 51u);
  // k <= 8 and root <= 8 below p: 60 values at p = 2^k (59 with p >= 2
  // also irregular), 444 at p = 2^k + m.
  for (const char *Name : {"gather-binomial", "scatter-binomial"})
    EXPECT_EQ(Compared[Name], 60u + 59u) << Name;
  for (const char *Name : {"gather-binomial-fold", "scatter-binomial-fold"})
    EXPECT_EQ(Compared[Name], 2u * 444u) << Name;
  EXPECT_EQ(Compared["alltoall-linear"], 2u * 8u);
  EXPECT_EQ(Compared["alltoall-pairwise-shift"], 2u * 51u);
  // Issue 27: the pairwise exchange's XOR partners at p = 2^k, k <= 8.
  EXPECT_EQ(Compared["alltoall-pairwise-xor"], 2u * 9u);
  // Bruck's alltoall, radix 2, at p = 2^k, k <= 8.
  EXPECT_EQ(Compared["alltoall-bruck"], 2u * 9u);
  EXPECT_EQ(Compared["gather-linear"], 36u + 35u);
  EXPECT_EQ(Compared["scatter-linear"], 36u + 35u);
}

TEST(TemplateEquivalence, EveryDeclaredPairSampledUpTo128) {
  // Above the exhaustive [0, 8]: 12 values of each declared template's
  // parameters drawn from [0, 128] (a fixed generator), those in its
  // domain whose schedule has at most 200,000 ops.
  unsigned Reported = 0;
  for (const Generator *Gen : allGenerators())
    for (const GeneratorTemplate &GT : Gen->templates()) {
      const Template &T = builtin(GT.Template);
      uint64_t X =
          0x9E3779B97F4A7C15ull ^ std::hash<std::string>()(GT.Template);
      unsigned Compared = 0, Draws = 0;
      while (Compared < 12 && Draws++ < 20000) {
        Env Params;
        for (const std::string &P : T.Params) {
          X ^= X << 13, X ^= X >> 7, X ^= X << 17;
          Params[P] = int64_t(X % 129);
        }
        auto V = bindParams(T, Params);
        if (!V) {
          llvm::consumeError(V.takeError());
          continue;
        }
        if (auto E = checkTemplateBudget(T, Params, 200000)) {
          llvm::consumeError(std::move(E));
          continue;
        }
        unsigned Before = Compared;
        compareDeclared(*Gen, GT, T, Params, *V, Compared, Reported);
        if (Reported >= MaxReported)
          return;
        // Compared with several sizes: count values, not sizes.
        Compared = Before + 1;
      }
      EXPECT_EQ(Compared, 12u)
          << GT.Template << ": only " << Compared << " values in the domain in "
          << Draws << " draws";
    }
}
