// Launch geometry checks (see LaunchGeometry.h).
#include "launch/LaunchGeometry.h"

#include "support/Error.h"

#include <string>

namespace asmevo::launch {

llvm::Expected<std::array<uint32_t, 3>> launchGridItems(const std::array<uint64_t, 3> &Grid,
                                                        bool InWorkgroups,
                                                        const std::array<uint32_t, 3> &Block) {
  static const char Dim[] = {'x', 'y', 'z'};
  constexpr uint64_t MaxItems = 0xffffffffull, MaxBlock = 1024;
  uint64_t BlockItems = 1;
  for (unsigned I = 0; I < 3; ++I) {
    if (Block[I] == 0)
      return makeError(std::string("workgroup size ") + Dim[I] + " is 0");
    BlockItems *= Block[I];
  }
  if (BlockItems > MaxBlock)
    return makeError("a workgroup of " + std::to_string(BlockItems) +
                     " work-items: the hardware runs at most " + std::to_string(MaxBlock));
  std::array<uint32_t, 3> Items{};
  for (unsigned I = 0; I < 3; ++I) {
    if (Grid[I] == 0)
      return makeError(std::string("grid size ") + Dim[I] + " is 0");
    // Grid[I] * Block[I] fits in 64 bits: both factors are below 2^32 after this test.
    if (Grid[I] > MaxItems)
      return makeError(std::string("grid ") + Dim[I] + " of " + std::to_string(Grid[I]) +
                       (InWorkgroups ? " workgroups" : " work-items") +
                       " exceeds 2^32-1 work-items");
    uint64_t N = InWorkgroups ? Grid[I] * Block[I] : Grid[I];
    if (N > MaxItems)
      return makeError(std::string("grid ") + Dim[I] + " of " + std::to_string(Grid[I]) +
                       " workgroups of " + std::to_string(Block[I]) + " is " + std::to_string(N) +
                       " work-items; a dispatch has at most 2^32-1 (4294967295) per dimension");
    Items[I] = uint32_t(N);
  }
  return Items;
}

} // namespace asmevo::launch
