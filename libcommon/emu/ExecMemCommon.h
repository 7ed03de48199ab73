// Helpers shared by the vector-memory and LDS executors (ExecVmem*.cpp, ExecLds*.cpp): the
// lower-case mnemonic an access names in a fault, and the read-modify-write of the atomics
// both share.
#pragma once

#include "emu/Inst.h"
#include "emu/Wave.h"
#include "support/Float.h"

#include <cstdint>
#include <cstring>

namespace asmevo::emu::memdetail {

// The read-modify-write operations of the memory atomics.
enum class Rmw : uint8_t {
  Add,
  Sub,
  Rsub,
  Swap,
  CmpSwap,
  SMin,
  UMin,
  SMax,
  UMax,
  And,
  Or,
  Xor,
  Inc,
  Dec,
  AddF32,
  MinF32,
  MaxF32,
  PkAddF16,
  PkAddBf16,
  AddF64,
  MinF64,
  MaxF64,
  MskOr,
  Wrap,
  CmpSwapF32,
  CmpSwapF64, // compare as floating point (ds_cmpst_f32/f64)
};

// New memory value of a 32-bit RMW. `src` is DATA, `src2` the second operand (compare value
// of cmpswap, DATA2 of mskor/wrap).
inline uint32_t rmw32(Rmw op, uint32_t tmp, uint32_t src, uint32_t src2) {
  switch (op) {
  case Rmw::Add:
    return tmp + src;
  case Rmw::Sub:
    return tmp - src;
  case Rmw::Rsub:
    return src - tmp;
  case Rmw::Swap:
    return src;
  case Rmw::CmpSwap:
    return tmp == src2 ? src : tmp;
  case Rmw::SMin:
    return int32_t(src) < int32_t(tmp) ? src : tmp;
  case Rmw::UMin:
    return src < tmp ? src : tmp;
  case Rmw::SMax:
    return int32_t(src) >= int32_t(tmp) ? src : tmp;
  case Rmw::UMax:
    return src >= tmp ? src : tmp;
  case Rmw::And:
    return tmp & src;
  case Rmw::Or:
    return tmp | src;
  case Rmw::Xor:
    return tmp ^ src;
  case Rmw::Inc:
    return tmp >= src ? 0u : tmp + 1u;
  case Rmw::Dec:
    return (tmp == 0u || tmp > src) ? src : tmp - 1u;
  case Rmw::AddF32:
    return f32ToBits(bitsToF32(tmp) + bitsToF32(src));
  case Rmw::MinF32:
    return bitsToF32(src) < bitsToF32(tmp) ? src : tmp;
  case Rmw::MaxF32:
    return bitsToF32(src) > bitsToF32(tmp) ? src : tmp;
  case Rmw::PkAddF16: {
    // f16 + f16 computed in f32 then rounded to f16 is correctly rounded (24 >= 2*11+2).
    uint16_t lo = f32ToF16(f16ToF32(uint16_t(tmp)) + f16ToF32(uint16_t(src)));
    uint16_t hi = f32ToF16(f16ToF32(uint16_t(tmp >> 16)) + f16ToF32(uint16_t(src >> 16)));
    return uint32_t(lo) | (uint32_t(hi) << 16);
  }
  case Rmw::PkAddBf16: {
    uint16_t lo = f32ToBf16(bf16ToF32(uint16_t(tmp)) + bf16ToF32(uint16_t(src)));
    uint16_t hi = f32ToBf16(bf16ToF32(uint16_t(tmp >> 16)) + bf16ToF32(uint16_t(src >> 16)));
    return uint32_t(lo) | (uint32_t(hi) << 16);
  }
  case Rmw::MskOr:
    return (tmp & ~src) | src2;
  case Rmw::Wrap:
    return tmp >= src ? tmp - src : tmp + src2;
  case Rmw::CmpSwapF32:
    return bitsToF32(tmp) == bitsToF32(src2) ? src : tmp;
  default:
    return tmp;
  }
}

inline uint64_t rmw64(Rmw op, uint64_t tmp, uint64_t src, uint64_t src2) {
  switch (op) {
  case Rmw::Add:
    return tmp + src;
  case Rmw::Sub:
    return tmp - src;
  case Rmw::Rsub:
    return src - tmp;
  case Rmw::Swap:
    return src;
  case Rmw::CmpSwap:
    return tmp == src2 ? src : tmp;
  case Rmw::SMin:
    return int64_t(src) < int64_t(tmp) ? src : tmp;
  case Rmw::UMin:
    return src < tmp ? src : tmp;
  case Rmw::SMax:
    return int64_t(src) >= int64_t(tmp) ? src : tmp;
  case Rmw::UMax:
    return src >= tmp ? src : tmp;
  case Rmw::And:
    return tmp & src;
  case Rmw::Or:
    return tmp | src;
  case Rmw::Xor:
    return tmp ^ src;
  case Rmw::Inc:
    return tmp >= src ? 0ull : tmp + 1ull;
  case Rmw::Dec:
    return (tmp == 0ull || tmp > src) ? src : tmp - 1ull;
  case Rmw::AddF64:
    return f64ToBits(bitsToF64(tmp) + bitsToF64(src));
  case Rmw::MinF64:
    return bitsToF64(src) < bitsToF64(tmp) ? src : tmp;
  case Rmw::MaxF64:
    return bitsToF64(src) > bitsToF64(tmp) ? src : tmp;
  case Rmw::MskOr:
    return (tmp & ~src) | src2;
  case Rmw::CmpSwapF64:
    return bitsToF64(tmp) == bitsToF64(src2) ? src : tmp;
  default:
    return tmp;
  }
}

inline uint32_t load32(const uint8_t *p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
inline uint64_t load64(const uint8_t *p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
inline void store32(uint8_t *p, uint32_t v) { std::memcpy(p, &v, 4); }
inline void store64(uint8_t *p, uint64_t v) { std::memcpy(p, &v, 8); }

// The rows of the n (1..4) consecutive vector registers from operand code `reg`, for the
// memory short paths. Slots past n repeat the first: filling them is cheaper than zeroing the
// array, which GCC does with rep stos (slow to start).
inline void dwordRows(WaveState &w, uint16_t reg, unsigned n, uint32_t *rows[4]) {
  for (unsigned k = 0; k < 4; ++k)
    rows[k] = w.vrowOf(uint16_t(reg + (k < n ? k : 0)));
}
// Lane `lane`'s n dwords between memory at p and the rows: loads (Load) or stores.
template <bool Load>
inline void copyLaneDwords(uint8_t *p, uint32_t *const *rows, unsigned n, unsigned lane) {
  for (unsigned k = 0; k < n; ++k) {
    if (Load)
      rows[k][lane] = load32(p + 4 * k);
    else
      store32(p + 4 * k, rows[k][lane]);
  }
}

} // namespace asmevo::emu::memdetail
