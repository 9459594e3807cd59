//===- tools/choreo/GenCommand.cpp - choreo gen ---------------------------===//
///
/// \file
/// `choreo gen ALGO [OPTIONS] [-o FILE] [--format json|cbor] [--machine
/// FILE]`: the generator's options (options/Parse.h via parseGenArgs) and
/// gen's own (--machine: the model of the generator's auto options);
/// `choreo gen --template FILE|NAME ...` expands a template instead.
///
//===----------------------------------------------------------------------===//

#include "Driver.h"
#include "cost/Machine.h"
#include "generators/CommonOptions.h"
#include "generators/Generator.h"
#include "ir/ScheduleIO.h"
#include "template/Template.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace choreo;

namespace {

/// -o FILE: where `gen` writes (standard output by default).
const Option<std::string> &outputOpt() {
  static const Option<std::string> O =
      textOption("o", "write to FILE instead of standard output", "FILE")
          .singleDash();
  return O;
}

/// --machine FILE: the model the generator's own `auto` options price with.
const Option<std::string> &genMachineOpt() {
  static const Option<std::string> O = textOption(
      "machine",
      "the alpha and beta of a machine file (choreo-calibrate, "
      "docs/machine.md) for the generator's auto options (--groups auto, "
      "--block-bytes auto); default: $CHOREO_MACHINE if set. --alpha and "
      "--beta given beside it win",
      "FILE");
  return O;
}

/// gen's own options besides the generators': -o, --format and --machine.
llvm::ArrayRef<OptionDecl> genDecls() {
  static const OptionDecl Decls[] = {outputOpt(), formatOpt(),
                                     genMachineOpt()};
  return Decls;
}

/// The declaration of the generators' option Name (allGenOptions), or null.
const OptionDecl *genOptionDecl(llvm::StringRef Name) {
  for (const OptionDecl &D : allGenOptions())
    if (D.Name == Name)
      return &D;
  return nullptr;
}

/// Where one of G's options that admits `auto` has it (given, or by
/// default) and G prices it with --alpha and --beta, a machine file (File,
/// else $CHOREO_MACHINE) gives those of the two not given in Params.
/// Errors: the file does not read (an explicit File is read even when
/// nothing uses it, so that a mistyped name is not silently ignored).
llvm::Error machineForAuto(const Generator &G, std::string File,
                           OptionValues &Params) {
  bool Explicit = !File.empty();
  bool Prices = false, Auto = false;
  for (const OptionDecl &D : G.options()) {
    if (D.Name == "alpha" || D.Name == "beta")
      Prices = true;
    // A choice (--groups) or a size admitting words (--block-bytes).
    if (!llvm::is_contained(D.Choices, "auto") &&
        !llvm::is_contained(D.Words, "auto"))
      continue;
    std::string Value = D.Default;
    for (const OptionEntry &E : Params.entries())
      if (E.Decl && E.Decl->Name == D.Name) {
        const std::string *W = std::get_if<std::string>(&E.Value);
        Value = W ? *W : std::string();
      }
    Auto = Auto || Value == "auto";
  }
  if (!Explicit && !(Prices && Auto))
    return llvm::Error::success();
  if (!Explicit)
    if (const char *Env = getenv("CHOREO_MACHINE"))
      File = Env;
  if (File.empty())
    return llvm::Error::success();
  auto MF = readMachineFile(File);
  if (!MF)
    return MF.takeError();
  if (!(Prices && Auto))
    return llvm::Error::success();
  for (auto [Name, X] : {std::pair{"alpha", MF->Model.Alpha},
                         std::pair{"beta", MF->Model.Beta}}) {
    const OptionDecl *D = genOptionDecl(Name);
    if (D && !Params.given(*D))
      Params.set(*D, X);
  }
  return llvm::Error::success();
}

/// `choreo gen ALGO --help` (G) or `choreo help gen` (null): the options
/// table derived from the declarations.
std::string genUsage(const Generator *G) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  if (G) {
    OS << "usage: choreo gen " << G->id()
       << " [OPTIONS] [-o FILE] [--format json|cbor] [--machine FILE]\n\n"
       << G->summary() << "\n\noptions:\n";
  } else {
    OS << "usage: choreo gen ALGO [OPTIONS] [-o FILE] [--format json|cbor] "
          "[--machine FILE]\n\n"
          "Generates a schedule of algorithm ALGO (see `choreo list`) and "
          "writes it\nin format v1: to standard output by default, to FILE "
          "with -o; as CBOR\nwith --format cbor or a .cbor file name.\n\n"
          "options (each algorithm takes some of them; `choreo gen ALGO "
          "--help` lists\nits own, with the values and defaults it "
          "admits):\n";
  }
  std::vector<HelpRow> Rows =
      optionHelpRows(G ? G->options() : allGenOptions());
  for (HelpRow &R : optionHelpRows(genDecls()))
    Rows.push_back(std::move(R));
  printHelpRows(OS, Rows);
  OS << "\nsizes take K, M and G suffixes (1K = 1024 bytes).\n";
  return S;
}

/// A template's parameter other than p and q (a broadcast's root,
/// segments, groups): --NAME N, an integer.
Option<std::string> templateParamOpt(llvm::StringRef Name) {
  return textOption(Name, "a parameter of the template", "N")
      .parsedBy([](const OptionDecl &D,
                   llvm::StringRef Text) -> llvm::Expected<OptionValue> {
        int64_t X;
        if (Text.getAsInteger(10, X))
          return optionError(D, "'" + Text + "' is not an integer");
        return OptionValue(Text.str());
      });
}

/// `choreo gen --template FILE|NAME --p P --q Q [sizes] [-o FILE]`.
int genTemplate(llvm::ArrayRef<std::string> Args) {
  auto T = loadTemplate(Args[1]);
  if (!T) {
    printError(llvm::errs(), T.takeError());
    return ExitInvalid;
  }
  // -o and --format are read first, then the template's parameters other
  // than p and q, then the rest by the generators' options: three readings,
  // so that a parameter named like one of gen's options (bcast-hier-*'s
  // `--o`, the root's offset, beside the output's `-o`) keeps its own value.
  CommandRules Rules;
  Rules.PassThrough = true;
  auto C =
      parseCommand(Args.drop_front(2), genDecls(), genUsage(nullptr), Rules);
  if (!C)
    return ExitInvalid;
  std::vector<Option<std::string>> ParamOpts;
  for (const std::string &Name : T->Params)
    if (Name != "p" && Name != "q")
      ParamOpts.push_back(templateParamOpt(Name));
  std::vector<OptionDecl> ParamDecls(ParamOpts.begin(), ParamOpts.end());
  auto PC = parseCommand(C->Rest, ParamDecls, genUsage(nullptr), Rules);
  if (!PC)
    return ExitInvalid;
  Env Params;
  for (const Option<std::string> &O : ParamOpts)
    if (auto Text = PC->Values.lookup(O))
      llvm::StringRef(*Text).getAsInteger(10, Params[O.name().str()]);
  auto P = parseGenArgs(PC->Rest);
  if (!P) {
    printError(llvm::errs(), P.takeError());
    return ExitInvalid;
  }
  for (const std::string &Name : T->Params) {
    if (Params.count(Name))
      continue;
    std::optional<uint64_t> V;
    if (Name == "p" || Name == "q")
      V = P->lookup(Name == "p" ? opt::ranks() : opt::groupB());
    if (!V) {
      llvm::errs() << "error: --" << Name << ": missing (template " << T->Name
                   << " takes " << llvm::join(T->Params, ", ") << ")\n";
      return ExitInvalid;
    }
    Params[Name] = *V;
  }
  if (auto E = checkTemplateBudget(*T, Params)) {
    printError(llvm::errs(), std::move(E));
    return ExitInvalid;
  }
  auto [UnitA, UnitB] = unitSizes(*T, Params);
  auto Sized = [&](const Option<Size> &Bytes, const Option<SizeList> &Counts,
                   std::vector<uint64_t> Unit) {
    if (auto List = P->lookup(Counts))
      return *List;
    if (auto X = P->lookup(Bytes))
      for (uint64_t &U : Unit)
        U = *X;
    return Unit;
  };
  // A broadcast's or reduction's one size is the vector length (an
  // alltoall's the bytes of every block); a reduction's segments are cut
  // on --element-bytes boundaries (default 8, as the generators'; 1
  // without --bytes: one byte per segment).
  bool OneVector = specOf(T->Kind).Data == DataKind::Broadcast ||
                   T->isReduction() || T->Kind == Collective::Alltoall;
  uint64_t Elem =
      P->lookup(opt::elementBytes()).value_or(P->lookup(opt::bytes()) ? 8 : 1);
  auto S = expandTemplate(
      *T, Params,
      OneVector ? Sized(opt::bytes(), opt::counts(), UnitA)
                : Sized(opt::bytesA(), opt::countsA(), UnitA),
      Sized(opt::bytesB(), opt::countsB(), UnitB), TemplateOpBudget, Elem);
  if (!S) {
    printError(llvm::errs(), S.takeError());
    return ExitInvalid;
  }
  std::string Out = C->Values.lookup(outputOpt()).value_or("-");
  std::optional<FileFormat> Format = C->Values.lookup(formatOpt());
  if (auto E =
          writeScheduleFile(*S, Out, Format ? *Format : formatForPath(Out))) {
    printError(llvm::errs(), std::move(E));
    return ExitInvalid;
  }
  return ExitOk;
}

} // namespace

int choreo::cmdGen(llvm::ArrayRef<std::string> Args) {
  if (Args.size() >= 2 && Args[0] == "--template")
    return genTemplate(Args);
  if (Args.empty() || Args[0].starts_with("-")) {
    if (wantsHelp(Args)) {
      llvm::outs() << genUsage(nullptr);
      return ExitOk;
    }
    return usageError("missing the algorithm (see `choreo list`)",
                      genUsage(nullptr));
  }
  const Generator *G = findGenerator(Args[0]);
  if (!G)
    return usageError(llvm::formatv("unknown algorithm '{0}' (see `choreo "
                                    "list`)",
                                    Args[0]),
                      genUsage(nullptr));
  if (wantsHelp(Args)) {
    llvm::outs() << genUsage(G);
    return ExitOk;
  }
  CommandRules Rules;
  Rules.PassThrough = true;
  auto C = parseCommand(Args.drop_front(), genDecls(), genUsage(G), Rules);
  if (!C)
    return ExitInvalid;
  std::string Out = C->Values.lookup(outputOpt()).value_or("-");
  std::optional<FileFormat> Format = C->Values.lookup(formatOpt());
  auto Params = parseGenArgs(C->Rest);
  if (!Params) {
    printError(llvm::errs(), Params.takeError());
    return ExitInvalid;
  }
  if (auto E = machineForAuto(
          *G, C->Values.lookup(genMachineOpt()).value_or(""), *Params)) {
    printError(llvm::errs(), std::move(E));
    return ExitInvalid;
  }
  auto S = G->generate(*Params);
  if (!S) {
    printError(llvm::errs(), S.takeError());
    return ExitInvalid;
  }
  FileFormat F = Format ? *Format : formatForPath(Out);
  if (auto E = writeScheduleFile(*S, Out, F)) {
    printError(llvm::errs(), std::move(E));
    return ExitInvalid;
  }
  return ExitOk;
}
