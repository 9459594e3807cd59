//===- tools/choreo/Driver.h - Shared pieces of the choreo commands -*- C++ -*-//
///
/// \file
/// Argument helpers used by every `choreo` command (exit codes:
/// ir/ExitCodes.h).
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_TOOLS_CHOREO_DRIVER_H
#define CHOREO_TOOLS_CHOREO_DRIVER_H

#include "ir/ExitCodes.h"
#include "ir/Schedule.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/Twine.h"

#include <optional>
#include <string>

namespace choreo {

/// Whether the arguments ask for help (--help or -h).
bool wantsHelp(llvm::ArrayRef<std::string> Args);

/// Prints "error: Msg" and the usage; returns ExitInvalid.
int usageError(const llvm::Twine &Msg, const char *Usage);

/// Reads the single FILE|- argument of a command; on failure reports it,
/// sets Exit and returns nothing.
std::optional<Schedule> readArgument(llvm::ArrayRef<std::string> Args,
                                     const char *Usage, int &Exit);

int cmdCost(llvm::ArrayRef<std::string> Args);
int cmdCompare(llvm::ArrayRef<std::string> Args);
int cmdExport(llvm::ArrayRef<std::string> Args);
int cmdSelect(llvm::ArrayRef<std::string> Args);

extern const char *CostUsage, *CompareUsage, *ExportUsage, *SelectUsage;

} // namespace choreo

#endif
