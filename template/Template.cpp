//===- template/Template.cpp - Schedules as affine loop nests -------------===//
///
/// \file
/// The template language: a line-oriented parser, an evaluator of its
/// expressions and conditions, and the expansion of a template into a
/// Schedule for concrete parameters.
///
//===----------------------------------------------------------------------===//

#include "template/Template.h"
#include "ir/Schedule.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace choreo;
using llvm::formatv;

//===----------------------------------------------------------------------===//
// Printing
//===----------------------------------------------------------------------===//

std::string Expr::str() const {
  auto Bin = [&](const char *Op) {
    return "(" + L->str() + " " + Op + " " + R->str() + ")";
  };
  switch (K) {
  case Kind::Num:
    return std::to_string(Value);
  case Kind::Var:
    return Name;
  case Kind::Add:
    return Bin("+");
  case Kind::Sub:
    return Bin("-");
  case Kind::Mul:
    return Bin("*");
  case Kind::Div:
    return Bin("/");
  case Kind::Rem:
    return Bin("%");
  case Kind::Mod:
    return Bin("mod");
  case Kind::Min:
    return "min(" + L->str() + ", " + R->str() + ")";
  case Kind::Max:
    return "max(" + L->str() + ", " + R->str() + ")";
  case Kind::Neg:
    return "-" + L->str();
  }
  return "?";
}

std::string Cond::str() const {
  auto Rel = [&](const char *Op) { return A->str() + " " + Op + " " + B->str(); };
  switch (K) {
  case Kind::True:
    return "true";
  case Kind::Lt:
    return Rel("<");
  case Kind::Le:
    return Rel("<=");
  case Kind::Gt:
    return Rel(">");
  case Kind::Ge:
    return Rel(">=");
  case Kind::Eq:
    return Rel("==");
  case Kind::Ne:
    return Rel("!=");
  case Kind::And:
    return L->str() + " and " + R->str();
  case Kind::Or:
    return "(" + L->str() + " or " + R->str() + ")";
  case Kind::Not:
    return "not (" + L->str() + ")";
  }
  return "?";
}

const MessageFamily *Template::family(llvm::StringRef Name) const {
  for (const MessageFamily &F : Messages)
    if (F.Name == Name)
      return &F;
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Parsing
//===----------------------------------------------------------------------===//

namespace {

struct Token {
  enum Kind { Ident, Num, Sym, Label, End } K = End;
  std::string Text;
  int64_t Value = 0;
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
        llvm::StringRef(T.Text).getAsInteger(10, T.Value);
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

  static ExprPtr bin(Expr::Kind Op, ExprPtr L, ExprPtr R) {
    auto E = std::make_shared<Expr>();
    E->K = Op;
    E->L = L;
    E->R = R;
    return E;
  }
  static CondPtr join(Cond::Kind Op, CondPtr L, CondPtr R) {
    auto C = std::make_shared<Cond>();
    C->K = Op;
    C->L = L;
    C->R = R;
    return C;
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
      ExprPtr E = unary();
      if (!E)
        return nullptr;
      auto N = std::make_shared<Expr>();
      N->K = Expr::Kind::Neg;
      N->L = E;
      return N;
    }
    return primary();
  }
  ExprPtr primary() {
    const Token &T = peek();
    if (T.K == Token::Num) {
      auto E = std::make_shared<Expr>();
      E->K = Expr::Kind::Num;
      E->Value = next().Value;
      return E;
    }
    if (T.K == Token::Ident && (T.Text == "min" || T.Text == "max")) {
      bool Min = next().Text == "min";
      if (!expectSym("("))
        return nullptr;
      ExprPtr A = expr();
      if (!A || !expectSym(","))
        return nullptr;
      ExprPtr B = expr();
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
      return E;
    }
    if (isSym("(")) {
      ++Pos;
      ExprPtr E = expr();
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
      if (!expectSym("("))
        return nullptr;
      CondPtr C = cond();
      if (!C || !expectSym(")"))
        return nullptr;
      auto N = std::make_shared<Cond>();
      N->K = Cond::Kind::Not;
      N->L = C;
      return N;
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
        return C;
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
      if (Raw.consume_front("template ") || Raw == "template") {
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

  bool line(LineParser &LP, unsigned No) {
    const Token &First = LP.peek();
    if (First.K == Token::Label || LP.isWord("for") || LP.isWord("if") ||
        LP.isWord("send"))
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
    if (!LP.expectWord("send") || !LP.indexed(O.Family, O.MsgIndex))
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
      return Missing("message");
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
    if (auto E = checkAgainstSpec(T))
      return std::move(E);
    return std::move(T);
  }
};

} // namespace

llvm::Error choreo::checkAgainstSpec(const Template &T) {
  const CollectiveSpec &Spec = specOf(T.Kind);
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
      return makeDiagError("template",
                           formatv("{0}:{1}: {2} has no group named {3} (its "
                                   "groups: {4})",
                                   T.Source, D.Line, Spec.Name, D.Name,
                                   Expected));
  for (const std::string &G : Names)
    if (!Declared(G))
      return makeDiagError("template",
                           formatv("{0}: {1} needs group {2} (its groups: "
                                   "{3}); declare it with 'group {2} [lo, hi)'",
                                   T.Source, Spec.Name, G, Expected));
  for (const MessageFamily &F : T.Messages)
    if (!Spec.contributes(F.Group))
      return makeDiagError("template",
                           formatv("{0}:{1}: message {2}: no buffer for group "
                                   "{3} (in {4} only the members of a "
                                   "contributing group send their own data)",
                                   T.Source, F.Line, F.Name, F.Group,
                                   Spec.Name));
  // Some rank must end with every contributed buffer (gather-type rules),
  // so each needs a goal delivering it: the goals state the collective's
  // completeness rule, not a weaker one of the template's own.
  for (llvm::StringRef Buf : Names) {
    if (!Spec.contributes(Buf))
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

llvm::Expected<Template> choreo::loadTemplate(llvm::StringRef NameOrPath) {
  for (auto [Name, Text] : builtinTemplates())
    if (NameOrPath == Name)
      return parseTemplate(Text, (llvm::Twine("<builtin ") + Name + ">").str());
  return readTemplateFile(NameOrPath);
}

//===----------------------------------------------------------------------===//
// Evaluation
//===----------------------------------------------------------------------===//

static int64_t floorDiv(int64_t A, int64_t B) {
  int64_t Q = A / B;
  return (A % B != 0 && ((A < 0) != (B < 0))) ? Q - 1 : Q;
}

llvm::Expected<int64_t> choreo::evalExpr(const Expr &E, const Env &V) {
  if (E.K == Expr::Kind::Num)
    return E.Value;
  if (E.K == Expr::Kind::Var) {
    auto It = V.find(E.Name);
    if (It == V.end())
      return makeDiagError("template", "unknown name '" + E.Name + "'");
    return It->second;
  }
  auto L = evalExpr(*E.L, V);
  if (!L)
    return L.takeError();
  if (E.K == Expr::Kind::Neg)
    return -*L;
  auto R = evalExpr(*E.R, V);
  if (!R)
    return R.takeError();
  switch (E.K) {
  case Expr::Kind::Add:
    return *L + *R;
  case Expr::Kind::Sub:
    return *L - *R;
  case Expr::Kind::Mul:
    return *L * *R;
  case Expr::Kind::Div:
  case Expr::Kind::Rem:
  case Expr::Kind::Mod:
    if (*R <= 0)
      return makeDiagError("template", formatv("{0}: divisor {1} is not "
                                               "positive",
                                               E.str(), *R));
    if (E.K == Expr::Kind::Div)
      return floorDiv(*L, *R);
    return *L - *R * floorDiv(*L, *R);
  case Expr::Kind::Min:
    return std::min(*L, *R);
  case Expr::Kind::Max:
    return std::max(*L, *R);
  default:
    break;
  }
  return makeDiagError("template", "bad expression");
}

llvm::Expected<bool> choreo::evalCond(const Cond &C, const Env &V) {
  switch (C.K) {
  case Cond::Kind::True:
    return true;
  case Cond::Kind::And:
  case Cond::Kind::Or: {
    auto L = evalCond(*C.L, V);
    if (!L)
      return L.takeError();
    if ((C.K == Cond::Kind::And) != *L)
      return *L;
    return evalCond(*C.R, V);
  }
  case Cond::Kind::Not: {
    auto L = evalCond(*C.L, V);
    if (!L)
      return L.takeError();
    return !*L;
  }
  default:
    break;
  }
  auto A = evalExpr(*C.A, V);
  if (!A)
    return A.takeError();
  auto B = evalExpr(*C.B, V);
  if (!B)
    return B.takeError();
  switch (C.K) {
  case Cond::Kind::Lt:
    return *A < *B;
  case Cond::Kind::Le:
    return *A <= *B;
  case Cond::Kind::Gt:
    return *A > *B;
  case Cond::Kind::Ge:
    return *A >= *B;
  case Cond::Kind::Eq:
    return *A == *B;
  case Cond::Kind::Ne:
    return *A != *B;
  default:
    break;
  }
  return makeDiagError("template", "bad condition");
}

llvm::Expected<Env> choreo::bindParams(const Template &T, const Env &Params) {
  Env V;
  for (const std::string &P : T.Params) {
    auto It = Params.find(P);
    if (It == Params.end())
      return makeDiagError("template", formatv("{0} needs --{1}", T.Name, P));
    V[P] = It->second;
  }
  for (const auto &[Name, E] : T.Lets) {
    auto X = evalExpr(*E, V);
    if (!X)
      return X.takeError();
    V[Name] = *X;
  }
  for (const CondPtr &C : T.Domain) {
    auto Ok = evalCond(*C, V);
    if (!Ok)
      return Ok.takeError();
    if (!*Ok) {
      std::string Vals;
      for (const std::string &P : T.Params)
        Vals += (Vals.empty() ? "" : ", ") + P + " = " +
                std::to_string(V[P]);
      return makeDiagError("template",
                           formatv("{0} is outside the domain of {1}: `{2}` "
                                   "does not hold",
                                   Vals, T.Name, C->str()));
    }
  }
  return V;
}

//===----------------------------------------------------------------------===//
// Expansion
//===----------------------------------------------------------------------===//

namespace {

class Expander {
public:
  Expander(const Template &T, Env V) : T(T), V(std::move(V)) {}

  llvm::Expected<Schedule> run(const std::vector<uint64_t> &SizesA,
                               const std::vector<uint64_t> &SizesB) {
    auto N = evalExpr(*T.Ranks, V);
    if (!N)
      return N.takeError();
    if (*N <= 0)
      return makeDiagError("template", "the template has no ranks");
    S.Kind = T.Kind;
    S.NumRanks = *N;
    S.Topo = T.Ring ? Topology::ring() : Topology::full();
    for (const GroupDecl &G : T.Groups) {
      auto Lo = evalExpr(*G.Lo, V);
      if (!Lo)
        return Lo.takeError();
      auto Hi = evalExpr(*G.Hi, V);
      if (!Hi)
        return Hi.takeError();
      Group Gr{G.Name, {}};
      for (int64_t R = *Lo; R < *Hi; ++R)
        Gr.Members.push_back(R);
      S.Groups.push_back(Gr);
    }
    for (const Group &G : S.Groups) {
      const std::vector<uint64_t> &Sz =
          G.Name == "A" ? SizesA : G.Name == "B" ? SizesB : SizesA;
      if (Sz.size() != G.Members.size())
        return makeDiagError("template",
                             formatv("group {0} has {1} members but {2} sizes "
                                     "were given",
                                     G.Name, G.Members.size(), Sz.size()));
      S.Sizes.push_back({G.Name, Sz});
    }
    for (const Stage &St : T.Stages) {
      auto Steps = evalExpr(*St.Steps, V);
      if (!Steps)
        return Steps.takeError();
      for (int64_t I = 0; I < *Steps; ++I) {
        S.Steps.newStep();
        V["i"] = I;
        for (const OpGen &O : St.Ops)
          if (auto E = loops(O, 0))
            return E;
      }
    }
    V.erase("i");
    S.Steps.dropEmptySteps();
    return std::move(S);
  }

private:
  const Template &T;
  Env V;
  Schedule S;

  llvm::Error loops(const OpGen &O, size_t Depth) {
    if (Depth == O.Loops.size())
      return emit(O);
    const Range &R = O.Loops[Depth];
    auto Lo = evalExpr(*R.Lo, V);
    if (!Lo)
      return Lo.takeError();
    auto Hi = evalExpr(*R.Hi, V);
    if (!Hi)
      return Hi.takeError();
    for (int64_t X = *Lo; X < *Hi; ++X) {
      V[R.Var] = X;
      if (auto E = loops(O, Depth + 1))
        return E;
    }
    V.erase(R.Var);
    return llvm::Error::success();
  }

  llvm::Error emit(const OpGen &O) {
    if (O.Guard) {
      auto G = evalCond(*O.Guard, V);
      if (!G)
        return G.takeError();
      if (!*G)
        return llvm::Error::success();
    }
    auto Src = evalExpr(*O.Src, V);
    if (!Src)
      return Src.takeError();
    auto Dst = evalExpr(*O.Dst, V);
    if (!Dst)
      return Dst.takeError();
    llvm::SmallVector<choreo::Block, 2> Pieces;
    if (auto E = bundle(O, 0, Pieces))
      return E;
    // Ranks outside the ring are kept (as huge numbers they fail the
    // structural rank check with the op's JSON pointer).
    auto AsRank = [](int64_t R) {
      return R < 0 || R > INT32_MAX ? UINT32_MAX : static_cast<Rank>(R);
    };
    addOpIfAny(S.Steps, AsRank(*Src), AsRank(*Dst), Pieces);
    return llvm::Error::success();
  }

  /// The blocks of the messages the op carries, over its bundle ranges.
  llvm::Error bundle(const OpGen &O, size_t Depth,
                     llvm::SmallVectorImpl<choreo::Block> &Pieces) {
    if (Depth < O.Bundle.size()) {
      const Range &R = O.Bundle[Depth];
      auto Lo = evalExpr(*R.Lo, V);
      if (!Lo)
        return Lo.takeError();
      auto Hi = evalExpr(*R.Hi, V);
      if (!Hi)
        return Hi.takeError();
      for (int64_t X = *Lo; X < *Hi; ++X) {
        V[R.Var] = X;
        if (auto E = bundle(O, Depth + 1, Pieces))
          return E;
      }
      V.erase(R.Var);
      return llvm::Error::success();
    }
    const MessageFamily &F = *T.family(O.Family);
    Env MV = V;
    for (size_t K = 0; K < F.Index.size(); ++K) {
      auto X = evalExpr(*O.MsgIndex[K], V);
      if (!X)
        return X.takeError();
      MV[F.Index[K].Var] = *X;
    }
    auto Block = messageBlock(F, MV);
    if (!Block)
      return Block.takeError();
    addPiece(Pieces, Block->Buf, Block->Lo, Block->Hi);
    return llvm::Error::success();
  }

  /// The bytes message F[index] stands for.
  llvm::Expected<choreo::Block> messageBlock(const MessageFamily &F,
                                             const Env &MV) {
    auto Member = evalExpr(*F.Member, MV);
    if (!Member)
      return Member.takeError();
    std::optional<BufferId> Buf = S.bufferId(F.Group);
    const Group *G = S.group(F.Group);
    if (!Buf || !G)
      return makeDiagError("template",
                           formatv("message {0}: no buffer for group {1}",
                                   F.Name, F.Group));
    if (*Member < 0 || *Member >= int64_t(G->Members.size()))
      return makeDiagError("template",
                           formatv("message {0}: member {1} is not in group "
                                   "{2}",
                                   F.Name, *Member, F.Group));
    std::vector<uint64_t> Off = prefixSums(*S.sizes(F.Group));
    choreo::Block B;
    B.Buf = *Buf;
    B.Lo = Off[*Member];
    B.Hi = Off[*Member + 1];
    if (F.Part) {
      auto Part = evalExpr(*F.Part, MV);
      if (!Part)
        return Part.takeError();
      auto Parts = evalExpr(*F.Parts, MV);
      if (!Parts)
        return Parts.takeError();
      if (*Parts <= 0 || *Part < 0 || *Part >= *Parts)
        return makeDiagError("template", formatv("message {0}: part {1} of "
                                                 "{2}",
                                                 F.Name, *Part, *Parts));
      uint64_t K = B.Hi - B.Lo;
      uint64_t Lo = B.Lo;
      B.Lo = Lo + partStart(K, *Parts, *Part);
      B.Hi = Lo + partStart(K, *Parts, *Part + 1);
    }
    return B;
  }
};

} // namespace

llvm::Expected<Schedule> choreo::expandTemplate(
    const Template &T, const Env &Params, const std::vector<uint64_t> &SizesA,
    const std::vector<uint64_t> &SizesB) {
  auto V = bindParams(T, Params);
  if (!V)
    return V.takeError();
  auto S = Expander(T, *V).run(SizesA, SizesB);
  if (!S)
    return S.takeError();
  S->Algorithm = "template:" + T.Name;
  for (const std::string &P : T.Params)
    S->Params[P] = Params.at(P);
  return S;
}

std::pair<std::vector<uint64_t>, std::vector<uint64_t>>
choreo::unitSizes(const Template &T, const Env &Params) {
  std::pair<std::vector<uint64_t>, std::vector<uint64_t>> Out;
  auto V = bindParams(T, Params);
  if (!V) {
    llvm::consumeError(V.takeError());
    return Out;
  }
  for (const GroupDecl &G : T.Groups) {
    auto Lo = evalExpr(*G.Lo, *V), Hi = evalExpr(*G.Hi, *V);
    if (!Lo || !Hi) {
      llvm::consumeError(Lo.takeError());
      llvm::consumeError(Hi.takeError());
      continue;
    }
    uint64_t Bytes = 1;
    for (const MessageFamily &F : T.Messages)
      if (F.Group == G.Name && F.Parts) {
        auto N = evalExpr(*F.Parts, *V);
        if (N && *N > 0)
          Bytes = std::max<uint64_t>(Bytes, *N);
        else
          llvm::consumeError(N.takeError());
      }
    bool Silent = !specOf(T.Kind).contributes(G.Name);
    std::vector<uint64_t> Sizes(std::max<int64_t>(0, *Hi - *Lo),
                                Silent ? 0 : Bytes);
    (G.Name == "B" ? Out.second : Out.first) = std::move(Sizes);
  }
  return Out;
}

llvm::ArrayRef<GeneratorTemplate>
choreo::templatesOfGenerator(llvm::StringRef Id) {
  static const GeneratorTemplate Ring[] = {
      {"ring-equal", ""},
      {"ring-senders-first", ""},
      {"ring-receivers-first", ""},
      {"ring-single-receiver", ""},
      {"ring-senders-first-odd", ""},
      {"ring-receivers-first-odd", ""},
  };
  static const GeneratorTemplate Kang[] = {
      {"kang-divisible", "--exchange subgroups --intra ring"},
  };
  if (Id == "half-allgather-ring")
    return Ring;
  if (Id == "inter-allgather-kang")
    return Kang;
  return {};
}
