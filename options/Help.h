//===- options/Help.h - Help text from option declarations -*- C++ -*------===//
///
/// \file
/// The options table of `--help`, one row per declaration (the spelling
/// with its placeholder, the help with the default), and a command's whole
/// help: its usage lines, what it does, the table, closing notes.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_OPTIONS_HELP_H
#define CHOREO_OPTIONS_HELP_H

#include "options/Option.h"

#include "llvm/Support/raw_ostream.h"

namespace choreo {

/// A line of an options table: "--name META" and its description.
struct HelpRow {
  std::string Left, Right;
};

/// One row per declaration: the name with its metavar, the help with the
/// default ("(default ring)").
std::vector<HelpRow> optionHelpRows(llvm::ArrayRef<OptionDecl> Decls);

/// Prints rows as an aligned table indented by two, descriptions wrapped at
/// 80 columns; a left column too wide puts its description on the next
/// line.
void printHelpRows(llvm::raw_ostream &OS, llvm::ArrayRef<HelpRow> Rows);

/// The prose around a command's options table; each a run of whole lines
/// ending in '\n' (About and Notes may be empty).
struct CommandDoc {
  const char *Usage;
  const char *About;
  const char *Notes;
};

/// Usage, a blank line, About and a blank line (when there is About),
/// "options:" with the table of Decls and Extra, and Notes after a blank
/// line (when there are Notes).
std::string commandHelp(const CommandDoc &Doc, llvm::ArrayRef<OptionDecl> Decls,
                        llvm::ArrayRef<HelpRow> Extra = {});

} // namespace choreo

#endif
