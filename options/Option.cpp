//===- options/Option.cpp - Declared options and their typed handles ------===//
///
/// \file
/// The declaration factories, an option's spelling and placeholder, and the
/// error about one option.
///
//===----------------------------------------------------------------------===//

#include "options/Option.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace choreo;

llvm::Error choreo::optionError(llvm::StringRef Option,
                                const llvm::Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "--" + Option + ": " + Msg);
}

llvm::Error choreo::optionError(const OptionDecl &D, const llvm::Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 D.spelling() + ": " + Msg);
}

OptionDecl choreo::makeOptionDecl(llvm::StringRef Name, OptionKind Kind,
                                  llvm::StringRef Help, SizedGroup Sizes) {
  OptionDecl D;
  D.Name = Name.str();
  D.Kind = Kind;
  D.Help = Help.str();
  D.Sizes = Sizes;
  return D;
}

Option<uint64_t> choreo::countOption(llvm::StringRef Name,
                                     llvm::StringRef Help) {
  return Option<uint64_t>(makeOptionDecl(Name, OptionKind::Count, Help));
}

Option<uint64_t> choreo::rankOption(llvm::StringRef Name,
                                    llvm::StringRef Help) {
  return Option<uint64_t>(makeOptionDecl(Name, OptionKind::Rank, Help));
}

Option<Size> choreo::sizeOption(llvm::StringRef Name, llvm::StringRef Help,
                                SizedGroup Sizes) {
  return Option<Size>(makeOptionDecl(Name, OptionKind::Size, Help, Sizes));
}

Option<SizeOrWord>
choreo::sizeOrWordOption(llvm::StringRef Name, llvm::StringRef Help,
                         llvm::ArrayRef<llvm::StringRef> Words) {
  OptionDecl D = makeOptionDecl(Name, OptionKind::Size, Help);
  for (llvm::StringRef W : Words)
    D.Words.push_back(W.str());
  return Option<SizeOrWord>(std::move(D));
}

Option<SizeList> choreo::sizeListOption(llvm::StringRef Name,
                                        llvm::StringRef Help,
                                        SizedGroup Sizes) {
  return Option<SizeList>(
      makeOptionDecl(Name, OptionKind::SizeList, Help, Sizes));
}

Option<double> choreo::realOption(llvm::StringRef Name, llvm::StringRef Help) {
  return Option<double>(makeOptionDecl(Name, OptionKind::Real, Help));
}

Option<std::string>
choreo::wordOption(llvm::StringRef Name, llvm::StringRef Help,
                   llvm::ArrayRef<llvm::StringRef> Choices) {
  OptionDecl D = makeOptionDecl(Name, OptionKind::Choice, Help);
  for (llvm::StringRef C : Choices)
    D.Choices.push_back(C.str());
  return Option<std::string>(std::move(D));
}

Option<std::string> choreo::textOption(llvm::StringRef Name,
                                       llvm::StringRef Help,
                                       llvm::StringRef Metavar) {
  OptionDecl D = makeOptionDecl(Name, OptionKind::Text, Help);
  D.Metavar = Metavar.str();
  return Option<std::string>(std::move(D));
}

Option<bool> choreo::flagOption(llvm::StringRef Name, llvm::StringRef Help) {
  return Option<bool>(makeOptionDecl(Name, OptionKind::Flag, Help));
}

bool choreo::declares(llvm::ArrayRef<OptionDecl> Decls, const OptionBase &H) {
  return llvm::any_of(Decls,
                      [&](const OptionDecl &D) { return D.Name == H.name(); });
}

std::string OptionDecl::spelling() const {
  return (SingleDash ? "-" : "--") + Name;
}

std::string OptionDecl::metavar() const {
  if (!Metavar.empty())
    return Metavar;
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
  case OptionKind::Flag:
    return "";
  case OptionKind::Text:
    return "TEXT";
  }
  return "VALUE";
}
