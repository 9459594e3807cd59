//===- verifier/smt/Solver.cpp - The one door to Z3 -----------------------===//
///
/// \file
/// Budgets, the watchdog that interrupts a query whose slice has run out,
/// and the checks of solvers and optimizers returning a closed Result.
///
//===----------------------------------------------------------------------===//

#include "verifier/smt/Solver.h"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <thread>

using namespace choreo;
using namespace choreo::smt;

unsigned Budget::sliceMs(unsigned CapMs) const {
  unsigned Ms = std::min(QueryMs ? QueryMs : NoLimit, CapMs);
  if (!Deadline)
    return Ms;
  int64_t Left = std::chrono::duration_cast<std::chrono::milliseconds>(
                     *Deadline - Clock::now())
                     .count();
  if (Left < int64_t(MinSliceMs))
    return 0;
  return unsigned(std::min<int64_t>(Left, Ms));
}

namespace {

/// Interrupts a context once its query's slice has passed, and again every
/// RepeatMs until the query returns: an interrupt that lands before Z3
/// resets its limits at the start of a check is lost, the next is not.
class Watchdog {
public:
  static constexpr unsigned RepeatMs = 20;

  Watchdog(z3::context &C, unsigned Ms) : C(C) {
    if (Ms == NoLimit)
      return;
    auto End = Clock::now() + std::chrono::milliseconds(Ms);
    Thread = std::thread([this, End] { watch(End); });
  }
  Watchdog(const Watchdog &) = delete;
  Watchdog &operator=(const Watchdog &) = delete;
  ~Watchdog() { stop(); }

  /// Ends the watch (the query has returned). If the context was
  /// interrupted, clears the interruption, which would otherwise cancel the
  /// next model evaluation or push; returns whether it was.
  bool stop() {
    if (!Thread.joinable())
      return Fired;
    {
      std::lock_guard<std::mutex> L(M);
      Running = false;
    }
    CV.notify_all();
    Thread.join();
    if (Fired) {
      // A check resets the context's cancellation when it starts; an empty
      // one is immediate.
      try {
        z3::solver Reset(C);
        Reset.check();
      } catch (const z3::exception &) {
      }
    }
    return Fired;
  }

private:
  void watch(Clock::time_point End) {
    std::unique_lock<std::mutex> L(M);
    while (Running) {
      if (CV.wait_until(L, End) != std::cv_status::timeout || !Running)
        continue;
      C.interrupt();
      Fired = true;
      End = Clock::now() + std::chrono::milliseconds(RepeatMs);
    }
  }

  z3::context &C;
  std::thread Thread;
  std::mutex M;
  std::condition_variable CV;
  bool Running = true;
  bool Fired = false;
};

/// Runs Check (a Z3 check) within Ms milliseconds and classifies its
/// answer; on sat, once the watch is over, OnSat reads the model into R.
template <typename CheckFn, typename SatFn, typename ReasonFn>
Result guarded(z3::context &C, unsigned Ms, CheckFn Check, SatFn OnSat,
               ReasonFn Reason) {
  Result R;
  if (Ms == 0) {
    R.K = Result::Kind::Timeout;
    R.Why = NotAttempted;
    return R;
  }
  Watchdog W(C, Ms);
  bool Fired = false;
  try {
    z3::check_result Answer = Check();
    Fired = W.stop();
    switch (Answer) {
    case z3::unsat:
      R.K = Result::Kind::Proved;
      break;
    case z3::sat:
      R.K = Result::Kind::Refuted;
      OnSat(R);
      break;
    case z3::unknown:
      R.K = Fired ? Result::Kind::Timeout : Result::Kind::Unknown;
      R.Why = Fired ? std::string("timeout") : Reason();
      break;
    }
  } catch (const z3::exception &E) {
    Fired |= W.stop();
    R.Model.reset();
    R.K = Fired ? Result::Kind::Timeout : Result::Kind::Error;
    R.Why = Fired ? std::string("timeout") : std::string(E.msg());
  }
  return R;
}

} // namespace

Solver::Solver(Session &S, const char *Logic)
    : S(S), Z(Logic ? z3::solver(S.ctx(), Logic) : z3::solver(S.ctx())) {}

Result Solver::check(unsigned CapMs) {
  return check(z3::expr_vector(S.ctx()), CapMs);
}

Result Solver::check(const z3::expr_vector &Assumptions, unsigned CapMs) {
  return guarded(
      S.ctx(), S.budget().sliceMs(CapMs),
      [&] { return Assumptions.empty() ? Z.check() : Z.check(Assumptions); },
      [&](Result &R) { R.Model = Z.get_model(); },
      [&] { return Z.reason_unknown(); });
}

Optimizer::Optimizer(Session &S) : S(S), Z(S.ctx()) {}

std::optional<int64_t> Optimizer::maximum(const z3::expr &X, unsigned CapMs) {
  std::optional<int64_t> Max;
  try {
    Z.push();
    z3::optimize::handle H = Z.maximize(X);
    Result R = guarded(
        S.ctx(), S.budget().sliceMs(CapMs), [&] { return Z.check(); },
        [](Result &) {}, [] { return std::string(); });
    int64_t V = 0;
    if (R.refuted() && Z.upper(H).is_numeral_i64(V))
      Max = V;
    Z.pop();
  } catch (const z3::exception &) {
    return std::nullopt;
  }
  return Max;
}
