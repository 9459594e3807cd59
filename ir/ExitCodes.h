//===- ir/ExitCodes.h - The exit codes of choreo's tools --------*- C++ -*-===//
///
/// \file
/// The exit codes of every choreo tool (choreo, choreo-run), defined once:
/// VerifyResult::exitCode() and the drivers return these.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_IR_EXITCODES_H
#define CHOREO_IR_EXITCODES_H

namespace choreo {

/// Success; for verify and prove: proved.
inline constexpr int ExitOk = 0;
/// A property fails, a proof is not found (a counterexample, an unknown
/// obligation), or choreo-run's check of the result fails.
inline constexpr int ExitFailed = 1;
/// Refused: unreadable or invalid input, bad arguments, a job that does not
/// match the schedule.
inline constexpr int ExitInvalid = 2;

} // namespace choreo

#endif
