//===- ir/Digest.cpp - The one digest of a schedule -----------------------===//
///
/// \file
/// Header, steps and per-rank digests (ir/Digest.h).
///
//===----------------------------------------------------------------------===//

#include "ir/Digest.h"
#include "ir/PairMatrix.h"

#include "ir/Schedule.h"

#include "llvm/Support/FormatVariadic.h"

using namespace choreo;

std::string Digest128::hex() const {
  return llvm::formatv("{0:x-16}{1:x-16}", H1, H2);
}

void Hasher::mix(llvm::StringRef S) {
  mix(S.size());
  for (unsigned char C : S)
    mix(uint64_t(C));
}

void StepHasher::block(llvm::StringRef BufName, uint64_t Lo, uint64_t Hi,
                       bool Reduce, const IntervalSet *Contrib, unsigned Acc) {
  if (LastName.empty() || BufName != LastName) {
    Hasher N;
    N.mix(BufName);
    LastName = BufName.str();
    LastHash = N.digest().H1;
  }
  H.mix(LastHash);
  H.mix(Lo);
  H.mix(Hi);
  H.mix(uint64_t(Reduce) | (Contrib ? 2 : 0) | uint64_t(Acc) << 2);
  if (!Contrib)
    return;
  H.mix(Contrib->intervals().size());
  for (const Interval &C : Contrib->intervals()) {
    H.mix(C.Lo);
    H.mix(C.Hi);
  }
}

void StepHasher::lattice(uint64_t Start, uint64_t Elem, uint64_t RowStride,
                         uint64_t Rows, uint64_t ColStride, uint64_t Cols) {
  H.mix(0x4c415454ull); // "LATT"
  for (uint64_t X : {Start, Elem, RowStride, Rows, ColStride, Cols})
    H.mix(X);
}

Digest128 choreo::headerDigest(const CallHeader &Hd) {
  Hasher H;
  H.mix(uint64_t(Hd.Kind));
  H.mix(Hd.NumRanks);
  H.mix(Hd.Root ? uint64_t(*Hd.Root) + 1 : 0);
  H.mix(uint64_t(Hd.Topo.K));
  H.mix(Hd.Topo.Order.size());
  for (Rank R : Hd.Topo.Order)
    H.mix(R);
  H.mix(Hd.Topo.Edges.size());
  for (auto [A, B] : Hd.Topo.Edges)
    H.mix(uint64_t(A) << 32 | B);
  H.mix(Hd.Port.Send);
  H.mix(Hd.Port.Recv);
  H.mix(Hd.Port.Duplex);
  H.mix(Hd.Groups.size());
  for (const Group &G : Hd.Groups) {
    H.mix(G.Name);
    H.mix(G.Members.size());
    for (Rank R : G.Members)
      H.mix(R);
  }
  H.mix(Hd.Sizes.size());
  for (const NamedSizes &NS : Hd.Sizes) {
    H.mix(NS.Name);
    H.mix(NS.Values.size());
    for (uint64_t V : NS.Values)
      H.mix(V);
  }
  H.mix(Hd.Nodes ? Hd.Nodes->size() + 1 : 0);
  if (Hd.Nodes)
    for (const std::vector<Rank> &N : *Hd.Nodes) {
      H.mix(N.size());
      for (Rank R : N)
        H.mix(R);
    }
  H.mix(Hd.NodePort ? 1 + (uint64_t(Hd.NodePort->Send) << 32 |
                           Hd.NodePort->Recv)
                    : 0);
  // A reduction's verdict depends on the operator's commutativity (rank
  // order is proved only when it does not commute).
  H.mix(Hd.ReduceOp ? 1 + Hd.ReduceOp->Commutative : 0);
  return H.digest();
}

Digest128 choreo::stepsDigest(const CallHeader &Hd, const StepList &Steps) {
  StepHasher H;
  const CollectiveSpec &Spec = specOf(Hd.Kind);
  std::vector<std::string> Names;
  for (unsigned I = 0; I < Steps.numSteps(); ++I) {
    H.step();
    for (const Op &O : Steps.step(I)) {
      H.op(O.Src, O.Dst);
      for (const Block &B : Steps.blocks(O)) {
        if (B.Buf >= Names.size())
          for (size_t N = Names.size(); N <= B.Buf; ++N)
            Names.push_back(Spec.bufferName(N));
        // A set named by a subtree (a rank part's) hashes as its ranks:
        // a part's digest is its projection's.
        RankSet Named;
        bool Has = B.hasContrib() && B.Contrib < Steps.numContribs();
        if (Has && Steps.subtree(B.Contrib))
          Named = Steps.contribRanks(B.Contrib);
        H.block(Names[B.Buf], B.Lo, B.Hi, B.Reduce,
                !Has                          ? nullptr
                : Steps.subtree(B.Contrib) ? &Named
                                              : &Steps.contrib(B.Contrib),
                B.Acc);
        if (Steps.validLattice(B)) {
          const Lattice &X = Steps.lattice(B);
          H.lattice(X.Start, X.Elem, X.RowStride, X.Rows, X.ColStride,
                    X.Cols);
        }
      }
    }
  }
  return H.digest();
}

Digest128 choreo::scheduleDigest(const Schedule &S) {
  Digest128 Steps = S.StepsDigest ? *S.StepsDigest : stepsDigest(S, S.Steps);
  Hasher H;
  Digest128 Head = headerDigest(S);
  H.mix(Head.H1);
  H.mix(Head.H2);
  H.mix(S.Steps.numSteps());
  H.mix(Steps.H1);
  H.mix(Steps.H2);
  return H.digest();
}

Digest128 choreo::sharedDigest(const Schedule &S) {
  Hasher H;
  Digest128 Head;
  if (hasRankSizes(S)) {
    // An alltoallv rank's own row and column differ from rank to rank (the
    // distributed proof compares them message by message): the rest, and
    // the length of all, is shared.
    CallHeader Shared = S;
    llvm::erase_if(Shared.Sizes, [](const NamedSizes &NS) {
      return isPerRankSizesName(NS.Name);
    });
    Shared.Sizes.push_back({"length", {alltoallLength(S)}});
    Head = headerDigest(Shared);
  } else {
    Head = headerDigest(S);
  }
  H.mix(Head.H1);
  H.mix(Head.H2);
  H.mix(S.Steps.numSteps());
  H.mix(S.StepsDigest ? 1 : 0);
  if (S.StepsDigest) {
    H.mix(S.StepsDigest->H1);
    H.mix(S.StepsDigest->H2);
  }
  return H.digest();
}

std::vector<uint64_t> choreo::rankDigests(const Schedule &S) {
  std::vector<uint64_t> D(2 * size_t(S.NumRanks), 0),
      Step(2 * size_t(S.NumRanks));
  std::vector<Rank> Touched;
  auto Mix = [](uint64_t H, uint64_t V) {
    H = (H ^ V) * 1099511628211ull;
    return H ^ (H >> 31);
  };
  for (unsigned I = 0; I < S.Steps.numSteps(); ++I) {
    Touched.clear();
    for (const Op &O : S.Steps.step(I)) {
      uint64_t H = Mix(0x84222325cbf29ce4ull, uint64_t(O.Src) << 32 | O.Dst);
      for (const Block &B : S.Steps.blocks(O)) {
        H = Mix(Mix(Mix(H, B.Lo), B.Hi),
                uint64_t(B.Buf) << 1 | B.Reduce | uint64_t(B.Acc) << 17);
        if (S.Steps.validLattice(B)) {
          const Lattice &X = S.Steps.lattice(B);
          for (uint64_t V : {X.Elem, X.RowStride, uint64_t(X.Rows),
                             X.ColStride, uint64_t(X.Cols)})
            H = Mix(H, V);
        }
      }
      uint64_t H2 = Mix(H, 0x9e3779b97f4a7c15ull);
      for (Rank R : {O.Src, O.Dst}) {
        if (R >= S.NumRanks || (R == O.Dst && O.Dst == O.Src))
          continue;
        if (!Step[2 * R] && !Step[2 * R + 1])
          Touched.push_back(R);
        Step[2 * R] += H;
        Step[2 * R + 1] += H2 | 1;
      }
    }
    for (Rank R : Touched) {
      D[2 * R] = Mix(Mix(D[2 * R], I), Step[2 * R]);
      D[2 * R + 1] = Mix(Mix(D[2 * R + 1], ~uint64_t(I)), Step[2 * R + 1]);
      Step[2 * R] = Step[2 * R + 1] = 0;
    }
  }
  return D;
}
