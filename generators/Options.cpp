//===- generators/Options.cpp - Declared, typed generator options ---------===//
///
/// \file
/// Parsing of option values by their declarations, the check against one
/// generator's declarations with its defaults, the merge of every
/// generator's declarations, the `params` echo and the help table.
///
//===----------------------------------------------------------------------===//

#include "generators/Options.h"

#include "ir/Diagnostics.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <cassert>
#include <cmath>

using namespace choreo;
using llvm::formatv;

llvm::Error choreo::optionError(llvm::StringRef Option,
                                const llvm::Twine &Msg) {
  return makeDiagError("params", ("--" + Option + ": " + Msg).str());
}

//===----------------------------------------------------------------------===//
// Declarations
//===----------------------------------------------------------------------===//

namespace {
OptionDecl makeDecl(llvm::StringRef Name, OptionKind Kind, llvm::StringRef Help,
                    SizedGroup Sizes = SizedGroup::None) {
  OptionDecl D;
  D.Name = Name.str();
  D.Kind = Kind;
  D.Help = Help.str();
  D.Sizes = Sizes;
  return D;
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

OptionDecl OptionDecl::count(llvm::StringRef Name, llvm::StringRef Help) {
  return makeDecl(Name, OptionKind::Count, Help);
}

OptionDecl OptionDecl::rank(llvm::StringRef Name, llvm::StringRef Help) {
  return makeDecl(Name, OptionKind::Rank, Help);
}

OptionDecl OptionDecl::size(llvm::StringRef Name, llvm::StringRef Help,
                            SizedGroup Sizes) {
  return makeDecl(Name, OptionKind::Size, Help, Sizes);
}

OptionDecl OptionDecl::sizeList(llvm::StringRef Name, llvm::StringRef Help,
                                SizedGroup Sizes) {
  return makeDecl(Name, OptionKind::SizeList, Help, Sizes);
}

OptionDecl OptionDecl::choice(llvm::StringRef Name, llvm::StringRef Help,
                              llvm::ArrayRef<llvm::StringRef> Choices) {
  OptionDecl D = makeDecl(Name, OptionKind::Choice, Help);
  for (llvm::StringRef C : Choices)
    D.Choices.push_back(C.str());
  return D;
}

OptionDecl OptionDecl::real(llvm::StringRef Name, llvm::StringRef Help) {
  return makeDecl(Name, OptionKind::Real, Help);
}

OptionDecl OptionDecl::admitting(llvm::StringRef Word) const {
  OptionDecl D = *this;
  D.Words.push_back(Word.str());
  return D;
}

OptionDecl OptionDecl::withHelp(llvm::StringRef H) const {
  OptionDecl D = *this;
  D.Help = H.str();
  return D;
}

OptionDecl OptionDecl::withDefault(llvm::StringRef Text) const {
  OptionDecl D = *this;
  D.Default = Text.str();
  return D;
}

OptionDecl OptionDecl::withDefaultNote(llvm::StringRef Note) const {
  OptionDecl D = *this;
  D.DefaultNote = Note.str();
  return D;
}

OptionDecl OptionDecl::refusing(llvm::StringRef Value,
                                llvm::StringRef Why) const {
  OptionDecl D = *this;
  D.Refused.push_back({Value.str(), Why.str()});
  return D;
}

OptionDecl OptionDecl::admitting(Numbers N) const {
  OptionDecl D = *this;
  D.AlsoAdmits = N;
  return D;
}

std::string OptionDecl::metavar() const {
  switch (Kind) {
  case OptionKind::Count:
    return "N";
  case OptionKind::Size:
    return Words.empty() ? "SIZE" : "SIZE|" + llvm::join(Words, "|");
  case OptionKind::SizeList:
    return "LIST";
  case OptionKind::Real:
    return "X";
  case OptionKind::Rank:
    return "RANK";
  case OptionKind::Choice:
    if (AlsoAdmits == Numbers::Real)
      return Choices.empty() ? "X" : "X|" + llvm::join(Choices, "|");
    return (AlsoAdmits == Numbers::Count ? "N|" : "") +
           llvm::join(Choices, "|");
  }
  return "VALUE";
}

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//

const OptionEntry *OptionValues::find(llvm::StringRef Name) const {
  for (const OptionEntry &E : Entries)
    if (E.Decl->Name == Name)
      return &E;
  return nullptr;
}

const OptionDecl *OptionValues::decl(llvm::StringRef Name) const {
  for (const OptionDecl &D : Decls)
    if (D.Name == Name)
      return &D;
  return nullptr;
}

bool OptionValues::given(llvm::StringRef Name) const {
  const OptionEntry *E = find(Name);
  return E && E->Given;
}

std::optional<uint64_t> OptionValues::number(llvm::StringRef Name) const {
  const OptionEntry *E = find(Name);
  if (!E)
    return std::nullopt;
  const uint64_t *V = std::get_if<uint64_t>(&E->Value);
  assert((V || (E->Decl->Kind == OptionKind::Size &&
                std::holds_alternative<std::string>(E->Value))) &&
         "not a count, rank or size option");
  return V ? std::optional<uint64_t>(*V) : std::nullopt;
}

std::optional<llvm::StringRef> OptionValues::word(llvm::StringRef Name) const {
  const OptionEntry *E = find(Name);
  if (!E || E->Decl->Kind != OptionKind::Size)
    return std::nullopt;
  const std::string *V = std::get_if<std::string>(&E->Value);
  return V ? std::optional<llvm::StringRef>(*V) : std::nullopt;
}

std::optional<double> OptionValues::real(llvm::StringRef Name) const {
  const OptionEntry *E = find(Name);
  if (!E)
    return std::nullopt;
  const double *V = std::get_if<double>(&E->Value);
  assert(V && "not a real option");
  return V ? std::optional<double>(*V) : std::nullopt;
}

std::optional<std::vector<uint64_t>>
OptionValues::sizeList(llvm::StringRef Name) const {
  const OptionEntry *E = find(Name);
  if (!E)
    return std::nullopt;
  const auto *V = std::get_if<std::vector<uint64_t>>(&E->Value);
  assert(V && "not a size-list option");
  return V ? std::optional<std::vector<uint64_t>>(*V) : std::nullopt;
}

std::optional<llvm::StringRef>
OptionValues::choice(llvm::StringRef Name) const {
  const OptionEntry *E = find(Name);
  if (!E)
    return std::nullopt;
  const std::string *V = std::get_if<std::string>(&E->Value);
  assert(V && "not a choice option");
  return V ? std::optional<llvm::StringRef>(*V) : std::nullopt;
}

void OptionValues::set(const OptionDecl &D, OptionValue V) {
  for (OptionEntry &E : Entries)
    if (E.Decl->Name == D.Name) {
      E = {&D, std::move(V), true};
      return;
    }
  Entries.push_back({&D, std::move(V), true});
  sortByDeclaration();
}

void OptionValues::sortByDeclaration() {
  auto Index = [&](const OptionEntry &E) {
    for (size_t I = 0; I < Decls.size(); ++I)
      if (Decls[I].Name == E.Decl->Name)
        return I;
    return Decls.size();
  };
  std::stable_sort(Entries.begin(), Entries.end(),
                   [&](const OptionEntry &X, const OptionEntry &Y) {
                     return Index(X) < Index(Y);
                   });
}

nlohmann::ordered_json OptionValues::toJson() const {
  nlohmann::ordered_json J = nlohmann::ordered_json::object();
  for (const OptionEntry &E : Entries)
    if (E.Given)
      std::visit([&](const auto &V) { J[E.Decl->Name] = V; }, E.Value);
  return J;
}

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
  switch (D.Kind) {
  case OptionKind::Count:
  case OptionKind::Rank: {
    uint64_t V;
    if (Text.empty() || !llvm::all_of(Text, llvm::isDigit) ||
        Text.getAsInteger(10, V))
      return optionError(D.Name,
                         "'" + Text + "' is not a non-negative integer");
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
    return OptionValue(Text.str());
  case OptionKind::Real: {
    double V;
    llvm::StringRef T = Text.trim();
    if (T.empty() || T.getAsDouble(V) || !std::isfinite(V) || V < 0)
      return optionError(D.Name, "'" + Text +
                                     "' is not a non-negative number");
    return OptionValue(V);
  }
  }
  return optionError(D.Name, "undeclared kind of value");
}

llvm::Expected<OptionValues>
choreo::parseOptions(llvm::ArrayRef<std::string> Args,
                     llvm::ArrayRef<OptionDecl> Decls) {
  OptionValues Out(Decls);
  for (size_t I = 0; I < Args.size(); ++I) {
    llvm::StringRef A = Args[I];
    if (!A.starts_with("--"))
      return makeDiagError("params", formatv("unexpected argument '{0}' "
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
    if (Out.has(Name))
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

namespace {
llvm::Error checkChoice(const OptionDecl &D, llvm::StringRef V) {
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
    return optionError(D.Name, "'" + V + "' is not a non-negative number");
  for (const RefusedChoice &R : D.Refused)
    if (R.Value == V)
      return optionError(D.Name, R.Why);
  return optionError(D.Name, "'" + V + "' is not one of " +
                                 (D.AlsoAdmits != OptionDecl::Numbers::None
                                      ? "a number, "
                                      : "") +
                                 llvm::join(D.Choices, ", "));
}
} // namespace

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
    if (D.Default.empty() || Out.has(D.Name))
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
        return optionError(D.Name,
                           formatv("declared as {0} and as {1}",
                                   kindName(It->D.Kind), kindName(D.Kind)));
      if (It->D.Sizes != D.Sizes)
        return optionError(D.Name, "declared as sizes of different groups");
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
// Help
//===----------------------------------------------------------------------===//

std::vector<HelpRow> choreo::optionHelpRows(llvm::ArrayRef<OptionDecl> Decls) {
  std::vector<HelpRow> Rows;
  for (const OptionDecl &D : Decls) {
    std::string Right = D.Help;
    if (!D.Default.empty())
      Right += " (default " + D.Default + ")";
    else if (!D.DefaultNote.empty())
      Right += " (default: " + D.DefaultNote + ")";
    Rows.push_back({"--" + D.Name + " " + D.metavar(), std::move(Right)});
  }
  return Rows;
}

void choreo::printHelpRows(llvm::raw_ostream &OS,
                           llvm::ArrayRef<HelpRow> Rows) {
  constexpr size_t Indent = 2, MaxLeft = 20, Gap = 2, Width = 80;
  size_t Left = 0;
  for (const HelpRow &R : Rows)
    if (R.Left.size() <= MaxLeft)
      Left = std::max(Left, R.Left.size());
  const size_t Column = Indent + Left + Gap;
  for (const HelpRow &R : Rows) {
    OS.indent(Indent) << R.Left;
    size_t At = Indent + R.Left.size();
    if (R.Left.size() > Left) {
      OS << '\n';
      At = 0;
    }
    // Words wrapped at Width, continuation lines under the first.
    llvm::SmallVector<llvm::StringRef, 16> Words;
    llvm::SplitString(R.Right, Words, " ");
    bool First = true;
    for (llvm::StringRef W : Words) {
      if (!First && At + 1 + W.size() > Width) {
        OS << '\n';
        At = 0;
      }
      if (At < Column) {
        OS.indent(Column - At);
        At = Column;
      } else {
        OS << ' ';
        ++At;
      }
      OS << W;
      At += W.size();
      First = false;
    }
    OS << '\n';
  }
}
