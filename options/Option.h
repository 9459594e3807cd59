//===- options/Option.h - Declared options and their typed handles -*- C++ -*-//
///
/// \file
/// An option is declared once: an OptionDecl names it and gives its help, the
/// kind of its value (a count, a rank, a size, a list of sizes, a choice
/// between words, a number, a flag, a text), its default and, for a message
/// size, the group it sizes. A typed handle, Option<T>, is such a
/// declaration together with the C++ type its value reads as:
///
///   Option<uint64_t>               a count or a rank
///   Option<Size>                   bytes ("64K") read as uint64_t
///   Option<SizeOrWord>             bytes or one of some words ("auto")
///   Option<SizeList>               comma-separated sizes, a vector
///   Option<double>                 a non-negative number
///   Option<std::string>            a choice read as its word, or a text
///   Option<OneOf<E>>               a choice read as an enumerator of E
///   Option<bool>                   a flag (no value)
///
/// OptionValues::get and lookup take a handle and return its type, so
/// reading an option as another type does not compile. Parsing, binding,
/// `--help` and the `params` echo work on the untyped declarations
/// (options/Parse.h, options/Help.h).
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_OPTIONS_OPTION_H
#define CHOREO_OPTIONS_OPTION_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
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
  Flag,     ///< no value: given or not
  Text,     ///< any text (a file name)
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

/// A parsed value: Count, Rank and Size hold a number, SizeList a list,
/// Choice and Text a word (and so does a Size given as one of its words),
/// Real a double, Flag true.
using OptionValue =
    std::variant<uint64_t, std::vector<uint64_t>, std::string, double, bool>;

struct OptionDecl;
/// Parses one value of D from its text; errors name the option.
using ValueParser = std::function<llvm::Expected<OptionValue>(
    const OptionDecl &D, llvm::StringRef Text)>;

/// One option, declared once. Typed handles (Option<T>) build these; the
/// parser, the binding, the help and the echo read them.
struct OptionDecl {
  /// The name without dashes.
  std::string Name;
  OptionKind Kind = OptionKind::Count;
  /// One line of `--help`.
  std::string Help;
  SizedGroup Sizes = SizedGroup::None;
  /// Choice: the words admitted, in the order help lists them.
  std::vector<std::string> Choices;
  /// Choice: known words refused with a reason of their own.
  std::vector<RefusedChoice> Refused;
  /// Size: words admitted instead of a size (`--block-bytes auto`).
  std::vector<std::string> Words;
  /// The value's text when the option is not given (parsed like a given
  /// one); empty for none.
  std::string Default;
  /// For help only: a default computed from the other options ("MPICH's
  /// choice").
  std::string DefaultNote;
  /// Choice: numbers admitted besides the words (`--groups N|auto|nodes`
  /// admits a count); the value stays text for its reader.
  enum class Numbers { None, Count, Real };
  Numbers AlsoAdmits = Numbers::None;
  /// The value's placeholder in help when the kind's is not meant ("S",
  /// "FILE").
  std::string Metavar;
  /// Spelled with one dash ("-o") instead of two.
  bool SingleDash = false;
  /// The whole error when the value is missing, in the command's wording;
  /// empty for "--name: missing value".
  std::string Missing;
  /// A parser of the command's own wording instead of the kind's; null for
  /// the kind's (parseOptionValue).
  ValueParser Parse;

  bool isMessageSize() const { return Sizes != SizedGroup::None; }
  /// "--name", or "-o" for a single-dash option.
  std::string spelling() const;
  /// The value's placeholder in help: N, RANK, SIZE (SIZE|auto with words),
  /// LIST, X, the choices joined by '|', or Metavar; empty for a flag.
  std::string metavar() const;
};

/// The value types a handle names besides plain C++ types: Size (bytes,
/// read as uint64_t), SizeOrWord, SizeList and OneOf<E> (read as E).
struct Size {};
struct SizeOrWord {
  /// The bytes, or std::nullopt when one of the words was given.
  std::optional<uint64_t> Bytes;
  std::string Word;
};
using SizeList = std::vector<uint64_t>;
template <class E> struct OneOf {};

/// What reading an Option<T> gives.
template <class T> struct OptionValueType { using type = T; };
template <> struct OptionValueType<Size> { using type = uint64_t; };
template <class E> struct OptionValueType<OneOf<E>> { using type = E; };

/// The part of a handle that does not depend on its type: the declaration.
class OptionBase {
public:
  const OptionDecl &decl() const { return D; }
  operator const OptionDecl &() const { return D; }
  llvm::StringRef name() const { return D.Name; }

protected:
  OptionBase() = default;
  explicit OptionBase(OptionDecl Decl) : D(std::move(Decl)) {}
  OptionDecl D;
};

namespace detail {
/// Reads the stored value V as T; std::nullopt when V holds another kind
/// (two declarations of one name with different kinds, which
/// mergeOptionDecls refuses).
template <class T> std::optional<T> readAs(const OptionValue &V) {
  if (const T *X = std::get_if<T>(&V))
    return *X;
  return std::nullopt;
}
} // namespace detail

/// What every handle can change in a copy of itself, for variants of a
/// shared declaration (another help, a default, refused words).
template <class Derived> class OptionWith : public OptionBase {
public:
  Derived withHelp(llvm::StringRef H) const {
    return with([&](OptionDecl &X) { X.Help = H.str(); });
  }
  Derived withDefault(llvm::StringRef Text) const {
    return with([&](OptionDecl &X) { X.Default = Text.str(); });
  }
  Derived withDefaultNote(llvm::StringRef Note) const {
    return with([&](OptionDecl &X) { X.DefaultNote = Note.str(); });
  }
  Derived withMetavar(llvm::StringRef M) const {
    return with([&](OptionDecl &X) { X.Metavar = M.str(); });
  }
  Derived refusing(llvm::StringRef Value, llvm::StringRef Why) const {
    return with([&](OptionDecl &X) {
      X.Refused.push_back({Value.str(), Why.str()});
    });
  }
  /// A choice that also admits numbers (the value stays its text).
  Derived admitting(OptionDecl::Numbers N) const {
    return with([&](OptionDecl &X) { X.AlsoAdmits = N; });
  }
  /// Values parsed by P (the command's wording) instead of by the kind.
  Derived parsedBy(ValueParser P) const {
    return with([&](OptionDecl &X) { X.Parse = P; });
  }
  /// Msg is the whole error when the value is missing.
  Derived missingValue(llvm::StringRef Msg) const {
    return with([&](OptionDecl &X) { X.Missing = Msg.str(); });
  }
  /// Spelled "-o" instead of "--o".
  Derived singleDash() const {
    return with([&](OptionDecl &X) { X.SingleDash = true; });
  }

protected:
  using OptionBase::OptionBase;
  template <class Fn> Derived with(Fn Change) const {
    Derived O = static_cast<const Derived &>(*this);
    Change(O.D);
    return O;
  }
};

/// A typed handle: a declaration and the type its value reads as.
template <class T> class Option : public OptionWith<Option<T>> {
public:
  using Value = typename OptionValueType<T>::type;

  Option() = default;
  explicit Option(OptionDecl D) : OptionWith<Option<T>>(std::move(D)) {}

  /// The value V holds, as this option's type.
  std::optional<Value> read(const OptionValue &V) const {
    if constexpr (std::is_same_v<T, Size>) {
      return detail::readAs<uint64_t>(V);
    } else if constexpr (std::is_same_v<T, SizeOrWord>) {
      if (auto N = detail::readAs<uint64_t>(V))
        return SizeOrWord{N, ""};
      if (auto W = detail::readAs<std::string>(V))
        return SizeOrWord{std::nullopt, *W};
      return std::nullopt;
    } else {
      return detail::readAs<T>(V);
    }
  }
};

/// A choice read as an enumerator: the words and the enumerators they
/// name. Every word is admitted unless only() narrows them.
template <class E>
class Option<OneOf<E>> : public OptionWith<Option<OneOf<E>>> {
public:
  using Value = E;
  struct Word {
    llvm::StringRef Text;
    E Value;
  };

  Option() = default;
  Option(OptionDecl Decl, llvm::ArrayRef<Word> Table)
      : OptionWith<Option<OneOf<E>>>(std::move(Decl)) {
    for (const Word &W : Table) {
      Words.push_back({W.Text.str(), W.Value});
      this->D.Choices.push_back(W.Text.str());
    }
  }

  std::optional<E> read(const OptionValue &V) const {
    if (const std::string *W = std::get_if<std::string>(&V))
      for (const auto &[Text, X] : Words)
        if (Text == *W)
          return X;
    return std::nullopt;
  }
  /// The word of X.
  llvm::StringRef word(E X) const {
    for (const auto &[Text, Y] : Words)
      if (Y == X)
        return Text;
    return "";
  }
  /// Admits only Admitted of the words (help lists them; binding refuses
  /// the others).
  Option only(llvm::ArrayRef<llvm::StringRef> Admitted) const {
    return this->with([&](OptionDecl &X) {
      X.Choices.clear();
      for (llvm::StringRef W : Admitted)
        X.Choices.push_back(W.str());
    });
  }

private:
  std::vector<std::pair<std::string, E>> Words;
};

/// Declarations, one factory per kind of value.
Option<uint64_t> countOption(llvm::StringRef Name, llvm::StringRef Help);
Option<uint64_t> rankOption(llvm::StringRef Name, llvm::StringRef Help);
Option<Size> sizeOption(llvm::StringRef Name, llvm::StringRef Help,
                        SizedGroup Sizes = SizedGroup::None);
/// A size that also admits Words instead of bytes.
Option<SizeOrWord> sizeOrWordOption(llvm::StringRef Name, llvm::StringRef Help,
                                    llvm::ArrayRef<llvm::StringRef> Words);
Option<SizeList> sizeListOption(llvm::StringRef Name, llvm::StringRef Help,
                                SizedGroup Sizes = SizedGroup::None);
Option<double> realOption(llvm::StringRef Name, llvm::StringRef Help);
/// A choice read as its word.
Option<std::string> wordOption(llvm::StringRef Name, llvm::StringRef Help,
                               llvm::ArrayRef<llvm::StringRef> Choices);
/// Any text; Metavar names it in help ("FILE").
Option<std::string> textOption(llvm::StringRef Name, llvm::StringRef Help,
                               llvm::StringRef Metavar);
Option<bool> flagOption(llvm::StringRef Name, llvm::StringRef Help);

/// The declaration every factory starts from.
OptionDecl makeOptionDecl(llvm::StringRef Name, OptionKind Kind,
                          llvm::StringRef Help,
                          SizedGroup Sizes = SizedGroup::None);

/// A choice read as an enumerator of E: Table gives each word's enumerator.
template <class E>
Option<OneOf<E>>
choiceOption(llvm::StringRef Name, llvm::StringRef Help,
             llvm::ArrayRef<typename Option<OneOf<E>>::Word> Table) {
  return Option<OneOf<E>>(makeOptionDecl(Name, OptionKind::Choice, Help),
                          Table);
}

/// Whether Decls declare H's name.
bool declares(llvm::ArrayRef<OptionDecl> Decls, const OptionBase &H);

/// An error about one option: "--p: ...".
llvm::Error optionError(llvm::StringRef Option, const llvm::Twine &Msg);
/// The same with the option's spelling ("-o: ...").
llvm::Error optionError(const OptionDecl &D, const llvm::Twine &Msg);

} // namespace choreo

#endif
