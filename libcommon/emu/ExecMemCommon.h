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
inline uint32_t rmw32(Rmw Op, uint32_t Tmp, uint32_t Src, uint32_t Src2) {
  switch (Op) {
  case Rmw::Add:
    return Tmp + Src;
  case Rmw::Sub:
    return Tmp - Src;
  case Rmw::Rsub:
    return Src - Tmp;
  case Rmw::Swap:
    return Src;
  case Rmw::CmpSwap:
    return Tmp == Src2 ? Src : Tmp;
  case Rmw::SMin:
    return int32_t(Src) < int32_t(Tmp) ? Src : Tmp;
  case Rmw::UMin:
    return Src < Tmp ? Src : Tmp;
  case Rmw::SMax:
    return int32_t(Src) >= int32_t(Tmp) ? Src : Tmp;
  case Rmw::UMax:
    return Src >= Tmp ? Src : Tmp;
  case Rmw::And:
    return Tmp & Src;
  case Rmw::Or:
    return Tmp | Src;
  case Rmw::Xor:
    return Tmp ^ Src;
  case Rmw::Inc:
    return Tmp >= Src ? 0u : Tmp + 1u;
  case Rmw::Dec:
    return (Tmp == 0u || Tmp > Src) ? Src : Tmp - 1u;
  case Rmw::AddF32:
    return f32ToBits(bitsToF32(Tmp) + bitsToF32(Src));
  case Rmw::MinF32:
    return bitsToF32(Src) < bitsToF32(Tmp) ? Src : Tmp;
  case Rmw::MaxF32:
    return bitsToF32(Src) > bitsToF32(Tmp) ? Src : Tmp;
  case Rmw::PkAddF16: {
    // f16 + f16 computed in f32 then rounded to f16 is correctly rounded (24 >= 2*11+2).
    uint16_t Lo = f32ToF16(f16ToF32(uint16_t(Tmp)) + f16ToF32(uint16_t(Src)));
    uint16_t Hi = f32ToF16(f16ToF32(uint16_t(Tmp >> 16)) + f16ToF32(uint16_t(Src >> 16)));
    return uint32_t(Lo) | (uint32_t(Hi) << 16);
  }
  case Rmw::PkAddBf16: {
    uint16_t Lo = f32ToBf16(bf16ToF32(uint16_t(Tmp)) + bf16ToF32(uint16_t(Src)));
    uint16_t Hi = f32ToBf16(bf16ToF32(uint16_t(Tmp >> 16)) + bf16ToF32(uint16_t(Src >> 16)));
    return uint32_t(Lo) | (uint32_t(Hi) << 16);
  }
  case Rmw::MskOr:
    return (Tmp & ~Src) | Src2;
  case Rmw::Wrap:
    return Tmp >= Src ? Tmp - Src : Tmp + Src2;
  case Rmw::CmpSwapF32:
    return bitsToF32(Tmp) == bitsToF32(Src2) ? Src : Tmp;
  default:
    return Tmp;
  }
}

inline uint64_t rmw64(Rmw Op, uint64_t Tmp, uint64_t Src, uint64_t Src2) {
  switch (Op) {
  case Rmw::Add:
    return Tmp + Src;
  case Rmw::Sub:
    return Tmp - Src;
  case Rmw::Rsub:
    return Src - Tmp;
  case Rmw::Swap:
    return Src;
  case Rmw::CmpSwap:
    return Tmp == Src2 ? Src : Tmp;
  case Rmw::SMin:
    return int64_t(Src) < int64_t(Tmp) ? Src : Tmp;
  case Rmw::UMin:
    return Src < Tmp ? Src : Tmp;
  case Rmw::SMax:
    return int64_t(Src) >= int64_t(Tmp) ? Src : Tmp;
  case Rmw::UMax:
    return Src >= Tmp ? Src : Tmp;
  case Rmw::And:
    return Tmp & Src;
  case Rmw::Or:
    return Tmp | Src;
  case Rmw::Xor:
    return Tmp ^ Src;
  case Rmw::Inc:
    return Tmp >= Src ? 0ull : Tmp + 1ull;
  case Rmw::Dec:
    return (Tmp == 0ull || Tmp > Src) ? Src : Tmp - 1ull;
  case Rmw::AddF64:
    return f64ToBits(bitsToF64(Tmp) + bitsToF64(Src));
  case Rmw::MinF64:
    return bitsToF64(Src) < bitsToF64(Tmp) ? Src : Tmp;
  case Rmw::MaxF64:
    return bitsToF64(Src) > bitsToF64(Tmp) ? Src : Tmp;
  case Rmw::MskOr:
    return (Tmp & ~Src) | Src2;
  case Rmw::CmpSwapF64:
    return bitsToF64(Tmp) == bitsToF64(Src2) ? Src : Tmp;
  default:
    return Tmp;
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
inline void dwordRows(WaveState &w, uint16_t Reg, unsigned n, uint32_t *Rows[4]) {
  for (unsigned k = 0; k < 4; ++k)
    Rows[k] = w.vrowOf(uint16_t(Reg + (k < n ? k : 0)));
}
// Lane `lane`'s n dwords between memory at p and the rows: loads (Load) or stores.
template <bool Load>
inline void copyLaneDwords(uint8_t *p, uint32_t *const *Rows, unsigned n, unsigned Lane) {
  for (unsigned k = 0; k < n; ++k) {
    if (Load)
      Rows[k][Lane] = load32(p + 4 * k);
    else
      store32(p + 4 * k, Rows[k][Lane]);
  }
}

} // namespace asmevo::emu::memdetail
