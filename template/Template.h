//===- template/Template.h - Schedules as affine loop nests ---*- C++ -*-===//
///
/// \file
/// A template writes a schedule the way the papers' listings do: symbolic
/// parameters with a domain, stages of steps, and in each stage loops over
/// affine ranges whose ops send a message from one affine rank to another.
/// `expand` instantiates a template for concrete parameters (a Schedule);
/// the SMT prover (verifier/smt/Prover.h) proves it for every parameter value
/// in the domain at once. The language is documented in docs/templates.md.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_TEMPLATE_TEMPLATE_H
#define CHOREO_TEMPLATE_TEMPLATE_H

#include "ir/Schedule.h"

#include "llvm/Support/Error.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace choreo {

/// An integer expression: affine combinations of named values, with floor
/// division and remainder by positive constants, min, max, `x mod n`,
/// `pow2(x)` (2^x for 0 <= x <= 62), `x xor pow2(y)` (x with bit y flipped),
/// `x xor y` (the bitwise xor of two values >= 0),
/// `log2(x)` (floor(log2 x) for x >= 1: a witness's step, the bit a message
/// arrived at) and (for the prover's bounded mode only) products of
/// variables.
struct Expr {
  enum class Kind {
    Num,
    Var,
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Mod,
    Min,
    Max,
    Neg,
    Pow2,
    Xor, ///< `L xor R`: R a pow2, L with R's bit flipped; else both >= 0
    Log2 ///< floor(log2 L), L >= 1
  };
  Kind K = Kind::Num;
  int64_t Value = 0;
  std::string Name;
  std::shared_ptr<Expr> L, R;
  unsigned Line = 0;  ///< the template line it was read from (0: built in code)
  unsigned Depth = 1; ///< levels of the tree (the parser bounds it)
  std::string str() const;
};
using ExprPtr = std::shared_ptr<Expr>;

/// A condition: comparisons joined by and / or / not.
struct Cond {
  enum class Kind { True, Lt, Le, Gt, Ge, Eq, Ne, And, Or, Not };
  Kind K = Kind::True;
  ExprPtr A, B;
  std::shared_ptr<Cond> L, R;
  unsigned Line = 0;
  unsigned Depth = 1;
  std::string str() const;
};

/// The deepest expression or condition the parser accepts: evaluation,
/// printing and the prover's encoding recurse over the tree.
constexpr unsigned MaxExprDepth = 200;
/// The largest exponent of `pow2` (2^62 fits 64-bit integers).
constexpr int64_t MaxPow2 = 62;
using CondPtr = std::shared_ptr<Cond>;

/// `Var in [Lo, Hi)`.
struct Range {
  std::string Var;
  ExprPtr Lo, Hi;
};

/// `message NAME[vars] for ranges from ORIGIN is GROUP.MEMBER [part S of N]`.
struct MessageFamily {
  std::string Name;
  std::vector<Range> Index;
  ExprPtr Origin;
  std::string Group;
  ExprPtr Member;
  ExprPtr Part, Parts; // null: the whole contribution
  /// A reduction's `segment NAME[j] for j in [0, K)`: part j of K
  /// near-equal parts of the vector (whole elements); every rank holds its
  /// own contribution to each. No origin, group or member.
  bool Segment = false;
  /// `segment NAME[j] for j in [0, K) bitreversed`: segment j is part
  /// rev(j) of the K = 2^b parts, rev reversing j's b bits (the layout of
  /// recursive halving with distance doubling: the segments a rank keeps
  /// after each step are contiguous bytes). K must be written `pow2(E)`.
  bool BitReversed = false;
  unsigned Line = 0;
};

/// `by STAGE#LABEL [with VAR = EXPR, ...]`, a line under an op line, a
/// goal or a gather-type `holds` line (HoldsCase::By): a witness for the
/// prover. It names the op line that delivers the
/// message (to the op's sender in an earlier step; to the goal's rank,
/// `rank`) and gives that op's variables (its `i`, loop and bundle
/// variables) as expressions of the names where the witness stands (the
/// op's `i`, loops and bundle variables; the goal's `rank` and indices).
/// Availability and completeness then have a quantifier-free proof: the
/// named op, at those values, exists and delivers. A witness only helps
/// the prover; one that does not deliver leaves the obligation to the
/// quantified query. The expansion ignores it.
struct Witness {
  std::string Op; ///< the delivering op line's label ("outer#1")
  std::vector<std::pair<std::string, ExprPtr>> Assign;
  unsigned Line = 0;
};

/// `goal ranks [Lo, Hi) get NAME[vars] for ranges`.
struct Goal {
  ExprPtr Lo, Hi;
  std::string Family;
  std::vector<Range> Index;
  std::vector<Witness> By;
  unsigned Line = 0;
};

/// One op line of a stage: `[#label] [for ranges] [if cond]: send
/// NAME[exprs] [for ranges] from SRC to DST`. The stage's step index is `i`.
/// Ranges after the message bundle several messages into the one op (a
/// block of an allgather that carries several members' contributions).
struct OpGen {
  std::string Label; ///< "s1#2": stage name and position, or the given label
  std::vector<Range> Loops;
  CondPtr Guard;
  std::string Family;
  std::vector<ExprPtr> MsgIndex;
  std::vector<Range> Bundle;
  /// `for x in [lo, hi) if COND`: the bundle's messages are those whose
  /// variables satisfy COND (null: all).
  CondPtr BundleGuard;
  ExprPtr Src, Dst;
  /// `combine` (reductions): the receiver combines the sender's partial
  /// into its own; `send` replaces what it held.
  bool Combine = false;
  /// Accumulators (`accumulators N`: scan, exscan): `combine x[j] acc A
  /// ... into B, C`: the sender's accumulator A is sent, into the
  /// receiver's accumulators B and C (IntoMask, bit per accumulator).
  unsigned FromAcc = 0;
  unsigned IntoMask = 1;
  /// Witnesses of the sender's holding (availability).
  std::vector<Witness> By;
  unsigned Line = 0;
};

/// One case of a reduction stage's state: `holds NAME[SEG] at RANK [if
/// COND]: from LO len LEN`. At the start of the stage's step i (i = steps:
/// its end) rank RANK's partial of segment SEG combines the contributions
/// of the cyclic rank interval LO, LO + 1, ..., LO + LEN - 1 (mod ranks).
/// The cases are tried in order; the last has no guard. `: stale`
/// instead of `from LO len LEN` says the partial is no longer used (a
/// segment the rank gave away): the prover proves that no op sends or
/// combines into it and that the result does not need it, and claims
/// nothing about its contributors.
///
/// Gather-type collectives (no reductions): `holds NAME[j, ...] at RANK if
/// COND`, no `from`: rank RANK holds message NAME[j, ...] at the start of
/// the stage's step i (i = steps: its end) where COND holds (one line or
/// another: the lines are joined by `or`). Lo is null; IndexVars names the
/// indices. A proof aid: the prover proves the lines by induction (what
/// step 0 holds was held before the stage, what step i + 1 holds was held
/// at step i or delivered in it) and then takes them for availability and
/// the goals, without a quantifier over the delivering op.
struct HoldsCase {
  std::string Family, SegVar, RankVar;
  std::vector<std::string> IndexVars; ///< gather-type: the index names
  CondPtr Guard;                      ///< null: always
  ExprPtr Lo, Len;
  /// Gather-type: witnesses of the frame (the op that delivered a message
  /// the line holds at step i + 1 and not at step i), in the names of the
  /// line (`i`, RANK, the indices).
  std::vector<Witness> By;
  unsigned Line = 0;
  /// A reduction's `: stale` (Lo and Len null).
  bool Stale = false;
  /// `holds NAME[j] acc A at r`: accumulator A's partial (default 0).
  unsigned Acc = 0;
  bool isSet() const { return !Lo && !Stale; }
};

struct Stage {
  std::string Name;
  ExprPtr Steps;
  std::vector<OpGen> Ops;
  /// Reductions: what every rank holds during the stage; gather-type:
  /// messages ranks hold (a proof aid).
  std::vector<HoldsCase> Holds;
  unsigned Line = 0;
};

struct GroupDecl {
  std::string Name;
  ExprPtr Lo, Hi;
  unsigned Line = 0;
};

struct Template {
  std::string Name;
  std::string Source; ///< file name, for messages
  Collective Kind = Collective::HalfAllgather;
  std::vector<std::string> Params;
  std::vector<std::pair<std::string, ExprPtr>> Lets;
  std::vector<CondPtr> Domain;
  ExprPtr Ranks;
  /// `root EXPR`: the root of a rooted collective (bcast); null otherwise.
  ExprPtr Root;
  std::vector<GroupDecl> Groups;
  bool Ring = false;
  std::vector<MessageFamily> Messages;
  std::vector<Goal> Goals;
  std::vector<Stage> Stages;
  /// Reductions: `op noncommutative` (every combination keeps rank order).
  bool Commutative = true;
  /// Scan, exscan: `accumulators N`, the partials each rank keeps of each
  /// segment (docs/format.md, "Accumulators"); 1 otherwise.
  unsigned Accumulators = 1;

  const MessageFamily *family(llvm::StringRef Name) const;
  bool isReduction() const { return specOf(Kind).isReduction(); }
};

/// Parses a template; errors name the file and line. A parsed template
/// agrees with its collective's spec (checkAgainstSpec), so whatever the
/// prover proves, `gen --template` can expand.
llvm::Expected<Template> parseTemplate(llvm::StringRef Text,
                                       llvm::StringRef Source);
llvm::Expected<Template> readTemplateFile(llvm::StringRef Path);
/// `NAME = EXPR, NAME = EXPR, ...`, the expressions in the template
/// language (GeneratorTemplate::Bind); errors name Source.
llvm::Expected<std::vector<std::pair<std::string, ExprPtr>>>
parseBindings(llvm::StringRef Text, llvm::StringRef Source);
/// A built-in template by name (builtinTemplates), else a template file.
llvm::Expected<Template> loadTemplate(llvm::StringRef NameOrPath);

/// The template's groups, message families and goals against its
/// collective (ir/CollectiveSpec.h): exactly the spec's groups; messages
/// only of groups that contribute; a goal for every buffer some group must
/// end with, each naming a message of that buffer.
llvm::Error checkAgainstSpec(const Template &T);

/// The (receiving group, buffer) pairs of a gather-type collective's
/// completeness rule: every rank of the group ends with every member's
/// contribution to the buffer (that it does not contribute itself). A
/// template without goal lines gets one goal per pair and message family.
std::vector<std::pair<std::string, std::string>>
completenessGoals(Collective Kind);

/// Values of the parameters and lets; missing parameters are an error.
using Env = std::map<std::string, int64_t>;

/// Binds the parameters, computes the lets, checks the domain.
llvm::Expected<Env> bindParams(const Template &T, const Env &Params);

/// Evaluation in 64-bit integers: an overflow, a non-positive divisor or an
/// unknown name is an error naming Source and the expression's line.
llvm::Expected<int64_t> evalExpr(const Expr &E, const Env &V,
                                 llvm::StringRef Source = "");
llvm::Expected<bool> evalCond(const Cond &C, const Env &V,
                              llvm::StringRef Source = "");

/// The most ops (and loop iterations) an expansion may take: the generators'
/// budget (generators refuse more than 2·10^8 ops).
constexpr uint64_t TemplateOpBudget = 200'000'000;

/// An upper bound on the ops and blocks the expansion at Params builds
/// (guards ignored: every loop iteration counted), computed without building
/// them; an error if the parameters are outside the domain, or if computing
/// the bound itself would take more than Budget loop iterations.
llvm::Expected<uint64_t>
estimateTemplateOps(const Template &T, const Env &Params,
                    uint64_t Budget = TemplateOpBudget);

/// An error (naming the template and the parameters) if expanding T at
/// Params would exceed Budget (estimateTemplateOps).
llvm::Error checkTemplateBudget(const Template &T, const Env &Params,
                                uint64_t Budget = TemplateOpBudget);

/// Instantiates the template: steps from its stages, ops from its loops,
/// blocks from its message families (member contributions of the sizes
/// given). Ranks are taken as written (`mod` included); a rank outside the
/// ring is left for the structural checks to name. Refused before expanding
/// when estimateTemplateOps exceeds Budget.
///
/// A reduction template takes SizesA = {n}, the vector length, cut into
/// its segments on ElementBytes boundaries (as the generators' elementCuts);
/// every block carries the contributor set its stage's `holds` gives the
/// sender at that step.
llvm::Expected<Schedule> expandTemplate(const Template &T, const Env &Params,
                                        const std::vector<uint64_t> &SizesA,
                                        const std::vector<uint64_t> &SizesB,
                                        uint64_t Budget = TemplateOpBudget,
                                        uint64_t ElementBytes = 1);

/// Reductions: the contributor interval (lo, len) of rank Rank's partial of
/// segment Seg at the start of step I of stage StageIdx (the first holds
/// case whose guard holds). V holds the parameters and lets. A stale
/// partial (`: stale`) is an error naming it.
llvm::Expected<std::pair<int64_t, int64_t>>
holdsAt(const Template &T, unsigned StageIdx, Env V, int64_t I, int64_t Rank,
        int64_t Seg, unsigned Acc = 0);

/// Sizes for an instance in which every message is at least one byte: one
/// byte per member, or as many as the largest `part s of N` asks for.
/// Call checkTemplateBudget first: the lists are as long as the groups.
std::pair<std::vector<uint64_t>, std::vector<uint64_t>>
unitSizes(const Template &T, const Env &Params);

/// The templates that ship with choreo (template/builtin/), by name.
llvm::ArrayRef<std::pair<const char *, const char *>> builtinTemplates();

} // namespace choreo

#endif
