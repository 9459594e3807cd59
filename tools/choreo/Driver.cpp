//===- tools/choreo/Driver.cpp - Shared pieces of the choreo commands -----===//
///
/// \file
/// The usage error, reading a command's arguments and its one schedule, and
/// the cost model's option declarations.
///
//===----------------------------------------------------------------------===//

#include "Driver.h"
#include "cost/Machine.h"
#include "ir/ScheduleIO.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include <nlohmann/json.hpp>

using namespace choreo;

Option<uint64_t> choreo::timeoutOpt(llvm::StringRef Help,
                                    llvm::StringRef Meta) {
  return countOption("timeout", Help)
      .withMetavar(Meta)
      .parsedBy(numberParser(1, UINT32_MAX, "a positive count of seconds"));
}

int choreo::usageError(const llvm::Twine &Msg, llvm::StringRef Usage) {
  llvm::errs() << "error: " << Msg << "\n\n" << Usage;
  return ExitInvalid;
}

std::optional<CommandLine>
choreo::parseCommand(llvm::ArrayRef<std::string> Args,
                     llvm::ArrayRef<OptionDecl> Decls, llvm::StringRef Usage,
                     CommandRules Rules) {
  auto C = parseCommandLine(Args, Decls, Rules);
  if (!C) {
    usageError(llvm::toString(C.takeError()), Usage);
    return std::nullopt;
  }
  return std::move(*C);
}

/// Writes what Fill produces to Path ("-": standard output), reporting
/// failures, Fill's included (then no file is left behind); returns the exit
/// code.
int choreo::writeText(
    llvm::StringRef Path,
    llvm::function_ref<llvm::Error(llvm::raw_ostream &)> Fill) {
  if (Path == "-") {
    if (auto E = Fill(llvm::outs())) {
      printError(llvm::errs(), std::move(E));
      return ExitInvalid;
    }
    return ExitOk;
  }
  std::error_code EC;
  llvm::raw_fd_ostream OS(Path, EC, llvm::sys::fs::OF_Text);
  if (EC) {
    llvm::errs() << "error: cannot write " << Path << ": " << EC.message()
                 << "\n";
    return ExitInvalid;
  }
  llvm::Error FillErr = Fill(OS);
  OS.close();
  if (FillErr) {
    printError(llvm::errs(), std::move(FillErr));
    llvm::sys::fs::remove(Path);
    return ExitInvalid;
  }
  if (OS.has_error()) {
    llvm::errs() << "error: cannot write " << Path << ": "
                 << OS.error().message() << "\n";
    OS.clear_error();
    return ExitInvalid;
  }
  return ExitOk;
}

std::optional<Schedule> choreo::readArgument(llvm::ArrayRef<std::string> Args,
                                             llvm::StringRef Usage, int &Exit) {
  if (Args.size() != 1) {
    Exit = usageError(Args.empty() ? "missing the schedule file (or - for "
                                     "standard input)"
                                   : "expected one schedule file",
                      Usage);
    return std::nullopt;
  }
  auto S = readScheduleFile(Args[0]);
  if (!S) {
    printError(llvm::errs(), S.takeError());
    Exit = ExitInvalid;
    return std::nullopt;
  }
  return std::move(*S);
}

const Option<OneOf<FileFormat>> &choreo::formatOpt() {
  static const Option<OneOf<FileFormat>> O =
      choiceOption<FileFormat>(
          "format", "json (default) or cbor",
          {{"json", FileFormat::Json}, {"cbor", FileFormat::Cbor}})
          .withMetavar("F")
          .parsedBy(choiceParser([](llvm::StringRef V) {
            return ("--format: expected json or cbor, got '" + V + "'").str();
          }));
  return O;
}

namespace {
Option<double> modelOption(llvm::StringRef Name, llvm::StringRef Help,
                           llvm::StringRef Default, llvm::StringRef Meta) {
  return realOption(Name, Help)
      .withDefault(Default)
      .withMetavar(Meta)
      .parsedBy(anyRealParser());
}
} // namespace

const Option<double> &modelopt::alpha() {
  static const Option<double> O =
      modelOption("alpha", "start-up time of a message (seconds)", "1e-6", "A");
  return O;
}

const Option<double> &modelopt::beta() {
  static const Option<double> O =
      modelOption("beta", "time per byte (seconds)", "1e-10", "B");
  return O;
}

const Option<double> &modelopt::gamma() {
  static const Option<double> O = modelOption(
      "gamma", "time per byte combined into a partial result", "0", "G");
  return O;
}

const Option<double> &modelopt::fAlpha() {
  static const Option<double> O =
      modelOption("f-alpha",
                  "factor of alpha for a message that travels "
                  "one way on a quiet pair of ports",
                  "1", "F");
  return O;
}

const Option<double> &modelopt::fBeta() {
  static const Option<double> O =
      modelOption("f-beta", "factor of beta for such a message", "1", "F");
  return O;
}

const Option<double> &modelopt::stepStartup() {
  static const Option<double> O =
      modelOption("step-startup",
                  "a rank's start-up per receive it waits for (seconds; "
                  "docs/machine.md)",
                  "0", "S");
  return O;
}

const Option<uint64_t> &modelopt::machinePorts() {
  static const Option<uint64_t> O =
      countOption("machine-ports",
                  "price every rank with at most N send and N receive "
                  "channels, the machine's ports: a schedule written for "
                  "more queues its messages (0: the schedule's own ports)")
          .withDefault("0")
          .withMetavar("N");
  return O;
}

const Option<std::string> &modelopt::machine() {
  static const Option<std::string> O = textOption(
      "machine",
      "the model of a machine file (choreo-calibrate, docs/machine.md); "
      "default: $CHOREO_MACHINE if set. Options given beside it win",
      "FILE");
  return O;
}

const Option<SizeOrWord> &modelopt::flowControl() {
  static const Option<SizeOrWord> O =
      sizeOrWordOption(
          "flow-control",
          "price the executor's flow control (choreo-run --flow-control): "
          "a message of at least BYTES waits for a clear-to-send and "
          "completes on an acknowledgement (docs/machine.md); off: none",
          {"off"})
          .withMetavar("BYTES")
          .withDefault("off");
  return O;
}

const Option<SizeOrWord> &modelopt::eager() {
  static const Option<SizeOrWord> O =
      sizeOrWordOption(
          "eager",
          "price eager sends: a message of at most BYTES leaves when its "
          "sender comes to its step, which does not wait for it; a sender's "
          "messages share its port, a receiver takes them as they come "
          "(docs/machine.md, \"Eager sends\"); all: every message; off: "
          "none (default: the machine file's eager_bytes)",
          {"off", "all"})
          .withMetavar("BYTES")
          .withDefault("off");
  return O;
}

llvm::ArrayRef<OptionDecl> modelopt::all() {
  static const OptionDecl All[] = {
      alpha(),        beta(),    gamma(),      fAlpha(),     fBeta(),
      stepStartup(),  machinePorts(), machine(), flowControl(), eager()};
  return All;
}

const Option<bool> &choreo::jsonOpt() {
  static const Option<bool> O =
      flagOption("json", "print one JSON object (cost: its \"time\" is the "
                         "asynchronous time)");
  return O;
}

const Option<bool> &choreo::lockstepOpt() {
  static const Option<bool> O =
      flagOption("lockstep", "lock-step times instead of asynchronous ones");
  return O;
}

llvm::Expected<CostModel> choreo::modelOf(const OptionValues &V) {
  CostModel M;
  std::string File = V.lookup(modelopt::machine()).value_or("");
  if (File.empty())
    if (const char *Env = getenv("CHOREO_MACHINE"))
      File = Env;
  if (!File.empty()) {
    auto MF = readMachineFile(File);
    if (!MF)
      return MF.takeError();
    M = MF->Model;
  }
  // A machine file gives the values an option did not.
  auto Take = [&](const Option<double> &O, double &Field) {
    if (File.empty() || V.given(O))
      Field = V.get(O);
  };
  Take(modelopt::alpha(), M.Alpha);
  Take(modelopt::beta(), M.Beta);
  Take(modelopt::gamma(), M.Gamma);
  Take(modelopt::fAlpha(), M.FAlpha);
  Take(modelopt::fBeta(), M.FBeta);
  Take(modelopt::stepStartup(), M.StepStartup);
  if (File.empty() || V.given(modelopt::machinePorts()))
    M.Ports = uint32_t(
        std::min<uint64_t>(V.get(modelopt::machinePorts()), UINT32_MAX));
  if (File.empty() || V.given(modelopt::flowControl())) {
    SizeOrWord FC = V.get(modelopt::flowControl());
    if (FC.Bytes && *FC.Bytes == 0)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "--flow-control: expected a positive number of bytes or off");
    M.FlowControlBytes = FC.Bytes ? *FC.Bytes : 0;
  }
  if (File.empty() || V.given(modelopt::eager())) {
    SizeOrWord E = V.get(modelopt::eager());
    if (E.Bytes && *E.Bytes == 0)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "--eager: expected a positive number of bytes, all or off");
    M.EagerBytes = E.Bytes ? *E.Bytes : E.Word == "all" ? UINT64_MAX : 0;
  }
  return M;
}
