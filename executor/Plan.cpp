//===- executor/Plan.cpp - Running a schedule over MPI --------------------===//
///
/// \file
/// Creating a plan (communicator, agreement, checks, binding buffers and
/// datatypes) and executing it. Reading and proving a schedule once per job
/// is the pipeline's (executor/Pipeline.cpp).
///
//===----------------------------------------------------------------------===//

#include "executor/Plan.h"
#include "executor/Yielding.h"

#include "verifier/Verifier.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <functional>
#include <cstring>
#include <new>
#include <sched.h>

using namespace choreo;
using llvm::formatv;

namespace {

llvm::Error mpiError(const char *What, int Code) {
  char Msg[MPI_MAX_ERROR_STRING];
  int Len = 0;
  MPI_Error_string(Code, Msg, &Len);
  return makeDiagError(
      "mpi", formatv("{0} failed: {1}", What, llvm::StringRef(Msg, Len)));
}

} // namespace

std::string choreo::interMismatch(const Schedule &S, MPI_Comm Inter, bool Low) {
  int LocalSize, RemoteSize;
  MPI_Comm_size(Inter, &LocalSize);
  MPI_Comm_remote_size(Inter, &RemoteSize);
  const Group *A = S.group("A"), *B = S.group("B");
  if (!S.spec().Intergroup || !A || !B)
    return formatv("{0} runs on an intracommunicator, not an "
                   "intercommunicator",
                   collectiveName(S.Kind));
  const Group &Mine = Low ? *A : *B, &Theirs = Low ? *B : *A;
  if (static_cast<size_t>(LocalSize) != Mine.Members.size() ||
      static_cast<size_t>(RemoteSize) != Theirs.Members.size())
    return formatv("the intercommunicator's groups have {0} (A, the low "
                   "group) and {1} (B) ranks but the schedule's have {2} "
                   "and {3}",
                   Low ? LocalSize : RemoteSize, Low ? RemoteSize : LocalSize,
                   A->Members.size(), B->Members.size());
  return "";
}

namespace {

/// Builds the intracommunicator the plan runs on; checks that its shape
/// matches the schedule (LocalErr) and tells this rank's schedule rank and
/// the communicator rank of every schedule rank.
llvm::Error makeWorkComm(MPI_Comm Comm, const Schedule &S, MPI_Comm &Work,
                         Rank &Me, std::vector<int> &CommRankOf,
                         std::string &LocalErr, bool UseComm) {
  int IsInter = 0;
  MPI_Comm_test_inter(Comm, &IsInter);
  CommRankOf.assign(S.NumRanks, -1);
  if (!IsInter) {
    if (UseComm)
      Work = Comm;
    else
      MPI_Comm_dup(Comm, &Work);
    int Size, R;
    MPI_Comm_size(Work, &Size);
    MPI_Comm_rank(Work, &R);
    Me = R;
    for (Rank X = 0; X < S.NumRanks; ++X)
      CommRankOf[X] = X;
    // An intergroup schedule may run on an intracommunicator too: rank r
    // plays schedule rank r.
    if (static_cast<Rank>(Size) != S.NumRanks)
      LocalErr = formatv("the communicator has {0} ranks but the schedule "
                         "has {1}",
                         Size, S.NumRanks);
    return llvm::Error::success();
  }
  std::optional<bool> Low = inLowGroup(Comm);
  if (!Low)
    return makeDiagError("executor", "cannot tell group A from group B: the "
                                     "intercommunicator's groups are not "
                                     "in MPI_COMM_WORLD");
  MPI_Intercomm_merge(Comm, /*high=*/*Low ? 0 : 1, &Work);
  int LocalRank;
  MPI_Comm_rank(Comm, &LocalRank);
  LocalErr = interMismatch(S, Comm, *Low);
  if (!LocalErr.empty()) {
    Me = 0;
    return llvm::Error::success();
  }
  const Group *A = S.group("A"), *B = S.group("B");
  const Group &Mine = *Low ? *A : *B;
  // The merge puts A's ranks first, each group in its own order.
  for (size_t I = 0; I < A->Members.size(); ++I)
    CommRankOf[A->Members[I]] = I;
  for (size_t J = 0; J < B->Members.size(); ++J)
    CommRankOf[B->Members[J]] = A->Members.size() + J;
  Me = Mine.Members[LocalRank];
  return llvm::Error::success();
}

/// An MPI datatype of byte pieces at absolute addresses (for MPI_BOTTOM).
llvm::Error piecesType(const std::vector<std::pair<char *, uint64_t>> &Pieces,
                       MPI_Datatype &Type) {
  constexpr uint64_t Chunk = 1ull << 30;
  std::vector<int> Lens;
  std::vector<MPI_Aint> Displs;
  for (auto [Ptr, Len] : Pieces)
    for (uint64_t Off = 0; Off < Len; Off += Chunk) {
      MPI_Aint Addr;
      MPI_Get_address(Ptr + Off, &Addr);
      Displs.push_back(Addr);
      Lens.push_back(static_cast<int>(std::min(Chunk, Len - Off)));
    }
  int Rc = MPI_Type_create_hindexed(Lens.size(), Lens.data(), Displs.data(),
                                    MPI_BYTE, &Type);
  if (Rc != MPI_SUCCESS)
    return mpiError("MPI_Type_create_hindexed", Rc);
  Rc = MPI_Type_commit(&Type);
  if (Rc != MPI_SUCCESS)
    return mpiError("MPI_Type_commit", Rc);
  return llvm::Error::success();
}

/// How lattice messages are bound (docs/executor.md, "Lattice pieces"):
/// packed into a contiguous buffer by strided copies (the default), or, with
/// CHOREO_LATTICE_PIECES=datatype, sent and received in place through a
/// derived datatype of vectors. Read once.
bool latticeDatatypes() {
  static const bool On = [] {
    const char *V = std::getenv("CHOREO_LATTICE_PIECES");
    return V && std::strcmp(V, "datatype") == 0;
  }();
  return On;
}

/// T's lattice pieces as one datatype at absolute addresses (for
/// MPI_BOTTOM), in the message's order: each piece whose rows follow each
/// other in the message one vector of vectors, else row by row (or element
/// by element). False (Type untouched) when a count exceeds an int.
bool latticeType(const Transfer &T, const std::function<char *(Region)> &Base,
                 MPI_Datatype &Type) {
  struct Entry {
    uint64_t At;
    char *Ptr;
    uint32_t Rows, Cols;
    int64_t RowStride, ColStride;
    uint64_t Elem;
  };
  std::vector<Entry> Entries;
  for (const LatticePiece &X : T.Lattice) {
    if (X.Elem > INT_MAX || X.Rows > INT_MAX || X.Cols > INT_MAX)
      return false;
    char *Mem = Base(X.R) + int64_t(X.Offset);
    bool RowRun = X.Cols == 1 || X.AtCol == X.Elem;
    bool Band = RowRun && (X.Rows == 1 || X.AtRow == X.Cols * X.Elem);
    if (Band) {
      Entries.push_back({X.At, Mem, X.Rows, X.Cols, X.RowStride, X.ColStride,
                         X.Elem});
      continue;
    }
    for (uint32_t R = 0; R < X.Rows; ++R) {
      char *Row = Mem + int64_t(R) * X.RowStride;
      uint64_t At = X.At + uint64_t(R) * X.AtRow;
      if (RowRun) {
        Entries.push_back({At, Row, 1, X.Cols, 0, X.ColStride, X.Elem});
        continue;
      }
      for (uint32_t C = 0; C < X.Cols; ++C)
        Entries.push_back({At + uint64_t(C) * X.AtCol,
                           Row + int64_t(C) * X.ColStride, 1, 1, 0, 0,
                           X.Elem});
    }
  }
  if (Entries.size() > INT_MAX)
    return false;
  llvm::sort(Entries,
             [](const Entry &A, const Entry &B) { return A.At < B.At; });
  std::vector<int> Lens(Entries.size(), 1);
  std::vector<MPI_Aint> Displs;
  std::vector<MPI_Datatype> Types;
  for (const Entry &E : Entries) {
    MPI_Datatype Row, Rect;
    MPI_Type_create_hvector(int(E.Cols), int(E.Elem), MPI_Aint(E.ColStride),
                            MPI_BYTE, &Row);
    MPI_Type_create_hvector(int(E.Rows), 1, MPI_Aint(E.RowStride), Row, &Rect);
    MPI_Type_free(&Row);
    MPI_Aint Addr;
    MPI_Get_address(E.Ptr, &Addr);
    Displs.push_back(Addr);
    Types.push_back(Rect);
  }
  MPI_Type_create_struct(int(Entries.size()), Lens.data(), Displs.data(),
                         Types.data(), &Type);
  for (MPI_Datatype &X : Types)
    MPI_Type_free(&X);
  MPI_Type_commit(&Type);
  return true;
}

} // namespace

llvm::Expected<std::unique_ptr<Plan>> Plan::create(const Schedule &S,
                                                   MPI_Comm Comm,
                                                   const UserBuffers &Buffers,
                                                   const PlanOptions &Opts) {
  std::unique_ptr<Plan> P(new Plan());
  P->Buffers = Buffers;
  P->Opts = Opts;
  std::string LocalErr;
  Rank Me = 0;
  std::vector<int> CommRankOf;
  if (auto E = makeWorkComm(Comm, S, P->Comm, Me, CommRankOf, LocalErr,
                            Opts.UseComm))
    return E;
  int IsInter = 0;
  MPI_Comm_test_inter(Comm, &IsInter);
  P->OwnsComm = !(Opts.UseComm && !IsInter);
  MPI_Comm_set_errhandler(P->Comm, MPI_ERRORS_RETURN);
  int *Ub = nullptr, Found = 0;
  if (MPI_Comm_get_attr(P->Comm, MPI_TAG_UB, &Ub, &Found) == MPI_SUCCESS &&
      Found && Ub)
    P->TagUb = *Ub;
  P->TagUb = usableTagUb(P->TagUb);
  if (LocalErr.empty() && tagUbKnob() < 0)
    LocalErr = formatv("CHOREO_TAG_UB={0}: expected a number from 32767 to "
                       "2147483647 (the tag bound the plans may use)",
                       std::getenv("CHOREO_TAG_UB"));

  // Every rank must hold the same schedule (a rank that found a problem
  // does not take part: it has an error to report). So must its
  // flow-control threshold: a gated send waits for a clear-to-send only a
  // rank with the same threshold sends. A bitwise and of x and of ~x gives
  // the and and the or of the ranks' x: they are all equal iff the two
  // agree. (Not MPI_MIN: MPICH 4.0.2 compares MPI_UINT64_T as signed, so no
  // value is sure to lose a minimum; all ones is the and's identity.)
  // And the tag bound (CHOREO_TAG_UB may lower it): runs of different
  // slots must not share tags.
  uint64_t Fp[8] = {UINT64_MAX,
                    UINT64_MAX,
                    UINT64_MAX,
                    UINT64_MAX,
                    Opts.FlowControlBytes,
                    ~Opts.FlowControlBytes,
                    uint64_t(P->TagUb),
                    ~uint64_t(P->TagUb)};
  if (LocalErr.empty()) {
    Digest128 D = sharedDigest(S);
    Fp[0] = D.H1;
    Fp[1] = ~D.H1;
    Fp[2] = D.H2;
    Fp[3] = ~D.H2;
  }
  yielding::allreduce(MPI_IN_PLACE, Fp, 8, MPI_UINT64_T, MPI_BAND, P->Comm);
  if (LocalErr.empty() && (Fp[0] != ~Fp[1] || Fp[2] != ~Fp[3]))
    LocalErr = "the ranks were given different schedules";
  if (LocalErr.empty() && Fp[4] != ~Fp[5])
    LocalErr = formatv("the ranks were given different flow-control "
                       "thresholds (this rank {0} bytes; 0 is off)",
                       Opts.FlowControlBytes);
  if (LocalErr.empty() && Fp[6] != ~Fp[7])
    LocalErr = formatv("the ranks use different tag bounds (this rank {0}; "
                       "CHOREO_TAG_UB lowers MPI_TAG_UB and must be alike "
                       "on every rank)",
                       P->TagUb);
  P->Me = Me;
  P->CommRankOf = CommRankOf;
  if (LocalErr.empty()) {
    try {
      LocalErr = P->prepare(S, Me, CommRankOf);
    } catch (const std::bad_alloc &) {
      LocalErr = formatv("out of memory compiling its plan ({0} steps, {1} "
                         "ops in its schedule)",
                         S.Steps.numSteps(), S.Steps.numOps());
    }
  }
  if (!LocalErr.empty()) {
    int CommRank;
    MPI_Comm_rank(P->Comm, &CommRank);
    LocalErr = formatv("rank {0}: {1}", CommRank, LocalErr);
  }
  if (auto E = agreeOnErrors(P->Comm, LocalErr))
    return E;
  return P;
}

llvm::Expected<std::unique_ptr<Plan>>
Plan::createLocal(const Schedule &S, MPI_Comm Comm,
                  const UserBuffers &Buffers, uint64_t FlowControlBytes) {
  std::unique_ptr<Plan> P(new Plan());
  P->Buffers = Buffers;
  P->Opts.UseComm = true;
  P->Opts.Verify = false;
  P->Opts.FlowControlBytes = FlowControlBytes;
  P->Comm = Comm;
  P->OwnsComm = false;
  int Size = 0, R = 0;
  MPI_Comm_size(Comm, &Size);
  MPI_Comm_rank(Comm, &R);
  if (static_cast<Rank>(Size) != S.NumRanks)
    return makeDiagError("executor",
                         formatv("the communicator has {0} ranks but the "
                                 "schedule has {1}",
                                 Size, S.NumRanks));
  int *Ub = nullptr, Found = 0;
  if (MPI_Comm_get_attr(Comm, MPI_TAG_UB, &Ub, &Found) == MPI_SUCCESS &&
      Found && Ub)
    P->TagUb = *Ub;
  P->TagUb = usableTagUb(P->TagUb);
  P->Me = R;
  P->CommRankOf.resize(S.NumRanks);
  for (Rank X = 0; X < S.NumRanks; ++X)
    P->CommRankOf[X] = X;
  std::string Err;
  try {
    Err = P->prepare(S, P->Me, P->CommRankOf);
  } catch (const std::bad_alloc &) {
    Err = "out of memory compiling its plan";
  }
  if (!Err.empty())
    return makeDiagError("executor", formatv("rank {0}: {1}", R, Err));
  return P;
}

std::string Plan::prepare(const Schedule &S, Rank Me,
                          llvm::ArrayRef<int> CommRankOf) {
  if (Opts.Verify) {
    VerifyResult R = checkExplicit(S);
    if (!R.proved())
      return "the schedule does not verify: " +
             (R.Diags.empty() ? std::string() : R.Diags.front().Message);
  }
  RecvLayout Layout;
  Layout.Displs = Buffers.RecvDispls;
  Layout.SendDispls = Buffers.SendDispls;
  auto Compiled = compileRankPlan(S, Me, Layout);
  if (!Compiled)
    return llvm::toString(Compiled.takeError());
  RP = std::move(*Compiled);
  if (RP.SendBytes && (!Buffers.Send || Buffers.SendBytes < RP.SendBytes))
    return formatv("the send buffer holds {0} bytes but {1} needs {2}",
                   Buffers.Send ? Buffers.SendBytes : 0, RP.SendWhat,
                   RP.SendBytes);
  if (RP.RecvBytes && (!Buffers.Recv || Buffers.RecvBytes < RP.RecvBytes))
    return formatv("the receive buffer holds {0} bytes but {1} needs {2}",
                   Buffers.Recv ? Buffers.RecvBytes : 0, RP.RecvWhat,
                   RP.RecvBytes);
  if (S.spec().isReduction()) {
    if (Buffers.ReduceType == MPI_DATATYPE_NULL ||
        Buffers.ReduceOp == MPI_OP_NULL)
      return "a reduction needs an element datatype and an MPI_Op";
    // Combines keep rank order (the lower rank interval is the left
    // operand); a non-commutative MPI_Op needs every combination of the
    // schedule to join adjacent rank intervals, which a schedule proved
    // with op.commutative false guarantees and this rank checks of its own.
    int Commutes = 1;
    MPI_Op_commutative(Buffers.ReduceOp, &Commutes);
    if (!Commutes && !RP.UnorderedCombine.empty())
      return "the MPI_Op is not commutative, but the schedule does not keep "
             "rank order: " +
             RP.UnorderedCombine +
             " (generate it with --op noncommutative, by an algorithm that "
             "keeps rank order)";
    MPI_Aint Lb = 0, Extent = 0;
    MPI_Type_get_extent(Buffers.ReduceType, &Lb, &Extent);
    if (Lb != 0 || Extent <= 0 || Extent > INT_MAX)
      return formatv("the reduction datatype has lower bound {0} and extent "
                     "{1}; choreo needs lower bound 0 and a positive extent",
                     Lb, Extent);
    ReduceTypeSize = static_cast<int>(Extent);
    for (uint64_t Off : RP.ReductionOffsets)
      if (ReduceTypeSize <= 0 || Off % ReduceTypeSize)
        return formatv("byte offset {0} of a block is not on an element "
                       "boundary ({1}-byte elements)",
                       Off, ReduceTypeSize);
  }
  // Peers as communicator ranks.
  for (RankPlanStep &St : RP.Steps)
    for (auto *List : {&St.Recvs, &St.Sends})
      for (Transfer &T : *List)
        T.Peer = CommRankOf[T.Peer];
  if (auto E = bind())
    return llvm::toString(std::move(E));
  return "";
}

char *Plan::base(Region R) {
  switch (R) {
  case Region::Send:
    return const_cast<char *>(static_cast<const char *>(Buffers.Send));
  case Region::Recv:
    return static_cast<char *>(Buffers.Recv);
  case Region::Scratch:
    return Scratch.data();
  case Region::Sink:
    return Sink.data();
  case Region::Pack:
    return PackBuf.data();
  }
  return nullptr;
}

llvm::Error Plan::bind() {
  Scratch.assign(RP.ScratchBytes, 0);
  Sink.assign(RP.SinkBytes, 0);
  auto BindActions = [this](const std::vector<LocalAction> &From,
                            std::vector<BoundAction> &To) {
    for (const LocalAction &A : From)
      To.push_back({base(A.From.R) + A.From.Offset, base(A.To.R) + A.To.Offset,
                    A.From.Len, A.Combine, A.FromIsRight});
  };
  BindActions(RP.Prologue, Prologue);
  BindActions(RP.Epilogue, Epilogue);
  size_t MaxRequests = 0, MaxCts = 0;
  uint64_t Gate = Opts.FlowControlBytes;
  // Lattice messages packed: the most bytes of one step's.
  bool Types = latticeDatatypes();
  uint64_t MostPacked = 0;
  for (const RankPlanStep &St : RP.Steps) {
    uint64_t Packed = 0;
    for (const auto *List : {&St.Recvs, &St.Sends})
      for (const Transfer &T : *List)
        if (!T.Lattice.empty())
          Packed += T.Bytes;
    MostPacked = std::max(MostPacked, Packed);
  }
  PackBuf.assign(Types ? 0 : MostPacked, 0);
  auto Base = [this](Region R) { return base(R); };
  for (const RankPlanStep &St : RP.Steps) {
    BoundStep B;
    uint64_t PackAt = 0;
    // 7 bits of step number: a rank posts its steps in order and MPI
    // matches a pair's messages of one tag in order, so the number may wrap.
    int Tag = St.Step % 128;
    for (auto [From, To] :
         {std::pair{&St.Recvs, &B.Recvs}, std::pair{&St.Sends, &B.Sends}})
      for (const Transfer &T : *From) {
        BoundTransfer BT{nullptr, 0,       MPI_BYTE,
                         false,   int(T.Peer), Tag,
                         T.Bytes, Gate && T.Bytes >= Gate};
        if (!T.Lattice.empty() && Types && latticeType(T, Base, BT.Type)) {
          BT.Ptr = MPI_BOTTOM;
          BT.Count = 1;
          BT.OwnsType = true;
        } else if (!T.Lattice.empty()) {
          // Packed: the message contiguous in the pack buffer, its pieces
          // copied in before the step (a send) or out after it (a receive).
          char *Msg = PackBuf.data() + PackAt;
          PackAt += T.Bytes;
          for (const LatticePiece &X : T.Lattice)
            (From == &St.Sends ? B.Pack : B.Unpack)
                .push_back({&X, base(X.R), Msg});
          if (T.Bytes <= INT_MAX) {
            BT.Ptr = Msg;
            BT.Count = static_cast<int>(T.Bytes);
          } else {
            if (auto E = piecesType({{Msg, T.Bytes}}, BT.Type))
              return E;
            BT.Ptr = MPI_BOTTOM;
            BT.Count = 1;
            BT.OwnsType = true;
          }
        } else if (T.Pieces.empty()) {
          // No payload (a barrier's knowledge): zero bytes, no datatype.
        } else if (T.Pieces.size() == 1 && T.Pieces[0].Len <= INT_MAX) {
          BT.Ptr = base(T.Pieces[0].R) + T.Pieces[0].Offset;
          BT.Count = static_cast<int>(T.Pieces[0].Len);
        } else {
          std::vector<std::pair<char *, uint64_t>> Pieces;
          for (const MemPiece &M : T.Pieces)
            Pieces.push_back({base(M.R) + M.Offset, M.Len});
          if (auto E = piecesType(Pieces, BT.Type))
            return E;
          BT.Ptr = MPI_BOTTOM;
          BT.Count = 1;
          BT.OwnsType = true;
        }
        To->push_back(BT);
      }
    BindActions(St.After, B.After);
    for (const BoundTransfer &T : B.Recvs)
      B.CtsSends += T.Gated;
    for (size_t I = 0; I < B.Sends.size(); ++I)
      if (B.Sends[I].Gated)
        B.GatedSends.push_back(int(I));
    MaxRequests =
        std::max(MaxRequests, B.Recvs.size() + B.Sends.size() +
                                  size_t(B.CtsSends) + B.GatedSends.size());
    MaxCts = std::max(MaxCts, B.GatedSends.size());
    Steps.push_back(std::move(B));
  }
  Requests.assign(MaxRequests, MPI_REQUEST_NULL);
  Statuses.resize(MaxRequests);
  CtsRequests.assign(MaxCts, MPI_REQUEST_NULL);
  CtsIndices.resize(MaxCts);
  if (MaxCts || Gate) {
    SomeStatuses.resize(MaxRequests);
    Indices.resize(MaxRequests);
  }
  if (Pattern.empty())
    for (const BoundStep &B : Steps) {
      MessageStep M;
      for (auto [From, To] :
           {std::pair{&B.Recvs, &M.Recvs}, std::pair{&B.Sends, &M.Sends}})
        for (const BoundTransfer &T : *From)
          To->push_back({T.Peer, T.Tag, T.Gated});
      Pattern.push_back(std::move(M));
    }
  return llvm::Error::success();
}

llvm::Error Plan::runActions(const std::vector<BoundAction> &Actions) {
  for (const BoundAction &A : Actions) {
    if (!A.Combine) {
      // From == To: a reduction's vector already in the receive buffer
      // (MPI_IN_PLACE).
      if (A.From != A.To)
        std::memcpy(A.To, A.From, A.Len);
      continue;
    }
    // MPI_Reduce_local(in, inout) computes inout = in op inout; its count
    // is an int, so a block of more than INT_MAX elements (the `_c` calls)
    // is combined in pieces (an operator works element by element).
    uint64_t Elems = A.Len / ReduceTypeSize;
    char *From = const_cast<char *>(A.From);
    for (uint64_t First = 0; First < Elems; First += INT_MAX) {
      int Count = int(std::min<uint64_t>(INT_MAX, Elems - First));
      uint64_t At = First * ReduceTypeSize;
      // FromIsRight: the received partial covers the upper ranks, so To op
      // From is computed in the sink (which the step owns), copied after.
      int Rc = !A.FromIsRight
                   ? MPI_Reduce_local(From + At, A.To + At, Count,
                                      Buffers.ReduceType, Buffers.ReduceOp)
                   : MPI_Reduce_local(A.To + At, From + At, Count,
                                      Buffers.ReduceType, Buffers.ReduceOp);
      if (Rc != MPI_SUCCESS)
        return mpiError("MPI_Reduce_local", Rc);
    }
    if (A.FromIsRight)
      std::memcpy(A.To, From, A.Len);
  }
  return llvm::Error::success();
}

namespace {

/// The bits of a tag below TagUb + 1: at least 15 (MPI guarantees
/// MPI_TAG_UB >= 32767).
unsigned tagBitsOf(int TagUb) {
  unsigned Bits = 0;
  while (Bits < 31 && (int64_t(1) << (Bits + 1)) - 1 <= TagUb)
    ++Bits;
  return std::max(Bits, 15u);
}

} // namespace

int Plan::tagUbKnob() {
  static const int Knob = [] {
    const char *V = std::getenv("CHOREO_TAG_UB");
    if (!V || !*V)
      return 0;
    char *End = nullptr;
    errno = 0;
    long long X = std::strtoll(V, &End, 0);
    if (errno || *End || X < 32767 || X > INT_MAX)
      return -1;
    return int(X);
  }();
  return Knob;
}

int Plan::usableTagUb(int AttrUb) {
  int Knob = tagUbKnob();
  return Knob > 0 && Knob < AttrUb ? Knob : AttrUb;
}

unsigned Plan::slotBits(int TagUb) { return tagBitsOf(TagUb) - 9; }

int Plan::tagBase(uint32_t Slot, int TagUb) {
  // The top bit, then Bits - 9 bits of slot, then the clear-to-send bit
  // and 7 bits of step.
  unsigned Bits = tagBitsOf(TagUb);
  uint32_t SlotMask = (uint32_t(1) << (Bits - 9)) - 1;
  return int((uint32_t(1) << (Bits - 1)) | ((Slot & SlotMask) << 8));
}

int Plan::postSend(const BoundTransfer &T, MPI_Request &R) {
  int Tag = TagBase | T.Tag;
  return Failed.empty()
             ? MPI_Isend(T.Ptr, T.Count, T.Type, T.Peer, Tag, Comm, &R)
             : MPI_Isend(nullptr, 0, MPI_BYTE, T.Peer, Tag, Comm, &R);
}

llvm::Error Plan::post(const BoundStep &St) {
  int N = 0;
  // Lattice messages packed (their sends go empty once this rank failed).
  if (Failed.empty())
    for (const BoundCopy &C : St.Pack)
      copyLatticePiece(*C.X, C.Mem, C.Msg, /*ToMessage=*/true);
  for (const BoundTransfer &T : St.Recvs) {
    int Rc = MPI_Irecv(T.Ptr, T.Count, T.Type, T.Peer, TagBase | T.Tag, Comm,
                       &Requests[N++]);
    if (Rc != MPI_SUCCESS)
      return mpiError("MPI_Irecv", Rc);
  }
  for (const BoundTransfer &T : St.Sends) {
    if (T.Gated) {
      // Posted when its receiver's clear-to-send came (pollGated).
      Requests[N++] = MPI_REQUEST_NULL;
      continue;
    }
    if (int Rc = postSend(T, Requests[N++]); Rc != MPI_SUCCESS)
      return mpiError("MPI_Isend", Rc);
  }
  if (St.CtsSends == 0 && St.GatedSends.empty())
    return llvm::Error::success();
  // Flow control: this rank is in the step and its receives are posted;
  // each gated receive's sender may send now.
  for (const BoundTransfer &T : St.Recvs)
    if (T.Gated)
      if (int Rc = MPI_Isend(nullptr, 0, MPI_BYTE, T.Peer,
                             TagBase | CtsTag | T.Tag, Comm, &Requests[N++]);
          Rc != MPI_SUCCESS)
        return mpiError("MPI_Isend (clear-to-send)", Rc);
  // A gated send's clear-to-send, then its acknowledgement: two zero-byte
  // messages of one pair and tag, matched in the order posted.
  for (size_t I = 0; I < St.GatedSends.size(); ++I) {
    const BoundTransfer &T = St.Sends[St.GatedSends[I]];
    if (int Rc = MPI_Irecv(nullptr, 0, MPI_BYTE, T.Peer,
                           TagBase | CtsTag | T.Tag, Comm, &CtsRequests[I]);
        Rc != MPI_SUCCESS)
      return mpiError("MPI_Irecv (clear-to-send)", Rc);
  }
  for (int I : St.GatedSends) {
    const BoundTransfer &T = St.Sends[I];
    if (int Rc = MPI_Irecv(nullptr, 0, MPI_BYTE, T.Peer,
                           TagBase | CtsTag | T.Tag, Comm, &Requests[N++]);
        Rc != MPI_SUCCESS)
      return mpiError("MPI_Irecv (acknowledgement)", Rc);
  }
  Gated = int(St.GatedSends.size());
  Remaining = N;
  return llvm::Error::success();
}

llvm::Expected<bool> Plan::pollGated(const BoundStep &St) {
  int K = int(St.GatedSends.size());
  if (Gated) {
    int Out = 0;
    if (int Rc = MPI_Testsome(K, CtsRequests.data(), &Out, CtsIndices.data(),
                              MPI_STATUSES_IGNORE);
        Rc != MPI_SUCCESS)
      return mpiError("waiting for a clear-to-send", Rc);
    for (int I = 0; Out != MPI_UNDEFINED && I < Out; ++I) {
      int Send = St.GatedSends[CtsIndices[I]];
      if (int Rc = postSend(St.Sends[Send], Requests[St.Recvs.size() + Send]);
          Rc != MPI_SUCCESS)
        return mpiError("MPI_Isend", Rc);
      --Gated;
    }
  }
  int N = int(St.Recvs.size() + St.Sends.size()) + St.CtsSends + K;
  int Out = 0;
  if (int Rc = MPI_Testsome(N, Requests.data(), &Out, Indices.data(),
                            SomeStatuses.data());
      Rc != MPI_SUCCESS)
    return mpiError("waiting for a step's messages", Rc);
  for (int I = 0; Out != MPI_UNDEFINED && I < Out; ++I) {
    int X = Indices[I];
    --Remaining;
    if (size_t(X) >= St.Recvs.size())
      continue;
    Statuses[X] = SomeStatuses[I];
    const BoundTransfer &T = St.Recvs[X];
    if (!T.Gated)
      continue;
    // It arrived: its sender's step may end. Nothing waits for this
    // zero-byte send here (MPI completes a freed send on its own).
    MPI_Request Ack;
    if (int Rc = MPI_Isend(nullptr, 0, MPI_BYTE, T.Peer,
                           TagBase | CtsTag | T.Tag, Comm, &Ack);
        Rc != MPI_SUCCESS)
      return mpiError("MPI_Isend (acknowledgement)", Rc);
    MPI_Request_free(&Ack);
  }
  return Gated == 0 && Remaining == 0;
}

llvm::Error Plan::start(uint32_t Slot) {
  if (Running)
    return makeDiagError("executor", "the plan is already running (a run "
                                     "must complete before the next starts)");
  TagBase = tagBase(Slot, TagUb);
  Failed.clear();
  if (auto E = runActions(Prologue))
    Failed = llvm::toString(std::move(E));
  Cur = 0;
  Posted = false;
  Gated = Remaining = 0;
  Running = true;
  if (!Steps.empty()) {
    if (auto E = post(Steps[0])) {
      Running = false;
      return E;
    }
    Posted = true;
  }
  return llvm::Error::success();
}

llvm::Expected<bool> Plan::advance(bool Block) {
  while (Running) {
    if (Cur == Steps.size()) {
      Running = false;
      if (Failed.empty())
        if (auto E = runActions(Epilogue))
          Failed = llvm::toString(std::move(E));
      if (!Failed.empty())
        return makeDiagError("executor", Failed);
      return true;
    }
    const BoundStep &St = Steps[Cur];
    if (!Posted) {
      if (auto E = post(St)) {
        Running = false;
        return std::move(E);
      }
      Posted = true;
    }
    if (St.CtsSends || !St.GatedSends.empty()) {
      // Flow control: request by request (a gated send's slot is null until
      // posted; a gated receive is acknowledged as soon as it completes).
      for (;;) {
        auto Done = pollGated(St);
        if (!Done) {
          Running = false;
          return Done.takeError();
        }
        if (*Done)
          break;
        if (!Block)
          return false;
      }
    } else if (int N = St.Recvs.size() + St.Sends.size()) {
      int Rc, Done = 1;
      if (Block)
        Rc = MPI_Waitall(N, Requests.data(), Statuses.data());
      else
        Rc = MPI_Testall(N, Requests.data(), &Done, Statuses.data());
      if (Rc != MPI_SUCCESS) {
        Running = false;
        return mpiError("waiting for a step's messages", Rc);
      }
      if (!Done)
        return false;
    }
    ++Cur;
    Posted = false;
    if (!Failed.empty())
      continue;
    // A peer that could not go on sent its message empty.
    for (size_t I = 0; I < St.Recvs.size() && Failed.empty(); ++I) {
      MPI_Count Got = 0;
      if (MPI_Get_elements_x(&Statuses[I], MPI_BYTE, &Got) == MPI_SUCCESS &&
          Got == 0 && St.Recvs[I].Bytes != 0)
        Failed = formatv("the message from rank {0} came empty: that rank, "
                         "or one it depends on, could not run this call (its "
                         "own error says why)",
                         St.Recvs[I].Peer);
    }
    if (Failed.empty()) {
      for (const BoundCopy &C : St.Unpack)
        copyLatticePiece(*C.X, C.Mem, C.Msg, /*ToMessage=*/false);
      if (auto E = runActions(St.After))
        Failed = llvm::toString(std::move(E));
    }
  }
  return true;
}

llvm::Expected<bool> Plan::progress() { return advance(false); }

llvm::Error Plan::execute(uint32_t Slot) {
  if (auto E = start(Slot))
    return E;
  bool Block = Opts.Wait == WaitMode::Busy;
  for (;;) {
    auto Done = advance(Block);
    if (!Done)
      return Done.takeError();
    if (*Done)
      return llvm::Error::success();
    sched_yield();
  }
}

llvm::Error Plan::abandon(uint32_t Slot) {
  int Base = tagBase(Slot, TagUb);
  std::vector<MPI_Request> Reqs, Cts;
  std::vector<const Message *> Waiting;
  auto Post = [&](bool Recv, int Peer, int Tag) -> llvm::Error {
    MPI_Request R;
    // A receive of 0 bytes takes any message of the pair and tag (the
    // rest is truncated, which is no error here).
    int Rc = Recv ? MPI_Irecv(nullptr, 0, MPI_BYTE, Peer, Tag, Comm, &R)
                  : MPI_Isend(nullptr, 0, MPI_BYTE, Peer, Tag, Comm, &R);
    if (Rc != MPI_SUCCESS)
      return mpiError(Recv ? "MPI_Irecv" : "MPI_Isend", Rc);
    Reqs.push_back(R);
    return llvm::Error::success();
  };
  std::vector<MPI_Request> Data;
  for (const MessageStep &St : Pattern) {
    Reqs.clear();
    Waiting.clear();
    Data.clear();
    // As a run posts them (flow control included): a gated receive sends
    // its clear-to-send, and its acknowledgement once it arrived; a gated
    // send waits for the clear-to-send, then for the acknowledgement.
    for (const Message &M : St.Recvs) {
      MPI_Request R;
      if (int Rc = MPI_Irecv(nullptr, 0, MPI_BYTE, M.Peer, Base | M.Tag, Comm,
                             &R);
          Rc != MPI_SUCCESS)
        return mpiError("MPI_Irecv", Rc);
      Data.push_back(R);
      if (M.Gated)
        if (auto E = Post(false, M.Peer, Base | CtsTag | M.Tag))
          return E;
    }
    for (const Message &M : St.Sends) {
      if (!M.Gated) {
        if (auto E = Post(false, M.Peer, Base | M.Tag))
          return E;
        continue;
      }
      MPI_Request R;
      if (int Rc = MPI_Irecv(nullptr, 0, MPI_BYTE, M.Peer,
                             Base | CtsTag | M.Tag, Comm, &R);
          Rc != MPI_SUCCESS)
        return mpiError("MPI_Irecv (clear-to-send)", Rc);
      Cts.push_back(R);
      Waiting.push_back(&M);
    }
    for (const Message *M : Waiting)
      if (auto E = Post(true, M->Peer, Base | CtsTag | M->Tag))
        return E;
    for (size_t I = 0; I < Cts.size(); ++I) {
      MPI_Wait(&Cts[I], MPI_STATUS_IGNORE);
      if (auto E = Post(false, Waiting[I]->Peer, Base | Waiting[I]->Tag))
        return E;
    }
    Cts.clear();
    // One at a time: a truncated receive completes with its error alone.
    for (size_t I = 0; I < Data.size(); ++I) {
      MPI_Wait(&Data[I], MPI_STATUS_IGNORE);
      if (St.Recvs[I].Gated)
        if (auto E = Post(false, St.Recvs[I].Peer,
                          Base | CtsTag | St.Recvs[I].Tag))
          return E;
    }
    for (MPI_Request &R : Reqs)
      MPI_Wait(&R, MPI_STATUS_IGNORE);
  }
  return llvm::Error::success();
}

std::unique_ptr<Plan> Plan::sibling() const {
  std::unique_ptr<Plan> P(new Plan());
  P->Comm = Comm;
  P->OwnsComm = false;
  P->Opts = Opts;
  P->Pattern = Pattern;
  P->Me = Me;
  P->CommRankOf = CommRankOf;
  P->TagUb = TagUb;
  return P;
}

llvm::Error Plan::rebind(const Schedule &S, const UserBuffers &NewBuffers) {
  unbind();
  Buffers = NewBuffers;
  PlanOptions Saved = Opts;
  Opts.Verify = false;
  std::string Err = prepare(S, Me, CommRankOf);
  Opts = Saved;
  if (!Err.empty())
    return makeDiagError("executor", Err);
  return llvm::Error::success();
}

void Plan::unbind() {
  int Finalized = 0;
  MPI_Finalized(&Finalized);
  for (BoundStep &St : Steps)
    for (auto *List : {&St.Recvs, &St.Sends})
      for (BoundTransfer &T : *List)
        if (T.OwnsType && !Finalized)
          MPI_Type_free(&T.Type);
  Steps.clear();
  Prologue.clear();
  Epilogue.clear();
  Requests.clear();
  CtsRequests.clear();
  RP = RankPlan();
}

Plan::~Plan() {
  unbind();
  int Finalized = 0;
  MPI_Finalized(&Finalized);
  if (Comm != MPI_COMM_NULL && OwnsComm && !Finalized)
    MPI_Comm_free(&Comm);
}
