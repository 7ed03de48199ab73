// Launch geometry as the hardware takes it: workgroups of at most 1024 work-items, a grid of at
// most 2^32-1 work-items per dimension (the AQL packet's grid_size fields are 32 bits; HIP
// refuses gridDim * blockDim > UINT32_MAX). Every launcher checks its grid here, before any
// arithmetic could wrap.
#pragma once

#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>

namespace asmevo::launch {

// Grid is in workgroups when InWorkgroups, else in work-items. Returns the grid in work-items;
// errors (input kind, exit 2) name the dimension and the limit.
llvm::Expected<std::array<uint32_t, 3>> launchGridItems(const std::array<uint64_t, 3> &Grid,
                                                        bool InWorkgroups,
                                                        const std::array<uint32_t, 3> &Block);

} // namespace asmevo::launch
