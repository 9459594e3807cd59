//===- verifier/smt/GatherObligations.cpp - Gather-type obligations -------===//
///
/// \file
/// The obligations of a gather-type or bcast template beyond those of
/// every template: availability (every op's sender is the message's origin
/// or received it in an earlier step), its goals (every goal rank receives
/// every goal message), and its ties to the collective's spec: every
/// message starts where the collective's initial holdings put it
/// (`origin`), and the goals are the collective's completeness rule
/// (`completeness R gets G`), every part of a message cut into parts
/// (`parts R gets G`). Availability and completeness quantify
/// existentially over the ops that could deliver a message.
///
//===----------------------------------------------------------------------===//

#include "verifier/smt/TemplateQueries.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <set>

using namespace choreo;
using namespace choreo::smt;
using llvm::formatv;

/// What a witnessed form takes: the witnesses, the holds, or both.
static std::string aidName(bool Witnesses, bool Holds) {
  if (Witnesses && Holds)
    return "the template's witnesses and holds";
  return Holds ? "the template's holds" : "the template's witnesses";
}

/// Availability: the sender is the origin or received the message in an
/// earlier step, from any op line of the same family. With witnesses (the
/// op line's `by` lines), first without a quantifier: one of the named ops
/// at the given values delivers, or (the stage has `holds` lines of the
/// family, proved by holdsQueries) the sender holds it at the op's step.
void QueryBuilder::availabilityQuery(unsigned K, const OpGen &G,
                                     std::vector<Query> &Qs) {
  const MessageFamily &F = *T.family(G.Family);
  Query Q;
  Q.O.Kind = "availability";
  Q.O.Name = formatv("availability {0}", G.Label);
  Q.O.Claim =
      formatv("the sender of every op of {0} holds its message", G.Label);
  auto Holder = std::make_shared<std::vector<Inst>>();
  auto Build = [=, this, &G, &F](TemplateEncoder &E, bool Witnessed) {
    Holder->clear();
    Holder->push_back(E.instantiate(K, G, "@1"));
    Inst &A = (*Holder)[0];
    std::vector<z3::expr> Earlier;
    unsigned Tag = 2;
    if (Witnessed) {
      for (const Witness &W : G.By)
        Earlier.push_back(witnessed(E, W, A.S, A.Src, A.Msg, A.Step, Tag++));
      // The stage's holds (proved by the holds obligations): the sender
      // holds the message at the op's step.
      if (E.hasHoldsSet(K, G.Family))
        Earlier.push_back(
            E.holdsSet(K, G.Family, A.Vars[0], A.Src, A.Msg, A.S).Has);
    } else {
      for (unsigned K2 = 0; K2 < T.Stages.size(); ++K2)
        for (const OpGen &G2 : T.Stages[K2].Ops) {
          if (G2.Family != G.Family)
            continue;
          Inst B = E.instantiate(K2, G2, formatv("@{0}", Tag++).str());
          std::vector<z3::expr> Same{B.Step < A.Step, B.Dst == A.Src};
          for (size_t X = 0; X < A.Msg.size(); ++X)
            Same.push_back(B.Msg[X] == A.Msg[X]);
          Earlier.push_back(E.exists(B, E.conj(Same)));
        }
    }
    z3::expr Origin = E.origin(F, A.Msg, A.S);
    std::vector<z3::expr> All{A.Exists, A.BundleRange, A.Src != Origin,
                              !E.disj(Earlier)};
    All.insert(All.end(), A.S.Side.begin(), A.S.Side.end());
    return E.conj(All);
  };
  Q.Build = [Build](TemplateEncoder &E) { return Build(E, false); };
  bool Holds = llvm::any_of(T.Stages[K].Holds, [&](const HoldsCase &H) {
    return H.isSet() && H.Family == G.Family;
  });
  if (!G.By.empty() || Holds)
    Q.Witnessed = [Build](TemplateEncoder &E) { return Build(E, true); };
  Q.WitnessedBy = aidName(!G.By.empty(), Holds);
  Q.Decode = [Holder](TemplateEncoder &E, z3::model &M, Obligation &O) {
    decodeInst(E, M, (*Holder)[0], O);
  };
  Qs.push_back(std::move(Q));
}

void QueryBuilder::goalQuery(size_t GI, std::vector<Query> &Qs) {
  const Goal &Gl = T.Goals[GI];
  const MessageFamily &F = *T.family(Gl.Family);
  Query Q;
  Q.O.Kind = "completeness";
  Q.O.Name = formatv("completeness goal {0}", GI + 1);
  Q.O.Claim = formatv("every rank of [{0}, {1}) receives every {2}",
                      Gl.Lo->str(), Gl.Hi->str(), F.Name);
  auto Vars = std::make_shared<std::vector<z3::expr>>();
  auto Build = [=, this, &Gl, &F](TemplateEncoder &E, bool Witnessed) {
    Scope S;
    S.Vars = E.Top.Vars;
    Vars->clear();
    z3::expr R = E.C.int_const("rank@goal");
    Vars->push_back(R);
    std::vector<z3::expr> Idx;
    for (const Range &Rg : Gl.Index.empty() ? F.Index : Gl.Index) {
      z3::expr V = E.C.int_const((Rg.Var + "@goal").c_str());
      Idx.push_back(V);
      Vars->push_back(V);
    }
    std::vector<z3::expr> All{R >= E.enc(*Gl.Lo, S), R < E.enc(*Gl.Hi, S)};
    S.Vars.insert_or_assign("rank", R); // the index ranges may name it
    for (const z3::expr &X : E.goalIndexInRange(Gl, F, Idx, S))
      All.push_back(X);
    All.push_back(R != E.origin(F, Idx, S));
    std::vector<z3::expr> Deliver;
    unsigned Tag = 1;
    if (Witnessed) {
      // The witnesses' names: the goal's rank and indices.
      Scope At = S;
      At.Vars.insert_or_assign("rank", R);
      const std::vector<Range> &Rs = Gl.Index.empty() ? F.Index : Gl.Index;
      for (size_t K = 0; K < Rs.size(); ++K)
        At.Vars.insert_or_assign(Rs[K].Var, Idx[K]);
      for (const Witness &W : Gl.By)
        Deliver.push_back(witnessed(E, W, At, R, Idx, std::nullopt, Tag++));
      S.keepSide(At);
      // The last stage with holds of the family, at its end, and any op
      // of a later stage.
      if (int Kh = lastHoldsStage(Gl.Family); Kh >= 0) {
        Deliver.push_back(
            E.holdsSet(Kh, Gl.Family, E.StageSteps[Kh], R, Idx, S).Has);
        for (unsigned K2 = Kh + 1; K2 < T.Stages.size(); ++K2)
          for (const OpGen &G2 : T.Stages[K2].Ops) {
            if (G2.Family != Gl.Family)
              continue;
            Inst B = E.instantiate(K2, G2, formatv("@d{0}", Tag++).str());
            std::vector<z3::expr> Same{B.Dst == R};
            for (size_t X = 0; X < Idx.size(); ++X)
              Same.push_back(B.Msg[X] == Idx[X]);
            Deliver.push_back(E.exists(B, E.conj(Same)));
          }
      }
    } else {
      for (unsigned K2 = 0; K2 < T.Stages.size(); ++K2)
        for (const OpGen &G2 : T.Stages[K2].Ops) {
          if (G2.Family != Gl.Family)
            continue;
          Inst B = E.instantiate(K2, G2, formatv("@d{0}", Tag++).str());
          std::vector<z3::expr> Same{B.Dst == R};
          for (size_t X = 0; X < Idx.size(); ++X)
            Same.push_back(B.Msg[X] == Idx[X]);
          Deliver.push_back(E.exists(B, E.conj(Same)));
        }
    }
    All.push_back(!E.disj(Deliver));
    All.insert(All.end(), S.Side.begin(), S.Side.end());
    return E.conj(All);
  };
  Q.Build = [Build](TemplateEncoder &E) { return Build(E, false); };
  if (!Gl.By.empty() || lastHoldsStage(Gl.Family) >= 0)
    Q.Witnessed = [Build](TemplateEncoder &E) { return Build(E, true); };
  Q.WitnessedBy = aidName(!Gl.By.empty(), lastHoldsStage(Gl.Family) >= 0);
  Q.Decode = [Vars, &Gl, &F](TemplateEncoder &E, z3::model &M, Obligation &O) {
    for (const std::string &P : E.T.Params)
      O.Model[P] = M.eval(E.param(P), true).get_numeral_int64();
    O.Rank = M.eval((*Vars)[0], true).get_numeral_int64();
    const std::vector<Range> &Rs = Gl.Index.empty() ? F.Index : Gl.Index;
    for (size_t K = 0; K < Rs.size(); ++K)
      O.Model[Rs[K].Var] = M.eval((*Vars)[K + 1], true).get_numeral_int64();
  };
  Qs.push_back(std::move(Q));
}

/// Witness W as a formula without quantifiers (where it gives every
/// variable of its op): the op line W names, its variables set to W's
/// expressions (encoded in At) and a message index that is a variable of
/// the op and not given set to the message's, exists, sends message Msg to
/// Dst, before step Before if given. The op's own side constraints (the
/// quotients of its divisions) go to At, outside the negation: they hold
/// for some value of their fresh variables whatever the rest, so that a
/// counterexample of the quantified obligation is one of this one too.
z3::expr QueryBuilder::witnessed(TemplateEncoder &E, const Witness &W,
                                 Scope &At, const z3::expr &Dst,
                                 const std::vector<z3::expr> &Msg,
                                 std::optional<z3::expr> Before, unsigned Tag) {
  unsigned K2 = 0;
  const OpGen *By = nullptr;
  for (unsigned K = 0; K < T.Stages.size(); ++K)
    for (const OpGen &O : T.Stages[K].Ops)
      if (O.Label == W.Op) {
        K2 = K;
        By = &O;
      }
  // checkWitnesses found it.
  Inst B = E.instantiate(K2, *By, formatv("@w{0}", Tag).str());
  z3::expr_vector From(E.C), To(E.C);
  std::set<std::string> Given;
  for (const auto &[Var, X] : W.Assign) {
    From.push_back(B.S.Vars.at(Var));
    To.push_back(E.enc(*X, At));
    Given.insert(Var);
  }
  std::vector<std::string> Own;
  for (const Range &R : By->Loops)
    Own.push_back(R.Var);
  for (const Range &R : By->Bundle)
    Own.push_back(R.Var);
  for (size_t K = 0; K < By->MsgIndex.size(); ++K) {
    const Expr &X = *By->MsgIndex[K];
    if (X.K == Expr::Kind::Var && llvm::is_contained(Own, X.Name) &&
        Given.insert(X.Name).second) {
      From.push_back(B.S.Vars.at(X.Name));
      To.push_back(Msg[K]);
    }
  }
  std::vector<z3::expr> Conds{B.Exists, B.BundleRange, B.Dst == Dst};
  for (size_t K = 0; K < Msg.size(); ++K)
    Conds.push_back(B.Msg[K] == Msg[K]);
  if (Before)
    Conds.push_back(B.Step < *Before);
  z3::expr_vector Free(E.C);
  if (!Given.count("i"))
    Free.push_back(B.Vars.front());
  for (const std::string &V : Own)
    if (!Given.count(V))
      Free.push_back(B.S.Vars.at(V));
  if (Free.empty()) {
    for (z3::expr X : B.S.Side)
      At.Side.push_back(X.substitute(From, To));
    return E.conj(Conds).substitute(From, To);
  }
  // Variables the witness leaves open stay quantified, with the side
  // constraints that mention them.
  for (const z3::expr &V : B.S.Fresh)
    Free.push_back(V);
  Conds.insert(Conds.end(), B.S.Side.begin(), B.S.Side.end());
  return z3::exists(Free, E.conj(Conds)).substitute(From, To);
}

bool QueryBuilder::hasHolds(unsigned K, const std::string &F) const {
  return llvm::any_of(T.Stages[K].Holds, [&](const HoldsCase &H) {
    return H.isSet() && H.Family == F;
  });
}

int QueryBuilder::lastHoldsStage(const std::string &F) const {
  for (unsigned K = T.Stages.size(); K-- > 0;)
    for (const HoldsCase &H : T.Stages[K].Holds)
      if (H.isSet() && H.Family == F)
        return K;
  return -1;
}

/// A gather-type template's holds, by induction over the steps of each
/// stage that has `holds` lines of family F: they are defined (`holds`),
/// what step 0 holds was held before the stage (`initial`: the origin, the
/// previous stage's holds at its end, or an op of an earlier step
/// delivered it), and what step i + 1 holds was held at step i or
/// delivered by an op of the stage in step i (`frame`). Together: every
/// rank holds at the start of each step what the lines say, which
/// availability and the goals then take (their witnessed form).
void QueryBuilder::holdsQueries(std::vector<Query> &Qs) {
  for (unsigned K = 0; K < T.Stages.size(); ++K)
    for (const MessageFamily &F : T.Messages) {
      const Stage &St = T.Stages[K];
      if (!llvm::any_of(St.Holds, [&](const HoldsCase &H) {
            return H.isSet() && H.Family == F.Name;
          }))
        continue;
      std::string Of = T.Messages.size() > 1 ? " " + F.Name : "";
      // A point (i, rank, idx) of stage K, named for the decoder.
      auto Point = [this, K, &F](TemplateEncoder &E, Named &Vars,
                                 std::vector<z3::expr> &Conds, Scope &S,
                                 bool Before) {
        z3::expr I = E.C.int_const("i@h"), R = E.C.int_const("rank@h");
        Vars.push_back({"i", I});
        Vars.push_back({"rank", R});
        std::vector<z3::expr> Idx;
        for (const Range &Rg : F.Index) {
          Idx.push_back(E.C.int_const((Rg.Var + "@h").c_str()));
          Vars.push_back({Rg.Var, Idx.back()});
        }
        Conds.push_back(I >= 0);
        Conds.push_back(Before ? I < E.StageSteps[K] : I <= E.StageSteps[K]);
        Conds.push_back(R >= 0);
        Conds.push_back(R < E.ranks());
        Conds.push_back(E.indexInRange(F, Idx, S));
        return std::make_pair(std::make_pair(I, R), Idx);
      };
      freeQuery(
          "holds", formatv("holds {0}{1}", St.Name, Of),
          formatv("the holds of {0}[...] in {1} are defined at every step",
                  F.Name, St.Name),
          [=, this, &F](TemplateEncoder &E, Named &Vars) {
            Scope S;
            S.Vars = E.Top.Vars;
            std::vector<z3::expr> All;
            auto [IR, Idx] = Point(E, Vars, All, S, false);
            All.push_back(
                E.holdsSet(K, F.Name, IR.first, IR.second, Idx, S).Bad);
            All.insert(All.end(), S.Side.begin(), S.Side.end());
            return E.conj(All);
          },
          Qs);
      bool Link = K > 0 && hasHolds(K - 1, F.Name);
      freeQuery(
          Link ? "link" : "initial",
          Link ? formatv("link {0} {1}{2}", T.Stages[K - 1].Name, St.Name, Of)
                     .str()
               : formatv("initial {0}{1}", St.Name, Of).str(),
          Link ? formatv("what {0} holds of {1}[...] at its start, {2} held "
                         "at its end",
                         St.Name, F.Name, T.Stages[K - 1].Name)
                     .str()
               : formatv("what {0} holds of {1}[...] at its start is the "
                         "rank's own or was delivered before",
                         St.Name, F.Name)
                     .str(),
          [=, this, &F](TemplateEncoder &E, Named &Vars) {
            Scope S;
            S.Vars = E.Top.Vars;
            std::vector<z3::expr> All;
            auto [IR, Idx] = Point(E, Vars, All, S, false);
            auto [I, R] = IR;
            All.push_back(I == 0);
            All.push_back(E.holdsSet(K, F.Name, I, R, Idx, S).Has);
            All.push_back(R != E.origin(F, Idx, S));
            if (Link) {
              All.push_back(
                  !E.holdsSet(K - 1, F.Name, E.StageSteps[K - 1], R, Idx, S)
                       .Has);
            } else {
              std::vector<z3::expr> Earlier;
              unsigned Tag = 1;
              for (unsigned K2 = 0; K2 < K; ++K2)
                for (const OpGen &G2 : T.Stages[K2].Ops) {
                  if (G2.Family != F.Name)
                    continue;
                  Inst B = E.instantiate(K2, G2, formatv("@e{0}", Tag++).str());
                  std::vector<z3::expr> Same{B.Dst == R};
                  for (size_t X = 0; X < Idx.size(); ++X)
                    Same.push_back(B.Msg[X] == Idx[X]);
                  Earlier.push_back(E.exists(B, E.conj(Same)));
                }
              All.push_back(!E.disj(Earlier));
            }
            All.insert(All.end(), S.Side.begin(), S.Side.end());
            return E.conj(All);
          },
          Qs);
      auto Frame = [=, this, &F, &St](TemplateEncoder &E, Named &Vars,
                                      bool Witnessed) {
        Scope S;
        S.Vars = E.Top.Vars;
        std::vector<z3::expr> All;
        auto [IR, Idx] = Point(E, Vars, All, S, true);
        auto [I, R] = IR;
        All.push_back(E.holdsSet(K, F.Name, I + 1, R, Idx, S).Has);
        All.push_back(!E.holdsSet(K, F.Name, I, R, Idx, S).Has);
        std::vector<z3::expr> Deliver;
        unsigned Tag = 1;
        if (Witnessed) {
          // The holds lines' witnesses: an op of step i or earlier
          // delivers the message.
          for (const HoldsCase &H : St.Holds) {
            if (!H.isSet() || H.Family != F.Name)
              continue;
            Scope At = S;
            At.Vars.insert_or_assign("i", I);
            At.Vars.insert_or_assign(H.RankVar, R);
            for (size_t X = 0; X < H.IndexVars.size(); ++X)
              At.Vars.insert_or_assign(H.IndexVars[X], Idx[X]);
            for (const Witness &W : H.By)
              Deliver.push_back(
                  witnessed(E, W, At, R, Idx, E.StageOffset[K] + I + 1, Tag++));
            S.keepSide(At);
          }
          All.push_back(!E.disj(Deliver));
          All.insert(All.end(), S.Side.begin(), S.Side.end());
          return E.conj(All);
        }
        for (const OpGen &G2 : St.Ops) {
          if (G2.Family != F.Name)
            continue;
          // The point's step, not a variable of the existential: an
          // exponent pow2(i) stays free (Pow2Digits.h).
          Inst B = E.instantiate(K, G2, formatv("@d{0}", Tag++).str(), I);
          std::vector<z3::expr> Same{B.Dst == R};
          for (size_t X = 0; X < Idx.size(); ++X)
            Same.push_back(B.Msg[X] == Idx[X]);
          Deliver.push_back(E.exists(B, E.conj(Same)));
        }
        All.push_back(!E.disj(Deliver));
        All.insert(All.end(), S.Side.begin(), S.Side.end());
        return E.conj(All);
      };
      bool Witnesses = llvm::any_of(St.Holds, [&](const HoldsCase &H) {
        return H.isSet() && H.Family == F.Name && !H.By.empty();
      });
      freeQuery(
          "frame", formatv("frame {0}{1}", St.Name, Of),
          formatv("in {0} a rank holds {1}[...] at step i + 1 only if it "
                  "held it at step i or an op delivered it in step i",
                  St.Name, F.Name),
          [Frame](TemplateEncoder &E, Named &Vars) {
            return Frame(E, Vars, false);
          },
          Qs,
          Witnesses ? std::function<z3::expr(TemplateEncoder &, Named &)>(
                          [Frame](TemplateEncoder &E, Named &Vars) {
                            return Frame(E, Vars, true);
                          })
                    : nullptr);
    }
}

bool QueryBuilder::isBcast() const {
  return specOf(T.Kind).Data == DataKind::Broadcast;
}

bool QueryBuilder::isScatter() const {
  return specOf(T.Kind).Data == DataKind::Scatter;
}

/// The first message family of buffer Buf cut into parts, or null.
const MessageFamily *QueryBuilder::partedFamily(llvm::StringRef Buf) const {
  for (const MessageFamily &F : T.Messages)
    if (F.Group == Buf && F.Part)
      return &F;
  return nullptr;
}

/// The declared range [Lo, Hi) of group G.
const GroupDecl *QueryBuilder::groupDecl(llvm::StringRef G) const {
  for (const GroupDecl &D : T.Groups)
    if (D.Name == G)
      return &D;
  return nullptr;
}

/// (receiving group, buffer) pairs the collective's completeness rule
/// requires (checkAgainstSpec admits gather-type rules only).
std::vector<std::pair<std::string, std::string>>
QueryBuilder::specGoals() const {
  // A gather: the root gets all of buffer all; a scatter: every rank its
  // own member's slice; an alltoall: every rank its column (coverQuery).
  ResultRule Rule = specOf(T.Kind).Result;
  if (rootReceives() || Rule == ResultRule::OwnSegment ||
      Rule == ResultRule::Column)
    return {{"all", "all"}};
  return completenessGoals(T.Kind);
}

bool QueryBuilder::rootReceives() const {
  const CollectiveSpec &Spec = specOf(T.Kind);
  return Spec.isGatherType() && Spec.Rooted;
}

/// Message F[idx] is member(idx)'s own contribution, so it originates at
/// that member's rank: the collective's initial holdings, not the
/// template's say-so.
void QueryBuilder::originQuery(const MessageFamily &F, std::vector<Query> &Qs) {
  // parseTemplate's checkAgainstSpec declares every group a family names.
  if (!groupDecl(F.Group))
    return;
  Query Q;
  Q.O.Kind = "origin";
  Q.O.Name = formatv("origin {0}", F.Name);
  Q.O.Claim = isBcast() || isScatter()
                  ? formatv("every {0}[...] starts at the root, {1}, a "
                            "rank of group {2}{3}",
                            F.Name, T.Root->str(), F.Group,
                            isScatter() ? ", and is a member's slice" : "")
                        .str()
                  : formatv("every {0}[...] starts at the rank of member "
                            "{1} of group {2}",
                            F.Name, F.Member->str(), F.Group)
                        .str();
  auto Vars = std::make_shared<std::vector<z3::expr>>();
  Q.Build = [=, this, &F](TemplateEncoder &E) {
    Scope S;
    S.Vars = E.Top.Vars;
    Vars->clear();
    std::vector<z3::expr> Idx;
    for (const Range &Rg : F.Index) {
      z3::expr V = E.C.int_const((Rg.Var + "@origin").c_str());
      Idx.push_back(V);
      Vars->push_back(V);
    }
    std::vector<z3::expr> All{E.indexInRange(F, Idx, S)};
    z3::expr Origin = E.origin(F, Idx, S);
    z3::expr Member = E.member(F, Idx, S);
    const GroupDecl *G = groupDecl(F.Group);
    z3::expr Lo = E.enc(*G->Lo, S), Hi = E.enc(*G->Hi, S);
    if (isBcast()) {
      // The vector is the root's (checkAgainstSpec: member 0).
      z3::expr Root = E.enc(*T.Root, S);
      All.push_back(Root < Lo || Root >= Hi || Origin != Root);
    } else if (isScatter()) {
      // Every member's slice starts at the root.
      z3::expr Root = E.enc(*T.Root, S);
      All.push_back(Root < Lo || Root >= Hi || Member < 0 ||
                    Lo + Member >= Hi || Origin != Root);
    } else {
      All.push_back(Member < 0 || Lo + Member >= Hi || Origin != Lo + Member);
    }
    All.insert(All.end(), S.Side.begin(), S.Side.end());
    return E.conj(All);
  };
  Q.Decode = [Vars, &F](TemplateEncoder &E, z3::model &M, Obligation &O) {
    for (const std::string &P : E.T.Params)
      O.Model[P] = M.eval(E.param(P), true).get_numeral_int64();
    for (size_t K = 0; K < F.Index.size(); ++K)
      O.Model[F.Index[K].Var] = M.eval((*Vars)[K], true).get_numeral_int64();
  };
  Qs.push_back(std::move(Q));
}

/// The collective's completeness rule against the goals: every rank of
/// group Receivers is the goal rank of some goal delivering member m of
/// buffer Buffer, for every member m it does not contribute itself. (With
/// `part s of N` families, one part per member is what this checks; the
/// goal obligations then deliver the parts the goals name.)
void QueryBuilder::coverQuery(const std::string &Receivers,
                              const std::string &Buffer,
                              std::vector<Query> &Qs) {
  if (!groupDecl(Receivers) || !groupDecl(Buffer))
    return;
  Query Q;
  Q.O.Kind = "completeness";
  Q.O.Name = formatv("completeness {0} gets {1}", Receivers, Buffer);
  Q.O.Claim = formatv("the goals give every rank of group {0} every "
                      "member's message of buffer {1} ({2})",
                      rootReceives() ? "all that is the root" : Receivers,
                      Buffer, specOf(T.Kind).Rule);
  auto Vars = std::make_shared<std::vector<z3::expr>>();
  Q.Build = [=, this](TemplateEncoder &E) {
    Scope S;
    S.Vars = E.Top.Vars;
    Vars->clear();
    z3::expr R = E.C.int_const("rank@cover");
    z3::expr M = E.C.int_const("member@cover");
    Vars->push_back(R);
    Vars->push_back(M);
    const GroupDecl *GR = groupDecl(Receivers), *GB = groupDecl(Buffer);
    z3::expr RLo = E.enc(*GR->Lo, S), RHi = E.enc(*GR->Hi, S);
    z3::expr BLo = E.enc(*GB->Lo, S), BHi = E.enc(*GB->Hi, S);
    // A broadcast: every rank but the root gets member 0 (the root's
    // vector); its parts are the `parts` obligation's.
    std::vector<z3::expr> All{R >= RLo, R < RHi, M >= 0};
    // A gather: the root is a rank of the group, and it receives.
    std::optional<z3::expr> RootOut;
    if (rootReceives()) {
      z3::expr Root = E.enc(*T.Root, S);
      RootOut = Root < RLo || Root >= RHi;
      All.push_back(R == Root);
    }
    ResultRule Rule = specOf(T.Kind).Result;
    if (isBcast()) {
      All.push_back(M == 0);
      All.push_back(R != E.enc(*T.Root, S));
    } else if (Rule == ResultRule::OwnSegment) {
      // A scatter: rank R gets its own member's slice (the root has all).
      All.push_back(R == BLo + M);
      All.push_back(R != E.enc(*T.Root, S));
    } else {
      All.push_back(BLo + M < BHi);
      All.push_back(R != BLo + M);
    }
    std::vector<z3::expr> Covered;
    unsigned Tag = 1;
    for (const Goal &Gl : T.Goals) {
      const MessageFamily &F = *T.family(Gl.Family);
      if (F.Group != Buffer)
        continue;
      Scope GS = S;
      GS.Fresh.clear();
      GS.Side.clear();
      std::string Suffix = formatv("@cover{0}", Tag++).str();
      std::vector<z3::expr> Idx,
          Conds{R >= E.enc(*Gl.Lo, GS), R < E.enc(*Gl.Hi, GS)};
      GS.Vars.insert_or_assign("rank", R);
      for (const Range &Rg : Gl.Index.empty() ? F.Index : Gl.Index)
        Idx.push_back(E.C.int_const((Rg.Var + Suffix).c_str()));
      for (const z3::expr &X : E.goalIndexInRange(Gl, F, Idx, GS))
        Conds.push_back(X);
      Conds.push_back(E.member(F, Idx, GS) == M);
      if (Rule == ResultRule::Column) {
        // An alltoall: rank R gets block (M, R), part R - lo of the P
        // blocks of M's row (checkAgainstSpec: every family has parts).
        Scope PS = GS;
        for (size_t K = 0; K < F.Index.size(); ++K)
          PS.Vars.insert_or_assign(F.Index[K].Var, Idx[K]);
        Conds.push_back(E.enc(*F.Part, PS) == R - BLo);
        Conds.push_back(E.enc(*F.Parts, PS) == BHi - BLo);
        GS.keepSide(PS);
      }
      Conds.insert(Conds.end(), GS.Side.begin(), GS.Side.end());
      z3::expr_vector Bound(E.C);
      for (const z3::expr &V : Idx)
        Bound.push_back(V);
      for (const z3::expr &V : GS.Fresh)
        Bound.push_back(V);
      Covered.push_back(Bound.empty() ? E.conj(Conds)
                                      : z3::exists(Bound, E.conj(Conds)));
    }
    All.push_back(!E.disj(Covered));
    z3::expr Bad = E.conj(All);
    if (RootOut)
      Bad = Bad || *RootOut;
    std::vector<z3::expr> Out{Bad};
    Out.insert(Out.end(), S.Side.begin(), S.Side.end());
    return E.conj(Out);
  };
  Q.Decode = [Vars](TemplateEncoder &E, z3::model &M, Obligation &O) {
    for (const std::string &P : E.T.Params)
      O.Model[P] = M.eval(E.param(P), true).get_numeral_int64();
    O.Rank = M.eval((*Vars)[0], true).get_numeral_int64();
    O.Model["member"] = M.eval((*Vars)[1], true).get_numeral_int64();
  };
  Qs.push_back(std::move(Q));
}

/// Where buffer Buffer's messages are cut into parts: every rank of group
/// Receivers gets every part. For every message PF[idx0] of the parted
/// family, of member M cut into N parts, and every part 0 <= s < N, some
/// goal delivers a message of member M that is part s of N (or a family's
/// whole contribution of M). A family that lacks a part, or goals that
/// name fewer parts than there are, fail here: the member's cover above
/// asks for one part of each member only.
void QueryBuilder::partsQuery(const std::string &Receivers,
                              const std::string &Buffer,
                              std::vector<Query> &Qs) {
  const MessageFamily *PF = partedFamily(Buffer);
  // An alltoall's parts are its blocks, which its cover counts.
  if (!PF || !groupDecl(Receivers) || !groupDecl(Buffer) ||
      specOf(T.Kind).Result == ResultRule::Column)
    return;
  Query Q;
  Q.O.Kind = "completeness";
  Q.O.Name = formatv("parts {0} gets {1}", Receivers, Buffer);
  Q.O.Claim = formatv("the goals give every rank of group {0} every part s "
                      "of N of every member's message of buffer {1}",
                      Receivers, Buffer);
  auto Vars = std::make_shared<std::vector<z3::expr>>();
  Q.Build = [=, this](TemplateEncoder &E) {
    Scope S;
    S.Vars = E.Top.Vars;
    Vars->clear();
    z3::expr R = E.C.int_const("rank@parts");
    z3::expr Part = E.C.int_const("part@parts");
    Vars->push_back(R);
    Vars->push_back(Part);
    std::vector<z3::expr> Idx0;
    for (const Range &Rg : PF->Index)
      Idx0.push_back(E.C.int_const((Rg.Var + "@parts").c_str()));
    const GroupDecl *GR = groupDecl(Receivers), *GB = groupDecl(Buffer);
    z3::expr M = E.member(*PF, Idx0, S);
    Vars->push_back(M);
    Scope NS = S;
    for (size_t K = 0; K < PF->Index.size(); ++K)
      NS.Vars.insert_or_assign(PF->Index[K].Var, Idx0[K]);
    z3::expr N = E.enc(*PF->Parts, NS);
    S.keepSide(NS);
    std::vector<z3::expr> All{R >= E.enc(*GR->Lo, S), R < E.enc(*GR->Hi, S),
                              E.indexInRange(*PF, Idx0, S), Part >= 0,
                              Part < N};
    // The rank that contributes M does not receive it; in a gather only
    // the root receives.
    All.push_back(isBcast() || isScatter() ? R != E.enc(*T.Root, S)
                                           : R != E.enc(*GB->Lo, S) + M);
    if (rootReceives())
      All.push_back(R == E.enc(*T.Root, S));
    if (isScatter()) // a scatter: member M's slice goes to M's rank
      All.push_back(R == E.enc(*GB->Lo, S) + M);
    std::vector<z3::expr> Covered;
    unsigned Tag = 1;
    for (const Goal &Gl : T.Goals) {
      const MessageFamily &F = *T.family(Gl.Family);
      if (F.Group != Buffer)
        continue;
      Scope GS = S;
      GS.Fresh.clear();
      GS.Side.clear();
      std::string Suffix = formatv("@parts{0}", Tag++).str();
      std::vector<z3::expr> Idx,
          Conds{R >= E.enc(*Gl.Lo, GS), R < E.enc(*Gl.Hi, GS)};
      GS.Vars.insert_or_assign("rank", R);
      for (const Range &Rg : Gl.Index.empty() ? F.Index : Gl.Index)
        Idx.push_back(E.C.int_const((Rg.Var + Suffix).c_str()));
      for (const z3::expr &X : E.goalIndexInRange(Gl, F, Idx, GS))
        Conds.push_back(X);
      Conds.push_back(E.member(F, Idx, GS) == M);
      if (F.Part) {
        Scope PS = GS;
        for (size_t K = 0; K < F.Index.size(); ++K)
          PS.Vars.insert_or_assign(F.Index[K].Var, Idx[K]);
        Conds.push_back(E.enc(*F.Part, PS) == Part);
        Conds.push_back(E.enc(*F.Parts, PS) == N);
        GS.keepSide(PS);
      }
      Conds.insert(Conds.end(), GS.Side.begin(), GS.Side.end());
      z3::expr_vector Bound(E.C);
      for (const z3::expr &V : Idx)
        Bound.push_back(V);
      for (const z3::expr &V : GS.Fresh)
        Bound.push_back(V);
      Covered.push_back(Bound.empty() ? E.conj(Conds)
                                      : z3::exists(Bound, E.conj(Conds)));
    }
    All.push_back(!E.disj(Covered));
    All.insert(All.end(), S.Side.begin(), S.Side.end());
    return E.conj(All);
  };
  Q.Decode = [Vars](TemplateEncoder &E, z3::model &M, Obligation &O) {
    for (const std::string &P : E.T.Params)
      O.Model[P] = M.eval(E.param(P), true).get_numeral_int64();
    O.Rank = M.eval((*Vars)[0], true).get_numeral_int64();
    O.Model["part"] = M.eval((*Vars)[1], true).get_numeral_int64();
    O.Model["member"] = M.eval((*Vars)[2], true).get_numeral_int64();
  };
  Qs.push_back(std::move(Q));
}
