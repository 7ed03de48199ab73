// Internals of the vector ALU executor (ExecVector*.cpp): per-instruction operand staging
// (inline constants, DPP lane permutation, SDWA selects, VOP3 opsel/abs/neg), the lane loops,
// and result write-back (clamp/omod, 16-bit halves, SDWA destination selects, EXEC/DPP masks).
//
// Shape: execVector switches on the op once and calls a templated lane loop over 64 lanes with
// a small lambda; all per-instruction decisions (modifiers, forms) are taken outside the loop.
// Floating-point modes (FpMode.h): in the default MODE (nearest even, denormals kept) float
// ops run on the fast path, host IEEE arithmetic. Any other round/denormal setting sends the
// float ops through execVectorModed, then the compares (one predictable branch per instruction):
// inputs are flushed in fetch32/fetch64 (VX::ftzIn), results in finish32/finish64 (VX::ftzOut),
// and the round mode is the host's for the lane loop (fpmode::HostRounding), with f16 results
// rounded by f64ToF16Rm. The library is compiled with -ffp-contract=off for these files.
#pragma once

#include "emu/EmuError.h"
#include "emu/Exec.h"
#include "emu/FpMode.h"
#include "support/Float.h"

#include <cmath>
#include <cstdint>
#include <cstring>

namespace asmevo::emu::vec {

using u8 = uint8_t;
using u16 = uint16_t;
using u32 = uint32_t;
using u64 = uint64_t;
using i16 = int16_t;
using i32 = int32_t;
using i64 = int64_t;

// Operand type of a source (decides inline constants, modifiers, opsel, width).
enum class Ty : uint8_t { N, B32, F32, B16, F16, BF16, B64, F64 };
// Kind of result: how it is post-processed and written.
//   B32/F32: a dword; B16/F16: low half, high half zeroed (gfx9 legacy 16-bit behaviour);
//   B16P/F16P: low half, high half preserved (gfx9 op_sel-capable 16-bit ops);
//   for all 16-bit kinds VOP3 opsel bit 3 writes the high half and preserves the low one.
//   B64/F64: a register pair.
enum class R : uint8_t { B32, F32, B16, F16, B16P, F16P, B64, F64 };

inline bool isFloatTy(Ty t) {
  return t == Ty::F32 || t == Ty::F16 || t == Ty::BF16 || t == Ty::F64;
}
inline bool is16Ty(Ty t) { return t == Ty::B16 || t == Ty::F16 || t == Ty::BF16; }
inline bool is64Ty(Ty t) { return t == Ty::B64 || t == Ty::F64; }
inline bool is16R(R r) { return r == R::B16 || r == R::F16 || r == R::B16P || r == R::F16P; }

inline OpType opType(Ty t) {
  switch (t) {
  case Ty::F32:
    return OpType::F32;
  case Ty::B16:
    return OpType::B16;
  case Ty::F16:
    return OpType::F16;
  case Ty::BF16:
    return OpType::BF16;
  case Ty::B64:
    return OpType::B64;
  case Ty::F64:
    return OpType::F64;
  default:
    return OpType::B32;
  }
}

// v_bfrev_b32: the 32 bits in reverse order.
inline u32 bitReverse32(u32 a) {
  a = ((a >> 1) & 0x55555555u) | ((a & 0x55555555u) << 1);
  a = ((a >> 2) & 0x33333333u) | ((a & 0x33333333u) << 2);
  a = ((a >> 4) & 0x0f0f0f0fu) | ((a & 0x0f0f0f0fu) << 4);
  return __builtin_bswap32(a);
}

// ---- float helpers -------------------------------------------------------------------------
inline float F(u32 b) { return bitsToF32(b); }
inline double D(u64 b) { return bitsToF64(b); }
inline float H(u32 b) { return f16ToF32(u16(b)); }
// Float results of the default mode (nearest even; ExecVectorFloat.cpp has the moded ones).
inline u32 outF32(float v) { return f32ToBits(v); }
inline u32 outF16(float v) { return f32ToF16(v); }   // from a float holding the exact or
inline u32 outF16d(double v) { return f64ToF16(v); } // once-rounded value
inline u64 outF64(double v) { return f64ToBits(v); }

// ---- execution context of one instruction ----------------------------------------------------
struct VX {
  ExecCtx &C;
  WaveState &W;
  const Inst &In;
  u64 Exec; // lanes that compute and write (EXEC, less DPP row/bank/bound masks)
  bool Vop3, Dpp, Sdwa;
  // Float source and result processing, decided once per instruction:
  //   srcMod bit i: source i takes abs/neg modifiers or denormal flushing (fetch32/fetch64);
  //   post: results take omod/clamp or denormal flushing (finish32/finish64);
  //   ftzIn/ftzOut bit 0: flush f32 inputs/results, bit 1: flush f16 and f64 ones.
  u8 SrcMod = 0, FtzIn = 0, FtzOut = 0;
  bool Post = false;
  int8_t DppSrc[64]; // DPP: source lane of each lane, -1 reads zero
  alignas(64) u32 T[3][64];
  alignas(64) u32 R[64];
  alignas(64) u64 Q[3][64];
  alignas(64) u64 Rq[64];
  VX(ExecCtx &Cc, const Inst &i)
      : C(Cc), W(Cc.W), In(i), SrcMod(u8(i.Abs | i.Neg)), Post(i.Clamp || i.Omod != 0) {}
};

// The 64-bit lane mask of 64 bytes that are each 0 or 1 (lane l's byte at bits[l]): the lane
// loops that make masks write bytes, which the compiler vectorizes, and pack them here.
inline u64 packLaneBits(const u8 *Bits) {
  u64 m = 0;
  for (unsigned c = 0; c < 8; ++c) {
    u64 v;
    std::memcpy(&v, Bits + 8 * c, 8);
    // Byte i (0 or 1) of v lands on bit 56 + i of the product, with no carries between terms.
    m |= ((v * 0x0102040810204080ull) >> 56) << (8 * c);
  }
  return m;
}

inline constexpr const u32 *kZeroRow = kZeroLanes;
extern const u64 kZeroRow64[64];

void setupDpp(VX &x);
// Source i's 64 lane values as type t, with every modifier applied (fetch32), and the result
// row x.r written back (finish32). The inline forms take the plain case (a register operand
// with no DPP, SDWA, opsel or abs/neg; a 32-bit result with no clamp, omod, flush or SDWA
// select) and leave everything else to the general ones (ExecVectorCore.cpp).
const u32 *fetch32General(VX &x, int i, Ty t);
const u64 *fetch64(VX &x, int i, Ty t);
void finish32General(VX &x, R Res);
void finish64(VX &x, R Res);
// The destination row of a VOP instruction (an IllegalInst error when it has none).
u32 *dstRow(VX &x);

[[gnu::always_inline]] inline const u32 *fetch32(VX &x, int i, Ty t) {
  const uint16_t Code = x.In.Src[i];
  if (t == Ty::N || Code == kNoOperand)
    return kZeroRow;
  if (!x.Dpp && !x.Sdwa && !((x.SrcMod >> i) & 1) && !(x.Vop3 && is16Ty(t)))
    return readVectorSrc32(x.W, x.In, Code, opType(t), x.T[i]); // no modifier to apply
  return fetch32General(x, i, t);
}

// finish32's plain case: a 32-bit result written to a whole VGPR/AGPR row with no clamp, omod,
// flush or SDWA select. The destination row then, else null.
[[gnu::always_inline]] inline u32 *plainDst32(VX &x, R Res) {
  const uint16_t d = x.In.Dst;
  if ((Res == R::B32 || Res == R::F32) && !x.Post && !x.Sdwa && d >= kVgprBase &&
      d < kAgprBase + 256)
    return x.W.vrowOf(d);
  return nullptr;
}

[[gnu::always_inline]] inline void finish32(VX &x, R Res) {
  if (u32 *Row = plainDst32(x, Res)) {
    const u64 m = x.Exec;
    if (m == ~0ull) {
      std::memcpy(Row, x.R, sizeof(x.R));
    } else {
      for (unsigned l = 0; l < kWaveSize; ++l)
        Row[l] = ((m >> l) & 1) ? x.R[l] : Row[l];
    }
    return;
  }
  finish32General(x, Res);
}
// A lane mask read from a scalar source (VCC / SGPR pair) and expanded into a 0/1 row (x.t[i];
// maskLanes writes any row).
const u32 *maskRow(VX &x, int i, u64 Mask);
void maskLanes(u64 Mask, u32 *Row);
u64 readMask(VX &x, uint16_t Code);
void writeMask(VX &x, uint16_t Code, u64 Mask);

// A function as a lane operation of its own type: the lane loops below take any callable, and
// a plain function pointer would make them call through the pointer for every lane instead of
// inlining (and vectorizing) the operation. Write n2(x, ..., Fn<fmaxT<T32, true>>{}).
template <auto F> struct Fn {
  template <class... A> auto operator()(A... a) const { return F(a...); }
};

template <class Fn>
inline bool loop3(VX &x, const u32 *a, const u32 *b, const u32 *c, R Res, Fn f) {
  // With every lane on and a plain destination the lanes write the destination row itself:
  // lane l reads lane l of each source and nothing else, so a source that is the destination
  // row is read before it is written. Otherwise x.r, then finish32.
  u32 *d = x.Exec == ~0ull ? plainDst32(x, Res) : nullptr;
  u32 *r = d ? d : x.R;
  for (unsigned l = 0; l < kWaveSize; ++l)
    r[l] = f(a[l], b[l], c[l]);
  if (!d)
    finish32(x, Res);
  return true;
}

// Narrow ops: all sources and the result at most 32 bits wide.
template <class Fn> inline bool n3(VX &x, Ty t0, Ty t1, Ty t2, R Res, Fn f) {
  const u32 *a = fetch32(x, 0, t0), *b = fetch32(x, 1, t1), *c = fetch32(x, 2, t2);
  return loop3(x, a, b, c, Res, f);
}
template <class Fn> inline bool n2(VX &x, Ty t0, Ty t1, R Res, Fn f) {
  return n3(x, t0, t1, Ty::N, Res, [f](u32 a, u32 b, u32) { return f(a, b); });
}
template <class Fn> inline bool n1(VX &x, Ty t0, R Res, Fn f) {
  return n3(x, t0, Ty::N, Ty::N, Res, [f](u32 a, u32, u32) { return f(a); });
}

// Wide ops: some source or the result is 64 bits; lanes computed in u64.
template <class Fn> inline bool w3(VX &x, Ty t0, Ty t1, Ty t2, R Res, Fn f) {
  const u64 *a = fetch64(x, 0, t0), *b = fetch64(x, 1, t1), *c = fetch64(x, 2, t2);
  if (Res == R::B64 || Res == R::F64) {
    for (unsigned l = 0; l < kWaveSize; ++l)
      x.Rq[l] = f(a[l], b[l], c[l]);
    finish64(x, Res);
  } else {
    for (unsigned l = 0; l < kWaveSize; ++l)
      x.R[l] = u32(f(a[l], b[l], c[l]));
    finish32(x, Res);
  }
  return true;
}
template <class Fn> inline bool w2(VX &x, Ty t0, Ty t1, R Res, Fn f) {
  return w3(x, t0, t1, Ty::N, Res, [f](u64 a, u64 b, u64) { return f(a, b); });
}
template <class Fn> inline bool w1(VX &x, Ty t0, R Res, Fn f) {
  return w3(x, t0, Ty::N, Ty::N, Res, [f](u64 a, u64, u64) { return f(a); });
}

bool integerOp(VX &x);         // ExecVector.cpp (integer, bit and lane-crossing ops)
bool execVectorFloat(VX &x);   // ExecVectorFloat.cpp (default MODE)
bool execVectorModed(VX &x);   // ExecVectorFloat.cpp (float ops, any other round/denormal MODE)
bool execVectorCompare(VX &x); // ExecVectorCmp.cpp
bool execVectorFp8(VX &x);     // ExecVectorFp8.cpp (fp8 / bf8 conversions, any MODE)

// The 32-bit compares (ExecVectorCmp.cpp): a v_cmp_* (not v_cmpx_*) of i32, u32 or f32 operands
// and its truth table over the relation code (L=1, E=2, G=4, U=8), else false; and the mask of
// the 64 lanes' results (every lane computed; the caller masks it with EXEC). In the default
// MODE: f32 inputs are not flushed.
enum class Compare32 : uint8_t { I32, U32, F32 };
bool plainCompare32(Op Op, Compare32 &Type, unsigned &Tt);
u64 compareLanes32(Compare32 Type, unsigned Tt, const u32 *a, const u32 *b);

// f32 add, sub, subrev, mul and fma over 64 lanes into r (ExecVectorFloat.cpp; the general
// executor and the short path both run them; the two-source ones ignore c), and an op run
// through one of them: sources fetched, lanes computed into x.r, the result written (finish32).
using RowsFn = void (*)(const u32 *a, const u32 *b, const u32 *c, u32 *r);
void addF32Rows(const u32 *a, const u32 *b, const u32 *c, u32 *r);
void subF32Rows(const u32 *a, const u32 *b, const u32 *c, u32 *r);
void subrevF32Rows(const u32 *a, const u32 *b, const u32 *c, u32 *r);
void mulF32Rows(const u32 *a, const u32 *b, const u32 *c, u32 *r);
void fmaF32Rows(const u32 *a, const u32 *b, const u32 *c, u32 *r);
inline bool rows(VX &x, Ty t0, Ty t1, Ty t2, R Res, RowsFn f) {
  const u32 *a = fetch32(x, 0, t0), *b = fetch32(x, 1, t1), *c = fetch32(x, 2, t2);
  f(a, b, c, x.R);
  finish32(x, Res);
  return true;
}

// v_max_f32 / v_min_f32 over 64 lanes, as the MODE's IEEE bit has them (ExecVectorFloat.cpp;
// the general executor and the short path of ExecVectorFast.cpp both run it).
void minMaxF32Rows(bool Max, bool Ieee, const u32 *a, const u32 *b, u32 *r);

} // namespace asmevo::emu::vec
