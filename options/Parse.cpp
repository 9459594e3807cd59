//===- options/Parse.cpp - Parsing and binding declared options -----------===//
///
/// \file
/// Parsing of option values by their declarations, the check against one
/// generator's declarations with its defaults, and the merge of several
/// generators' declarations.
///
//===----------------------------------------------------------------------===//

#include "options/Parse.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

using namespace choreo;
using llvm::formatv;

namespace {
llvm::Error argumentError(const llvm::Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
}

/// "a, b or c".
std::string listWords(llvm::ArrayRef<std::string> Words,
                      llvm::StringRef Last = " or ") {
  std::string S;
  for (size_t I = 0; I < Words.size(); ++I) {
    if (I)
      S += I + 1 == Words.size() ? Last.str() : ", ";
    S += Words[I];
  }
  return S;
}
} // namespace

//===----------------------------------------------------------------------===//
// Parsing
//===----------------------------------------------------------------------===//

llvm::Expected<uint64_t> choreo::parseSize(llvm::StringRef Text,
                                           llvm::StringRef Option) {
  llvm::StringRef T = Text.trim();
  uint64_t Mult = 1;
  if (!T.empty()) {
    switch (llvm::toUpper(T.back())) {
    case 'K':
      Mult = 1ull << 10;
      break;
    case 'M':
      Mult = 1ull << 20;
      break;
    case 'G':
      Mult = 1ull << 30;
      break;
    }
    if (Mult != 1)
      T = T.drop_back();
  }
  uint64_t V;
  if (T.empty() || !llvm::all_of(T, llvm::isDigit) || T.getAsInteger(10, V))
    return optionError(Option, "'" + Text +
                                   "' is not a size (a non-negative integer, "
                                   "optionally with K, M or G)");
  if (V != 0 && Mult > UINT64_MAX / V)
    return optionError(Option, "'" + Text + "' is too large");
  return V * Mult;
}

llvm::Expected<OptionValue> choreo::parseOptionValue(const OptionDecl &D,
                                                     llvm::StringRef Text) {
  if (D.Parse)
    return D.Parse(D, Text);
  switch (D.Kind) {
  case OptionKind::Count:
  case OptionKind::Rank: {
    uint64_t V;
    if (Text.empty() || !llvm::all_of(Text, llvm::isDigit) ||
        Text.getAsInteger(10, V))
      return optionError(D, "'" + Text + "' is not a non-negative integer");
    return OptionValue(V);
  }
  case OptionKind::Size: {
    if (llvm::is_contained(D.Words, Text))
      return OptionValue(Text.str());
    auto V = parseSize(Text, D.Name);
    if (!V)
      return V.takeError();
    return OptionValue(*V);
  }
  case OptionKind::SizeList: {
    std::vector<uint64_t> Vs;
    llvm::SmallVector<llvm::StringRef, 16> Parts;
    Text.split(Parts, ',');
    for (llvm::StringRef Part : Parts) {
      auto V = parseSize(Part, D.Name);
      if (!V)
        return V.takeError();
      Vs.push_back(*V);
    }
    return OptionValue(std::move(Vs));
  }
  case OptionKind::Choice:
  case OptionKind::Text:
    return OptionValue(Text.str());
  case OptionKind::Flag:
    return OptionValue(true);
  case OptionKind::Real: {
    double V;
    llvm::StringRef T = Text.trim();
    if (T.empty() || T.getAsDouble(V) || !std::isfinite(V) || V < 0)
      return optionError(D, "'" + Text + "' is not a non-negative number");
    return OptionValue(V);
  }
  }
  return optionError(D, "undeclared kind of value");
}

llvm::Expected<OptionValues>
choreo::parseOptions(llvm::ArrayRef<std::string> Args,
                     llvm::ArrayRef<OptionDecl> Decls) {
  OptionValues Out(Decls);
  for (size_t I = 0; I < Args.size(); ++I) {
    llvm::StringRef A = Args[I];
    if (!A.starts_with("--"))
      return argumentError(formatv("unexpected argument '{0}' "
                                   "(options are --name value)",
                                   A));
    llvm::StringRef Name = A.drop_front(2), Value;
    if (Name.contains('=')) {
      std::tie(Name, Value) = Name.split('=');
    } else {
      if (I + 1 >= Args.size())
        return optionError(Name, "missing value");
      Value = Args[++I];
    }
    if (Out.find(Name))
      return optionError(Name, "given twice");
    const OptionDecl *D = llvm::find_if(
        Decls, [&](const OptionDecl &X) { return X.Name == Name; });
    if (D == Decls.end())
      return optionError(Name, "unknown option");
    auto V = parseOptionValue(*D, Value);
    if (!V)
      return V.takeError();
    Out.Entries.push_back({D, std::move(*V), true});
  }
  Out.sortByDeclaration();
  return Out;
}

//===----------------------------------------------------------------------===//
// Binding to one generator
//===----------------------------------------------------------------------===//

llvm::Error choreo::checkChoice(const OptionDecl &D, llvm::StringRef V) {
  if (llvm::is_contained(D.Choices, V))
    return llvm::Error::success();
  uint64_t N;
  double X;
  if (D.AlsoAdmits == OptionDecl::Numbers::Count && !V.getAsInteger(10, N))
    return llvm::Error::success();
  if (D.AlsoAdmits == OptionDecl::Numbers::Real && !V.getAsDouble(X) &&
      X >= 0 && std::isfinite(X))
    return llvm::Error::success();
  if (D.AlsoAdmits == OptionDecl::Numbers::Real && D.Choices.empty())
    return optionError(D, "'" + V + "' is not a non-negative number");
  for (const RefusedChoice &R : D.Refused)
    if (R.Value == V)
      return optionError(D, R.Why);
  return optionError(
      D, "'" + V + "' is not one of " +
             (D.AlsoAdmits != OptionDecl::Numbers::None ? "a number, " : "") +
             llvm::join(D.Choices, ", "));
}

llvm::Expected<OptionValues>
choreo::bindOptions(const OptionValues &Values,
                    llvm::ArrayRef<OptionDecl> Decls, llvm::StringRef Who) {
  OptionValues Out(Decls);
  for (const OptionEntry &E : Values.entries()) {
    if (!E.Given)
      continue; // defaults are the new declarations' to give
    const OptionDecl *D = llvm::find_if(
        Decls, [&](const OptionDecl &X) { return X.Name == E.Decl->Name; });
    if (D == Decls.end()) {
      std::vector<std::string> Names;
      for (const OptionDecl &X : Decls)
        Names.push_back("--" + X.Name);
      return optionError(E.Decl->Name,
                         formatv("{0} does not take this option (it takes "
                                 "{1})",
                                 Who,
                                 Names.empty() ? std::string("none")
                                               : llvm::join(Names, ", ")));
    }
    if (D->Kind != E.Decl->Kind)
      return optionError(D->Name, formatv("internal error: {0} declares "
                                          "another kind of value than the "
                                          "value parsed",
                                          Who));
    if (D->Kind == OptionKind::Choice)
      if (auto Err = checkChoice(*D, std::get<std::string>(E.Value)))
        return Err;
    Out.Entries.push_back({D, E.Value, true});
  }
  for (const OptionDecl &D : Decls) {
    if (D.Default.empty() || Out.find(D.Name))
      continue;
    auto V = parseOptionValue(D, D.Default);
    if (!V)
      return V.takeError();
    if (D.Kind == OptionKind::Choice)
      if (auto Err = checkChoice(D, D.Default))
        return Err;
    Out.Entries.push_back({&D, std::move(*V), false});
  }
  Out.sortByDeclaration();
  return Out;
}

//===----------------------------------------------------------------------===//
// Merging the declarations of several generators
//===----------------------------------------------------------------------===//

namespace {
const char *kindName(OptionKind K) {
  switch (K) {
  case OptionKind::Count:
    return "a count";
  case OptionKind::Size:
    return "a size";
  case OptionKind::SizeList:
    return "a size list";
  case OptionKind::Rank:
    return "a rank";
  case OptionKind::Choice:
    return "a choice";
  case OptionKind::Real:
    return "a number";
  case OptionKind::Flag:
    return "a flag";
  case OptionKind::Text:
    return "a text";
  }
  return "?";
}

/// Counts, then sizes and size lists, then ranks, then choices, then
/// numbers.
int kindOrder(OptionKind K) {
  switch (K) {
  case OptionKind::Count:
    return 0;
  case OptionKind::Size:
  case OptionKind::SizeList:
    return 1;
  case OptionKind::Rank:
    return 2;
  case OptionKind::Choice:
    return 3;
  case OptionKind::Real:
  case OptionKind::Flag:
  case OptionKind::Text:
    return 4;
  }
  return 4;
}
} // namespace

llvm::Expected<std::vector<OptionDecl>>
choreo::mergeOptionDecls(llvm::ArrayRef<llvm::ArrayRef<OptionDecl>> Lists) {
  struct Merged {
    OptionDecl D;
    std::vector<std::string> Helps;
    bool SameDefault = true, SameChoices = true;
  };
  std::vector<Merged> Out;
  for (llvm::ArrayRef<OptionDecl> List : Lists)
    for (const OptionDecl &D : List) {
      auto It = llvm::find_if(
          Out, [&](const Merged &M) { return M.D.Name == D.Name; });
      if (It == Out.end()) {
        Out.push_back({D, {D.Help}});
        Out.back().D.Refused.clear();
        continue;
      }
      if (It->D.Kind != D.Kind)
        return optionError(D, formatv("declared as {0} and as {1}",
                                      kindName(It->D.Kind), kindName(D.Kind)));
      if (It->D.Sizes != D.Sizes)
        return optionError(D, "declared as sizes of different groups");
      if (!llvm::is_contained(It->Helps, D.Help))
        It->Helps.push_back(D.Help);
      if (It->D.Default != D.Default || It->D.DefaultNote != D.DefaultNote)
        It->SameDefault = false;
      if (It->D.Choices != D.Choices)
        It->SameChoices = false;
      for (const std::string &C : D.Choices)
        if (!llvm::is_contained(It->D.Choices, C))
          It->D.Choices.push_back(C);
      for (const std::string &W : D.Words)
        if (!llvm::is_contained(It->D.Words, W))
          It->D.Words.push_back(W);
    }
  std::vector<OptionDecl> Decls;
  for (Merged &M : Out) {
    M.D.Help = listWords(M.Helps, ", or ");
    if (!M.SameDefault) {
      M.D.Default.clear();
      M.D.DefaultNote.clear();
    }
    if (!M.SameChoices)
      M.D.Help += M.SameDefault ? "; the values admitted depend on the "
                                  "algorithm"
                                : "; the values admitted and the default "
                                  "depend on the algorithm";
    else if (!M.SameDefault)
      M.D.DefaultNote = "depends on the algorithm";
    Decls.push_back(std::move(M.D));
  }
  std::stable_sort(Decls.begin(), Decls.end(),
                   [](const OptionDecl &X, const OptionDecl &Y) {
                     return kindOrder(X.Kind) < kindOrder(Y.Kind);
                   });
  return Decls;
}

//===----------------------------------------------------------------------===//
// Parsers in a command's own wording
//===----------------------------------------------------------------------===//

ValueParser choreo::numberParser(uint64_t Min, uint64_t Max,
                                 llvm::StringRef What) {
  return [Min, Max, What = What.str()](
             const OptionDecl &D,
             llvm::StringRef Text) -> llvm::Expected<OptionValue> {
    uint64_t N;
    if (Text.getAsInteger(10, N) || N < Min || N > Max)
      return optionError(D, "expected " + What + ", got '" + Text + "'");
    return OptionValue(N);
  };
}

ValueParser choreo::anyRealParser() {
  return [](const OptionDecl &D,
            llvm::StringRef Text) -> llvm::Expected<OptionValue> {
    double X;
    if (Text.getAsDouble(X))
      return optionError(D, "'" + Text + "' is not a number");
    return OptionValue(X);
  };
}

ValueParser
choreo::choiceParser(std::function<std::string(llvm::StringRef)> Message) {
  return [Message](const OptionDecl &D,
                   llvm::StringRef Text) -> llvm::Expected<OptionValue> {
    if (llvm::is_contained(D.Choices, Text))
      return OptionValue(Text.str());
    return argumentError(Message(Text));
  };
}
