//===- template/TemplateParser.cpp - Reading the template language ------===//
///
/// \file
/// The line-oriented parser of the template language (docs/templates.md):
/// the template's statements, one per line (`collective`, `params`, `let`,
/// `domain`, `ranks`, `group`, `message`, `segment`, `goal`, `stage`, op
/// lines, `holds`), read with a LineParser (LineParser.h), then checked
/// (TemplateCheck.cpp) before the template is returned.
///
//===----------------------------------------------------------------------===//

#include "ir/BoundedFile.h"
#include "template/LineParser.h"
#include "template/Template.h"
#include "template/TemplateInternal.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

#include <optional>

using namespace choreo;
using llvm::formatv;

namespace {

bool bundleGuardTakesMod(const Expr *E) {
  return E && (E->K == Expr::Kind::Mod || bundleGuardTakesMod(E->L.get()) ||
               bundleGuardTakesMod(E->R.get()));
}
bool bundleGuardTakesMod(const Cond *C) {
  return C && (bundleGuardTakesMod(C->A.get()) ||
               bundleGuardTakesMod(C->B.get()) ||
               bundleGuardTakesMod(C->L.get()) ||
               bundleGuardTakesMod(C->R.get()));
}

class TemplateParser {
public:
  TemplateParser(llvm::StringRef Source) { T.Source = Source.str(); }

  llvm::Expected<Template> run(llvm::StringRef Text) {
    llvm::SmallVector<llvm::StringRef, 64> Lines;
    Text.split(Lines, '\n');
    for (size_t I = 0; I < Lines.size(); ++I) {
      llvm::StringRef Raw = Lines[I].split("//").first.trim();
      if (Raw.starts_with("template") &&
          (Raw.size() == 8 || isspace(static_cast<unsigned char>(Raw[8])))) {
        Raw = Raw.drop_front(8);
        T.Name = Raw.trim().str();
        if (T.Name.empty())
          return makeDiagError("template",
                               formatv("{0}:{1}: expected the template's "
                                       "name",
                                       T.Source, I + 1));
        continue;
      }
      LineParser LP(Lines[I], I + 1, T.Source);
      if (LP.atEnd())
        continue;
      if (!line(LP, I + 1))
        return makeDiagError("template", LP.Err);
    }
    return finish();
  }

private:
  Template T;
  bool HaveCollective = false;
  bool HaveOp = false;

  /// Where a `by` line goes: the last op line, goal line or gather-type
  /// holds line, if the line before (comments and blank lines aside) was
  /// one or a `by`.
  std::vector<Witness> *WitnessTo = nullptr;

  bool line(LineParser &LP, unsigned No) {
    const Token &First = LP.peek();
    if (LP.isWord("by"))
      return witness(LP, No);
    WitnessTo = nullptr;
    if (First.K == Token::Label || LP.isWord("for") || LP.isWord("if") ||
        LP.isWord("send") || LP.isWord("combine"))
      return op(LP, No);
    if (First.K != Token::Ident)
      return LP.fail("expected a keyword");
    std::string Kw = LP.next().Text;
    if (Kw == "collective") {
      std::string Name;
      if (!LP.ident(Name))
        return false;
      std::optional<Collective> C = parseCollective(Name);
      if (!C)
        return LP.fail("unknown collective '" + Name + "'");
      T.Kind = *C;
      HaveCollective = true;
      return true;
    }
    if (Kw == "params") {
      while (!LP.atEnd()) {
        std::string P;
        if (!LP.ident(P))
          return false;
        T.Params.push_back(P);
        if (LP.isSym(","))
          LP.next();
      }
      return true;
    }
    if (Kw == "let") {
      std::string Name;
      if (!LP.ident(Name) || !LP.expectSym("="))
        return false;
      ExprPtr E = LP.expr();
      if (!E)
        return false;
      T.Lets.push_back({Name, E});
      return endOfLine(LP);
    }
    if (Kw == "domain") {
      do {
        CondPtr C = LP.cond();
        if (!C)
          return false;
        T.Domain.push_back(C);
      } while (LP.isSym(",") && (LP.next(), true));
      return endOfLine(LP);
    }
    if (Kw == "ranks") {
      T.Ranks = LP.expr();
      return T.Ranks && endOfLine(LP);
    }
    if (Kw == "root") {
      T.Root = LP.expr();
      return T.Root && endOfLine(LP);
    }
    if (Kw == "group") {
      GroupDecl G;
      G.Line = No;
      if (!LP.ident(G.Name) || !LP.expectSym("["))
        return false;
      G.Lo = LP.expr();
      if (!G.Lo || !LP.expectSym(","))
        return false;
      G.Hi = LP.expr();
      if (!G.Hi || !LP.expectSym(")"))
        return false;
      T.Groups.push_back(G);
      return endOfLine(LP);
    }
    if (Kw == "topology") {
      std::string K;
      if (!LP.ident(K))
        return false;
      if (K != "ring" && K != "full")
        return LP.fail("expected ring or full");
      T.Ring = K == "ring";
      return endOfLine(LP);
    }
    if (Kw == "message")
      return message(LP, No);
    if (Kw == "segment")
      return segment(LP, No);
    if (Kw == "holds")
      return holds(LP, No);
    if (Kw == "op") {
      std::string K;
      if (!LP.ident(K))
        return false;
      if (K != "commutative" && K != "noncommutative")
        return LP.fail("expected commutative or noncommutative");
      T.Commutative = K == "commutative";
      HaveOp = true;
      return endOfLine(LP);
    }
    if (Kw == "accumulators") {
      const Token &N = LP.peek();
      if (N.K != Token::Num || N.Value < 1 || N.Value > 4)
        return LP.fail("expected the number of accumulators, 1 to 4");
      T.Accumulators = unsigned(LP.next().Value);
      return endOfLine(LP);
    }
    if (Kw == "goal")
      return goal(LP, No);
    if (Kw == "stage") {
      Stage S;
      S.Line = No;
      if (!LP.ident(S.Name) || !LP.expectWord("steps"))
        return false;
      S.Steps = LP.expr();
      if (!S.Steps)
        return false;
      T.Stages.push_back(S);
      return endOfLine(LP);
    }
    return LP.fail("unknown keyword '" + Kw + "'");
  }

  /// `by STAGE#LABEL [with VAR = EXPR, ...]` under an op or a goal line.
  bool witness(LineParser &LP, unsigned No) {
    LP.next();
    if (!WitnessTo)
      return LP.fail("'by' names the op that delivers a message: it goes "
                     "under an op line, a goal line or a gather-type "
                     "'holds' line");
    Witness W;
    W.Line = No;
    if (!LP.ident(W.Op))
      return false;
    if (LP.peek().K != Token::Label)
      return LP.fail("expected the op's label, STAGE#LABEL");
    W.Op += LP.next().Text;
    if (LP.isWord("with")) {
      LP.next();
      do {
        std::string Var;
        if (!LP.ident(Var) || !LP.expectSym("="))
          return false;
        ExprPtr E = LP.expr();
        if (!E)
          return false;
        W.Assign.push_back({Var, E});
      } while (LP.isSym(",") && (LP.next(), true));
    }
    WitnessTo->push_back(W);
    return endOfLine(LP);
  }

  /// An accumulator's number, below `accumulators N` (given before).
  bool accumulator(LineParser &LP, unsigned &Out) {
    const Token &N = LP.peek();
    if (N.K != Token::Num || N.Value < 0 ||
        N.Value >= int64_t(T.Accumulators))
      return LP.fail(formatv("expected an accumulator, 0 to {0} "
                             "('accumulators N' before the stages)",
                             T.Accumulators - 1)
                         .str());
    Out = unsigned(LP.next().Value);
    return true;
  }

  bool endOfLine(LineParser &LP) {
    return LP.atEnd() || LP.fail("unexpected text after the statement");
  }

  bool message(LineParser &LP, unsigned No) {
    MessageFamily F;
    F.Line = No;
    std::vector<ExprPtr> Vars;
    if (!LP.indexed(F.Name, Vars))
      return false;
    for (const ExprPtr &V : Vars)
      if (V->K != Expr::Kind::Var)
        return LP.fail("a message family is indexed by names");
    if (!Vars.empty()) {
      if (!LP.expectWord("for") || !LP.ranges(F.Index))
        return false;
      if (F.Index.size() != Vars.size())
        return LP.fail("one range per index of the message family");
      for (size_t I = 0; I < Vars.size(); ++I)
        if (F.Index[I].Var != Vars[I]->Name)
          return LP.fail("ranges must follow the order of the indices");
    }
    if (!LP.expectWord("from"))
      return false;
    F.Origin = LP.expr();
    if (!F.Origin || !LP.expectWord("is"))
      return false;
    // GROUP.MEMBER: the tokenizer keeps "A" and ".j" apart.
    if (!LP.ident(F.Group) || !LP.expectSym("."))
      return false;
    F.Member = LP.expr();
    if (!F.Member)
      return false;
    if (LP.isWord("part")) {
      LP.next();
      F.Part = LP.expr();
      if (!F.Part || !LP.expectWord("of"))
        return false;
      F.Parts = LP.expr();
      if (!F.Parts)
        return false;
    }
    T.Messages.push_back(F);
    return endOfLine(LP);
  }

  /// `segment NAME[j] for j in [lo, hi)`: the reduction's vector in parts.
  bool segment(LineParser &LP, unsigned No) {
    MessageFamily F;
    F.Line = No;
    F.Segment = true;
    F.Group = "all";
    std::vector<ExprPtr> Vars;
    if (!LP.indexed(F.Name, Vars))
      return false;
    if (Vars.size() != 1 || Vars[0]->K != Expr::Kind::Var)
      return LP.fail("a segment family has one index, a name");
    if (!LP.expectWord("for") || !LP.ranges(F.Index))
      return false;
    if (F.Index.size() != 1 || F.Index[0].Var != Vars[0]->Name)
      return LP.fail("one range, of the segment's index");
    F.Part = Vars[0];
    F.Parts = F.Index[0].Hi;
    if (LP.isWord("bitreversed")) {
      LP.next();
      F.BitReversed = true;
      // K must be a power of two: `pow2(E)`, or a let that is one.
      const Expr *K = F.Parts.get();
      for (auto It = T.Lets.rbegin();
           K->K == Expr::Kind::Var && It != T.Lets.rend(); ++It)
        if (It->first == K->Name)
          K = It->second.get();
      if (K->K != Expr::Kind::Pow2)
        return LP.fail("'bitreversed' needs the segment count written "
                       "pow2(E) (or a let that is): bit reversal is of a "
                       "power of two");
    }
    T.Messages.push_back(F);
    return endOfLine(LP);
  }

  /// `holds NAME[j] at r [if COND]: from LO len LEN`, in a stage (a
  /// reduction); `holds NAME[j, ...] at r if COND` (gather-type).
  bool holds(LineParser &LP, unsigned No) {
    if (T.Stages.empty())
      return LP.fail("'holds' outside a stage (start one with 'stage NAME "
                     "steps N')");
    HoldsCase H;
    H.Line = No;
    std::vector<ExprPtr> Vars;
    if (!LP.indexed(H.Family, Vars))
      return false;
    if (Vars.empty())
      return LP.fail("'holds' names a message or segment by its index names");
    for (const ExprPtr &V : Vars) {
      if (V->K != Expr::Kind::Var)
        return LP.fail("'holds' names a message or segment by index names");
      H.IndexVars.push_back(V->Name);
    }
    H.SegVar = H.IndexVars.front();
    if (LP.isWord("acc")) {
      LP.next();
      if (!accumulator(LP, H.Acc))
        return false;
    }
    if (!LP.expectWord("at") || !LP.ident(H.RankVar))
      return false;
    if (LP.isWord("if")) {
      LP.next();
      H.Guard = LP.cond();
      if (!H.Guard)
        return false;
    }
    if (LP.atEnd()) {
      // Gather-type: the messages rank r holds (checkReduction checks
      // that the collective is one).
      if (!H.Guard)
        return LP.fail("'holds NAME[j] at r' needs 'if COND' (which "
                       "messages r holds), or ': from LO len LEN' (a "
                       "reduction's partial)");
      T.Stages.back().Holds.push_back(H);
      WitnessTo = &T.Stages.back().Holds.back().By;
      return true;
    }
    if (H.IndexVars.size() != 1)
      return LP.fail("'holds' names a segment by one index name");
    if (LP.isSym(":"))
      LP.next();
    if (LP.isWord("stale")) {
      LP.next();
      H.Stale = true;
      T.Stages.back().Holds.push_back(H);
      return endOfLine(LP);
    }
    if (!LP.expectWord("from"))
      return false;
    H.Lo = LP.expr();
    if (!H.Lo || !LP.expectWord("len"))
      return false;
    H.Len = LP.expr();
    if (!H.Len)
      return false;
    T.Stages.back().Holds.push_back(H);
    return endOfLine(LP);
  }

  bool goal(LineParser &LP, unsigned No) {
    Goal G;
    G.Line = No;
    if (!LP.expectWord("ranks") || !LP.expectSym("["))
      return false;
    G.Lo = LP.expr();
    if (!G.Lo || !LP.expectSym(","))
      return false;
    G.Hi = LP.expr();
    if (!G.Hi || !LP.expectSym(")") || !LP.expectWord("get"))
      return false;
    std::vector<ExprPtr> Vars;
    if (!LP.indexed(G.Family, Vars))
      return false;
    if (!Vars.empty() && (!LP.expectWord("for") || !LP.ranges(G.Index)))
      return false;
    T.Goals.push_back(G);
    WitnessTo = &T.Goals.back().By;
    return endOfLine(LP);
  }

  bool op(LineParser &LP, unsigned No) {
    if (T.Stages.empty())
      return LP.fail("an op outside a stage (start one with 'stage NAME "
                     "steps N')");
    Stage &S = T.Stages.back();
    OpGen O;
    O.Line = No;
    O.Label = formatv("{0}#{1}", S.Name, S.Ops.size() + 1);
    if (LP.peek().K == Token::Label)
      O.Label = S.Name + LP.next().Text;
    if (LP.isWord("for")) {
      LP.next();
      if (!LP.ranges(O.Loops))
        return false;
    }
    if (LP.isWord("if")) {
      LP.next();
      O.Guard = LP.cond();
      if (!O.Guard)
        return false;
    }
    if (LP.isSym(":"))
      LP.next();
    O.Combine = LP.isWord("combine");
    if (O.Combine)
      LP.next();
    else if (!LP.expectWord("send"))
      return false;
    if (!LP.indexed(O.Family, O.MsgIndex))
      return false;
    if (LP.isWord("for")) {
      LP.next();
      if (!LP.ranges(O.Bundle))
        return false;
      if (LP.isWord("if")) {
        LP.next();
        O.BundleGuard = LP.cond();
        if (!O.BundleGuard)
          return false;
        // The prover checks a `mod`'s argument range where the op's
        // messages exist, which the guard itself decides.
        if (bundleGuardTakesMod(O.BundleGuard.get()))
          return LP.fail("a bundle's 'if' takes no 'x mod n' (write x % n "
                         "or the wrap out)");
      }
    }
    if (LP.isWord("acc")) {
      LP.next();
      if (!accumulator(LP, O.FromAcc))
        return false;
    }
    if (!LP.expectWord("from"))
      return false;
    O.Src = LP.expr();
    if (!O.Src || !LP.expectWord("to"))
      return false;
    O.Dst = LP.expr();
    if (!O.Dst)
      return false;
    if (LP.isWord("into")) {
      LP.next();
      O.IntoMask = 0;
      do {
        unsigned A = 0;
        if (!accumulator(LP, A))
          return false;
        O.IntoMask |= 1u << A;
      } while (LP.isSym(",") && (LP.next(), true));
    }
    S.Ops.push_back(O);
    WitnessTo = &S.Ops.back().By;
    return endOfLine(LP);
  }

  llvm::Expected<Template> finish() {
    auto Missing = [&](const char *What) {
      return makeDiagError("template",
                           formatv("{0}: missing '{1}'", T.Source, What));
    };
    if (T.Name.empty())
      return Missing("template NAME");
    if (!HaveCollective)
      return Missing("collective");
    if (!T.Ranks)
      return Missing("ranks");
    if (T.Messages.empty())
      return Missing(T.isReduction() ? "segment" : "message");
    if (T.Stages.empty())
      return Missing("stage");
    for (const Stage &S : T.Stages)
      for (const OpGen &O : S.Ops) {
        const MessageFamily *F = T.family(O.Family);
        if (!F)
          return makeDiagError("template",
                               formatv("{0}:{1}: unknown message family "
                                       "'{2}'",
                                       T.Source, O.Line, O.Family));
        if (F->Index.size() != O.MsgIndex.size())
          return makeDiagError(
              "template", formatv("{0}:{1}: {2} takes {3} indices", T.Source,
                                  O.Line, O.Family, F->Index.size()));
      }
    for (const Goal &G : T.Goals)
      if (!T.family(G.Family))
        return makeDiagError("template",
                             formatv("{0}:{1}: unknown message family '{2}'",
                                     T.Source, G.Line, G.Family));
    if (auto E = checkReduction(T, HaveOp))
      return std::move(E);
    if (auto E = checkNames(T))
      return std::move(E);
    if (auto E = checkWitnesses(T))
      return std::move(E);
    // Without goal lines, the goals are the collective's own rule: every
    // receiving group gets every message of the buffers it must end with.
    if (T.Goals.empty() && !T.isReduction())
      for (auto [Receivers, Buffer] : completenessGoals(T.Kind))
        for (const GroupDecl &D : T.Groups)
          if (D.Name == Receivers)
            for (const MessageFamily &F : T.Messages)
              if (F.Group == Buffer)
                T.Goals.push_back(Goal{D.Lo, D.Hi, F.Name, {}, {}, D.Line});
    if (auto E = checkAgainstSpec(T))
      return std::move(E);
    return std::move(T);
  }
};

} // namespace

llvm::Expected<Template> choreo::parseTemplate(llvm::StringRef Text,
                                               llvm::StringRef Source) {
  return TemplateParser(Source).run(Text);
}

llvm::Expected<std::vector<std::pair<std::string, ExprPtr>>>
choreo::parseBindings(llvm::StringRef Text, llvm::StringRef Source) {
  std::vector<std::pair<std::string, ExprPtr>> Out;
  LineParser LP(Text, 1, Source);
  while (!LP.atEnd()) {
    std::string Name;
    if (!LP.ident(Name) || !LP.expectSym("="))
      return makeDiagError("template", LP.Err);
    ExprPtr E = LP.expr();
    if (!E)
      return makeDiagError("template", LP.Err);
    Out.push_back({Name, E});
    if (!LP.atEnd() && !LP.expectSym(","))
      return makeDiagError("template", LP.Err);
  }
  return Out;
}

llvm::Expected<Template> choreo::readTemplateFile(llvm::StringRef Path) {
  auto Buf = readBoundedFile(Path, MaxSmallFileBytes);
  if (!Buf)
    return Buf.takeError();
  return parseTemplate((*Buf)->getBuffer(), Path);
}
