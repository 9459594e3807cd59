//===- options/OptionValues.cpp - Option values read by handle ------------===//
///
/// \file
/// Finding a value by its handle's name, setting one, the params echo.
///
//===----------------------------------------------------------------------===//

#include "options/OptionValues.h"
#include "options/Parse.h"

#include <algorithm>
#include <nlohmann/json.hpp>

using namespace choreo;

const OptionEntry *OptionValues::find(llvm::StringRef Name) const {
  for (const OptionEntry &E : Entries)
    if (E.Decl->Name == Name)
      return &E;
  return nullptr;
}

const OptionDecl *OptionValues::decl(const OptionBase &H) const {
  for (const OptionDecl &D : Decls)
    if (D.Name == H.name())
      return &D;
  return nullptr;
}

bool OptionValues::given(const OptionBase &H) const { return given(H.decl()); }

bool OptionValues::given(const OptionDecl &D) const {
  const OptionEntry *E = find(D.Name);
  return E && E->Given;
}

std::optional<OptionValue> OptionValues::parseDefault(const OptionDecl &D) {
  auto V = parseOptionValue(D, D.Default);
  if (!V) {
    llvm::consumeError(V.takeError());
    return std::nullopt;
  }
  return std::move(*V);
}

void OptionValues::set(const OptionDecl &D, OptionValue V) {
  for (OptionEntry &E : Entries)
    if (E.Decl->Name == D.Name) {
      E = {&D, std::move(V), true};
      return;
    }
  Entries.push_back({&D, std::move(V), true});
  sortByDeclaration();
}

void OptionValues::sortByDeclaration() {
  auto Index = [&](const OptionEntry &E) {
    for (size_t I = 0; I < Decls.size(); ++I)
      if (Decls[I].Name == E.Decl->Name)
        return I;
    return Decls.size();
  };
  std::stable_sort(Entries.begin(), Entries.end(),
                   [&](const OptionEntry &X, const OptionEntry &Y) {
                     return Index(X) < Index(Y);
                   });
}

nlohmann::ordered_json OptionValues::toJson() const {
  nlohmann::ordered_json J = nlohmann::ordered_json::object();
  for (const OptionEntry &E : Entries)
    if (E.Given)
      std::visit([&](const auto &V) { J[E.Decl->Name] = V; }, E.Value);
  return J;
}
