//===- cost/Machine.cpp - Reading and writing machine files ---------------===//
///
/// \file
/// The machine file's decoder checks every field it knows (a finite,
/// non-negative number; a count; objects where objects are expected) and
/// refuses unknown top-level keys, so that a misspelt "aplha" is an error
/// rather than a default silently used.
///
//===----------------------------------------------------------------------===//

#include "cost/Machine.h"

#include "ir/BoundedFile.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace choreo;
using ojson = nlohmann::ordered_json;

namespace {

constexpr uint64_t MaxMachineFileBytes = 1 << 20;

class Decoder {
public:
  explicit Decoder(llvm::StringRef Name) : Name(Name) {}

  llvm::Error fail(const std::string &Path, const std::string &Msg) {
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("{0}: {1}: {2}", Name, Path.empty() ? "/" : Path, Msg)
            .str());
  }

  llvm::Error number(const ojson &J, const std::string &Path, double &Out) {
    if (!J.is_number() || !std::isfinite(J.get<double>()) ||
        J.get<double>() < 0)
      return fail(Path,
                  "'" + J.dump() + "' is not a non-negative finite number");
    Out = J.get<double>();
    return llvm::Error::success();
  }

  llvm::Error object(const ojson &J, const std::string &Path) {
    if (!J.is_object())
      return fail(Path, "expected an object, got '" + J.dump() + "'");
    return llvm::Error::success();
  }

  llvm::Error link(const ojson &J, const std::string &Path,
                   std::optional<MachineFile::Link> &Out) {
    if (auto E = object(J, Path))
      return E;
    MachineFile::Link L;
    for (auto &[K, V] : J.items()) {
      if (K == "alpha") {
        if (auto E = number(V, Path + "/alpha", L.Alpha))
          return E;
      } else if (K == "beta") {
        if (auto E = number(V, Path + "/beta", L.Beta))
          return E;
      } else {
        return fail(Path + "/" + K, "unknown key (expected alpha, beta)");
      }
    }
    Out = L;
    return llvm::Error::success();
  }

private:
  llvm::StringRef Name;
};

/// One top-level key of a machine file into M.
llvm::Error decodeKey(Decoder &D, const std::string &K, const ojson &V,
                      MachineFile &M) {
  std::string Path = "/" + K;
  if (K == "format" || K == "version")
    return llvm::Error::success();
  if (K == "alpha")
    return D.number(V, Path, M.Model.Alpha);
  if (K == "beta")
    return D.number(V, Path, M.Model.Beta);
  if (K == "gamma")
    return D.number(V, Path, M.Model.Gamma);
  if (K == "f_alpha")
    return D.number(V, Path, M.Model.FAlpha);
  if (K == "f_beta")
    return D.number(V, Path, M.Model.FBeta);
  if (K == "step_startup")
    return D.number(V, Path, M.Model.StepStartup);
  if (K == "library_step_startup") {
    double X;
    if (auto E = D.number(V, Path, X))
      return E;
    M.Model.LibraryStepStartup = X;
    return llvm::Error::success();
  }
  if (K == "machine_ports") {
    if (!V.is_number_unsigned() || V.get<uint64_t>() > UINT32_MAX)
      return D.fail(Path, "'" + V.dump() + "' is not a count of ports");
    M.Model.Ports = uint32_t(V.get<uint64_t>());
    return llvm::Error::success();
  }
  if (K == "flow_control_bytes") {
    if (!V.is_number_unsigned())
      return D.fail(Path, "'" + V.dump() + "' is not a number of bytes (0: "
                                            "off)");
    M.Model.FlowControlBytes = V.get<uint64_t>();
    return llvm::Error::success();
  }
  if (K == "eager_bytes") {
    if (!V.is_number_unsigned())
      return D.fail(Path, "'" + V.dump() + "' is not a number of bytes (0: "
                                            "no eager sends priced)");
    M.Model.EagerBytes = V.get<uint64_t>();
    return llvm::Error::success();
  }
  if (K == "intra")
    return D.link(V, Path, M.Intra);
  if (K == "inter")
    return D.link(V, Path, M.Inter);
  if (K == "gamma_by_op") {
    if (auto E = D.object(V, Path))
      return E;
    for (auto &[Op, G] : V.items()) {
      double X;
      if (auto E = D.number(G, Path + "/" + Op, X))
        return E;
      M.GammaByOp[Op] = X;
    }
    return llvm::Error::success();
  }
  if (K == "measured") {
    if (auto E = D.object(V, Path))
      return E;
    M.Measured = V;
    return llvm::Error::success();
  }
  return D.fail(Path,
                "unknown key (expected format, version, alpha, beta, gamma, "
                "f_alpha, f_beta, step_startup, library_step_startup, "
                "machine_ports, "
                "flow_control_bytes, eager_bytes, intra, inter, gamma_by_op, "
                "measured)");
}

} // namespace

llvm::Expected<MachineFile> choreo::parseMachine(const ojson &J,
                                                 llvm::StringRef Name) {
  Decoder D(Name);
  if (auto E = D.object(J, ""))
    return E;
  if (!J.contains("format") || J["format"] != "choreo-machine")
    return D.fail("/format", "expected \"choreo-machine\" (a machine file "
                             "written by choreo-calibrate, docs/machine.md)");
  if (!J.contains("version") || J["version"] != 1)
    return D.fail("/version", "expected 1");
  for (const char *Required : {"alpha", "beta"})
    if (!J.contains(Required))
      return D.fail(std::string("/") + Required, "missing");
  MachineFile M;
  for (auto &[K, V] : J.items())
    if (auto E = decodeKey(D, K, V, M))
      return E;
  // Ops within a node pay the intra-node pair (cost/Model.h).
  M.Model.Intra = M.Intra;
  return M;
}

llvm::Expected<MachineFile> choreo::readMachineFile(llvm::StringRef Path) {
  auto Buf = readBoundedFile(Path, MaxMachineFileBytes);
  if (!Buf)
    return Buf.takeError();
  ojson J = ojson::parse((*Buf)->getBuffer(), nullptr, false);
  if (J.is_discarded())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   (Path + ": not JSON").str());
  return parseMachine(J, Path);
}

ojson MachineFile::toJson() const {
  ojson J = {{"format", "choreo-machine"}, {"version", 1}};
  ojson ModelJson = Model.toJson();
  for (auto &[K, V] : ModelJson.items())
    J[K] = V;
  // A measured start-up of 0 is written too (the model omits a 0).
  if (!J.contains("step_startup"))
    J["step_startup"] = Model.StepStartup;
  auto LinkJson = [](const Link &L) {
    return ojson{{"alpha", L.Alpha}, {"beta", L.Beta}};
  };
  if (Intra)
    J["intra"] = LinkJson(*Intra);
  if (Inter)
    J["inter"] = LinkJson(*Inter);
  if (!GammaByOp.empty()) {
    ojson G = ojson::object();
    for (auto &[Op, X] : GammaByOp)
      G[Op] = X;
    J["gamma_by_op"] = G;
  }
  if (!Measured.empty())
    J["measured"] = Measured;
  return J;
}
