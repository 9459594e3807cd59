//===- verifier/smt/Solver.h - The one door to Z3 ---------------*- C++ -*-===//
///
/// \file
/// The solver layer every encoder of verifier/smt goes through (private to
/// the folder): the Z3 context of an encoding, the solvers and optimizers
/// made in it, the time each query may take, and its answer as a closed
/// Result: proved, refuted (with a model), unknown (with Z3's reason),
/// timeout, or a solver error. No other file sets a Z3 timeout or makes a
/// z3::solver.
///
/// Z3's own `timeout` parameter is never set. In Z3 4.8.12 a timer that
/// expires while its query runs a tactic which starts a timer of its own
/// (the `try_for` stages of the default QF_LIA and QF_NIA tactics) returns
/// its state to Z3's timer pool still locked, and the nested timer takes it
/// and waits on that lock for ever: `choreo prove` slept in
/// `Z3_solver_check` at any per-query timeout from 100 ms to 10 s on the
/// nonlinear bcast-hier-flat queries. A watchdog thread interrupts the
/// context instead (Z3_interrupt, which Z3 takes from another thread), and
/// a query is not started with less than MinSliceMs left of the deadline.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_VERIFIER_SMT_SOLVER_H
#define CHOREO_VERIFIER_SMT_SOLVER_H

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <z3++.h>

namespace choreo::smt {

using Clock = std::chrono::steady_clock;

/// A time limit that is none.
constexpr unsigned NoLimit = ~0u;

/// How long queries may take.
struct Budget {
  /// Per query, in milliseconds (0, as NoLimit: none).
  unsigned QueryMs = NoLimit;
  /// The whole run's end (`choreo prove --timeout`): no query runs past it.
  std::optional<Clock::time_point> Deadline;

  /// Less than this left of the deadline, and a query is not started (it is
  /// a timeout): a slice of a few milliseconds decides nothing.
  static constexpr unsigned MinSliceMs = 50;

  /// Milliseconds the next query may take, at most CapMs: the per-query
  /// limit cut to what is left of the deadline; 0 when that is less than
  /// MinSliceMs.
  unsigned sliceMs(unsigned CapMs = NoLimit) const;
  /// Whether a query started now would get no slice.
  bool expired() const { return sliceMs() == 0; }
};

/// Why a query that was not started is a timeout.
inline constexpr const char *NotAttempted =
    "not attempted: the run's --timeout has passed";

/// A query's answer. Every query asks for a model of a claim's negation
/// (synthesis: of a schedule of T steps).
struct Result {
  enum class Kind {
    Proved,  ///< unsat: no model, the claim holds
    Refuted, ///< sat: Model is a counterexample (synthesis: the schedule)
    Unknown, ///< Z3 gave up before its time: Why is its reason
    Timeout, ///< the slice ran out ("timeout"), or was too short to start
             ///< (Why is NotAttempted)
    Error,   ///< Z3 threw: Why is its message
  };
  Kind K = Kind::Unknown;
  std::string Why;
  std::optional<z3::model> Model;

  bool proved() const { return K == Kind::Proved; }
  bool refuted() const { return K == Kind::Refuted; }
  /// Not started: the deadline had passed.
  bool notStarted() const { return K == Kind::Timeout && Why == NotAttempted; }
};

/// One encoding's Z3 context and budget.
class Session {
public:
  explicit Session(Budget B = {}) : B(B) {}
  Session(const Session &) = delete;
  Session &operator=(const Session &) = delete;

  z3::context &ctx() { return C; }
  const Budget &budget() const { return B; }
  bool expired() const { return B.expired(); }

private:
  z3::context C;
  Budget B;
};

/// A solver of a session's context.
class Solver {
public:
  /// Z3's default solver, or with Logic (e.g. "QF_FD") the one for it.
  explicit Solver(Session &S, const char *Logic = nullptr);

  void add(const z3::expr &E) { Z.add(E); }
  void push() { Z.push(); }
  void pop() { Z.pop(); }

  /// Checks the assertions (under Assumptions) for at most the session's
  /// slice, capped at CapMs. Never throws: a Z3 exception is an Error.
  Result check(unsigned CapMs = NoLimit);
  Result check(const z3::expr_vector &Assumptions, unsigned CapMs = NoLimit);

private:
  Session &S;
  z3::solver Z;
};

/// An optimizer of a session's context.
class Optimizer {
public:
  explicit Optimizer(Session &S);

  void add(const z3::expr &E) { Z.add(E); }

  /// The largest value of X under the assertions, found within the slice
  /// (capped at CapMs); none when it is unbounded, not an int64, unknown,
  /// timed out, or Z3 throws.
  std::optional<int64_t> maximum(const z3::expr &X, unsigned CapMs = NoLimit);

private:
  Session &S;
  z3::optimize Z;
};

} // namespace choreo::smt

#endif
