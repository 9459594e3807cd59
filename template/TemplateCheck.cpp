//===- template/TemplateCheck.cpp - The rules a template obeys ------------===//
///
/// \file
/// The checks a parsed template passes before the parser returns it: every
/// name it uses is bound where it is used; a reduction's template has its
/// segments and `holds` and nothing of the gather-type language (and the
/// others none of the reductions'); its groups, messages and goals agree with
/// its collective's spec. The collectives named in these messages come from
/// the specs (ir/CollectiveSpec.h).
///
//===----------------------------------------------------------------------===//

#include "template/Template.h"
#include "template/TemplateInternal.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <optional>
#include <set>

using namespace choreo;
using llvm::formatv;

/// collectiveNames(Keep) with a name and its "v" variant written once:
/// "allgather(v), inter_allgather(v), half_allgather".
static std::string namesFoldingV(bool (*Keep)(const CollectiveSpec &)) {
  std::vector<std::string> Names;
  for (const CollectiveSpec &S : allCollectiveSpecs()) {
    if (!Keep(S))
      continue;
    if (!Names.empty() && Names.back() + "v" == S.Name)
      Names.back() += "(v)";
    else
      Names.push_back(S.Name);
  }
  return llvm::join(Names, ", ");
}

using NameSet = std::set<std::string>;

/// The first name E uses that is not in scope.
static const Expr *unknownName(const Expr &E, const NameSet &Scope) {
  if (E.K == Expr::Kind::Var)
    return Scope.count(E.Name) ? nullptr : &E;
  for (const ExprPtr &X : {E.L, E.R})
    if (X)
      if (const Expr *U = unknownName(*X, Scope))
        return U;
  return nullptr;
}
static const Expr *unknownName(const Cond &C, const NameSet &Scope) {
  for (const ExprPtr &X : {C.A, C.B})
    if (X)
      if (const Expr *U = unknownName(*X, Scope))
        return U;
  for (const CondPtr &X : {C.L, C.R})
    if (X)
      if (const Expr *U = unknownName(*X, Scope))
        return U;
  return nullptr;
}

/// Every name an expression uses is a parameter, an earlier let, `i` and
/// the loop variables in a stage, or an index variable where one is
/// bound: refused here (with its line) rather than when expanding.
llvm::Error choreo::checkNames(const Template &T) {
  std::optional<std::pair<const Expr *, unsigned>> Bad;
  auto Check = [&](const auto &X, const NameSet &Scope, unsigned Line) {
    if (!Bad && X)
      if (const Expr *U = unknownName(*X, Scope))
        Bad = {U, U->Line ? U->Line : Line};
  };
  auto CheckRanges = [&](const std::vector<Range> &Rs, NameSet &Scope,
                         unsigned Line) {
    for (const Range &R : Rs) {
      Check(R.Lo, Scope, Line);
      Check(R.Hi, Scope, Line);
      Scope.insert(R.Var);
    }
  };
  NameSet Top(T.Params.begin(), T.Params.end());
  for (const auto &[Name, E] : T.Lets) {
    Check(E, Top, 0);
    Top.insert(Name);
  }
  for (const CondPtr &C : T.Domain)
    Check(C, Top, 0);
  Check(T.Ranks, Top, 0);
  for (const GroupDecl &G : T.Groups) {
    Check(G.Lo, Top, G.Line);
    Check(G.Hi, Top, G.Line);
  }
  for (const MessageFamily &F : T.Messages) {
    NameSet S = Top;
    CheckRanges(F.Index, S, F.Line);
    for (const ExprPtr &X : {F.Origin, F.Member, F.Part, F.Parts})
      Check(X, S, F.Line);
  }
  for (const Goal &G : T.Goals) {
    Check(G.Lo, Top, G.Line);
    Check(G.Hi, Top, G.Line);
    // The goal's index ranges may depend on the receiving rank (a
    // scatter's or an alltoall's goal: rank d gets its own block).
    NameSet S = Top;
    S.insert("rank");
    CheckRanges(G.Index, S, G.Line);
  }
  for (const Stage &St : T.Stages) {
    Check(St.Steps, Top, St.Line);
    for (const OpGen &O : St.Ops) {
      NameSet S = Top;
      S.insert("i");
      CheckRanges(O.Loops, S, O.Line);
      Check(O.Guard, S, O.Line);
      Check(O.Src, S, O.Line);
      Check(O.Dst, S, O.Line);
      CheckRanges(O.Bundle, S, O.Line);
      Check(O.BundleGuard, S, O.Line);
      for (const ExprPtr &X : O.MsgIndex)
        Check(X, S, O.Line);
    }
    for (const HoldsCase &H : St.Holds) {
      NameSet S = Top;
      S.insert({"i", H.SegVar, H.RankVar});
      S.insert(H.IndexVars.begin(), H.IndexVars.end());
      Check(H.Guard, S, H.Line);
      Check(H.Lo, S, H.Line);
      Check(H.Len, S, H.Line);
    }
  }
  if (!Bad)
    return llvm::Error::success();
  return makeDiagError("template",
                       formatv("{0}:{1}: unknown name '{2}' (not a "
                               "parameter, an earlier let or a variable "
                               "bound here)",
                               T.Source, Bad->second, Bad->first->Name));
}

/// Every `by` names an op line of the same message family, assigns only
/// that op's variables (each once), and its expressions use the names of
/// where it stands: an op line's `i`, loop and bundle variables; a goal's
/// `rank` and index variables.
llvm::Error choreo::checkWitnesses(const Template &T) {
  auto Err = [&](unsigned Line, const llvm::Twine &Msg) {
    return makeDiagError("template",
                         formatv("{0}:{1}: {2}", T.Source, Line, Msg.str()));
  };
  NameSet Top(T.Params.begin(), T.Params.end());
  for (const auto &L : T.Lets)
    Top.insert(L.first);
  auto Check = [&](const std::vector<Witness> &Ws, llvm::StringRef Family,
                   const NameSet &Scope) -> llvm::Error {
    for (const Witness &W : Ws) {
      if (T.isReduction())
        return Err(W.Line, "'by' is for the availability and goals of "
                           "gather-type and broadcast templates");
      const OpGen *By = nullptr;
      for (const Stage &St : T.Stages)
        for (const OpGen &O : St.Ops)
          if (O.Label == W.Op)
            By = &O;
      if (!By)
        return Err(W.Line, "no op line '" + W.Op + "'");
      if (By->Family != Family)
        return Err(W.Line, W.Op + " sends " + By->Family + ", not " + Family);
      NameSet Own{"i"}, Seen;
      for (const Range &R : By->Loops)
        Own.insert(R.Var);
      for (const Range &R : By->Bundle)
        Own.insert(R.Var);
      for (const auto &[Var, E] : W.Assign) {
        if (!Own.count(Var))
          return Err(W.Line, "'" + Var + "' is not a variable of " + W.Op +
                                 " (its i, loop or bundle variables)");
        if (!Seen.insert(Var).second)
          return Err(W.Line, "'" + Var + "' is given twice");
        if (const Expr *U = unknownName(*E, Scope))
          return Err(U->Line ? U->Line : W.Line,
                     "unknown name '" + U->Name +
                         "' (not a parameter, a let or a variable of the "
                         "line the witness is under)");
      }
    }
    return llvm::Error::success();
  };
  for (const Goal &G : T.Goals) {
    NameSet S = Top;
    S.insert("rank");
    const MessageFamily *F = T.family(G.Family);
    for (const Range &R : G.Index.empty() && F ? F->Index : G.Index)
      S.insert(R.Var);
    if (auto E = Check(G.By, G.Family, S))
      return E;
  }
  for (const Stage &St : T.Stages) {
    for (const OpGen &O : St.Ops) {
      NameSet S = Top;
      S.insert("i");
      for (const Range &R : O.Loops)
        S.insert(R.Var);
      for (const Range &R : O.Bundle)
        S.insert(R.Var);
      if (auto E = Check(O.By, O.Family, S))
        return E;
    }
    for (const HoldsCase &H : St.Holds) {
      NameSet S = Top;
      S.insert({"i", H.RankVar});
      S.insert(H.IndexVars.begin(), H.IndexVars.end());
      if (auto E = Check(H.By, H.Family, S))
        return E;
    }
  }
  return llvm::Error::success();
}

/// A reduction template has one segment family, `combine`/`send` ops of
/// it and a `holds` in every stage ending with an unguarded case; no
/// messages or goals (its goal is its collective's). Other templates
/// have none of these.
llvm::Error choreo::checkReduction(const Template &T, bool HaveOp) {
  auto Err = [&](unsigned Line, const llvm::Twine &Msg) {
    return makeDiagError("template",
                         formatv("{0}:{1}: {2}", T.Source, Line, Msg.str()));
  };
  bool Red = specOf(T.Kind).isReduction();
  for (const MessageFamily &F : T.Messages)
    if (F.Segment != Red)
      return Err(F.Line, Red ? "a reduction's data are 'segment' families, not "
                               "messages"
                             : "'segment' is for reductions (" +
                                   collectiveNames([](const CollectiveSpec &S) {
                                     return S.isReduction() && !S.Intergroup;
                                   }) +
                                   ")");
  if (HaveOp && !Red)
    return Err(0, "'op' is for reductions");
  for (const Stage &St : T.Stages) {
    for (const OpGen &O : St.Ops) {
      if (O.Combine && !Red)
        return Err(O.Line, "'combine' is for reductions");
      if ((O.FromAcc || O.IntoMask != 1) && !Red)
        return Err(O.Line, "'acc' and 'into' are for a scan's accumulators");
    }
    for (const HoldsCase &H : St.Holds) {
      if (Red && H.isSet())
        return Err(H.Line, "a reduction's 'holds' says which contributors "
                           "a partial combines: ': from LO len LEN'");
      if (Red)
        continue;
      if (H.Stale || H.Acc)
        return Err(H.Line, H.Stale ? "': stale' is a reduction's partial "
                                     "that is no longer used"
                                   : "'acc' is for a scan's accumulators");
      if (!H.isSet())
        return Err(H.Line, "'from LO len LEN' is a reduction's partial; a "
                           "gather-type 'holds' says which messages rank r "
                           "holds: 'holds NAME[j] at r if COND'");
      const MessageFamily *F = T.family(H.Family);
      if (!F)
        return Err(H.Line, "unknown message family '" + H.Family + "'");
      if (F->Index.size() != H.IndexVars.size())
        return Err(H.Line,
                   formatv("{0} takes {1} indices", H.Family, F->Index.size()));
    }
  }
  if (!Red)
    return llvm::Error::success();
  if (T.Messages.size() != 1)
    return Err(T.Messages[1].Line, "a reduction template has one segment "
                                   "family");
  if (!T.Goals.empty())
    return Err(T.Goals.front().Line,
               "a reduction's goal is its collective's (every contributor "
               "exactly once); remove 'goal'");
  if (T.Accumulators > 1 && !specOf(T.Kind).usesAccumulators())
    return Err(0, "'accumulators' is for scan and exscan");
  for (const Stage &St : T.Stages) {
    for (unsigned A = 0; A < T.Accumulators; ++A) {
      const HoldsCase *Last = nullptr;
      for (const HoldsCase &H : St.Holds)
        if (H.Acc == A)
          Last = &H;
      if (!Last || Last->Guard)
        return Err(St.Line,
                   formatv("stage {0} needs 'holds' lines {1}ending with one "
                           "without 'if' (what every rank holds of every "
                           "segment at each step)",
                           St.Name,
                           T.Accumulators > 1
                               ? formatv("of accumulator {0} ", A).str()
                               : std::string()));
    }
    for (const HoldsCase &H : St.Holds)
      if (H.Family != T.Messages[0].Name)
        return Err(H.Line, "unknown segment family '" + H.Family + "'");
  }
  return llvm::Error::success();
}

llvm::Error choreo::checkAgainstSpec(const Template &T) {
  const CollectiveSpec &Spec = specOf(T.Kind);
  // One group's broadcast and reductions (an intercommunicator's have
  // no template form).
  bool Bcast = Spec.Data == DataKind::Broadcast && !Spec.Intergroup;
  bool Red = Spec.isReduction() && !Spec.Intergroup;
  // A scatter's buffer (the root's) and an alltoall of equal blocks (row i
  // rank i's); alltoallv's blocks are a matrix of sizes, not parts.
  bool Scatter = Spec.Data == DataKind::Scatter;
  bool Alltoall = T.Kind == Collective::Alltoall;
  // An intercommunicator's rooted collectives and alltoall (the root's
  // group or a group's own blocks move nothing) have no template form yet:
  // the template checks and obligations of gather, scatter and alltoall
  // are those of one group.
  if (Spec.Intergroup && (Spec.Rooted || T.Kind == Collective::InterAlltoall))
    return makeDiagError("template",
                         formatv("{0}: {1} has no template form (gather, "
                                 "scatter and alltoall templates are of one "
                                 "group)",
                                 T.Source, Spec.Name));
  if (!Spec.isGatherType() && !Bcast && !Red && !Scatter && !Alltoall)
    return makeDiagError(
        "template",
        formatv("{0}: templates state the gather-type "
                "collectives ({1}), {2}, scatter, alltoall "
                "and the reductions of one group, not {3}",
                T.Source, namesFoldingV([](const CollectiveSpec &S) {
                  return S.isGatherType();
                }),
                collectiveNames([](const CollectiveSpec &S) {
                  return S.Data == DataKind::Broadcast && !S.Intergroup;
                }),
                Spec.Name));
  if (Red && Spec.Rooted != bool(T.Root))
    return makeDiagError(
        "template",
        Spec.Rooted ? formatv("{0}: {1} needs 'root EXPR'", T.Source, Spec.Name)
                    : formatv("{0}: {1} has no root; remove "
                              "'root'",
                              T.Source, Spec.Name));
  if (Red) {
    // One group, all: every rank contributes to every segment.
    if (T.Groups.size() != 1 || T.Groups[0].Name != "all")
      return makeDiagError("template",
                           formatv("{0}: {1} needs exactly 'group all [0, "
                                   "RANKS)'",
                                   T.Source, Spec.Name));
    return llvm::Error::success();
  }
  // A broadcast's or a gather's root.
  if (Spec.Rooted != bool(T.Root))
    return makeDiagError(
        "template",
        Spec.Rooted ? formatv("{0}: {1} needs 'root EXPR'", T.Source, Spec.Name)
                    : formatv("{0}: {1} has no root; remove "
                              "'root'",
                              T.Source, Spec.Name));
  // A broadcast has one vector, held by the root: its messages are member
  // 0 of group all (or parts of it), and start at the root (the origin
  // obligation proves it).
  if (Bcast)
    for (const MessageFamily &F : T.Messages)
      if (F.Member->K != Expr::Kind::Num || F.Member->Value != 0)
        return makeDiagError("template",
                             formatv("{0}:{1}: message {2}: a bcast's "
                                     "messages are the root's vector, "
                                     "'is all.0' (or 'all.0 part S of N')",
                                     T.Source, F.Line, F.Name));
  std::vector<std::string> Names;
  for (llvm::StringRef G : Spec.groupNames())
    Names.push_back(G.str());
  std::string Expected = llvm::join(Names, ", ");
  auto Declared = [&](llvm::StringRef G) {
    return llvm::any_of(T.Groups,
                        [&](const GroupDecl &D) { return D.Name == G; });
  };
  for (const GroupDecl &D : T.Groups)
    if (!llvm::is_contained(Names, D.Name))
      return makeDiagError(
          "template", formatv("{0}:{1}: {2} has no group named {3} (its "
                              "groups: {4})",
                              T.Source, D.Line, Spec.Name, D.Name, Expected));
  for (const std::string &G : Names)
    if (!Declared(G))
      return makeDiagError("template",
                           formatv("{0}: {1} needs group {2} (its groups: "
                                   "{3}); declare it with 'group {2} [lo, hi)'",
                                   T.Source, Spec.Name, G, Expected));
  // An alltoall's messages are blocks: part d of p of row s.
  if (Alltoall)
    for (const MessageFamily &F : T.Messages)
      if (!F.Part)
        return makeDiagError("template",
                             formatv("{0}:{1}: message {2}: an alltoall's "
                                     "messages are blocks, 'is all.S part D "
                                     "of P' (block (S, D) of rank S's row "
                                     "of P blocks)",
                                     T.Source, F.Line, F.Name));
  auto HasBuffer = [&](llvm::StringRef G) {
    return Spec.contributes(G) ||
           ((Bcast || Scatter || Alltoall) && G == "all");
  };
  for (const MessageFamily &F : T.Messages)
    if (!HasBuffer(F.Group))
      return makeDiagError(
          "template", formatv("{0}:{1}: message {2}: no buffer for group "
                              "{3} (in {4} only the members of a "
                              "contributing group send their own data)",
                              T.Source, F.Line, F.Name, F.Group, Spec.Name));
  // Some rank must end with every contributed buffer (gather-type rules),
  // so each needs a goal delivering it: the goals state the collective's
  // completeness rule, not a weaker one of the template's own.
  for (llvm::StringRef Buf : Names) {
    if (!HasBuffer(Buf))
      continue;
    bool Covered = llvm::any_of(T.Goals, [&](const Goal &G) {
      const MessageFamily *F = T.family(G.Family);
      return F && F->Group == Buf;
    });
    if (!Covered)
      return makeDiagError("template",
                           formatv("{0}: no goal delivers buffer {1}, but {2}",
                                   T.Source, Buf, Spec.Rule));
  }
  return llvm::Error::success();
}

std::vector<std::pair<std::string, std::string>>
choreo::completenessGoals(Collective Kind) {
  switch (specOf(Kind).Result) {
  case ResultRule::Everyone:
    return {{"all", "all"}};
  case ResultRule::OtherGroup:
    return {{"A", "B"}, {"B", "A"}};
  case ResultRule::GroupB:
    return {{"B", "A"}};
  case ResultRule::Root:
  case ResultRule::RootsOther:
  case ResultRule::OwnSlice:
  case ResultRule::Column:
  case ResultRule::OwnSegment:
  case ResultRule::Prefix:
    break;
  }
  return {};
}
