//===- options/OptionValues.h - Option values read by handle -*- C++ -*----===//
///
/// \file
/// The values of parsed or bound options, in the order of their
/// declarations. They are read by typed handle (options/Option.h):
/// `V.get(opt::root())` is a uint64_t, `V.lookup(opt::counts())` a
/// std::optional<std::vector<uint64_t>>; there is no read by name and
/// type. Generic code (the params echo, compare's size sweep) walks the
/// entries with their declarations.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_OPTIONS_OPTIONVALUES_H
#define CHOREO_OPTIONS_OPTIONVALUES_H

#include "options/Option.h"

#include <nlohmann/json_fwd.hpp>

namespace choreo {

/// One option with a value, given or by default.
struct OptionEntry {
  /// The declaration the value was read by; declarations outlive values.
  const OptionDecl *Decl = nullptr;
  OptionValue Value;
  bool Given = true;
};

class OptionValues {
public:
  OptionValues() = default;
  explicit OptionValues(llvm::ArrayRef<OptionDecl> Decls) : Decls(Decls) {}

  /// The declarations the values were parsed or bound against.
  llvm::ArrayRef<OptionDecl> decls() const { return Decls; }
  /// The declaration of H's name among decls() (its help may be a
  /// variant's), or null when they do not declare it.
  const OptionDecl *decl(const OptionBase &H) const;
  llvm::ArrayRef<OptionEntry> entries() const { return Entries; }
  llvm::MutableArrayRef<OptionEntry> entries() { return Entries; }

  /// H's value, or std::nullopt when it has none (not given, no default).
  template <class T>
  std::optional<typename Option<T>::Value> lookup(const Option<T> &H) const {
    const OptionEntry *E = find(H.name());
    if (!E)
      return std::nullopt;
    return H.read(E->Value);
  }
  /// H's value; without one, the default H declares (parsed), or the
  /// type's zero when H declares none. For options with a default.
  template <class T> typename Option<T>::Value get(const Option<T> &H) const {
    if (auto X = lookup(H))
      return *X;
    if (auto X = defaultOf(H))
      return *X;
    return typename Option<T>::Value();
  }
  /// Whether H has a value, given or by default.
  bool has(const OptionBase &H) const { return find(H.name()) != nullptr; }
  /// Whether H was given (not defaulted).
  bool given(const OptionBase &H) const;
  /// Whether the option D declares was given (not defaulted).
  bool given(const OptionDecl &D) const;

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
  /// H's declared default, parsed.
  template <class T>
  std::optional<typename Option<T>::Value> defaultOf(const Option<T> &H) const {
    if (H.decl().Default.empty())
      return std::nullopt;
    if (auto V = parseDefault(H.decl()))
      return H.read(*V);
    return std::nullopt;
  }
  static std::optional<OptionValue> parseDefault(const OptionDecl &D);
  /// Keeps Entries in declaration order (entries of other declarations
  /// last, in the order set).
  void sortByDeclaration();

  llvm::ArrayRef<OptionDecl> Decls;
  std::vector<OptionEntry> Entries;
};

} // namespace choreo

#endif
