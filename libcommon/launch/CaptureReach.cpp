// Pointer discovery for dispatch-capture (launch/CaptureReach.h).
#include "launch/CaptureReach.h"

#include "support/Error.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstring>
#include <deque>

namespace asmevo::launch {

namespace {} // namespace

llvm::Expected<std::vector<ReachedAllocation>>
reachableAllocations(llvm::ArrayRef<uint8_t> Kernarg, llvm::ArrayRef<DeviceAllocation> Allocations,
                     ReadDeviceMemory Read, uint64_t MaxBytes) {
  std::vector<DeviceAllocation> Sorted(Allocations.begin(), Allocations.end());
  std::sort(Sorted.begin(), Sorted.end(),
            [](const DeviceAllocation &A, const DeviceAllocation &B) { return A.Base < B.Base; });
  for (size_t I = 0; I < Sorted.size(); ++I) {
    if (Sorted[I].Size == 0 || Sorted[I].Base + Sorted[I].Size < Sorted[I].Base)
      return makeError("device allocation at " + hexText(Sorted[I].Base) + " of " +
                       llvm::Twine(Sorted[I].Size) + " bytes is empty or wraps the address space");
    if (I && Sorted[I - 1].Base + Sorted[I - 1].Size > Sorted[I].Base)
      return makeError("device allocations at " + hexText(Sorted[I - 1].Base) + " and " +
                       hexText(Sorted[I].Base) + " overlap");
  }
  // Index of the allocation holding A, or -1.
  auto find = [&](uint64_t A) -> long {
    auto It = std::upper_bound(Sorted.begin(), Sorted.end(), A,
                               [](uint64_t V, const DeviceAllocation &D) { return V < D.Base; });
    if (It == Sorted.begin())
      return -1;
    --It;
    return A - It->Base < It->Size ? long(It - Sorted.begin()) : -1;
  };

  std::vector<std::string> From(Sorted.size());
  std::vector<bool> Seen(Sorted.size(), false);
  std::deque<size_t> Queue;
  std::vector<std::vector<uint8_t>> Bytes(Sorted.size());
  uint64_t Total = 0;
  auto scan = [&](llvm::ArrayRef<uint8_t> Words, const std::string &Where) {
    for (size_t Off = 0; Off + 8 <= Words.size(); Off += 8) {
      uint64_t V;
      std::memcpy(&V, Words.data() + Off, 8);
      long I = find(V);
      if (I < 0 || Seen[size_t(I)])
        continue;
      Seen[size_t(I)] = true;
      From[size_t(I)] = Where + "+" + hexText(Off);
      Queue.push_back(size_t(I));
    }
  };
  scan(Kernarg, "kernarg");
  while (!Queue.empty()) {
    size_t I = Queue.front();
    Queue.pop_front();
    const DeviceAllocation &D = Sorted[I];
    if (D.Size > MaxBytes || Total + D.Size > MaxBytes)
      return makeError("allocation " + hexText(D.Base) + " of " + llvm::Twine(D.Size) +
                       " bytes (reached from " + From[I] + ") takes the capture to " +
                       llvm::Twine(Total + D.Size) + " bytes, over the limit of " +
                       llvm::Twine(MaxBytes) + " (--max-bytes)");
    Total += D.Size;
    if (auto E = Read(D.Base, D.Size, Bytes[I]))
      return std::move(E);
    if (Bytes[I].size() != D.Size)
      return runtimeError("reading allocation " + hexText(D.Base) + " returned " +
                          llvm::Twine(Bytes[I].size()) + " of its " + llvm::Twine(D.Size) +
                          " bytes");
    scan(Bytes[I], hexText(D.Base));
  }
  std::vector<ReachedAllocation> Out;
  for (size_t I = 0; I < Sorted.size(); ++I)
    if (Seen[I])
      Out.push_back({Sorted[I].Base, std::move(From[I]), std::move(Bytes[I])});
  return Out;
}

} // namespace asmevo::launch
