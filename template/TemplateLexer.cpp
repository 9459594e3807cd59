//===- template/TemplateLexer.cpp - Tokens of a template line -------------===//
///
/// \file
/// Splits a line of the template language into tokens, and the token-level
/// steps of the line parser: expecting a word, a symbol or a name, and
/// recording the first error with the token it stopped at.
///
//===----------------------------------------------------------------------===//

#include "template/LineParser.h"

#include "llvm/Support/FormatVariadic.h"

using namespace choreo;
using llvm::formatv;

bool LineParser::fail(const llvm::Twine &Msg) {
  if (Err.empty()) {
    std::string Near = atEnd() ? "end of line" : "'" + peek().Text + "'";
    Err = formatv("{0}:{1}: {2} (at {3})", Source, LineNo, Msg.str(), Near);
  }
  return false;
}

bool LineParser::expectWord(llvm::StringRef W) {
  if (!isWord(W))
    return fail("expected '" + W + "'");
  ++Pos;
  return true;
}

bool LineParser::expectSym(llvm::StringRef S) {
  if (!isSym(S))
    return fail("expected '" + S + "'");
  ++Pos;
  return true;
}

bool LineParser::ident(std::string &Out) {
  if (peek().K != Token::Ident)
    return fail("expected a name");
  Out = next().Text;
  return true;
}

void LineParser::tokenize(llvm::StringRef S) {
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
