//===- generators/Options.h - Declared, typed generator options -*- C++ -*-===//
///
/// \file
/// Generator options declared once: an OptionDecl names an option and gives
/// its help, the kind of its value (a count, a rank, a size, a list of sizes,
/// a choice between words), its default and, for a message size, the group it
/// sizes. Parsing, the check against one generator's declarations, defaults,
/// `--help` text and the `params` echo all derive from the declarations, so a
/// generator adds an option by adding one declaration.
///
/// Two phases: parseOptions reads "--name value" arguments against a set of
/// declarations (syntax, value kinds, unknown and repeated options);
/// bindOptions checks parsed values against one generator's declarations
/// (options it does not take, choices it does not admit) and fills in the
/// defaults. `choreo compare` parses once and binds per generator.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_GENERATORS_OPTIONS_H
#define CHOREO_GENERATORS_OPTIONS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace choreo {

/// What an option's value is.
enum class OptionKind {
  Count,    ///< a non-negative integer: a number of processes
  Size,     ///< bytes: a non-negative integer, optionally with K, M or G
  SizeList, ///< comma-separated sizes, one per member of a group
  Rank,     ///< a non-negative integer naming a rank
  Choice,   ///< one of the words the declaration admits
  Real,     ///< a non-negative finite decimal number (a model parameter)
};

/// The processes a message-size option gives sizes to. `choreo compare`
/// scales the message-size options to each message size of its sweep.
enum class SizedGroup {
  None, ///< not a message size
  All,  ///< every rank of an intragroup collective
  A,    ///< group A of an intergroup collective
  B,    ///< group B
};

/// A value a choice option knows but refuses, with the reason (a generator
/// that cannot run on the ring refuses `--topology ring`).
struct RefusedChoice {
  std::string Value, Why;
};

/// One option a generator takes.
struct OptionDecl {
  /// The name without "--".
  std::string Name;
  OptionKind Kind = OptionKind::Count;
  /// One line of `--help`.
  std::string Help;
  SizedGroup Sizes = SizedGroup::None;
  /// Choice: the words admitted, in the order help lists them.
  std::vector<std::string> Choices;
  /// Choice: known words refused with a reason of their own.
  std::vector<RefusedChoice> Refused;
  /// Size: words admitted instead of a size (`--block-bytes auto`); such a
  /// value reads through OptionValues::word.
  std::vector<std::string> Words;
  /// The value's text when the option is not given (parsed like a given
  /// one); empty for none.
  std::string Default;
  /// For help only: a default the generator computes from the other options
  /// ("MPICH's choice").
  std::string DefaultNote;
  /// Choice: numbers admitted besides the words (`--groups N|auto|nodes`
  /// admits a count, `--alpha X` a non-negative real and no word); the
  /// value stays text for the generator to read.
  enum class Numbers { None, Count, Real };
  Numbers AlsoAdmits = Numbers::None;

  static OptionDecl count(llvm::StringRef Name, llvm::StringRef Help);
  static OptionDecl rank(llvm::StringRef Name, llvm::StringRef Help);
  static OptionDecl size(llvm::StringRef Name, llvm::StringRef Help,
                         SizedGroup Sizes);
  static OptionDecl sizeList(llvm::StringRef Name, llvm::StringRef Help,
                             SizedGroup Sizes);
  static OptionDecl choice(llvm::StringRef Name, llvm::StringRef Help,
                           llvm::ArrayRef<llvm::StringRef> Choices);
  static OptionDecl real(llvm::StringRef Name, llvm::StringRef Help);

  /// Copies with one field changed, for variants of a shared declaration.
  OptionDecl withHelp(llvm::StringRef H) const;
  OptionDecl withDefault(llvm::StringRef Text) const;
  OptionDecl withDefaultNote(llvm::StringRef Note) const;
  OptionDecl refusing(llvm::StringRef Value, llvm::StringRef Why) const;
  OptionDecl admitting(Numbers N) const;
  /// A size option that also admits Word.
  OptionDecl admitting(llvm::StringRef Word) const;

  bool isMessageSize() const { return Sizes != SizedGroup::None; }
  /// The value's placeholder in help: N, RANK, SIZE (SIZE|auto with words),
  /// LIST, X, or the choices joined by '|'.
  std::string metavar() const;
};

/// A parsed value: Count, Rank and Size hold a number, SizeList a list,
/// Choice a word (and so does a Size given as one of its words), Real a
/// double.
using OptionValue =
    std::variant<uint64_t, std::vector<uint64_t>, std::string, double>;

/// One option with a value, given or by default.
struct OptionEntry {
  /// The declaration the value was read by; declarations outlive values.
  const OptionDecl *Decl = nullptr;
  OptionValue Value;
  bool Given = true;
};

/// Option values in the order of their declarations, with typed accessors.
/// An accessor of the wrong kind for a declared option is a programming
/// error (asserted); an absent option reads as std::nullopt.
class OptionValues {
public:
  OptionValues() = default;
  explicit OptionValues(llvm::ArrayRef<OptionDecl> Decls) : Decls(Decls) {}

  /// The declarations the values were parsed or bound against.
  llvm::ArrayRef<OptionDecl> decls() const { return Decls; }
  /// The declaration of Name among decls(), or null.
  const OptionDecl *decl(llvm::StringRef Name) const;
  llvm::ArrayRef<OptionEntry> entries() const { return Entries; }
  llvm::MutableArrayRef<OptionEntry> entries() { return Entries; }

  /// Whether Name has a value, given or by default.
  bool has(llvm::StringRef Name) const { return find(Name) != nullptr; }
  /// Whether Name was given (not defaulted).
  bool given(llvm::StringRef Name) const;

  /// Count, Rank or Size (std::nullopt for a Size given as a word).
  std::optional<uint64_t> number(llvm::StringRef Name) const;
  /// A Size given as one of its declaration's words.
  std::optional<llvm::StringRef> word(llvm::StringRef Name) const;
  /// Real.
  std::optional<double> real(llvm::StringRef Name) const;
  /// SizeList.
  std::optional<std::vector<uint64_t>> sizeList(llvm::StringRef Name) const;
  /// Choice.
  std::optional<llvm::StringRef> choice(llvm::StringRef Name) const;

  /// Sets the option D declares as given, replacing a value of the same
  /// name. D must outlive the values.
  void set(const OptionDecl &D, OptionValue V);

  /// The given options (not the defaults) as the schedule's "params" object:
  /// numbers, arrays of numbers and strings, in declaration order.
  nlohmann::ordered_json toJson() const;

private:
  friend llvm::Expected<OptionValues> parseOptions(llvm::ArrayRef<std::string>,
                                                   llvm::ArrayRef<OptionDecl>);
  friend llvm::Expected<OptionValues> bindOptions(const OptionValues &,
                                                  llvm::ArrayRef<OptionDecl>,
                                                  llvm::StringRef);

  const OptionEntry *find(llvm::StringRef Name) const;
  /// Keeps Entries in declaration order (entries of other declarations
  /// last, in the order set).
  void sortByDeclaration();

  llvm::ArrayRef<OptionDecl> Decls;
  std::vector<OptionEntry> Entries;
};

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

/// Parses one value by the declaration's kind; errors name the option.
llvm::Expected<OptionValue> parseOptionValue(const OptionDecl &D,
                                             llvm::StringRef Text);

/// "4096", "64K", "1M", "2G" -> bytes. Option names the flag in errors.
llvm::Expected<uint64_t> parseSize(llvm::StringRef Text,
                                   llvm::StringRef Option);

/// An error about one option: "--p: ...".
llvm::Error optionError(llvm::StringRef Option, const llvm::Twine &Msg);

/// A line of an options table: "--name META" and its description.
struct HelpRow {
  std::string Left, Right;
};

/// One row per declaration: the name with its metavar, the help with the
/// default ("(default ring)").
std::vector<HelpRow> optionHelpRows(llvm::ArrayRef<OptionDecl> Decls);

/// Prints rows as an aligned table indented by two, descriptions wrapped at
/// 80 columns; a left column too wide puts its description on the next
/// line.
void printHelpRows(llvm::raw_ostream &OS, llvm::ArrayRef<HelpRow> Rows);

} // namespace choreo

#endif
