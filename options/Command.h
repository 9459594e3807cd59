//===- options/Command.h - A command's arguments by declaration -*- C++ -*-===//
///
/// \file
/// How the commands of `choreo` and `choreo-run` read their arguments: the
/// options a command declares (flags, "--name value", "--name=value",
/// "-o FILE"), its positional arguments (files, "-"), and, for commands
/// that hand the rest to the generators (gen, compare), the arguments no
/// declaration takes. A repeated option takes the last value; choices are
/// checked as they are read; defaults are filled in.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_OPTIONS_COMMAND_H
#define CHOREO_OPTIONS_COMMAND_H

#include "options/OptionValues.h"

namespace choreo {

/// What a command admits besides its declared options.
struct CommandRules {
  /// Arguments that are no declared option, and non-option arguments, go
  /// to CommandLine::Rest in order instead of being refused.
  bool PassThrough = false;
  /// Non-option arguments (and "-") are positionals; else refused
  /// ("unexpected argument 'x'").
  bool Positionals = true;
};

/// A command's arguments, read.
struct CommandLine {
  OptionValues Values;
  std::vector<std::string> Positionals;
  std::vector<std::string> Rest;
};

/// Reads Args by Decls (which must outlive the result). Errors: "unknown
/// option --x", "--x: missing value" (or the declaration's own wording),
/// "--json: takes no value", the value's parse or choice error.
llvm::Expected<CommandLine> parseCommandLine(llvm::ArrayRef<std::string> Args,
                                             llvm::ArrayRef<OptionDecl> Decls,
                                             CommandRules Rules = {});

/// The same into Out, which keeps what was read before an error (choreo-run
/// counts the files every rank was given even when one refuses its
/// options).
llvm::Error parseCommandLineInto(llvm::ArrayRef<std::string> Args,
                                 llvm::ArrayRef<OptionDecl> Decls,
                                 CommandRules Rules, CommandLine &Out);

/// Whether the arguments ask for help (--help or -h).
bool wantsHelp(llvm::ArrayRef<std::string> Args);

} // namespace choreo

#endif
