//===- executor/ScratchAlloc.cpp - Scratch areas reused by liveness -------===//
///
/// \file
/// A linear scan over the steps: before a step's new areas are placed,
/// the areas whose last read came before it go back to the free list
/// (coalesced); each new area, largest first, takes the smallest free run
/// that holds it, else the free run at the top (grown), else the top.
///
//===----------------------------------------------------------------------===//

#include "executor/ScratchAlloc.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <queue>
#include <set>

using namespace choreo;

namespace {

uint32_t ScratchEarlyFree = 0;

/// Free runs of scratch, by offset and by size (best fit).
class FreeRuns {
public:
  void add(uint64_t Off, uint64_t Len) {
    if (!Len)
      return;
    auto Next = ByOff.lower_bound(Off);
    if (Next != ByOff.begin()) {
      auto Prev = std::prev(Next);
      if (Prev->first + Prev->second == Off) {
        Off = Prev->first;
        Len += Prev->second;
        erase(Prev);
      }
    }
    Next = ByOff.lower_bound(Off);
    if (Next != ByOff.end() && Off + Len == Next->first) {
      Len += Next->second;
      erase(Next);
    }
    ByOff[Off] = Len;
    BySize.insert({Len, Off});
  }

  /// A place for Len bytes below Top (Top grows when the run at the top
  /// is too short or there is none).
  uint64_t take(uint64_t Len, uint64_t &Top) {
    auto Fit = BySize.lower_bound({Len, 0});
    if (Fit != BySize.end()) {
      uint64_t Off = Fit->second, Have = Fit->first;
      erase(ByOff.find(Off));
      add(Off + Len, Have - Len);
      return Off;
    }
    if (!ByOff.empty()) {
      auto Last = std::prev(ByOff.end());
      if (Last->first + Last->second == Top) {
        uint64_t Off = Last->first;
        erase(Last);
        Top = Off + Len;
        return Off;
      }
    }
    uint64_t Off = Top;
    Top += Len;
    return Off;
  }

private:
  std::map<uint64_t, uint64_t> ByOff;
  std::set<std::pair<uint64_t, uint64_t>> BySize;

  void erase(std::map<uint64_t, uint64_t>::iterator It) {
    BySize.erase({It->second, It->first});
    ByOff.erase(It);
  }
};

} // namespace

void choreo::setScratchEarlyFreeForTesting(uint32_t Steps) {
  ScratchEarlyFree = Steps;
}

uint64_t choreo::allocateScratch(std::vector<ScratchArea> &Areas,
                                 uint64_t Base) {
  std::vector<size_t> Order(Areas.size());
  std::iota(Order.begin(), Order.end(), size_t(0));
  llvm::sort(Order, [&](size_t A, size_t B) {
    const ScratchArea &X = Areas[A], &Y = Areas[B];
    if (X.First != Y.First)
      return X.First < Y.First;
    if (X.Bytes != Y.Bytes)
      return X.Bytes > Y.Bytes;
    return A < B;
  });
  // Areas in use, by the step after which they are free.
  using Live = std::pair<uint32_t, size_t>;
  std::priority_queue<Live, std::vector<Live>, std::greater<Live>> InUse;
  FreeRuns Free;
  uint64_t Top = 0;
  for (size_t I : Order) {
    ScratchArea &A = Areas[I];
    while (!InUse.empty() && InUse.top().first < A.First) {
      const ScratchArea &Done = Areas[InUse.top().second];
      Free.add(Done.Offset, Done.Bytes);
      InUse.pop();
    }
    if (!A.Bytes) {
      A.Offset = 0;
      continue;
    }
    A.Offset = Free.take(A.Bytes, Top);
    uint32_t Until =
        A.Last >= ScratchEarlyFree ? A.Last - ScratchEarlyFree : 0;
    InUse.push({Until, I});
  }
  for (ScratchArea &A : Areas)
    A.Offset += Base;
  return Top;
}

std::string choreo::checkScratchAreas(llvm::ArrayRef<ScratchArea> Areas) {
  std::vector<size_t> Order(Areas.size());
  std::iota(Order.begin(), Order.end(), size_t(0));
  llvm::sort(Order, [&](size_t A, size_t B) {
    return Areas[A].First < Areas[B].First ||
           (Areas[A].First == Areas[B].First && A < B);
  });
  for (size_t X = 0; X < Order.size(); ++X) {
    const ScratchArea &A = Areas[Order[X]];
    for (size_t Y = X + 1; Y < Order.size(); ++Y) {
      const ScratchArea &B = Areas[Order[Y]];
      if (B.First > A.Last)
        break;
      if (A.Bytes && B.Bytes && A.Offset < B.Offset + B.Bytes &&
          B.Offset < A.Offset + A.Bytes)
        return llvm::formatv("scratch areas {0} (steps {1}-{2}, bytes "
                             "[{3}, {4})) and {5} (steps {6}-{7}, bytes "
                             "[{8}, {9})) are live at once in step {6} and "
                             "share bytes",
                             Order[X], A.First, A.Last, A.Offset,
                             A.Offset + A.Bytes, Order[Y], B.First, B.Last,
                             B.Offset, B.Offset + B.Bytes)
            .str();
    }
  }
  return "";
}
