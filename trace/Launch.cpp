//===- trace/Launch.cpp - Running a program under the trace ------------===//
///
/// \file
/// The environment of the traced command (this process's, with the
/// trace's variables set and the preload library added to LD_PRELOAD),
/// and the command run to its end.
///
//===----------------------------------------------------------------------===//

#include "trace/Launch.h"

#include "ir/Diagnostics.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <map>

extern char **environ;

using namespace choreo;
using namespace choreo::trace;

llvm::Expected<std::string>
choreo::trace::findPreloadLibrary(const char *Argv0) {
  std::string Path;
  if (const char *Env = getenv("CHOREO_TRACE_LIB")) {
    Path = Env;
  } else {
    static int Anchor;
    std::string Exe = llvm::sys::fs::getMainExecutable(Argv0, &Anchor);
    // bin/../lib in the build tree, bin/../LIBDIR where it is installed.
    for (llvm::StringRef LibDir : {"lib", CHOREO_INSTALL_LIBDIR}) {
      llvm::SmallString<256> P(llvm::sys::path::parent_path(Exe));
      llvm::sys::path::append(P, "..", LibDir, "libchoreo-trace.so");
      Path = P.str().str();
      if (llvm::sys::fs::is_regular_file(Path))
        break;
    }
  }
  if (!llvm::sys::fs::is_regular_file(Path))
    return makeDiagError(
        "trace-launch",
        "the preload library " + Path +
            " is not there (build the target choreo_trace_preload, or set "
            "CHOREO_TRACE_LIB)");
  llvm::SmallString<256> Abs(Path);
  llvm::sys::fs::make_absolute(Abs);
  return Abs.str().str();
}

llvm::Error choreo::trace::launch(const LaunchSpec &S) {
  if (S.Command.empty())
    return makeDiagError("trace-launch", "no command to trace (give it after "
                                         "--, e.g. -- mpiexec -n 4 "
                                         "choreo-trace-driver)");
  auto Program = llvm::sys::findProgramByName(S.Command.front());
  if (!Program)
    return makeDiagError("trace-launch",
                         "cannot find the command '" + S.Command.front() + "'");
  std::map<std::string, std::string> Env;
  for (char **E = environ; *E; ++E) {
    auto [K, V] = llvm::StringRef(*E).split('=');
    Env[K.str()] = V.str();
  }
  for (const auto &[K, V] : S.Env)
    Env[K] = V;
  // After what is preloaded already: a sanitizer's runtime must come first.
  std::string &Preload = Env["LD_PRELOAD"];
  Preload = Preload.empty() ? S.Library : Preload + ":" + S.Library;
  std::vector<std::string> EnvText;
  for (const auto &[K, V] : Env)
    EnvText.push_back(K + "=" + V);
  std::vector<llvm::StringRef> Args(S.Command.begin(), S.Command.end()),
      EnvRefs(EnvText.begin(), EnvText.end());
  std::optional<llvm::StringRef> Redirects[] = {llvm::StringRef("/dev/null"),
                                                std::nullopt, std::nullopt};
  std::string Err;
  int Status =
      llvm::sys::ExecuteAndWait(*Program, Args, EnvRefs, Redirects, 0, 0, &Err);
  std::string Cmd = llvm::join(S.Command, " ");
  if (Status < 0)
    return makeDiagError("trace-launch",
                         "cannot run '" + Cmd +
                             "': " + (Err.empty() ? "it was killed" : Err));
  if (Status != 0)
    return makeDiagError(
        "trace-launch",
        llvm::formatv("the traced command '{0}' exited with status {1}", Cmd,
                      Status)
            .str());
  return llvm::Error::success();
}
