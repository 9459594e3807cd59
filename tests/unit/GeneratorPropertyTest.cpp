//===- tests/unit/GeneratorPropertyTest.cpp - gen refuses or verifies -----===//
///
/// \file
/// The property every generator keeps, for any arguments: `choreo gen`
/// either refuses them with an error naming an option (or the op budget's
/// error), or writes a schedule that `choreo verify` proves. Every generator
/// of the registry (new ones are covered without a change here) gets random
/// arguments drawn from its own declarations: legal sizes, irregular size
/// lists, node layouts, and edge values (0, 1, 2^63, 2^64 - 1, counts above
/// the limits, lists of the wrong length). Each generator's cases run in a
/// child process with a memory limit and a per-case alarm, so a case that
/// allocates without bound, hangs or crashes is reported with its arguments
/// instead of taking the test binary (or the machine) down. Seeded and
/// reproducible: CHOREO_PROPERTY_SEED and CHOREO_PROPERTY_CASES override
/// the seed and the cases per generator; a failure prints both and the
/// `choreo gen` command line.
///
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/xxhash.h"

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <random>
#include <set>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace choreo;
using namespace choreo::test;

namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool UnderAsan = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool UnderAsan = true;
#else
constexpr bool UnderAsan = false;
#endif
#else
constexpr bool UnderAsan = false;
#endif

constexpr uint64_t DefaultSeed = 30005;
constexpr unsigned DefaultCases = 300;
/// A child's address-space limit and a case's time limit: far above what a
/// legal case here needs (tens of MB, milliseconds).
constexpr rlim_t ChildMemory = rlim_t(3) << 30;
constexpr unsigned CaseSeconds = 20;

uint64_t envNumber(const char *Name, uint64_t Default) {
  const char *V = std::getenv(Name);
  uint64_t X;
  if (!V || llvm::StringRef(V).getAsInteger(10, X))
    return Default;
  return X;
}

/// Values at and past the limits of 64-bit arithmetic. (Not sizes such as
/// 2^32 that a generator may accept and build within its budget, but in
/// gigabytes.)
const uint64_t EdgeSizes[] = {0,
                              1,
                              uint64_t(1) << 62,
                              (uint64_t(1) << 63) - 1,
                              uint64_t(1) << 63,
                              (uint64_t(1) << 63) + 8,
                              UINT64_MAX - 7,
                              UINT64_MAX - 1,
                              UINT64_MAX};
const uint64_t EdgeCounts[] = {0, 1048577, uint64_t(1) << 32, uint64_t(1) << 63,
                               UINT64_MAX};

/// Random arguments for one generator from its declarations.
class ArgMaker {
public:
  ArgMaker(const Generator &G, std::mt19937_64 &Rng) : G(G), Rng(Rng) {}

  std::vector<std::string> make() {
    // The group sizes first: the lists are sized by them.
    for (const OptionDecl &D : G.options())
      if (D.Kind == OptionKind::Count && (D.Name == "p" || D.Name == "q") &&
          chance(0.97)) {
        uint64_t N = groupSize();
        (D.Name == "p" ? P : Q) = N;
        give(D.Name, std::to_string(N));
      }
    ElementBytes = 8;
    if (const OptionDecl *E = decl("element-bytes"); E && chance(0.3)) {
      ElementBytes = pick({1, 1, 2, 4, 8, 16, 3, 0}, {UINT64_MAX, 1ull << 63});
      give("element-bytes", std::to_string(ElementBytes));
    }
    for (SizedGroup Grp : {SizedGroup::All, SizedGroup::A, SizedGroup::B})
      sizeGroup(Grp);
    for (const OptionDecl &D : G.options()) {
      if (Given.count(D.Name) || D.isMessageSize() || D.Name == "p" ||
          D.Name == "q" || D.Name == "distribution")
        continue;
      bool Forced = HugeSizes && D.Kind == OptionKind::Size && !D.Words.empty();
      if (!Forced && !chance(D.Kind == OptionKind::Choice ? 0.45 : 0.35))
        continue;
      if (std::optional<std::string> V = value(D))
        give(D.Name, *V);
    }
    std::vector<std::string> Out;
    for (auto &[Name, Value] : Args) {
      Out.push_back("--" + Name);
      Out.push_back(Value);
    }
    return Out;
  }

private:
  const Generator &G;
  std::mt19937_64 &Rng;
  std::vector<std::pair<std::string, std::string>> Args;
  std::set<std::string> Given;
  uint64_t P = 4, Q = 3, ElementBytes = 8, VectorBytes = 0;
  /// Whether a message size is near 2^64 (of the edge values).
  bool HugeSizes = false;

  bool chance(double X) {
    return std::uniform_real_distribution<double>(0, 1)(Rng) < X;
  }
  uint64_t below(uint64_t N) { return N ? Rng() % N : 0; }
  uint64_t pick(std::initializer_list<uint64_t> Common,
                std::initializer_list<uint64_t> Rare) {
    if (Rare.size() && chance(0.15))
      return Rare.begin()[below(Rare.size())];
    return Common.begin()[below(Common.size())];
  }
  const OptionDecl *decl(llvm::StringRef Name) const {
    for (const OptionDecl &D : G.options())
      if (D.Name == Name)
        return &D;
    return nullptr;
  }
  void give(const std::string &Name, std::string Value) {
    if (!Given.insert(Name).second)
      return;
    Args.emplace_back(Name, std::move(Value));
  }

  uint64_t groupSize() {
    double R = std::uniform_real_distribution<double>(0, 1)(Rng);
    if (R < 0.85)
      return 1 + below(13);
    if (R < 0.95)
      return 14 + below(27);
    return EdgeCounts[below(std::size(EdgeCounts))];
  }
  /// Small and medium sizes mostly, edges sometimes.
  uint64_t size() {
    double R = std::uniform_real_distribution<double>(0, 1)(Rng);
    if (R < 0.3)
      return below(65);
    if (R < 0.55)
      return below(5001);
    if (R < 0.75)
      return 8 * below(257);
    return edgeSize();
  }
  uint64_t edgeSize() {
    uint64_t X = EdgeSizes[below(std::size(EdgeSizes))];
    HugeSizes |= X > (uint64_t(1) << 40);
    return X;
  }
  /// N sizes, some empty, perhaps one at an edge.
  std::vector<uint64_t> sizes(uint64_t N, uint64_t Multiple = 1) {
    std::vector<uint64_t> Out;
    for (uint64_t I = 0; I < N; ++I)
      Out.push_back(chance(0.25) ? 0
                                 : Multiple * below(chance(0.8) ? 50 : 3000));
    if (!Out.empty() && chance(0.12))
      Out[below(Out.size())] = edgeSize();
    return Out;
  }
  /// The length of a list for a group of N: N mostly, sometimes off.
  uint64_t listLength(uint64_t N) {
    if (N > 64)
      return 1 + below(6);
    if (chance(0.9))
      return N;
    return chance(0.5) ? N + 1 : (N ? N - 1 : 0);
  }
  static std::string list(llvm::ArrayRef<uint64_t> Xs) {
    std::vector<std::string> Parts;
    for (uint64_t X : Xs)
      Parts.push_back(std::to_string(X));
    return Parts.empty() ? "0" : llvm::join(Parts, ",");
  }

  /// One of a group's size options: --bytes, --counts or --base with
  /// --distribution; now and then several (which generators refuse).
  void sizeGroup(SizedGroup Grp) {
    std::vector<const OptionDecl *> Ds;
    for (const OptionDecl &D : G.options())
      if (D.Sizes == Grp)
        Ds.push_back(&D);
    if (Ds.empty() || chance(0.03))
      return;
    std::vector<const OptionDecl *> Chosen;
    if (chance(0.92))
      Chosen.push_back(Ds[below(Ds.size())]);
    else
      for (const OptionDecl *D : Ds)
        if (chance(0.5))
          Chosen.push_back(D);
    uint64_t N = Grp == SizedGroup::B ? Q : P;
    for (const OptionDecl *D : Chosen) {
      if (D->Kind == OptionKind::SizeList) {
        give(D->Name, list(sizes(listLength(N))));
        continue;
      }
      uint64_t X = size();
      // A reduction's vector: whole elements mostly.
      if (decl("element-bytes") && ElementBytes && chance(0.8) &&
          X % ElementBytes)
        X -= X % ElementBytes;
      VectorBytes = X;
      give(D->Name, std::to_string(X));
      if (D->Name == "base" && decl("distribution"))
        give("distribution", word(*decl("distribution")));
    }
  }

  std::string word(const OptionDecl &D) {
    std::vector<std::string> Words = D.Choices;
    for (const RefusedChoice &R : D.Refused)
      if (chance(0.3))
        Words.push_back(R.Value);
    return Words.empty() ? "x" : Words[below(Words.size())];
  }

  /// P ranks cut into consecutive nodes.
  std::vector<uint64_t> nodeSizes() {
    std::vector<uint64_t> Out;
    uint64_t Left = P > 64 ? 1 + below(64) : P;
    while (Left) {
      uint64_t X = 1 + below(std::min<uint64_t>(Left, chance(0.5) ? 3 : Left));
      Out.push_back(X);
      Left -= X;
    }
    if (chance(0.1)) // a bad layout
      switch (below(4)) {
      case 0:
        Out.push_back(0);
        break;
      case 1:
        Out.push_back(EdgeSizes[below(std::size(EdgeSizes))]);
        break;
      case 2:
        Out.insert(Out.begin(), UINT64_MAX);
        break;
      case 3:
        if (!Out.empty())
          Out.pop_back();
        break;
      }
    return Out;
  }
  /// The node of every rank, numbered without gaps (mostly).
  std::vector<uint64_t> nodeOf() {
    uint64_t N = listLength(P), Nodes = 1 + below(std::max<uint64_t>(1, N));
    std::vector<uint64_t> Out;
    for (uint64_t I = 0; I < N; ++I)
      Out.push_back(I < Nodes ? I : below(Nodes));
    std::shuffle(Out.begin(), Out.end(), Rng);
    if (!Out.empty() && chance(0.08))
      Out[below(Out.size())] = EdgeSizes[below(std::size(EdgeSizes))];
    return Out;
  }
  /// Slices of whole elements, summing to --bytes when given (mostly).
  std::vector<uint64_t> slices() {
    std::vector<uint64_t> Out =
        sizes(listLength(P), ElementBytes ? ElementBytes : 1);
    if (VectorBytes && !Out.empty() && chance(0.6)) {
      uint64_t Sum = 0;
      for (uint64_t &X : Out) {
        X = std::min(X, VectorBytes - Sum);
        Sum += X;
      }
      Out.back() += VectorBytes - Sum;
    }
    return Out;
  }

  std::optional<std::string> value(const OptionDecl &D) {
    switch (D.Kind) {
    case OptionKind::Count: // --segments: past the build limit, or small
      return std::to_string(chance(0.85) ? below(21)
                                         : pick({0, uint64_t(1) << 32,
                                                 uint64_t(1) << 63, UINT64_MAX},
                                                {}));
    case OptionKind::Rank:
      return std::to_string(chance(0.85) ? below(P + 1) : EdgeCounts[below(5)]);
    case OptionKind::Size:
      // A word picks a size from the message sizes (--block-bytes auto):
      // from sizes near 2^64, legal schedules of tens of millions of ops,
      // too slow to check here.
      if (!D.Words.empty() && !HugeSizes && chance(0.4))
        return D.Words[below(D.Words.size())];
      if (!D.Words.empty() && HugeSizes)
        return std::to_string(chance(0.5) ? 1 + below(4096) : size());
      if (chance(0.5))
        return std::to_string(1 + below(chance(0.5) ? 16 : 4096));
      return std::to_string(size());
    case OptionKind::SizeList:
      if (D.Name == "nodes")
        return list(nodeSizes());
      if (D.Name == "node-of")
        return list(nodeOf());
      if (D.Name == "slices")
        return list(slices());
      return list(sizes(listLength(P)));
    case OptionKind::Choice:
      if (D.AlsoAdmits == OptionDecl::Numbers::Count && chance(0.5))
        return std::to_string(chance(0.9) ? below(P + 2)
                                          : EdgeCounts[below(5)]);
      return word(D);
    case OptionKind::Real: {
      const char *Reals[] = {"0", "1e-6", "1e-10", "1", "2.5e-9", "1e300"};
      return std::string(Reals[below(std::size(Reals))]);
    }
    case OptionKind::Flag:
    case OptionKind::Text:
      return std::nullopt;
    }
    return std::nullopt;
  }
};

/// "" when the case keeps the property, else what went wrong.
std::string checkCase(const Generator &G, llvm::ArrayRef<std::string> Args) {
  auto Parsed = parseGenArgs(Args);
  if (!Parsed) {
    std::string Msg = llvm::toString(Parsed.takeError());
    return llvm::StringRef(Msg).starts_with("--") ? "" : "parse: " + Msg;
  }
  auto S = G.generate(*Parsed);
  if (!S) {
    std::string Msg = llvm::toString(S.takeError());
    llvm::StringRef M(Msg);
    // An option's error names one the generator takes.
    for (const OptionDecl &D : G.options())
      if (M.starts_with("--" + D.Name + ":"))
        return "";
    if (M.starts_with(G.id().str() + ": these parameters give about"))
      return "";
    return "refused without naming an option: " + Msg;
  }
  // What `choreo verify` reads: the written schedule.
  auto Read = parseSchedule(toJsonText(*S));
  if (!Read)
    return "the output does not read back: " + llvm::toString(Read.takeError());
  VerifyResult R = checkExplicit(*Read);
  if (!R.proved())
    return "the output does not verify: " + firstMessage(R);
  return "";
}

std::string commandLine(const Generator &G, llvm::ArrayRef<std::string> Args) {
  return "choreo gen " + G.id().str() + " " + llvm::join(Args, " ");
}

/// The arguments of case I of generator G under Seed: its own generator, so
/// that one case reproduces alone.
std::vector<std::string> caseArgs(const Generator &G, uint64_t Seed,
                                  unsigned I) {
  std::seed_seq SS{uint32_t(Seed), uint32_t(Seed >> 32),
                   uint32_t(llvm::xxh3_64bits(G.id())), uint32_t(I)};
  std::mt19937_64 Rng(SS);
  return ArgMaker(G, Rng).make();
}

/// Writes all of Line to Fd.
void writeLine(int Fd, const std::string &Line) {
  std::string L = Line + "\n";
  for (size_t At = 0; At < L.size();) {
    ssize_t N = ::write(Fd, L.data() + At, L.size() - At);
    if (N <= 0)
      return;
    At += size_t(N);
  }
}

/// Runs G's cases From.. in a child: lines "case I ARGS", "fail MESSAGE",
/// "done".
void runChild(const Generator &G, uint64_t Seed, unsigned From, unsigned Cases,
              int Fd) {
  if (!UnderAsan) {
    struct rlimit L = {ChildMemory, ChildMemory};
    setrlimit(RLIMIT_AS, &L);
  }
  for (unsigned I = From; I < Cases; ++I) {
    std::vector<std::string> Args = caseArgs(G, Seed, I);
    writeLine(Fd, "case " + std::to_string(I) + " " + commandLine(G, Args));
    alarm(CaseSeconds);
    std::string Problem;
    try {
      Problem = checkCase(G, Args);
    } catch (const std::exception &E) {
      Problem = std::string("exception: ") + E.what();
    }
    alarm(0);
    if (!Problem.empty()) {
      std::replace(Problem.begin(), Problem.end(), '\n', ' ');
      writeLine(Fd, "fail " + Problem);
    }
  }
  writeLine(Fd, "done");
}

} // namespace

namespace {

/// What one child reported: its failing cases (command, problem), and
/// where it stopped if it did not finish (the case it was running).
struct ChildReport {
  std::vector<std::pair<std::string, std::string>> Failures;
  bool Done = false;
  unsigned Last = 0;
  std::string LastCommand, Death;
};

ChildReport runCases(const Generator &G, uint64_t Seed, unsigned From,
                     unsigned Cases) {
  ChildReport Out;
  int Pipe[2];
  if (pipe(Pipe) != 0) {
    Out.Death = "pipe failed";
    return Out;
  }
  pid_t Pid = fork();
  if (Pid == 0) {
    close(Pipe[0]);
    runChild(G, Seed, From, Cases, Pipe[1]);
    _exit(0);
  }
  close(Pipe[1]);
  std::string Text;
  char Buf[4096];
  for (ssize_t N; Pid > 0 && (N = read(Pipe[0], Buf, sizeof Buf)) > 0;)
    Text.append(Buf, size_t(N));
  close(Pipe[0]);
  int Status = 0;
  if (Pid < 0 || waitpid(Pid, &Status, 0) != Pid) {
    Out.Death = "fork failed";
    return Out;
  }
  llvm::SmallVector<llvm::StringRef, 64> Lines;
  llvm::StringRef(Text).split(Lines, '\n', -1, false);
  for (llvm::StringRef L : Lines) {
    if (L.consume_front("case ")) {
      auto [Index, Command] = L.split(' ');
      Index.getAsInteger(10, Out.Last);
      Out.LastCommand = Command.str();
    } else if (L.consume_front("fail ")) {
      Out.Failures.emplace_back(Out.LastCommand, L.str());
    } else if (L == "done") {
      Out.Done = true;
    }
  }
  if (!Out.Done)
    Out.Death =
        WIFSIGNALED(Status)
            ? std::string("killed by signal ") + strsignal(WTERMSIG(Status))
            : "exit " + std::to_string(WEXITSTATUS(Status));
  return Out;
}

} // namespace

TEST(GeneratorProperty, RefusesNamingAnOptionOrVerifies) {
  const uint64_t Seed = envNumber("CHOREO_PROPERTY_SEED", DefaultSeed);
  const unsigned Cases = envNumber("CHOREO_PROPERTY_CASES", DefaultCases);
  const std::string Again =
      "(seed " + std::to_string(Seed) + ", " + std::to_string(Cases) +
      " cases per generator; rerun with CHOREO_PROPERTY_SEED=" +
      std::to_string(Seed) + ")";
  // The registry and the option table, built before forking.
  ASSERT_FALSE(allGenOptions().empty());
  for (const Generator *G : allGenerators()) {
    unsigned Failures = 0;
    auto Report = [&](const std::string &Command, const std::string &What) {
      if (++Failures <= 5)
        ADD_FAILURE() << Command << "\n  " << What << "\n  " << Again;
    };
    // A case that kills its child is reported; the next child goes on
    // after it.
    for (unsigned From = 0; From < Cases;) {
      ChildReport R = runCases(*G, Seed, From, Cases);
      for (auto &[Command, Problem] : R.Failures)
        Report(Command, Problem);
      if (R.Done)
        break;
      if (R.LastCommand.empty()) {
        ADD_FAILURE() << G->id().str() << ": the child failed: " << R.Death;
        break;
      }
      Report(R.LastCommand,
             "the case did not end: " + R.Death + " (memory limit " +
                 std::to_string(ChildMemory >> 20) + " MB, alarm " +
                 std::to_string(CaseSeconds) + " s)");
      From = R.Last + 1;
    }
    if (Failures > 5)
      ADD_FAILURE() << G->id().str() << ": " << Failures - 5
                    << " more failing cases " << Again;
  }
}
