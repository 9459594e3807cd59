//===- ir/Diagnostics.cpp - Located errors for schedules ------------------===//
///
/// \file
/// DiagnosticList bookkeeping and the text rendering of diagnostics.
///
//===----------------------------------------------------------------------===//

#include "ir/Diagnostics.h"

using namespace choreo;

char DiagnosticError::ID = 0;

bool DiagnosticList::add(Diagnostic D) {
  if (hasKind(D.Kind))
    return false;
  Diags.push_back(std::move(D));
  return true;
}

bool DiagnosticList::hasKind(llvm::StringRef Kind) const {
  for (const Diagnostic &D : Diags)
    if (D.Kind == Kind)
      return true;
  return false;
}

void DiagnosticError::log(llvm::raw_ostream &OS) const {
  bool First = true;
  for (const Diagnostic &D : Diags) {
    if (!First)
      OS << '\n';
    First = false;
    OS << D.Message;
    for (const std::string &N : D.Notes)
      OS << "\nnote: " << N;
  }
}

std::error_code DiagnosticError::convertToErrorCode() const {
  return llvm::inconvertibleErrorCode();
}

llvm::Error choreo::makeDiagError(std::string Kind, std::string Message,
                                  std::vector<std::string> Notes) {
  std::vector<Diagnostic> Diags;
  Diags.emplace_back(std::move(Kind), std::move(Message), std::move(Notes));
  return llvm::make_error<DiagnosticError>(std::move(Diags));
}

void choreo::printDiagnostic(llvm::raw_ostream &OS, const Diagnostic &D,
                             llvm::StringRef Severity) {
  OS << Severity << ": " << D.Message << '\n';
  for (const std::string &N : D.Notes)
    OS << "note: " << N << '\n';
}

void choreo::printDiagnostics(llvm::raw_ostream &OS,
                              const std::vector<Diagnostic> &Diags,
                              llvm::StringRef Severity) {
  for (const Diagnostic &D : Diags)
    printDiagnostic(OS, D, Severity);
}

void choreo::printError(llvm::raw_ostream &OS, llvm::Error E) {
  llvm::handleAllErrors(
      std::move(E),
      [&](const DiagnosticError &DE) { printDiagnostics(OS, DE.diagnostics()); },
      [&](const llvm::ErrorInfoBase &EI) {
        OS << "error: " << EI.message() << '\n';
      });
}
