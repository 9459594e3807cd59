//===- tools/choreo/Driver.h - Shared pieces of the choreo commands -*- C++
//-*-//
///
/// \file
/// What every `choreo` command shares: reading its arguments by its
/// declarations (options/Command.h), the usage error, the one schedule
/// argument, and the cost model's options (exit codes: ir/ExitCodes.h).
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_TOOLS_CHOREO_DRIVER_H
#define CHOREO_TOOLS_CHOREO_DRIVER_H

#include "cost/Model.h"
#include "ir/ExitCodes.h"
#include "ir/Schedule.h"
#include "ir/ScheduleIO.h"
#include "options/Command.h"
#include "options/Help.h"
#include "options/Parse.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

namespace choreo {

/// Prints "error: Msg" and the usage; returns ExitInvalid.
int usageError(const llvm::Twine &Msg, llvm::StringRef Usage);

/// Reads Args by Decls (options/Command.h); when they are refused, prints
/// the error with Usage and returns nothing.
std::optional<CommandLine> parseCommand(llvm::ArrayRef<std::string> Args,
                                        llvm::ArrayRef<OptionDecl> Decls,
                                        llvm::StringRef Usage,
                                        CommandRules Rules = {});

/// Writes what Fill produces to Path ("-": standard output), reporting
/// failures, Fill's included (then no file is left behind); returns the exit
/// code.
int writeText(llvm::StringRef Path,
              llvm::function_ref<llvm::Error(llvm::raw_ostream &)> Fill);

/// Reads the single FILE|- argument of a command; on failure reports it,
/// sets Exit and returns nothing.
std::optional<Schedule> readArgument(llvm::ArrayRef<std::string> Args,
                                     llvm::StringRef Usage, int &Exit);

/// --timeout S of verify and prove: positive seconds.
Option<uint64_t> timeoutOpt(llvm::StringRef Help, llvm::StringRef Meta);

/// --format json|cbor of gen and synth (without it: by the file name).
const Option<OneOf<FileFormat>> &formatOpt();

/// The cost model's options (cost, compare, select; export takes --gamma),
/// with the defaults of `choreo cost`: alpha 1e-6, beta 1e-10, gamma 0,
/// f-alpha 1, f-beta 1.
namespace modelopt {
const Option<double> &alpha();
const Option<double> &beta();
const Option<double> &gamma();
const Option<double> &fAlpha();
const Option<double> &fBeta();
/// --step-startup S: CostModel::StepStartup (default 0).
const Option<double> &stepStartup();
/// --machine-ports N: CostModel::Ports (default 0, the schedule's own).
const Option<uint64_t> &machinePorts();
/// --machine FILE: a machine file's model (cost/Machine.h).
const Option<std::string> &machine();
/// --flow-control BYTES|off: CostModel::FlowControlBytes (default off).
const Option<SizeOrWord> &flowControl();
/// --eager BYTES|all|off: CostModel::EagerBytes (default off).
const Option<SizeOrWord> &eager();
/// The ten, in that order.
llvm::ArrayRef<OptionDecl> all();
} // namespace modelopt

/// --json and --lockstep as compare and select declare them.
const Option<bool> &jsonOpt();
const Option<bool> &lockstepOpt();

/// The model V gives: a machine file's (--machine, else $CHOREO_MACHINE)
/// where one is named, overridden by the options given; the declarations'
/// defaults for the rest. Fails when the machine file does not read.
llvm::Expected<CostModel> modelOf(const OptionValues &V);

int cmdGen(llvm::ArrayRef<std::string> Args);
int cmdProve(llvm::ArrayRef<std::string> Args);
int cmdCost(llvm::ArrayRef<std::string> Args);
int cmdCompare(llvm::ArrayRef<std::string> Args);
int cmdExport(llvm::ArrayRef<std::string> Args);
int cmdSynth(llvm::ArrayRef<std::string> Args);
int cmdSelect(llvm::ArrayRef<std::string> Args);
int cmdTune(llvm::ArrayRef<std::string> Args);
int cmdTrace(llvm::ArrayRef<std::string> Args);

} // namespace choreo

#endif
