// Address ranges kept as a map from base to size (allocations, mappings, reservations).
#pragma once

#include <cstdint>
#include <map>

namespace asmevo {

// Whether [Addr, Addr + Size) lies wholly inside one range of Ranges (base -> size; the ranges
// do not overlap).
inline bool withinOneRange(const std::map<uint64_t, uint64_t> &Ranges, uint64_t Addr,
                           uint64_t Size) {
  auto It = Ranges.upper_bound(Addr);
  if (It == Ranges.begin())
    return false;
  --It;
  return Addr - It->first < It->second && Size <= It->second - (Addr - It->first);
}

} // namespace asmevo
