//===- trace/Launch.h - Running a program under the trace -------*- C++ -*-===//
///
/// \file
/// Runs a command (`mpiexec -n P ./program ...`) with the preload library
/// and the environment that tells it which call to record and where, and
/// waits for it. Standard input is /dev/null (mpiexec would forward it).
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_TRACE_LAUNCH_H
#define CHOREO_TRACE_LAUNCH_H

#include "llvm/Support/Error.h"

#include <string>
#include <utility>
#include <vector>

namespace choreo::trace {

struct LaunchSpec {
  std::vector<std::string> Command;
  /// The preload library (appended to LD_PRELOAD: a sanitizer's runtime
  /// preloaded before it stays first).
  std::string Library;
  /// Variables set for the command (CHOREO_TRACE_*, MPICH's CVARs).
  std::vector<std::pair<std::string, std::string>> Env;
};

/// The preload library beside this program (../lib/libchoreo-trace.so),
/// or $CHOREO_TRACE_LIB; an error when it is not there.
llvm::Expected<std::string> findPreloadLibrary(const char *Argv0);

/// Runs S.Command; an error naming the command when it cannot start or
/// exits with another status than 0.
llvm::Error launch(const LaunchSpec &S);

} // namespace choreo::trace

#endif
