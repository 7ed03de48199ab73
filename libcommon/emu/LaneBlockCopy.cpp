#include "emu/LaneBlockCopy.h"

#include "emu/Wave.h"

namespace asmevo::emu {

namespace {

// True when the 64 offsets ascend by `step` from lane 0's, with no wrap-around: consecutive
// differences are checked in T (a loop the compiler vectorizes), and the last lane's offset in
// 64 bits, which rules out a wrap in between.
template <class T> bool lanesAscendBy(const T *off, uint64_t step) {
  const T o0 = off[0];
  T bad = 0;
  for (unsigned l = 0; l < kWaveSize; ++l)
    bad |= off[l] ^ T(o0 + T(step) * l);
  return bad == 0 && uint64_t(off[kWaveSize - 1]) == uint64_t(o0) + step * (kWaveSize - 1);
}

using UnalignedDword = uint32_t __attribute__((aligned(1), may_alias));

// Lane l's N dwords at p + 4 * N * l, to or from the N rows. Out of line, one function per
// shape: inlined into the executors, GCC left most of these loops scalar. Lanes further apart
// (one dword of every four, as Triton's elementwise kernels load) were tried too: no faster
// than the lane-by-lane copy for loads, slower for stores (emu_inst_bench), so they take it.
template <unsigned N, bool Load>
[[gnu::noinline]] void copyPacked(uint8_t *p, uint32_t *const *rows) {
  static_assert(N >= 1 && N <= 4, "1 to 4 dwords per lane");
  UnalignedDword *__restrict m = reinterpret_cast<UnalignedDword *>(p);
  uint32_t *__restrict r0 = rows[0];
  uint32_t *__restrict r1 = rows[N > 1 ? 1 : 0];
  uint32_t *__restrict r2 = rows[N > 2 ? 2 : 0];
  uint32_t *__restrict r3 = rows[N > 3 ? 3 : 0];
  for (unsigned l = 0; l < kWaveSize; ++l) {
    if (Load) {
      r0[l] = m[N * l];
      if (N > 1)
        r1[l] = m[N * l + 1];
      if (N > 2)
        r2[l] = m[N * l + 2];
      if (N > 3)
        r3[l] = m[N * l + 3];
    } else {
      m[N * l] = r0[l];
      if (N > 1)
        m[N * l + 1] = r1[l];
      if (N > 2)
        m[N * l + 2] = r2[l];
      if (N > 3)
        m[N * l + 3] = r3[l];
    }
  }
}

template <bool Load> void copyShape(uint8_t *p, unsigned n, uint32_t *const *rows) {
  switch (n) {
  case 1:
    return copyPacked<1, Load>(p, rows);
  case 2:
    return copyPacked<2, Load>(p, rows);
  case 3:
    return copyPacked<3, Load>(p, rows);
  default:
    return copyPacked<4, Load>(p, rows);
  }
}

template <class T>
bool copyPackedT(bool load, uint8_t *lane0, const T *off, unsigned n, uint32_t *const *rows) {
  if (n < 1 || n > 4 || T(off[1] - off[0]) != T(4 * n) || !lanesAscendBy(off, 4 * n))
    return false;
  copyPackedBlock(load, lane0, n, rows);
  return true;
}

} // namespace

void copyPackedBlock(bool load, uint8_t *lane0, unsigned n, uint32_t *const *rows) {
  if (load)
    copyShape<true>(lane0, n, rows);
  else
    copyShape<false>(lane0, n, rows);
}

bool copyPackedLanes(bool load, uint8_t *lane0, const uint32_t *off, unsigned n,
                     uint32_t *const *rows) {
  return copyPackedT(load, lane0, off, n, rows);
}

bool copyPackedLanes(bool load, uint8_t *lane0, const uint64_t *off, unsigned n,
                     uint32_t *const *rows) {
  return copyPackedT(load, lane0, off, n, rows);
}

} // namespace asmevo::emu
