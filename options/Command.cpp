//===- options/Command.cpp - A command's arguments by declaration ---------===//
///
/// \file
/// parseCommandLine: flags, values, positionals and pass-through.
///
//===----------------------------------------------------------------------===//

#include "options/Command.h"
#include "options/Parse.h"

#include "llvm/ADT/STLExtras.h"

using namespace choreo;

namespace {
llvm::Error commandError(const llvm::Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
}

/// The declaration Arg spells ("--name", "--name=value", "-o"), with the
/// value given after '=' if any.
const OptionDecl *findSpelled(llvm::ArrayRef<OptionDecl> Decls,
                              llvm::StringRef Arg,
                              std::optional<llvm::StringRef> &Inline) {
  for (const OptionDecl &D : Decls) {
    std::string S = D.spelling();
    if (Arg == S)
      return &D;
    if (!D.SingleDash && Arg.starts_with(S + "=")) {
      Inline = Arg.drop_front(S.size() + 1);
      return &D;
    }
  }
  return nullptr;
}
} // namespace

bool choreo::wantsHelp(llvm::ArrayRef<std::string> Args) {
  for (const std::string &A : Args)
    if (A == "--help" || A == "-h")
      return true;
  return false;
}

llvm::Expected<CommandLine>
choreo::parseCommandLine(llvm::ArrayRef<std::string> Args,
                         llvm::ArrayRef<OptionDecl> Decls, CommandRules Rules) {
  CommandLine Out;
  if (auto E = parseCommandLineInto(Args, Decls, Rules, Out))
    return E;
  return Out;
}

llvm::Error choreo::parseCommandLineInto(llvm::ArrayRef<std::string> Args,
                                         llvm::ArrayRef<OptionDecl> Decls,
                                         CommandRules Rules, CommandLine &Out) {
  Out.Values = OptionValues(Decls);
  for (size_t I = 0; I < Args.size(); ++I) {
    llvm::StringRef A = Args[I];
    if (A == "-" || !A.starts_with("-")) {
      if (Rules.PassThrough)
        Out.Rest.push_back(A.str());
      else if (Rules.Positionals)
        Out.Positionals.push_back(A.str());
      else
        return commandError("unexpected argument '" + A + "'");
      continue;
    }
    std::optional<llvm::StringRef> Inline;
    const OptionDecl *D = findSpelled(Decls, A, Inline);
    if (!D) {
      if (!Rules.PassThrough)
        return commandError("unknown option " + A);
      Out.Rest.push_back(A.str());
      continue;
    }
    llvm::StringRef Text;
    if (D->Kind == OptionKind::Flag) {
      if (Inline)
        return optionError(*D, "takes no value");
    } else if (Inline) {
      Text = *Inline;
    } else if (I + 1 < Args.size()) {
      Text = Args[++I];
    } else {
      return D->Missing.empty() ? optionError(*D, "missing value")
                                : commandError(D->Missing);
    }
    auto V = parseOptionValue(*D, Text);
    if (!V)
      return V.takeError();
    if (D->Kind == OptionKind::Choice && !D->Parse)
      if (auto E = checkChoice(*D, std::get<std::string>(*V)))
        return E;
    Out.Values.set(*D, std::move(*V));
  }
  for (const OptionDecl &D : Decls) {
    if (D.Default.empty() ||
        llvm::any_of(Out.Values.entries(),
                     [&](const OptionEntry &E) { return E.Decl == &D; }))
      continue;
    auto V = parseOptionValue(D, D.Default);
    if (!V)
      return V.takeError();
    Out.Values.set(D, std::move(*V));
    for (OptionEntry &E : Out.Values.entries())
      if (E.Decl == &D)
        E.Given = false;
  }
  return llvm::Error::success();
}
