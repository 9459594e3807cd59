//===- ir/Diagnostics.h - Located errors for schedules ----------*- C++ -*-===//
///
/// \file
/// A Diagnostic is one compiler-style finding about a schedule: a message that
/// names its place (a JSON pointer, or a step and rank) and notes that point
/// at the ops involved. Engines return diagnostics; tools render them.
/// DiagnosticError carries a list of them through llvm::Error.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_IR_DIAGNOSTICS_H
#define CHOREO_IR_DIAGNOSTICS_H

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace choreo {

struct Diagnostic {
  /// A short identifier of the rule that failed ("availability", "ports",
  /// "block-range", ...), used to report only the first failure of each kind.
  std::string Kind;
  std::string Message;
  std::vector<std::string> Notes;

  Diagnostic() = default;
  Diagnostic(std::string Kind, std::string Message,
             std::vector<std::string> Notes = {})
      : Kind(std::move(Kind)), Message(std::move(Message)),
        Notes(std::move(Notes)) {}
};

/// Collects diagnostics, keeping only the first of each kind.
class DiagnosticList {
public:
  /// Adds D unless a diagnostic of its kind is already present; returns
  /// whether it was added.
  bool add(Diagnostic D);
  bool hasKind(llvm::StringRef Kind) const;
  bool empty() const { return Diags.empty(); }
  size_t size() const { return Diags.size(); }
  const std::vector<Diagnostic> &diagnostics() const { return Diags; }
  std::vector<Diagnostic> take() { return std::move(Diags); }

private:
  std::vector<Diagnostic> Diags;
};

/// The reason a schedule could not be used: it is unreadable (bad JSON, bad
/// CBOR, wrong version) or breaks a rule of the format. Tools exit with 2.
class DiagnosticError : public llvm::ErrorInfo<DiagnosticError> {
public:
  static char ID;
  explicit DiagnosticError(std::vector<Diagnostic> Diags)
      : Diags(std::move(Diags)) {}
  void log(llvm::raw_ostream &OS) const override;
  std::error_code convertToErrorCode() const override;
  const std::vector<Diagnostic> &diagnostics() const { return Diags; }

private:
  std::vector<Diagnostic> Diags;
};

/// Makes an llvm::Error holding one diagnostic.
llvm::Error makeDiagError(std::string Kind, std::string Message,
                          std::vector<std::string> Notes = {});

/// Renders "error: MESSAGE" and "note: NOTE" lines, one per line.
void printDiagnostic(llvm::raw_ostream &OS, const Diagnostic &D,
                     llvm::StringRef Severity = "error");
void printDiagnostics(llvm::raw_ostream &OS,
                      const std::vector<Diagnostic> &Diags,
                      llvm::StringRef Severity = "error");

/// Prints an llvm::Error as diagnostics: DiagnosticError lists are printed
/// one per line, other errors as "error: MESSAGE".
void printError(llvm::raw_ostream &OS, llvm::Error E);

} // namespace choreo

#endif
