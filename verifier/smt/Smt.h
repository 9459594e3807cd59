//===- verifier/smt/Smt.h - The SMT engine for concrete schedules ---*- C++ -*-===//
///
/// \file
/// The Z3 engine: the properties of checkExplicit, encoded as constraints
/// and proved by refutation; failures are reported in the explicit engine's
/// words. Z3 stays in verifier/smt/: the caller sees a VerifyResult whose
/// status is proved, failed (with diagnostics), invalid, or unknown (a
/// timeout or a solver error, named in the diagnostic).
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_VERIFIER_SMT_SMT_H
#define CHOREO_VERIFIER_SMT_SMT_H

#include "verifier/Verifier.h"

namespace choreo {

struct SmtOptions {
  unsigned TimeoutMs = 60000;
};

VerifyResult checkSmt(const Schedule &S, const SmtOptions &O = {});

} // namespace choreo

#endif
