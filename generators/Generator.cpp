//===- generators/Generator.cpp - Parameters and the registry -------------===//
///
/// \file
/// Parsing of generator options, the checks every generator shares, and the
/// registry of generators by id.
///
//===----------------------------------------------------------------------===//

#include "generators/Generator.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace choreo;
using llvm::formatv;

Generator::~Generator() = default;

llvm::Error choreo::optionError(llvm::StringRef Option,
                                const llvm::Twine &Msg) {
  return makeDiagError("params", ("--" + Option + ": " + Msg).str());
}

llvm::ArrayRef<OptionInfo> choreo::allGenOptions() {
  static const OptionInfo Options[] = {
      {"p", "size of group A, or the number of ranks of an intragroup "
            "collective"},
      {"q", "size of group B"},
      {"bytes", "intragroup: bytes each rank contributes (or the vector "
                "length of a broadcast or reduction)"},
      {"counts", "intragroup: comma list of bytes, one per rank"},
      {"bytes-a", "bytes each member of A contributes"},
      {"bytes-b", "bytes each member of B contributes"},
      {"counts-a", "comma list of bytes, one per member of A"},
      {"counts-b", "comma list of bytes, one per member of B"},
      {"root", "root rank of a rooted collective"},
      {"topology", "full or ring"},
      {"intra", "algorithm of the intragroup allgathers: ring, bruck or "
                "recdbl (where the generator admits it)"},
      {"bcast", "broadcast inside groups: scatter-allgather or binomial"},
      {"exchange", "intergroup exchange of inter-allgather-kang: subgroups "
                   "(the paper's listing; default when q | p) or balanced "
                   "(by global byte index; default otherwise)"},
  };
  return Options;
}

llvm::Expected<uint64_t> choreo::parseSize(llvm::StringRef Text,
                                           llvm::StringRef Option) {
  llvm::StringRef T = Text.trim();
  uint64_t Mult = 1;
  if (!T.empty()) {
    switch (llvm::toUpper(T.back())) {
    case 'K':
      Mult = 1ull << 10;
      break;
    case 'M':
      Mult = 1ull << 20;
      break;
    case 'G':
      Mult = 1ull << 30;
      break;
    }
    if (Mult != 1)
      T = T.drop_back();
  }
  uint64_t V;
  if (T.empty() || !llvm::all_of(T, llvm::isDigit) || T.getAsInteger(10, V))
    return optionError(Option, "'" + Text +
                                   "' is not a size (a non-negative integer, "
                                   "optionally with K, M or G)");
  if (V != 0 && Mult > UINT64_MAX / V)
    return optionError(Option, "'" + Text + "' is too large");
  return V * Mult;
}

nlohmann::ordered_json GenParams::toJson() const {
  nlohmann::ordered_json J = nlohmann::ordered_json::object();
  auto Put = [&](const char *Name, auto &V) {
    if (V)
      J[Name] = *V;
  };
  Put("p", P);
  Put("q", Q);
  Put("bytes", Bytes);
  Put("counts", Counts);
  Put("bytes-a", BytesA);
  Put("bytes-b", BytesB);
  Put("counts-a", CountsA);
  Put("counts-b", CountsB);
  Put("root", Root);
  Put("topology", Topology);
  Put("intra", Intra);
  Put("bcast", Bcast);
  Put("exchange", Exchange);
  return J;
}

llvm::Expected<GenParams>
choreo::parseGenArgs(llvm::ArrayRef<std::string> Args) {
  GenParams P;
  for (size_t I = 0; I < Args.size(); ++I) {
    llvm::StringRef A = Args[I];
    if (!A.starts_with("--"))
      return makeDiagError("params", formatv("unexpected argument '{0}' (options "
                                             "are --name value)",
                                             A));
    llvm::StringRef Name = A.drop_front(2), Value;
    if (Name.contains('=')) {
      std::tie(Name, Value) = Name.split('=');
    } else {
      if (I + 1 >= Args.size())
        return optionError(Name, "missing value");
      Value = Args[++I];
    }
    if (llvm::is_contained(P.Given, Name.str()))
      return optionError(Name, "given twice");
    auto Size = [&](std::optional<uint64_t> &Out) -> llvm::Error {
      auto V = parseSize(Value, Name);
      if (!V)
        return V.takeError();
      Out = *V;
      return llvm::Error::success();
    };
    auto List = [&](std::optional<std::vector<uint64_t>> &Out) -> llvm::Error {
      std::vector<uint64_t> Vs;
      llvm::SmallVector<llvm::StringRef, 16> Parts;
      Value.split(Parts, ',');
      for (llvm::StringRef Part : Parts) {
        auto V = parseSize(Part, Name);
        if (!V)
          return V.takeError();
        Vs.push_back(*V);
      }
      Out = std::move(Vs);
      return llvm::Error::success();
    };
    auto Count = [&](std::optional<uint64_t> &Out) -> llvm::Error {
      uint64_t V;
      if (Value.empty() || !llvm::all_of(Value, llvm::isDigit) ||
          Value.getAsInteger(10, V))
        return optionError(Name, "'" + Value +
                                     "' is not a non-negative integer");
      Out = V;
      return llvm::Error::success();
    };
    llvm::Error E = llvm::Error::success();
    if (Name == "p")
      E = Count(P.P);
    else if (Name == "q")
      E = Count(P.Q);
    else if (Name == "root")
      E = Count(P.Root);
    else if (Name == "bytes")
      E = Size(P.Bytes);
    else if (Name == "bytes-a")
      E = Size(P.BytesA);
    else if (Name == "bytes-b")
      E = Size(P.BytesB);
    else if (Name == "counts")
      E = List(P.Counts);
    else if (Name == "counts-a")
      E = List(P.CountsA);
    else if (Name == "counts-b")
      E = List(P.CountsB);
    else if (Name == "topology")
      P.Topology = Value.str();
    else if (Name == "intra")
      P.Intra = Value.str();
    else if (Name == "bcast")
      P.Bcast = Value.str();
    else if (Name == "exchange")
      P.Exchange = Value.str();
    else
      return optionError(Name, "unknown option");
    if (E)
      return E;
    P.Given.push_back(Name.str());
  }
  return P;
}

llvm::Expected<Schedule> Generator::generate(const GenParams &P) const {
  for (const std::string &G : P.Given)
    if (!llvm::is_contained(options(), llvm::StringRef(G)))
      return optionError(G, formatv("{0} does not take this option (it takes "
                                    "{1})",
                                    id(),
                                    "--" + llvm::join(options(), ", --")));
  auto S = build(P);
  if (!S)
    return S.takeError();
  S->Algorithm = id().str();
  S->Params = P.toJson();
  return S;
}

llvm::Expected<uint32_t> choreo::groupCount(const std::optional<uint64_t> &V,
                                            const char *Option,
                                            const char *What) {
  if (!V)
    return optionError(Option, formatv("missing: the {0}", What));
  if (*V == 0)
    return optionError(Option, formatv("the {0} must be at least 1", What));
  if (*V > (1u << 20))
    return optionError(Option, formatv("{0} is more ranks than choreo "
                                       "generates (at most 1048576)",
                                       *V));
  return static_cast<uint32_t>(*V);
}

llvm::Expected<std::vector<uint64_t>>
choreo::memberSizes(const std::optional<uint64_t> &Bytes,
                    const std::optional<std::vector<uint64_t>> &Counts,
                    uint32_t N, const char *BytesOpt, const char *CountsOpt,
                    bool &Irregular) {
  if (Bytes && Counts)
    return optionError(CountsOpt, formatv("give --{0} or --{1}, not both",
                                          BytesOpt, CountsOpt));
  if (!Bytes && !Counts)
    return optionError(BytesOpt, formatv("missing: give --{0} (every member "
                                         "alike) or --{1} (one per member)",
                                         BytesOpt, CountsOpt));
  Irregular = Counts.has_value();
  if (Bytes) {
    if (*Bytes != 0 && N > UINT64_MAX / *Bytes)
      return optionError(BytesOpt, "the sizes add up past 2^64 bytes");
    return std::vector<uint64_t>(N, *Bytes);
  }
  if (Counts->size() != N)
    return optionError(CountsOpt, formatv("{0} counts for a group of {1}",
                                          Counts->size(), N));
  uint64_t Sum = 0;
  for (uint64_t C : *Counts) {
    if (Sum + C < Sum)
      return optionError(CountsOpt, "the sizes add up past 2^64 bytes");
    Sum += C;
  }
  return *Counts;
}

llvm::Expected<IntergroupSizes> choreo::intergroupSizes(const GenParams &P) {
  auto NA = groupCount(P.P, "p", "size of group A");
  if (!NA)
    return NA.takeError();
  auto NB = groupCount(P.Q, "q", "size of group B");
  if (!NB)
    return NB.takeError();
  IntergroupSizes Out;
  bool IrrA = false, IrrB = false;
  auto A = memberSizes(P.BytesA, P.CountsA, *NA, "bytes-a", "counts-a", IrrA);
  if (!A)
    return A.takeError();
  auto B = memberSizes(P.BytesB, P.CountsB, *NB, "bytes-b", "counts-b", IrrB);
  if (!B)
    return B.takeError();
  Out.A = std::move(*A);
  Out.B = std::move(*B);
  Out.Irregular = IrrA || IrrB;
  return Out;
}

llvm::Expected<IntergroupSizes>
choreo::halfIntergroupSizes(const GenParams &P) {
  auto NA = groupCount(P.P, "p", "size of group A");
  if (!NA)
    return NA.takeError();
  auto NB = groupCount(P.Q, "q", "size of group B");
  if (!NB)
    return NB.takeError();
  IntergroupSizes Out;
  auto A = memberSizes(P.BytesA, P.CountsA, *NA, "bytes-a", "counts-a",
                       Out.Irregular);
  if (!A)
    return A.takeError();
  Out.A = std::move(*A);
  Out.B.assign(*NB, 0);
  return Out;
}

llvm::Error choreo::checkOpBudget(llvm::StringRef Id, uint64_t EstimatedOps) {
  constexpr uint64_t Limit = 200'000'000;
  if (EstimatedOps <= Limit)
    return llvm::Error::success();
  return makeDiagError("params",
                       formatv("{0}: these parameters give about {1} ops, more "
                               "than choreo builds in memory ({2})",
                               Id, EstimatedOps, Limit));
}
