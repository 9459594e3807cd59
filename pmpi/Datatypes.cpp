//===- pmpi/Datatypes.cpp - A rank's type map and the packed bytes --------===//
///
/// \file
/// The in-order test of a datatype (cached on the type) and the packing of
/// buffers to and from the packed representation a schedule works on.
///
//===----------------------------------------------------------------------===//

#include "pmpi/Datatypes.h"
#include "pmpi/Library.h"
#include "pmpi/PrivateComm.h"

#include <algorithm>
#include <climits>
#include <functional>

using namespace choreo;
using namespace choreo::pmpi;

namespace {

/// The attribute caching the in-order verdict on a derived type: 1 in
/// order, 2 not.
int Keyval = MPI_KEYVAL_INVALID;

int copyVerdict(MPI_Datatype, int, void *, void *In, void *Out, int *Flag) {
  // A duplicate has the same type map: the verdict holds for it too.
  *static_cast<void **>(Out) = In;
  *Flag = 1;
  return MPI_SUCCESS;
}

/// Whether one element of T, packed, is its memory bytes [0, Size) in
/// order: each byte is numbered in base 256, one pack per digit.
bool packsInOrder(MPI_Datatype T, int Size) {
  std::vector<unsigned char> Mem(Size), Packed(Size);
  for (uint64_t Scale = 1; Scale == 1 || Scale < uint64_t(Size); Scale *= 256) {
    for (int I = 0; I < Size; ++I)
      Mem[I] = static_cast<unsigned char>(uint64_t(I) / Scale);
    int Pos = 0;
    if (PMPI_Pack(Mem.data(), 1, T, Packed.data(), Size, &Pos, MPI_COMM_SELF) !=
            MPI_SUCCESS ||
        Pos != Size || Packed != Mem)
      return false;
  }
  return true;
}

/// The types of recent calls, named or not (a derived type's handle may
/// be freed and name another derived type, never a named one, so "not
/// named" holds for a handle as long as "named" does).
struct TypeSlot {
  NamedType F;
  bool Valid = false, Named = false;
};
constexpr size_t TypeSlots = 16;
TypeSlot RecentTypes[TypeSlots];

} // namespace

const NamedType *pmpi::namedType(MPI_Datatype T) {
  size_t H = std::hash<MPI_Datatype>{}(T);
  TypeSlot &E = RecentTypes[(H ^ (H >> 4) ^ (H >> 9)) % TypeSlots];
  if (E.Valid && E.F.T == T)
    return E.Named ? &E.F : nullptr;
  int NInts, NAddrs, NTypes, Combiner;
  if (PMPI_Type_get_envelope(T, &NInts, &NAddrs, &NTypes, &Combiner) !=
      MPI_SUCCESS)
    return nullptr;
  E = TypeSlot();
  E.F.T = T;
  if (Combiner != MPI_COMBINER_NAMED) {
    E.Valid = true;
    return nullptr;
  }
  MPI_Aint TLb, TExt;
  if (PMPI_Type_size(T, &E.F.Size) != MPI_SUCCESS ||
      PMPI_Type_get_extent(T, &E.F.Lb, &E.F.Extent) != MPI_SUCCESS ||
      PMPI_Type_get_true_extent(T, &TLb, &TExt) != MPI_SUCCESS)
    return nullptr;
  E.F.Contiguous = E.F.Lb == 0 && TLb == 0 && E.F.Extent == E.F.Size &&
                   TExt == E.F.Size;
  E.Valid = E.Named = true;
  return &E.F;
}

MPI_Aint pmpi::typeExtent(MPI_Datatype T) {
  if (const NamedType *F = namedType(T))
    return F->Extent;
  MPI_Aint Lb = 0, Ext = 0;
  if (PMPI_Type_get_extent(T, &Lb, &Ext) != MPI_SUCCESS)
    return 0;
  return Ext;
}

bool pmpi::typeInOrder(MPI_Datatype T, int &Size) {
  // Its bytes fill [0, extent) exactly once.
  if (const NamedType *F = namedType(T)) {
    Size = F->Size;
    return F->Contiguous; // a basic type: one value
  }
  if (!contiguous(T, Size))
    return false;
  int NInts, NAddrs, NTypes, Combiner;
  if (PMPI_Type_get_envelope(T, &NInts, &NAddrs, &NTypes, &Combiner) !=
      MPI_SUCCESS)
    return false;
  if (Combiner == MPI_COMBINER_NAMED || Size == 0)
    return true; // a basic type: one value
  if (Keyval == MPI_KEYVAL_INVALID &&
      PMPI_Type_create_keyval(copyVerdict, MPI_TYPE_NULL_DELETE_FN, &Keyval,
                              nullptr) != MPI_SUCCESS)
    return packsInOrder(T, Size);
  void *Val = nullptr;
  int Found = 0;
  if (PMPI_Type_get_attr(T, Keyval, &Val, &Found) == MPI_SUCCESS && Found)
    return reinterpret_cast<intptr_t>(Val) == 1;
  bool In = packsInOrder(T, Size);
  PMPI_Type_set_attr(T, Keyval, reinterpret_cast<void *>(intptr_t(In ? 1 : 2)));
  return In;
}

namespace {

/// Packs (or unpacks) Count elements of T in pieces of fewer than 2^31
/// bytes (MPI_Pack's positions are ints).
bool packPieces(bool Pack, const char *From, char *To, char *User,
                int64_t Count, MPI_Datatype T, uint64_t Bytes) {
  int Size = 0;
  if (Count < 0 || PMPI_Type_size(T, &Size) != MPI_SUCCESS ||
      uint64_t(Size) * uint64_t(Count) != Bytes)
    return false;
  if (Bytes == 0)
    return true;
  MPI_Aint Ext = typeExtent(T);
  int64_t Per = std::min<int64_t>(Count, INT_MAX / Size);
  if (Per == 0)
    return false; // one element of 2 GiB or more
  uint64_t Done = 0;
  for (int64_t First = 0; First < Count; First += Per) {
    int N = int(std::min(Per, Count - First));
    int Len = N * Size, Pos = 0;
    char *Elems = User + MPI_Aint(First) * Ext;
    int Rc =
        Pack ? PMPI_Pack(Elems, N, T, To + Done, Len, &Pos, MPI_COMM_SELF)
             : PMPI_Unpack(From + Done, Len, &Pos, Elems, N, T, MPI_COMM_SELF);
    if (Rc != MPI_SUCCESS || Pos != Len)
      return false;
    Done += Len;
  }
  return true;
}

} // namespace

bool pmpi::packInto(const void *Buf, int64_t Count, MPI_Datatype T, char *Dst,
                    uint64_t Bytes) {
  return packPieces(true, nullptr, Dst,
                    static_cast<char *>(const_cast<void *>(Buf)), Count, T,
                    Bytes);
}

bool pmpi::unpackFrom(const char *Src, uint64_t Bytes, void *Buf, int64_t Count,
                      MPI_Datatype T) {
  return packPieces(false, Src, nullptr, static_cast<char *>(Buf), Count, T,
                    Bytes);
}

std::string pmpi::reductionUndefined(MPI_Datatype T, MPI_Op Op) {
  int Commutes = 1, Size = 0;
  // A user's operator: MPI passes it any datatype.
  if (PMPI_Op_commutative(Op, &Commutes) != MPI_SUCCESS)
    return "MPI_Op_commutative refuses the operator";
  bool Predefined = false;
  for (MPI_Op P : {MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND, MPI_BAND,
                   MPI_LOR, MPI_BOR, MPI_LXOR, MPI_BXOR, MPI_MAXLOC, MPI_MINLOC,
                   MPI_REPLACE, MPI_NO_OP})
    Predefined |= Op == P;
  if (!Predefined)
    return "";
  MPI_Aint Ext = typeExtent(T);
  if (PMPI_Type_size(T, &Size) != MPI_SUCCESS || Ext <= 0)
    return "the datatype has no extent";
  // One element of zeros (any predefined operator takes zeros); an element
  // beyond 64 KiB is checked with count 0, which MPICH checks alike.
  int Count = Ext <= 65536 ? 1 : 0;
  std::vector<char> In(Count ? size_t(Ext) : 1, 0), InOut(In.size(), 0);
  // MPICH raises MPI_Reduce_local's errors on MPI_COMM_WORLD (MPI 4.0 says
  // MPI_COMM_SELF): neither may abort the job here.
  ReturnErrors World(MPI_COMM_WORLD), Self(MPI_COMM_SELF);
  int Rc = PMPI_Reduce_local(In.data(), InOut.data(), Count, T, Op);
  return Rc == MPI_SUCCESS ? "" : mpiErrorText(Rc);
}
