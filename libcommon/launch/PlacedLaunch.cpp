#include "launch/PlacedLaunch.h"

#include "launch/InputGen.h"

#include <algorithm>
#include <cstring>

namespace asmevo::launch {

void freeLaunch(device::Device &Dev, PlacedLaunch &P) {
  for (uint64_t B : P.Bases)
    llvm::consumeError(Dev.free(B));
  P.Bases.clear();
}

llvm::Expected<PlacedLaunch> placeLaunch(device::Device &Dev, const LaunchSpec &S,
                                         const std::vector<std::vector<uint8_t>> &Init,
                                         const std::string &Who) {
  PlacedLaunch P;
  P.Addr.assign(S.Args.size(), 0);
  for (size_t I = 0; I < S.Args.size(); ++I) {
    const ArgSpec &A = S.Args[I];
    if (!A.Buffer || A.Null)
      continue;
    uint64_t Data = Init[I].size(), Size = 2 * kGuardBytes + Data;
    auto Base = Dev.alloc(Size, Who + " buffer " + A.Label);
    if (!Base) {
      freeLaunch(Dev, P);
      return Base.takeError();
    }
    P.Bases.push_back(*Base);
    std::vector<uint8_t> Img(Size);
    fillCanary(Img.data(), kGuardBytes, unsigned(I));
    if (Data)
      std::memcpy(Img.data() + kGuardBytes, Init[I].data(), Data);
    fillCanary(Img.data() + kGuardBytes + Data, kGuardBytes, unsigned(I));
    if (llvm::Error E = Dev.write(*Base, Img.data(), Size)) {
      freeLaunch(Dev, P);
      return std::move(E);
    }
    P.Addr[I] = *Base + kGuardBytes;
  }
  // Pointer tables: each entry's address, once every buffer has one.
  for (size_t T = 0; T < S.Args.size(); ++T) {
    if (S.Args[T].Table.empty() || !P.Addr[T])
      continue;
    std::vector<uint8_t> B = S.tableContents(T, P.Addr);
    if (llvm::Error E =
            Dev.write(P.Addr[T], B.data(), std::min<uint64_t>(B.size(), Init[T].size()))) {
      freeLaunch(Dev, P);
      return std::move(E);
    }
  }
  P.Params.Kernel = S.Kernel;
  P.Params.GridItems = S.gridItems();
  P.Params.Block = S.Block;
  P.Params.DynamicLds = S.DynamicLds;
  P.Params.Kernarg = S.kernarg(P.Addr);
  return P;
}

} // namespace asmevo::launch
