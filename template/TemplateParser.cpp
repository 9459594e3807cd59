//===- template/TemplateParser.cpp - Reading the template language ------===//
///
/// \file
/// The line-oriented parser of the template language (docs/templates.md):
/// tokens, expressions and conditions, and the template's lines.
///
//===----------------------------------------------------------------------===//

#include "template/Template.h"
#include "ir/Schedule.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

#include <optional>
#include <set>

using namespace choreo;
using llvm::formatv;

//===----------------------------------------------------------------------===//
// Parsing
//===----------------------------------------------------------------------===//

namespace {

struct Token {
  enum Kind { Ident, Num, Sym, Label, End } K = End;
  std::string Text;
  int64_t Value = 0;
  bool Overflow = false; ///< a literal beyond 64-bit integers
};

class LineParser {
public:
  LineParser(llvm::StringRef Line, unsigned LineNo, llvm::StringRef Source)
      : LineNo(LineNo), Source(Source) {
    tokenize(Line);
  }

  std::string Err;

  bool atEnd() const { return peek().K == Token::End; }
  const Token &peek(size_t Ahead = 0) const {
    static const Token EndTok;
    return Pos + Ahead < Toks.size() ? Toks[Pos + Ahead] : EndTok;
  }
  bool isWord(llvm::StringRef W, size_t Ahead = 0) const {
    const Token &T = peek(Ahead);
    return T.K == Token::Ident && T.Text == W;
  }
  bool isSym(llvm::StringRef S) const {
    return peek().K == Token::Sym && peek().Text == S;
  }
  Token next() { return Pos < Toks.size() ? Toks[Pos++] : Token(); }

  bool fail(const llvm::Twine &Msg) {
    if (Err.empty()) {
      std::string Near = atEnd() ? "end of line" : "'" + peek().Text + "'";
      Err = formatv("{0}:{1}: {2} (at {3})", Source, LineNo, Msg.str(), Near);
    }
    return false;
  }
  bool expectWord(llvm::StringRef W) {
    if (!isWord(W))
      return fail("expected '" + W + "'");
    ++Pos;
    return true;
  }
  bool expectSym(llvm::StringRef S) {
    if (!isSym(S))
      return fail("expected '" + S + "'");
    ++Pos;
    return true;
  }
  bool ident(std::string &Out) {
    if (peek().K != Token::Ident)
      return fail("expected a name");
    Out = next().Text;
    return true;
  }

  // expr := add; `mod` binds like `*` (x + y mod n is x + (y mod n)).
  ExprPtr expr() { return add(); }

  CondPtr cond() {
    CondPtr C = conj();
    while (C && isWord("or")) {
      ++Pos;
      CondPtr D = conj();
      if (!D)
        return nullptr;
      C = join(Cond::Kind::Or, C, D);
    }
    return C;
  }

  bool range(Range &R) {
    if (!ident(R.Var) || !expectWord("in") || !expectSym("["))
      return false;
    R.Lo = expr();
    if (!R.Lo || !expectSym(","))
      return false;
    R.Hi = expr();
    return R.Hi && expectSym(")");
  }

  bool ranges(std::vector<Range> &Out) {
    do {
      Range R;
      if (!range(R))
        return false;
      Out.push_back(R);
    } while (isSym(",") && (++Pos, true));
    return true;
  }

  /// NAME[e, e, ...]
  bool indexed(std::string &Name, std::vector<ExprPtr> &Index) {
    if (!ident(Name) || !expectSym("["))
      return false;
    if (isSym("]"))
      return ++Pos, true;
    do {
      ExprPtr E = expr();
      if (!E)
        return false;
      Index.push_back(E);
    } while (isSym(",") && (++Pos, true));
    return expectSym("]");
  }

private:
  std::vector<Token> Toks;
  size_t Pos = 0;
  unsigned LineNo;
  llvm::StringRef Source;

  void tokenize(llvm::StringRef S) {
    size_t I = 0;
    while (I < S.size()) {
      char C = S[I];
      if (isspace(static_cast<unsigned char>(C))) {
        ++I;
        continue;
      }
      if (C == '/' && I + 1 < S.size() && S[I + 1] == '/')
        break; // comment
      Token T;
      if (isalpha(static_cast<unsigned char>(C)) || C == '_') {
        size_t J = I;
        while (J < S.size() &&
               (isalnum(static_cast<unsigned char>(S[J])) || S[J] == '_'))
          ++J;
        T.K = Token::Ident;
        T.Text = S.substr(I, J - I).str();
        I = J;
      } else if (isdigit(static_cast<unsigned char>(C))) {
        size_t J = I;
        while (J < S.size() && isdigit(static_cast<unsigned char>(S[J])))
          ++J;
        T.K = Token::Num;
        T.Text = S.substr(I, J - I).str();
        T.Overflow = llvm::StringRef(T.Text).getAsInteger(10, T.Value);
        I = J;
      } else if (C == '#') {
        size_t J = I + 1;
        while (J < S.size() && !isspace(static_cast<unsigned char>(S[J])))
          ++J;
        T.K = Token::Label;
        T.Text = S.substr(I, J - I).str();
        I = J;
      } else {
        static const char *Two[] = {"<=", ">=", "==", "!="};
        T.K = Token::Sym;
        T.Text = std::string(1, C);
        for (const char *Op : Two)
          if (S.substr(I).starts_with(Op))
            T.Text = Op;
        I += T.Text.size();
      }
      Toks.push_back(T);
    }
  }

  /// Nesting of the recursive descent ('(', unary '-', 'not ('); the trees
  /// built are bounded by tooDeep.
  unsigned Nesting = 0;

  bool tooDeep(unsigned Depth) {
    if (Depth <= MaxExprDepth)
      return false;
    fail(formatv("the expression is nested more than {0} levels deep (split "
                 "it with 'let')",
                 MaxExprDepth));
    return true;
  }
  ExprPtr made(std::shared_ptr<Expr> E) {
    E->Line = LineNo;
    E->Depth = 1 + std::max(E->L ? E->L->Depth : 0, E->R ? E->R->Depth : 0);
    return tooDeep(E->Depth) ? nullptr : E;
  }
  CondPtr made(std::shared_ptr<Cond> C) {
    C->Line = LineNo;
    C->Depth = 1 + std::max({C->L ? C->L->Depth : 0, C->R ? C->R->Depth : 0,
                             C->A ? C->A->Depth : 0, C->B ? C->B->Depth : 0});
    return tooDeep(C->Depth) ? nullptr : C;
  }
  ExprPtr bin(Expr::Kind Op, ExprPtr L, ExprPtr R) {
    auto E = std::make_shared<Expr>();
    E->K = Op;
    E->L = L;
    E->R = R;
    return made(E);
  }
  CondPtr join(Cond::Kind Op, CondPtr L, CondPtr R) {
    auto C = std::make_shared<Cond>();
    C->K = Op;
    C->L = L;
    C->R = R;
    return made(C);
  }
  /// Enters one level of recursion; false (with an error) past the limit.
  bool enter() {
    if (++Nesting <= MaxExprDepth)
      return true;
    fail(formatv("the expression is nested more than {0} levels deep",
                 MaxExprDepth));
    return false;
  }

  ExprPtr add() {
    ExprPtr E = mul();
    while (E && (isSym("+") || isSym("-"))) {
      bool Plus = next().Text == "+";
      ExprPtr R = mul();
      if (!R)
        return nullptr;
      E = bin(Plus ? Expr::Kind::Add : Expr::Kind::Sub, E, R);
    }
    return E;
  }
  ExprPtr mul() {
    ExprPtr E = unary();
    while (E && (isSym("*") || isSym("/") || isSym("%") || isWord("mod"))) {
      std::string Op = next().Text;
      ExprPtr R = unary();
      if (!R)
        return nullptr;
      E = bin(Op == "*"   ? Expr::Kind::Mul
              : Op == "/" ? Expr::Kind::Div
              : Op == "%" ? Expr::Kind::Rem
                          : Expr::Kind::Mod,
              E, R);
    }
    return E;
  }
  ExprPtr unary() {
    if (isSym("-")) {
      ++Pos;
      if (!enter())
        return nullptr;
      ExprPtr E = unary();
      --Nesting;
      if (!E)
        return nullptr;
      auto N = std::make_shared<Expr>();
      N->K = Expr::Kind::Neg;
      N->L = E;
      return made(N);
    }
    return primary();
  }
  ExprPtr primary() {
    const Token &T = peek();
    if (T.K == Token::Num) {
      if (T.Overflow) {
        fail("the integer " + T.Text + " does not fit in 64 bits");
        return nullptr;
      }
      auto E = std::make_shared<Expr>();
      E->K = Expr::Kind::Num;
      E->Value = next().Value;
      return made(E);
    }
    if (T.K == Token::Ident && T.Text == "pow2" && peek(1).K == Token::Sym &&
        peek(1).Text == "(") {
      next();
      next();
      if (!enter())
        return nullptr;
      ExprPtr A = expr();
      --Nesting;
      if (!A || !expectSym(")"))
        return nullptr;
      auto E = std::make_shared<Expr>();
      E->K = Expr::Kind::Pow2;
      E->L = A;
      return made(E);
    }
    if (T.K == Token::Ident && (T.Text == "min" || T.Text == "max")) {
      bool Min = next().Text == "min";
      if (!expectSym("(") || !enter())
        return nullptr;
      ExprPtr A = expr();
      ExprPtr B = A && expectSym(",") ? expr() : nullptr;
      --Nesting;
      if (!B || !expectSym(")"))
        return nullptr;
      return bin(Min ? Expr::Kind::Min : Expr::Kind::Max, A, B);
    }
    if (T.K == Token::Ident) {
      static const char *Reserved[] = {"and", "or", "not", "mod", "from",
                                       "to",  "in", "if",  "send"};
      for (const char *R : Reserved)
        if (T.Text == R) {
          fail("expected an expression");
          return nullptr;
        }
      auto E = std::make_shared<Expr>();
      E->K = Expr::Kind::Var;
      E->Name = next().Text;
      return made(E);
    }
    if (isSym("(")) {
      ++Pos;
      if (!enter())
        return nullptr;
      ExprPtr E = expr();
      --Nesting;
      if (!E || !expectSym(")"))
        return nullptr;
      return E;
    }
    fail("expected an expression");
    return nullptr;
  }

  CondPtr conj() {
    CondPtr C = atom();
    while (C && isWord("and")) {
      ++Pos;
      CondPtr D = atom();
      if (!D)
        return nullptr;
      C = join(Cond::Kind::And, C, D);
    }
    return C;
  }
  CondPtr atom() {
    if (isWord("not")) {
      ++Pos;
      if (!expectSym("(") || !enter())
        return nullptr;
      CondPtr C = cond();
      --Nesting;
      if (!C || !expectSym(")"))
        return nullptr;
      auto N = std::make_shared<Cond>();
      N->K = Cond::Kind::Not;
      N->L = C;
      return made(N);
    }
    ExprPtr A = expr();
    if (!A)
      return nullptr;
    static const std::pair<const char *, Cond::Kind> Rels[] = {
        {"<", Cond::Kind::Lt},  {"<=", Cond::Kind::Le}, {">", Cond::Kind::Gt},
        {">=", Cond::Kind::Ge}, {"==", Cond::Kind::Eq}, {"!=", Cond::Kind::Ne}};
    for (auto [Sym, Op] : Rels)
      if (isSym(Sym)) {
        ++Pos;
        ExprPtr B = expr();
        if (!B)
          return nullptr;
        auto C = std::make_shared<Cond>();
        C->K = Op;
        C->A = A;
        C->B = B;
        return made(C);
      }
    fail("expected a comparison (<, <=, >, >=, ==, !=)");
    return nullptr;
  }
};

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

  bool line(LineParser &LP, unsigned No) {
    const Token &First = LP.peek();
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
    T.Messages.push_back(F);
    return endOfLine(LP);
  }

  /// `holds NAME[j] at r [if COND]: from LO len LEN`, in a stage.
  bool holds(LineParser &LP, unsigned No) {
    if (T.Stages.empty())
      return LP.fail("'holds' outside a stage (start one with 'stage NAME "
                     "steps N')");
    HoldsCase H;
    H.Line = No;
    std::vector<ExprPtr> Vars;
    if (!LP.indexed(H.Family, Vars))
      return false;
    if (Vars.size() != 1 || Vars[0]->K != Expr::Kind::Var)
      return LP.fail("'holds' names a segment by one index name");
    H.SegVar = Vars[0]->Name;
    if (!LP.expectWord("at") || !LP.ident(H.RankVar))
      return false;
    if (LP.isWord("if")) {
      LP.next();
      H.Guard = LP.cond();
      if (!H.Guard)
        return false;
    }
    if (LP.isSym(":"))
      LP.next();
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
    }
    if (!LP.expectWord("from"))
      return false;
    O.Src = LP.expr();
    if (!O.Src || !LP.expectWord("to"))
      return false;
    O.Dst = LP.expr();
    if (!O.Dst)
      return false;
    S.Ops.push_back(O);
    return endOfLine(LP);
  }

  using Names = std::set<std::string>;

  /// The first name E uses that is not in scope.
  static const Expr *unknownName(const Expr &E, const Names &Scope) {
    if (E.K == Expr::Kind::Var)
      return Scope.count(E.Name) ? nullptr : &E;
    for (const ExprPtr &X : {E.L, E.R})
      if (X)
        if (const Expr *U = unknownName(*X, Scope))
          return U;
    return nullptr;
  }
  static const Expr *unknownName(const Cond &C, const Names &Scope) {
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
  llvm::Error checkNames() {
    std::optional<std::pair<const Expr *, unsigned>> Bad;
    auto Check = [&](const auto &X, const Names &Scope, unsigned Line) {
      if (!Bad && X)
        if (const Expr *U = unknownName(*X, Scope))
          Bad = {U, U->Line ? U->Line : Line};
    };
    auto CheckRanges = [&](const std::vector<Range> &Rs, Names &Scope,
                           unsigned Line) {
      for (const Range &R : Rs) {
        Check(R.Lo, Scope, Line);
        Check(R.Hi, Scope, Line);
        Scope.insert(R.Var);
      }
    };
    Names Top(T.Params.begin(), T.Params.end());
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
      Names S = Top;
      CheckRanges(F.Index, S, F.Line);
      for (const ExprPtr &X : {F.Origin, F.Member, F.Part, F.Parts})
        Check(X, S, F.Line);
    }
    for (const Goal &G : T.Goals) {
      Check(G.Lo, Top, G.Line);
      Check(G.Hi, Top, G.Line);
      Names S = Top;
      CheckRanges(G.Index, S, G.Line);
    }
    for (const Stage &St : T.Stages) {
      Check(St.Steps, Top, St.Line);
      for (const OpGen &O : St.Ops) {
        Names S = Top;
        S.insert("i");
        CheckRanges(O.Loops, S, O.Line);
        Check(O.Guard, S, O.Line);
        Check(O.Src, S, O.Line);
        Check(O.Dst, S, O.Line);
        CheckRanges(O.Bundle, S, O.Line);
        for (const ExprPtr &X : O.MsgIndex)
          Check(X, S, O.Line);
      }
      for (const HoldsCase &H : St.Holds) {
        Names S = Top;
        S.insert({"i", H.SegVar, H.RankVar});
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

  /// A reduction template has one segment family, `combine`/`send` ops of
  /// it and a `holds` in every stage ending with an unguarded case; no
  /// messages or goals (its goal is its collective's). Other templates
  /// have none of these.
  llvm::Error checkReduction() {
    auto Err = [&](unsigned Line, const llvm::Twine &Msg) {
      return makeDiagError("template", formatv("{0}:{1}: {2}", T.Source, Line,
                                               Msg.str()));
    };
    bool Red = specOf(T.Kind).isReduction();
    for (const MessageFamily &F : T.Messages)
      if (F.Segment != Red)
        return Err(F.Line, Red ? "a reduction's data are 'segment' "
                                 "families, not messages"
                               : "'segment' is for reductions (reduce, "
                                 "allreduce, reduce_scatter)");
    if (HaveOp && !Red)
      return Err(0, "'op' is for reductions");
    for (const Stage &St : T.Stages) {
      for (const OpGen &O : St.Ops)
        if (O.Combine && !Red)
          return Err(O.Line, "'combine' is for reductions");
      if (!Red && !St.Holds.empty())
        return Err(St.Holds.front().Line, "'holds' is for reductions");
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
    for (const Stage &St : T.Stages) {
      if (St.Holds.empty() || St.Holds.back().Guard)
        return Err(St.Line, formatv("stage {0} needs 'holds' lines ending "
                                    "with one without 'if' (what every rank "
                                    "holds of every segment at each step)",
                                    St.Name));
      for (const HoldsCase &H : St.Holds)
        if (H.Family != T.Messages[0].Name)
          return Err(H.Line, "unknown segment family '" + H.Family + "'");
    }
    return llvm::Error::success();
  }

  llvm::Expected<Template> finish() {
    auto Missing = [&](const char *What) {
      return makeDiagError("template", formatv("{0}: missing '{1}'",
                                               T.Source, What));
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
          return makeDiagError("template",
                               formatv("{0}:{1}: {2} takes {3} indices",
                                       T.Source, O.Line, O.Family,
                                       F->Index.size()));
      }
    for (const Goal &G : T.Goals)
      if (!T.family(G.Family))
        return makeDiagError("template",
                             formatv("{0}:{1}: unknown message family '{2}'",
                                     T.Source, G.Line, G.Family));
    if (auto E = checkReduction())
      return std::move(E);
    if (auto E = checkNames())
      return std::move(E);
    // Without goal lines, the goals are the collective's own rule: every
    // receiving group gets every message of the buffers it must end with.
    if (T.Goals.empty() && !T.isReduction())
      for (auto [Receivers, Buffer] : completenessGoals(T.Kind))
        for (const GroupDecl &D : T.Groups)
          if (D.Name == Receivers)
            for (const MessageFamily &F : T.Messages)
              if (F.Group == Buffer)
                T.Goals.push_back(Goal{D.Lo, D.Hi, F.Name, {}, D.Line});
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

llvm::Expected<Template> choreo::readTemplateFile(llvm::StringRef Path) {
  auto Buf = llvm::MemoryBuffer::getFile(Path);
  if (!Buf)
    return makeDiagError("template", formatv("cannot open {0}: {1}", Path,
                                             Buf.getError().message()));
  return parseTemplate((*Buf)->getBuffer(), Path);
}
