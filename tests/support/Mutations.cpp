//===- tests/support/Mutations.cpp - Seeded mutations of schedules --------===//
///
/// \file
/// The mutations of tests/support/Mutations.h.
///
//===----------------------------------------------------------------------===//

#include "support/Mutations.h"

using namespace choreo;
using namespace choreo::test;

Steps choreo::test::unpack(const Schedule &S) {
  Steps Out(S.Steps.numSteps());
  for (unsigned St = 0; St < S.Steps.numSteps(); ++St)
    for (const Op &O : S.Steps.step(St)) {
      OpRec R{O.Src, O.Dst, {}, {}, {}};
      for (const Block &B : S.Steps.blocks(O)) {
        R.Blocks.push_back(B);
        R.Contribs.push_back(B.hasContrib() ? S.Steps.contrib(B.Contrib)
                                            : RankSet());
        R.Lattices.push_back(S.Steps.validLattice(B) ? S.Steps.lattice(B)
                                                     : Lattice());
      }
      Out[St].push_back(R);
    }
  return Out;
}

void choreo::test::pack(Schedule &S, const Steps &In) {
  StepList L;
  for (const auto &Ops : In) {
    L.newStep();
    for (const OpRec &R : Ops) {
      std::vector<Block> Bs = R.Blocks;
      for (size_t K = 0; K < Bs.size(); ++K)
        if (Bs[K].hasContrib())
          Bs[K].Contrib = L.addContrib(R.Contribs[K]);
        else if (Bs[K].isLattice() && K < R.Lattices.size())
          Bs[K] = L.latticeBlock(Bs[K].Buf, R.Lattices[K]);
      L.addOp(R.Src, R.Dst, Bs);
    }
  }
  S.Steps = std::move(L);
}

bool choreo::test::mutate(const Schedule &Base, Schedule &S,
                          std::string &How, std::mt19937 &Rng) {
  auto Pick = [&](size_t N) { return N ? size_t(Rng() % N) : 0; };
  S = Base;
  Steps St = unpack(Base);
  Rank P = S.NumRanks;
  unsigned Kind = Rng() % 16;
  // Header mutations.
  switch (Kind) {
  case 0:
    How = "change the root";
    if (!S.Root || P < 2)
      return false;
    S.Root = (*S.Root + 1 + Pick(P - 1)) % P;
    return true;
  case 1: {
    How = "move a rank to another node";
    if (!S.Nodes || S.Nodes->size() < 2)
      return false;
    auto &Nodes = *S.Nodes;
    size_t From = Pick(Nodes.size()), To = Pick(Nodes.size() - 1);
    To += To >= From;
    if (Nodes[From].size() < 2)
      return false;
    size_t K = Pick(Nodes[From].size());
    Nodes[To].push_back(Nodes[From][K]);
    Nodes[From].erase(Nodes[From].begin() + K);
    return true;
  }
  case 2:
    How = "lay the ranks out on nodes";
    if (P < 2)
      return false;
    // Rank 0 on node 0, rank 1 on node 1, the others at random.
    S.Nodes.emplace(2);
    for (Rank R = 0; R < P; ++R)
      (*S.Nodes)[R < 2 ? R : Rng() % 2].push_back(R);
    S.NodePort = NodePorts{uint32_t(1 + Rng() % 2), uint32_t(1 + Rng() % 2)};
    return true;
  case 3:
    How = "change the ports";
    S.Port.Duplex = Rng() % 2;
    S.Port.Send = 1 + Rng() % 2;
    S.Port.Recv = 1 + Rng() % 2;
    return true;
  case 4:
    How = "make the operator (non-)commutative";
    if (!S.spec().isReduction())
      return false;
    S.ReduceOp = ReductionOp{!S.commutative()};
    return true;
  case 5:
    How = "drop the last step";
    if (St.empty())
      return false;
    St.pop_back();
    pack(S, St);
    return true;
  default:
    break;
  }
  if (St.empty())
    return false;
  size_t A = Pick(St.size());
  if (St[A].empty())
    return false;
  size_t I = Pick(St[A].size());
  OpRec &O = St[A][I];
  Block &B = O.Blocks[Pick(O.Blocks.size())];
  switch (Kind) {
  case 6:
    How = "drop an op";
    St[A].erase(St[A].begin() + I);
    break;
  case 7: {
    How = "duplicate an op";
    OpRec Copy = O;
    St[Pick(St.size())].push_back(Copy);
    break;
  }
  case 8: {
    How = "move an op a step";
    OpRec Copy = O;
    St[A].erase(St[A].begin() + I);
    size_t To = Rng() % 2 ? A + 1 : A - 1;
    if (To >= St.size())
      To = Pick(St.size());
    St[To].insert(St[To].begin() + Pick(St[To].size() + 1), Copy);
    break;
  }
  case 9:
    How = "re-target an op";
    if (Rng() % 16 == 0) {
      How = "re-target an op out of range";
      (Rng() % 2 ? O.Dst : O.Src) = P + Pick(2);
    } else {
      (Rng() % 2 ? O.Dst : O.Src) = Pick(P);
    }
    break;
  case 10:
    if (B.isLattice()) {
      // One count or size of the lattice, one more or one less.
      Lattice &X = O.Lattices[&B - O.Blocks.data()];
      int D = Rng() % 2 ? 1 : -1;
      switch (Rng() % 4) {
      case 0:
        How = "change a lattice's rows";
        X.Rows += D;
        break;
      case 1:
        How = "change a lattice's columns";
        X.Cols += D;
        break;
      case 2:
        How = "change a lattice's element size";
        X.Elem += D;
        break;
      default:
        How = "change a lattice's column stride";
        X.ColStride += D * X.Elem;
        break;
      }
      break;
    }
    How = "change a byte range";
    (Rng() % 2 ? B.Lo : B.Hi) += Rng() % 2 ? 1 : -1;
    break;
  case 11: {
    How = "shift a block";
    uint64_t D = 1 + Rng() % 3;
    if (B.isLattice()) {
      How = "shift a lattice";
      Lattice &X = O.Lattices[&B - O.Blocks.data()];
      D *= Rng() % 2 ? X.Elem : 1; // by whole blocks or by bytes
      if (Rng() % 2)
        X.Start += D;
      else if (X.Start >= D)
        X.Start -= D;
      break;
    }
    if (Rng() % 2) {
      B.Lo += D;
      B.Hi += D;
    } else if (B.Lo >= D) {
      B.Lo -= D;
      B.Hi -= D;
    }
    break;
  }
  case 12: {
    How = "change a contributor set";
    if (!B.hasContrib())
      return false;
    uint64_t Lo = Pick(P), Hi = Lo + 1 + Pick(P - Lo);
    RankSet &C = O.Contribs[&B - O.Blocks.data()];
    if (Rng() % 2)
      C = RankSet(Lo, Hi);
    else
      C.insert(Lo, Hi);
    break;
  }
  case 13:
    How = "flip the combine flag";
    if (!B.hasContrib())
      return false;
    B.Reduce = !B.Reduce;
    break;
  case 14:
    How = "swap two ops of a step";
    if (St[A].size() < 2)
      return false;
    std::swap(St[A][I], St[A][(I + 1 + Pick(St[A].size() - 1)) % St[A].size()]);
    break;
  case 15: {
    How = "move an op to any step";
    OpRec Copy = O;
    St[A].erase(St[A].begin() + I);
    St[Pick(St.size())].push_back(Copy);
    break;
  }
  }
  pack(S, St);
  return true;
}

