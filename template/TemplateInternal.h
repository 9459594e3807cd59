//===- template/TemplateInternal.h - Shared inside template/ ----*- C++ -*-===//
///
/// \file
/// Declarations the files of the template library share and Template.h does
/// not offer: the located error of evaluation and expansion, and the checks
/// the parser runs on a template before returning it.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_TEMPLATE_TEMPLATEINTERNAL_H
#define CHOREO_TEMPLATE_TEMPLATEINTERNAL_H

#include "template/Template.h"

#include "llvm/Support/Error.h"

namespace choreo {

/// "SOURCE:LINE: MESSAGE", with what of the location is known
/// (TemplateEval.cpp).
llvm::Error located(llvm::StringRef Source, unsigned Line,
                    const llvm::Twine &Msg);

/// Every name an expression uses is a parameter, an earlier let, `i` and
/// the loop variables in a stage, or an index variable where one is bound
/// (TemplateCheck.cpp).
llvm::Error checkNames(const Template &T);

/// Every witness (`by`) names an op line of its message family and only
/// that op's variables, in expressions of the names in scope where it
/// stands (TemplateCheck.cpp).
llvm::Error checkWitnesses(const Template &T);

/// A reduction's template has one segment family, `combine`/`send` ops of
/// it and `holds` in every stage; other templates have none of these, nor
/// an `op` line (HaveOp) (TemplateCheck.cpp).
llvm::Error checkReduction(const Template &T, bool HaveOp);

} // namespace choreo

#endif
