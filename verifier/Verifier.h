//===- verifier/Verifier.h - Proving schedules ------------------*- C++ -*-===//
///
/// \file
/// The verifier's common result type. An engine decides, for one schedule,
/// the properties of schedule-format.md: message availability, the port
/// model, topology links, completeness of the collective and, for
/// reductions, that every contribution is combined exactly once; with
/// `nodes`, the node ports; with a non-commutative operator, rank order.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_VERIFIER_VERIFIER_H
#define CHOREO_VERIFIER_VERIFIER_H

#include "ir/Diagnostics.h"
#include "ir/ExitCodes.h"
#include "ir/Schedule.h"

#include <vector>

namespace choreo {

struct VerifyResult {
  enum class Status {
    Proved,  ///< every property holds
    Failed,  ///< a property fails; Diags name the step, rank and block
    Invalid, ///< the schedule breaks a structural rule of the format
    Unknown, ///< an engine could not decide (SMT timeout or solver error)
  };
  Status St = Status::Proved;
  /// The first failure of each kind.
  std::vector<Diagnostic> Diags;

  bool proved() const { return St == Status::Proved; }
  /// ExitOk proved, ExitFailed a property fails (or could not be decided),
  /// ExitInvalid invalid input.
  int exitCode() const {
    return St == Status::Proved    ? ExitOk
           : St == Status::Invalid ? ExitInvalid
                                   : ExitFailed;
  }
  bool failsKind(llvm::StringRef Kind) const {
    for (const Diagnostic &D : Diags)
      if (D.Kind == Kind)
        return true;
    return false;
  }
};

/// The kinds of property failure, as Diagnostic::Kind.
namespace property {
inline constexpr const char *Availability = "availability";
inline constexpr const char *SendPort = "send-port";
inline constexpr const char *RecvPort = "recv-port";
inline constexpr const char *Duplex = "duplex";
inline constexpr const char *Topology = "topology";
inline constexpr const char *Completeness = "completeness";
inline constexpr const char *ExactlyOnce = "exactly-once";
inline constexpr const char *NodeSendPort = "node-send-port";
inline constexpr const char *NodeRecvPort = "node-recv-port";
inline constexpr const char *OperandOrder = "operand-order";
} // namespace property

/// Decides every property exactly by replaying possession (interval sets of
/// bytes per rank and buffer; contributor sets for reductions). Runs the
/// structural checks first, so any Schedule is safe to pass.
VerifyResult checkExplicit(const Schedule &S);

} // namespace choreo

#endif
