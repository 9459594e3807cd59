//===- options/Parse.h - Parsing and binding declared options -*- C++ -*---===//
///
/// \file
/// Two phases for a generator's options: parseOptions reads "--name value"
/// arguments against a set of declarations (syntax, value kinds, unknown
/// and repeated options); bindOptions checks parsed values against one
/// generator's declarations (options it does not take, choices it does not
/// admit) and fills in the defaults. `choreo compare` parses once and binds
/// per generator. mergeOptionDecls unites several generators' declarations
/// into the one set parseOptions reads by.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_OPTIONS_PARSE_H
#define CHOREO_OPTIONS_PARSE_H

#include "options/OptionValues.h"

namespace choreo {

/// Parses "--name value" / "--name=value" pairs against Decls: each value by
/// its declaration's kind (choices are checked by bindOptions). Errors name
/// the option: unknown, given twice, missing value, not a size.
llvm::Expected<OptionValues> parseOptions(llvm::ArrayRef<std::string> Args,
                                          llvm::ArrayRef<OptionDecl> Decls);

/// Checks the given options of Values against Decls, the options of Who (a
/// generator id, for errors): refuses options Decls lacks and choices they
/// do not admit, and adds the declared defaults. Decls must outlive the
/// result.
llvm::Expected<OptionValues> bindOptions(const OptionValues &Values,
                                         llvm::ArrayRef<OptionDecl> Decls,
                                         llvm::StringRef Who);

/// One declaration per name from the declarations of several generators:
/// kinds and sized groups must agree (else an error names the option);
/// helps that differ are joined, choices united, and choices or defaults
/// the generators do not share are said to depend on the algorithm. Ordered
/// by kind (counts, sizes, ranks, choices, numbers), then by first declaration.
llvm::Expected<std::vector<OptionDecl>>
mergeOptionDecls(llvm::ArrayRef<llvm::ArrayRef<OptionDecl>> Lists);

/// Parses one value by the declaration's parser, or by its kind; errors
/// name the option.
llvm::Expected<OptionValue> parseOptionValue(const OptionDecl &D,
                                             llvm::StringRef Text);

/// Whether V is one of the choices D admits; else an error saying which
/// (a refused word's reason, or the words admitted).
llvm::Error checkChoice(const OptionDecl &D, llvm::StringRef V);

/// "4096", "64K", "1M", "2G" -> bytes. Option names the flag in errors.
llvm::Expected<uint64_t> parseSize(llvm::StringRef Text,
                                   llvm::StringRef Option);

/// Parsers in a command's own wording (OptionWith::parsedBy).
/// An unsigned integer in [Min, Max]: "--p: expected <What>, got 'x'".
ValueParser numberParser(uint64_t Min, uint64_t Max, llvm::StringRef What);
/// Any decimal number (ranges are the reader's): "--alpha: 'x' is not a
/// number".
ValueParser anyRealParser();
/// One of the declaration's choices; else the error Message(text), whole.
ValueParser choiceParser(std::function<std::string(llvm::StringRef)> Message);

} // namespace choreo

#endif
