//===- template/TemplateExprParser.cpp - Template expressions -------------===//
///
/// \file
/// The recursive descent over one line's tokens for the pieces statements
/// are made of: expressions (+ -, * / % mod xor, unary -, pow2, min, max,
/// parentheses), conditions (comparisons joined by and, or, not), ranges
/// and indexed names. Trees and recursion are bounded by MaxExprDepth.
///
//===----------------------------------------------------------------------===//

#include "template/LineParser.h"

#include "llvm/Support/FormatVariadic.h"

using namespace choreo;
using llvm::formatv;

CondPtr LineParser::cond() {
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

bool LineParser::range(Range &R) {
  if (!ident(R.Var) || !expectWord("in") || !expectSym("["))
    return false;
  R.Lo = expr();
  if (!R.Lo || !expectSym(","))
    return false;
  R.Hi = expr();
  return R.Hi && expectSym(")");
}

bool LineParser::ranges(std::vector<Range> &Out) {
  do {
    Range R;
    if (!range(R))
      return false;
    Out.push_back(R);
  } while (isSym(",") && (++Pos, true));
  return true;
}

bool LineParser::indexed(std::string &Name, std::vector<ExprPtr> &Index) {
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

bool LineParser::tooDeep(unsigned Depth) {
  if (Depth <= MaxExprDepth)
    return false;
  fail(formatv("the expression is nested more than {0} levels deep (split "
               "it with 'let')",
               MaxExprDepth));
  return true;
}

ExprPtr LineParser::made(std::shared_ptr<Expr> E) {
  E->Line = LineNo;
  E->Depth = 1 + std::max(E->L ? E->L->Depth : 0, E->R ? E->R->Depth : 0);
  return tooDeep(E->Depth) ? nullptr : E;
}

CondPtr LineParser::made(std::shared_ptr<Cond> C) {
  C->Line = LineNo;
  C->Depth = 1 + std::max({C->L ? C->L->Depth : 0, C->R ? C->R->Depth : 0,
                           C->A ? C->A->Depth : 0, C->B ? C->B->Depth : 0});
  return tooDeep(C->Depth) ? nullptr : C;
}

ExprPtr LineParser::bin(Expr::Kind Op, ExprPtr L, ExprPtr R) {
  auto E = std::make_shared<Expr>();
  E->K = Op;
  E->L = L;
  E->R = R;
  return made(E);
}

CondPtr LineParser::join(Cond::Kind Op, CondPtr L, CondPtr R) {
  auto C = std::make_shared<Cond>();
  C->K = Op;
  C->L = L;
  C->R = R;
  return made(C);
}

bool LineParser::enter() {
  if (++Nesting <= MaxExprDepth)
    return true;
  fail(formatv("the expression is nested more than {0} levels deep",
               MaxExprDepth));
  return false;
}

ExprPtr LineParser::add() {
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

ExprPtr LineParser::mul() {
  ExprPtr E = unary();
  while (E && (isSym("*") || isSym("/") || isSym("%") || isWord("mod") ||
               isWord("xor"))) {
    std::string Op = next().Text;
    ExprPtr R = unary();
    if (!R)
      return nullptr;
    E = bin(Op == "*"     ? Expr::Kind::Mul
            : Op == "xor" ? Expr::Kind::Xor
            : Op == "/"   ? Expr::Kind::Div
            : Op == "%"   ? Expr::Kind::Rem
                          : Expr::Kind::Mod,
            E, R);
  }
  return E;
}

ExprPtr LineParser::unary() {
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

ExprPtr LineParser::primary() {
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
  if (T.K == Token::Ident && (T.Text == "pow2" || T.Text == "log2") &&
      peek(1).K == Token::Sym && peek(1).Text == "(") {
    bool Log = T.Text == "log2";
    next();
    next();
    if (!enter())
      return nullptr;
    ExprPtr A = expr();
    --Nesting;
    if (!A || !expectSym(")"))
      return nullptr;
    auto E = std::make_shared<Expr>();
    E->K = Log ? Expr::Kind::Log2 : Expr::Kind::Pow2;
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
    static const char *Reserved[] = {"and",  "or", "not", "mod", "xor",
                                     "from", "to", "in",  "if",  "send"};
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

CondPtr LineParser::conj() {
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

CondPtr LineParser::atom() {
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
