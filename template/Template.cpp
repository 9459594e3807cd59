//===- template/Template.cpp - The template AST and its collective --------===//
///
/// \file
/// Printing of expressions and conditions, and loading by name or file. The
/// parser is TemplateParser.cpp (its checks TemplateCheck.cpp), evaluation
/// TemplateEval.cpp, expansion TemplateExpand.cpp (its size
/// TemplateBudget.cpp). Which templates describe which generator is said by
/// the generators (Generator::templates).
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
  case Kind::Xor:
    return Bin("xor");
  case Kind::Min:
    return "min(" + L->str() + ", " + R->str() + ")";
  case Kind::Max:
    return "max(" + L->str() + ", " + R->str() + ")";
  case Kind::Neg:
    return "-" + L->str();
  case Kind::Pow2:
    return "pow2(" + L->str() + ")";
  case Kind::Log2:
    return "log2(" + L->str() + ")";
  }
  return "?";
}

std::string Cond::str() const {
  auto Rel = [&](const char *Op) {
    return A->str() + " " + Op + " " + B->str();
  };
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

llvm::Expected<Template> choreo::loadTemplate(llvm::StringRef NameOrPath) {
  for (auto [Name, Text] : builtinTemplates())
    if (NameOrPath == Name)
      return parseTemplate(Text, (llvm::Twine("<builtin ") + Name + ">").str());
  return readTemplateFile(NameOrPath);
}
