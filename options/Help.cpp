//===- options/Help.cpp - Help text from option declarations --------------===//
///
/// \file
/// The options table and a command's help.
///
//===----------------------------------------------------------------------===//

#include "options/Help.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

#include <algorithm>

using namespace choreo;

std::vector<HelpRow> choreo::optionHelpRows(llvm::ArrayRef<OptionDecl> Decls) {
  std::vector<HelpRow> Rows;
  for (const OptionDecl &D : Decls) {
    std::string Right = D.Help;
    if (!D.Default.empty())
      Right += " (default " + D.Default + ")";
    else if (!D.DefaultNote.empty())
      Right += " (default: " + D.DefaultNote + ")";
    std::string Meta = D.metavar();
    Rows.push_back(
        {D.spelling() + (Meta.empty() ? "" : " " + Meta), std::move(Right)});
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

std::string choreo::commandHelp(const CommandDoc &Doc,
                                llvm::ArrayRef<OptionDecl> Decls,
                                llvm::ArrayRef<HelpRow> Extra) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  OS << Doc.Usage << '\n';
  if (Doc.About && *Doc.About)
    OS << Doc.About << '\n';
  std::vector<HelpRow> Rows = optionHelpRows(Decls);
  Rows.insert(Rows.end(), Extra.begin(), Extra.end());
  if (!Rows.empty()) {
    OS << "options:\n";
    printHelpRows(OS, Rows);
  }
  if (Doc.Notes && *Doc.Notes)
    OS << '\n' << Doc.Notes;
  return S;
}
