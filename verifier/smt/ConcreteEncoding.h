//===- verifier/smt/ConcreteEncoding.h - Schedules for Z3 -------*- C++ -*-===//
///
/// \file
/// The encoder of the SMT engine for concrete schedules (private to
/// verifier/smt): the schedule's properties as named Boolean constraints
/// over per-(rank, atom) possession (ConcreteChecker.cpp), and the decoding
/// of a failing model into the explicit engine's diagnostics
/// (ConcreteDecoder.cpp).
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_VERIFIER_SMT_CONCRETEENCODING_H
#define CHOREO_VERIFIER_SMT_CONCRETEENCODING_H

#include "verifier/smt/Smt.h"
#include "verifier/smt/Solver.h"

#include <algorithm>
#include <optional>
#include <tuple>

namespace choreo::smt {

class ConcreteEncoder {
public:
  ConcreteEncoder(const Schedule &S, const SmtOptions &O)
      : S(S), L(S.Steps), Bufs(S.buffers()), NB(Bufs.size()),
        Reduction(S.spec().isReduction()),
        Ses(Budget{O.TimeoutMs, std::nullopt}), C(Ses.ctx()), Props(C) {}

  /// Encodes the schedule and proves it: proved, failed with the
  /// explicit engine's diagnostics, or unknown.
  VerifyResult run() {
    makeAtoms();
    initNodes();
    initState();
    for (unsigned St = 0; St < L.numSteps(); ++St)
      encodeStep(St);
    encodeCompleteness();
    return solve();
  }

private:
  const Schedule &S;
  const StepList &L;
  std::vector<Buffer> Bufs;
  size_t NB;
  bool Reduction;
  Session Ses;
  z3::context &C;
  z3::expr_vector Props;
  std::vector<z3::expr> Defs;

  // Atom boundaries per buffer; atom k of buffer b is [Bounds[b][k],
  // Bounds[b][k+1]).
  std::vector<std::vector<uint64_t>> Bounds;
  // Current state per (rank, buffer, atom): Bool or BV.
  std::vector<std::vector<std::vector<z3::expr>>> State;
  unsigned Width = 1;
  unsigned Fresh = 0;
  /// Accumulators per rank (scan, exscan): State[r * NumAcc + a] is rank
  /// r's accumulator a.
  unsigned NumAcc = 1;

  // Named properties, to be decoded after a sat answer.
  struct Avail {
    unsigned St;
    size_t Op, BlockIdx;
    z3::expr Name;
    std::vector<z3::expr> SrcAtoms; // the sender's state per atom
  };
  struct Port {
    unsigned St;
    Rank R;
    z3::expr Name;
  };
  struct Link {
    unsigned St;
    size_t Op;
    z3::expr Name;
  };
  struct Once {
    unsigned St;
    size_t Op, BlockIdx, Atom;
    Rank Dst;
    BufferId Buf;
    z3::expr Name, Before, Incoming;
    /// Non-commutative reductions: the two sets are adjacent intervals.
    std::optional<z3::expr> Order;
  };
  struct Complete {
    size_t Req;
    z3::expr Name;
  };
  std::vector<Avail> Avails;
  std::vector<Port> Sends, Recvs, Duplexes;
  // Node ports: Port::R is the node. NodeOf is empty without `nodes`.
  std::vector<Port> NodeSends, NodeRecvs;
  std::vector<uint32_t> NodeOf;
  std::optional<z3::func_decl> NodeFn;
  std::vector<Link> Links;
  std::vector<Once> Onces;
  std::vector<Complete> Completes;
  std::vector<Holding> Initial, Reqs;

  size_t atomOf(BufferId B, uint64_t X) const {
    return std::lower_bound(Bounds[B].begin(), Bounds[B].end(), X) -
           Bounds[B].begin();
  }

  //===--- Encoding (ConcreteChecker.cpp) -------------------------------===//

  void makeAtoms();
  /// A named property: a Boolean constant the refutation reads.
  z3::expr name(const std::string &N);
  z3::expr contribVector(const RankSet &Set);
  void initState();
  void initNodes();
  void encodeNodePorts(unsigned St, llvm::ArrayRef<Op> Ops);
  z3::expr isRun(const z3::expr &X);
  z3::expr define(const z3::expr &E, const char *Base);
  bool isLink(Rank U, Rank V) const;
  void encodeStep(unsigned St);
  void encodeCompleteness();
  VerifyResult solve();

  //===--- Decoding a model (ConcreteDecoder.cpp) -----------------------===//

  RankSet setOf(z3::model &M, const z3::expr &V) const;
  static bool isTrue(z3::model &M, const z3::expr &E) {
    return M.eval(E, true).is_true();
  }
  std::vector<std::tuple<uint64_t, uint64_t, RankSet>>
  runs(z3::model &M, BufferId B, size_t First,
       const std::vector<z3::expr> &Values) const;
  void decode(z3::model &M, DiagnosticList &Diags);
  void decodeStep(z3::model &M, unsigned St, DiagnosticList &Diags);
  std::tuple<uint64_t, uint64_t, RankSet, RankSet> segmentOf(z3::model &M,
                                                             const Once &On);
  void decodeOnce(z3::model &M, const Once &On, DiagnosticList &Diags);
  void decodeOrder(z3::model &M, const Once &On, DiagnosticList &Diags);
  void decodeCompleteness(z3::model &M, DiagnosticList &Diags);
  std::string lackOfPrefix(z3::model &M, const Holding &Q);
};

} // namespace choreo::smt

#endif
