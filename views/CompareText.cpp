//===- views/CompareText.cpp - The comparison study as text ---------------===//
///
/// \file
/// The table and the JSON object of `choreo compare`.
///
//===----------------------------------------------------------------------===//

#include "views/CompareText.h"

#include <cstdio>
#include <nlohmann/json.hpp>

using namespace choreo;

namespace {

double timeOf(const CompareTable &T, bool Lockstep, size_t R, size_t A) {
  return Lockstep ? T.Cells[R][A].Lockstep : T.Cells[R][A].Async;
}

/// The first algorithm's time over algorithm A's at size row R.
double speedup(const CompareTable &T, bool Lockstep, size_t R, size_t A) {
  double Time = timeOf(T, Lockstep, R, A);
  return Time > 0 ? timeOf(T, Lockstep, R, 0) / Time : 0.0;
}

} // namespace

std::string choreo::costNumber(double V) {
  char Buf[32];
  snprintf(Buf, sizeof Buf, "%.6g", V);
  return Buf;
}

std::string choreo::modelText(const CostModel &M) {
  return "alpha " + costNumber(M.Alpha) + ", beta " + costNumber(M.Beta) +
         ", gamma " + costNumber(M.Gamma) + ", f_alpha " +
         costNumber(M.FAlpha) + ", f_beta " + costNumber(M.FBeta) +
         (M.StepStartup ? ", step start-up " + costNumber(M.StepStartup) : "") +
         (M.Ports ? ", machine ports " + std::to_string(M.Ports) : "") +
         (M.FlowControlBytes
              ? ", flow control from " + std::to_string(M.FlowControlBytes) +
                    " bytes"
              : "") +
         (M.eagerSharing()
              ? M.EagerBytes == UINT64_MAX
                    ? std::string(", every message eager")
                    : ", eager up to " + std::to_string(M.EagerBytes) + " bytes"
              : "") +
         (M.Intra ? ", within a node alpha " + costNumber(M.Intra->Alpha) +
                        ", beta " + costNumber(M.Intra->Beta)
                  : "");
}

std::vector<std::string>
choreo::shortNames(const std::vector<std::string> &Names) {
  if (Names.size() < 2)
    return Names;
  size_t Common = Names[0].size();
  for (const std::string &N : Names) {
    size_t K = 0;
    while (K < Common && K < N.size() && N[K] == Names[0][K])
      ++K;
    Common = K;
  }
  size_t Dash = Names[0].rfind('-', Common ? Common - 1 : 0);
  size_t Cut =
      (Common && Dash != std::string::npos && Dash < Common) ? Dash + 1 : 0;
  std::vector<std::string> Out;
  for (const std::string &N : Names)
    Out.push_back(N.size() > Cut ? N.substr(Cut) : N);
  return Out;
}

void choreo::printCompareTable(const CompareTable &T, const CompareSpec &Spec,
                               bool Lockstep, llvm::raw_ostream &OS) {
  size_t NA = T.Algorithms.size();
  std::vector<std::string> Short = shortNames(T.Algorithms);
  std::vector<std::string> Head = {T.Over.empty() ? "size" : T.Over};
  for (const std::string &N : Short)
    Head.push_back(N);
  for (size_t A = 1; A < NA; ++A)
    Head.push_back(Short[0] + "/" + Short[A]);
  std::vector<std::vector<std::string>> Rows;
  for (size_t R = 0; R < T.Sizes.size(); ++R) {
    std::vector<std::string> Row = {rowLabel(T, R)};
    for (size_t A = 0; A < NA; ++A)
      Row.push_back(costNumber(timeOf(T, Lockstep, R, A)));
    for (size_t A = 1; A < NA; ++A) {
      char Buf[32];
      snprintf(Buf, sizeof Buf, "%.3f", speedup(T, Lockstep, R, A));
      Row.push_back(Buf);
    }
    Rows.push_back(std::move(Row));
  }
  std::vector<size_t> W(Head.size());
  for (size_t C = 0; C < Head.size(); ++C) {
    W[C] = Head[C].size();
    for (const auto &Row : Rows)
      W[C] = std::max(W[C], Row[C].size());
  }
  OS << "predicted time (" << (Lockstep ? "lock step" : "asynchronous") << "; "
     << modelText(Spec.Model) << "), " << jsonText(Spec.Base.toJson()) << "\n";
  auto Line = [&](const std::vector<std::string> &Row) {
    for (size_t C = 0; C < Row.size(); ++C) {
      std::string Pad(W[C] - Row[C].size(), ' ');
      // The size left-aligned, numbers right-aligned.
      OS << (C ? "  " + Pad + Row[C] : Row[C] + Pad);
    }
    OS << "\n";
  };
  Line(Head);
  for (const auto &Row : Rows)
    Line(Row);
}

nlohmann::ordered_json choreo::compareJson(const CompareTable &T,
                                           const CompareSpec &Spec,
                                           bool Lockstep) {
  nlohmann::ordered_json Rows = nlohmann::ordered_json::array();
  for (size_t R = 0; R < T.Sizes.size(); ++R) {
    nlohmann::ordered_json Times = nlohmann::ordered_json::array(),
                           Lock = nlohmann::ordered_json::array(),
                           Steps = nlohmann::ordered_json::array(),
                           Up = nlohmann::ordered_json::array();
    for (size_t A = 0; A < T.Algorithms.size(); ++A) {
      Times.push_back(T.Cells[R][A].Async);
      Lock.push_back(T.Cells[R][A].Lockstep);
      Steps.push_back(T.Cells[R][A].Steps);
      Up.push_back(speedup(T, Lockstep, R, A));
    }
    Rows.push_back({{T.Over.empty() ? "size" : T.Over, T.Sizes[R]},
                    {"time", Times},
                    {"time_lockstep", Lock},
                    {"steps", Steps},
                    {"speedup", Up}});
  }
  return {{"algorithms", T.Algorithms},
          {"params", Spec.Base.toJson()},
          {"model", Spec.Model.toJson()},
          {"evaluation", Lockstep ? "lockstep" : "asynchronous"},
          {"rows", Rows}};
}
