//===- template/Template.cpp - The template AST and its collective --------===//
///
/// \file
/// Printing of expressions and conditions, the check of a template against
/// its collective's spec, loading by name or file, and the templates of each
/// generator. The parser is TemplateParser.cpp, evaluation and expansion
/// TemplateExpand.cpp.
///
//===----------------------------------------------------------------------===//

#include "template/Template.h"
#include "ir/Schedule.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace choreo;
using llvm::formatv;


//===----------------------------------------------------------------------===//
// Printing
//===----------------------------------------------------------------------===//

std::string Expr::str() const {
  auto Bin = [&](const char *Op) {
    return "(" + L->str() + " " + Op + " " + R->str() + ")";
  };
  switch (K) {
  case Kind::Num:
    return std::to_string(Value);
  case Kind::Var:
    return Name;
  case Kind::Add:
    return Bin("+");
  case Kind::Sub:
    return Bin("-");
  case Kind::Mul:
    return Bin("*");
  case Kind::Div:
    return Bin("/");
  case Kind::Rem:
    return Bin("%");
  case Kind::Mod:
    return Bin("mod");
  case Kind::Min:
    return "min(" + L->str() + ", " + R->str() + ")";
  case Kind::Max:
    return "max(" + L->str() + ", " + R->str() + ")";
  case Kind::Neg:
    return "-" + L->str();
  case Kind::Pow2:
    return "pow2(" + L->str() + ")";
  }
  return "?";
}

std::string Cond::str() const {
  auto Rel = [&](const char *Op) { return A->str() + " " + Op + " " + B->str(); };
  switch (K) {
  case Kind::True:
    return "true";
  case Kind::Lt:
    return Rel("<");
  case Kind::Le:
    return Rel("<=");
  case Kind::Gt:
    return Rel(">");
  case Kind::Ge:
    return Rel(">=");
  case Kind::Eq:
    return Rel("==");
  case Kind::Ne:
    return Rel("!=");
  case Kind::And:
    return L->str() + " and " + R->str();
  case Kind::Or:
    return "(" + L->str() + " or " + R->str() + ")";
  case Kind::Not:
    return "not (" + L->str() + ")";
  }
  return "?";
}

const MessageFamily *Template::family(llvm::StringRef Name) const {
  for (const MessageFamily &F : Messages)
    if (F.Name == Name)
      return &F;
  return nullptr;
}

llvm::Error choreo::checkAgainstSpec(const Template &T) {
  const CollectiveSpec &Spec = specOf(T.Kind);
  bool Bcast = Spec.Data == DataKind::Broadcast;
  bool Red = Spec.isReduction();
  if (!(Spec.isGatherType() && !Spec.Rooted) && !Bcast && !Red)
    return makeDiagError("template",
                         formatv("{0}: templates state gather-type collectives "
                                 "without a root (allgather(v), "
                                 "inter_allgather(v), half_allgather), bcast "
                                 "and the reductions, not {1}",
                                 T.Source, Spec.Name));
  if (Red && Spec.Rooted != bool(T.Root))
    return makeDiagError("template",
                         Spec.Rooted ? formatv("{0}: {1} needs 'root EXPR'",
                                               T.Source, Spec.Name)
                                     : formatv("{0}: {1} has no root; remove "
                                               "'root'",
                                               T.Source, Spec.Name));
  if (Red) {
    // One group, all: every rank contributes to every segment.
    if (T.Groups.size() != 1 || T.Groups[0].Name != "all")
      return makeDiagError("template",
                           formatv("{0}: {1} needs exactly 'group all [0, "
                                   "RANKS)'",
                                   T.Source, Spec.Name));
    return llvm::Error::success();
  }
  if (Bcast != bool(T.Root))
    return makeDiagError("template",
                         Bcast ? formatv("{0}: {1} needs 'root EXPR'",
                                         T.Source, Spec.Name)
                               : formatv("{0}: {1} has no root; remove "
                                         "'root'",
                                         T.Source, Spec.Name));
  // A broadcast has one vector, held by the root: its messages are member
  // 0 of group all (or parts of it), and start at the root (the origin
  // obligation proves it).
  if (Bcast)
    for (const MessageFamily &F : T.Messages)
      if (F.Member->K != Expr::Kind::Num || F.Member->Value != 0)
        return makeDiagError("template",
                             formatv("{0}:{1}: message {2}: a bcast's "
                                     "messages are the root's vector, "
                                     "'is all.0' (or 'all.0 part S of N')",
                                     T.Source, F.Line, F.Name));
  std::vector<std::string> Names;
  for (llvm::StringRef G : Spec.groupNames())
    Names.push_back(G.str());
  std::string Expected = llvm::join(Names, ", ");
  auto Declared = [&](llvm::StringRef G) {
    return llvm::any_of(T.Groups,
                        [&](const GroupDecl &D) { return D.Name == G; });
  };
  for (const GroupDecl &D : T.Groups)
    if (!llvm::is_contained(Names, D.Name))
      return makeDiagError("template",
                           formatv("{0}:{1}: {2} has no group named {3} (its "
                                   "groups: {4})",
                                   T.Source, D.Line, Spec.Name, D.Name,
                                   Expected));
  for (const std::string &G : Names)
    if (!Declared(G))
      return makeDiagError("template",
                           formatv("{0}: {1} needs group {2} (its groups: "
                                   "{3}); declare it with 'group {2} [lo, hi)'",
                                   T.Source, Spec.Name, G, Expected));
  auto HasBuffer = [&](llvm::StringRef G) {
    return Spec.contributes(G) || (Bcast && G == "all");
  };
  for (const MessageFamily &F : T.Messages)
    if (!HasBuffer(F.Group))
      return makeDiagError("template",
                           formatv("{0}:{1}: message {2}: no buffer for group "
                                   "{3} (in {4} only the members of a "
                                   "contributing group send their own data)",
                                   T.Source, F.Line, F.Name, F.Group,
                                   Spec.Name));
  // Some rank must end with every contributed buffer (gather-type rules),
  // so each needs a goal delivering it: the goals state the collective's
  // completeness rule, not a weaker one of the template's own.
  for (llvm::StringRef Buf : Names) {
    if (!HasBuffer(Buf))
      continue;
    bool Covered = llvm::any_of(T.Goals, [&](const Goal &G) {
      const MessageFamily *F = T.family(G.Family);
      return F && F->Group == Buf;
    });
    if (!Covered)
      return makeDiagError("template",
                           formatv("{0}: no goal delivers buffer {1}, but {2}",
                                   T.Source, Buf, Spec.Rule));
  }
  return llvm::Error::success();
}

std::vector<std::pair<std::string, std::string>>
choreo::completenessGoals(Collective Kind) {
  switch (specOf(Kind).Result) {
  case ResultRule::Everyone:
    return {{"all", "all"}};
  case ResultRule::OtherGroup:
    return {{"A", "B"}, {"B", "A"}};
  case ResultRule::GroupB:
    return {{"B", "A"}};
  case ResultRule::Root:
  case ResultRule::OwnSlice:
    break;
  }
  return {};
}

llvm::Expected<Template> choreo::loadTemplate(llvm::StringRef NameOrPath) {
  for (auto [Name, Text] : builtinTemplates())
    if (NameOrPath == Name)
      return parseTemplate(Text, (llvm::Twine("<builtin ") + Name + ">").str());
  return readTemplateFile(NameOrPath);
}

llvm::ArrayRef<GeneratorTemplate>
choreo::templatesOfGenerator(llvm::StringRef Id) {
  static const GeneratorTemplate Ring[] = {
      {"ring-equal", ""},
      {"ring-senders-first", ""},
      {"ring-receivers-first", ""},
      {"ring-single-receiver", ""},
      {"ring-senders-first-odd", ""},
      {"ring-receivers-first-odd", ""},
  };
  static const GeneratorTemplate RingOpt[] = {
      {"ring-opt", ""},
      {"ring-opt-wide", ""},
      {"ring-opt-one-sender", ""},
  };
  static const GeneratorTemplate Kang[] = {
      {"kang-divisible", "--exchange subgroups --intra ring"},
  };
  static const GeneratorTemplate AllreduceRing[] = {{"allreduce-ring", ""}};
  static const GeneratorTemplate ReduceScatterRing[] = {
      {"reduce-scatter-ring", ""}};
  if (Id == "half-allgather-ring")
    return Ring;
  if (Id == "allreduce-ring")
    return AllreduceRing;
  if (Id == "reduce-scatter-ring")
    return ReduceScatterRing;
  if (Id == "half-allgather-ring-opt")
    return RingOpt;
  if (Id == "inter-allgather-kang")
    return Kang;
  return {};
}
