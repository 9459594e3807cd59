//===- template/LineParser.h - One template line ----------------*- C++ -*-===//
///
/// \file
/// Internal to the template parser: a LineParser holds the tokens of one
/// line (TemplateLexer.cpp) and parses the pieces statements are made of,
/// expressions, conditions, ranges and indexed names (TemplateExprParser.cpp).
/// The statements themselves are TemplateParser.cpp's. The first error is
/// kept in Err, naming the source, the line and the token it stopped at.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_TEMPLATE_LINEPARSER_H
#define CHOREO_TEMPLATE_LINEPARSER_H

#include "template/Template.h"

#include <string>
#include <vector>

namespace choreo {

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

  /// Records Msg (the first error only), with where the line stopped.
  bool fail(const llvm::Twine &Msg);
  bool expectWord(llvm::StringRef W);
  bool expectSym(llvm::StringRef S);
  bool ident(std::string &Out);

  // expr := add; `mod` binds like `*` (x + y mod n is x + (y mod n)).
  ExprPtr expr() { return add(); }
  CondPtr cond();
  /// `VAR in [LO, HI)`
  bool range(Range &R);
  /// Ranges separated by commas.
  bool ranges(std::vector<Range> &Out);
  /// NAME[e, e, ...]
  bool indexed(std::string &Name, std::vector<ExprPtr> &Index);

private:
  std::vector<Token> Toks;
  size_t Pos = 0;
  unsigned LineNo;
  llvm::StringRef Source;

  /// Splits a line into names, numbers, labels (`#...`) and symbols; `//`
  /// starts a comment.
  void tokenize(llvm::StringRef S);

  /// Nesting of the recursive descent ('(', unary '-', 'not ('); the trees
  /// built are bounded by tooDeep.
  unsigned Nesting = 0;

  bool tooDeep(unsigned Depth);
  ExprPtr made(std::shared_ptr<Expr> E);
  CondPtr made(std::shared_ptr<Cond> C);
  ExprPtr bin(Expr::Kind Op, ExprPtr L, ExprPtr R);
  CondPtr join(Cond::Kind Op, CondPtr L, CondPtr R);
  /// Enters one level of recursion; false (with an error) past the limit.
  bool enter();

  ExprPtr add();
  ExprPtr mul();
  ExprPtr unary();
  ExprPtr primary();
  CondPtr conj();
  CondPtr atom();
};

} // namespace choreo

#endif
