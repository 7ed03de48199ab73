// The vector ALU executor: VOP1, VOP2, VOPC, VOP3 (a and b), with their DPP and SDWA forms.
// This file holds the integer and bit operations and the lane-crossing ones; operand staging
// and write-back are in ExecVectorCore.cpp, float ops in ExecVectorFloat.cpp, compares in
// ExecVectorCmp.cpp.
#include "emu/ExecVectorCore.h"

#include <atomic>
#include <string>

namespace asmevo::emu {
namespace vec {

// ---- integer helpers ------------------------------------------------------------------------
static inline u32 satU32(u64 v) { return v > 0xffffffffull ? 0xffffffffu : u32(v); }
static inline u32 satI32(i64 v) {
  return u32(v > INT32_MAX ? INT32_MAX : (v < INT32_MIN ? INT32_MIN : v));
}
static inline u32 satU16(i32 v) { return u32(v > 0xffff ? 0xffff : (v < 0 ? 0 : v)); }
static inline u32 satI16(i32 v) {
  return u32(u16(i16(v > 32767 ? 32767 : (v < -32768 ? -32768 : v))));
}
static inline i32 s24(u32 v) { return i32(v << 8) >> 8; }
static inline i32 sx16(u32 v) { return i32(i16(u16(v))); }
static inline u32 lo16(u32 v) { return v & 0xffff; }

static inline u32 ffbh(u32 v) { return v ? u32(__builtin_clz(v)) : ~0u; }
static inline u32 ffbl(u32 v) { return v ? u32(__builtin_ctz(v)) : ~0u; }
static inline u32 ffbhI(u32 v) {
  u32 t = (v >> 31) ? ~v : v; // count leading sign bits
  return t ? u32(__builtin_clz(t)) : ~0u;
}

// One byte of v_perm_b32 from {a, b} (a the high dword): selector 0-7 a byte (0-3 of b, 4-7
// of a), 8-11 the sign of byte 1, 3, 5, 7 repeated, 12 zero, 13 and above 0xff. Every case is
// computed in 32 bits and one is picked, without branches, so that the lane loop vectorizes.
static inline u32 permByte(u32 a, u32 b, u32 Sel) {
  Sel &= 0xff;
  const u32 Byte = ((Sel & 4 ? a : b) >> ((Sel & 3) * 8)) & 0xff;
  const u32 Sign = (((Sel & 2 ? a : b) >> ((Sel & 1) * 16 + 15)) & 1) * 0xffu;
  return Sel < 8 ? Byte : Sel < 12 ? Sign : Sel == 12 ? 0u : 0xffu;
}

static inline u32 absdiff(u32 a, u32 b) { return a > b ? a - b : b - a; }
static inline u32 sadU8(u32 a, u32 b, u32 c) {
  for (unsigned i = 0; i < 32; i += 8)
    c += absdiff((a >> i) & 0xff, (b >> i) & 0xff);
  return c;
}

template <class T> static inline T med3(T a, T b, T c) {
  T Mx = std::max(std::max(a, b), c);
  if (Mx == a)
    return std::max(b, c);
  if (Mx == b)
    return std::max(a, c);
  return std::max(a, b);
}

// Carry ops: f returns the 32-bit result with the carry/borrow out in bit 32. The carry in is a
// 0/1 row. Carry-out mask bits of inactive lanes are zero.
template <class Fn> static bool carryOp(VX &x, bool HasCin, Fn f) {
  const u32 *a = fetch32(x, 0, Ty::B32), *b = fetch32(x, 1, Ty::B32);
  const u32 *Ci = HasCin ? maskRow(x, 2, readMask(x, x.In.Src[2])) : kZeroRow;
  alignas(64) u8 Co[64];
  // Clamp (saturation: overflow -> all ones, borrow -> zero) is applied by f.
  for (unsigned l = 0; l < 64; ++l) {
    u64 v = f(a[l], b[l], Ci[l]);
    Co[l] = u8((v >> 32) & 1);
    x.R[l] = u32(v);
  }
  finish32(x, R::B32);
  writeMask(x, x.In.Sdst, packLaneBits(Co) & x.Exec);
  return true;
}

bool integerOp(VX &x) {
  const Inst &In = x.In;
  const bool Clamp = In.Clamp;
  using T = Ty;
  switch (In.Operation) {
  // ---- moves --------------------------------------------------------------------------------
  case Op::V_MOV_B32_E32:
  case Op::V_MOV_B32_E64:
    return n1(x, T::F32, R::B32, [](u32 a) { return a; });
  case Op::V_MOV_B64_E32:
  case Op::V_MOV_B64_E64:
    return w1(x, T::B64, R::B64, [](u64 a) { return a; });
  case Op::V_NOT_B32_E32:
  case Op::V_NOT_B32_E64:
    return n1(x, T::B32, R::B32, [](u32 a) { return ~a; });
  case Op::V_BFREV_B32_E32:
  case Op::V_BFREV_B32_E64:
    return n1(x, T::B32, R::B32, Fn<bitReverse32>{});
  case Op::V_FFBH_U32_E32:
  case Op::V_FFBH_U32_E64:
    return n1(x, T::B32, R::B32, Fn<ffbh>{});
  case Op::V_FFBL_B32_E32:
  case Op::V_FFBL_B32_E64:
    return n1(x, T::B32, R::B32, Fn<ffbl>{});
  case Op::V_FFBH_I32_E32:
  case Op::V_FFBH_I32_E64:
    return n1(x, T::B32, R::B32, Fn<ffbhI>{});
  case Op::V_SAT_PK_U8_I16_E32:
  case Op::V_SAT_PK_U8_I16_E64:
    return n1(x, T::B32, R::B16, [](u32 a) {
      auto s8 = [](i32 n) { return u32(n <= 0 ? 0 : (n >= 255 ? 255 : n)); };
      return s8(sx16(a)) | (s8(sx16(a >> 16)) << 8);
    });

  // ---- 32-bit integer arithmetic ------------------------------------------------------------
  case Op::V_ADD_U32_E32:
  case Op::V_ADD_U32_E64:
    if (Clamp)
      return n2(x, T::B32, T::B32, R::B32, [](u32 a, u32 b) { return satU32(u64(a) + b); });
    return n2(x, T::B32, T::B32, R::B32, [](u32 a, u32 b) { return a + b; });
  case Op::V_SUB_U32_E32:
  case Op::V_SUB_U32_E64:
    if (Clamp)
      return n2(x, T::B32, T::B32, R::B32, [](u32 a, u32 b) { return a < b ? 0u : a - b; });
    return n2(x, T::B32, T::B32, R::B32, [](u32 a, u32 b) { return a - b; });
  case Op::V_SUBREV_U32_E32:
  case Op::V_SUBREV_U32_E64:
    if (Clamp)
      return n2(x, T::B32, T::B32, R::B32, [](u32 a, u32 b) { return b < a ? 0u : b - a; });
    return n2(x, T::B32, T::B32, R::B32, [](u32 a, u32 b) { return b - a; });
  case Op::V_ADD_I32:
    if (Clamp)
      return n2(x, T::B32, T::B32, R::B32,
                [](u32 a, u32 b) { return satI32(i64(i32(a)) + i32(b)); });
    return n2(x, T::B32, T::B32, R::B32, [](u32 a, u32 b) { return a + b; });
  case Op::V_SUB_I32:
    if (Clamp)
      return n2(x, T::B32, T::B32, R::B32,
                [](u32 a, u32 b) { return satI32(i64(i32(a)) - i32(b)); });
    return n2(x, T::B32, T::B32, R::B32, [](u32 a, u32 b) { return a - b; });

  case Op::V_ADD_CO_U32_E32:
  case Op::V_ADD_CO_U32:
    return carryOp(x, false, [Clamp](u32 a, u32 b, u32) {
      u64 v = u64(a) + b;
      return Clamp && (v >> 32) ? (v | 0xffffffffull) : v;
    });
  case Op::V_ADDC_CO_U32_E32:
  case Op::V_ADDC_CO_U32:
    return carryOp(x, true, [Clamp](u32 a, u32 b, u32 c) {
      u64 v = u64(a) + b + c;
      return Clamp && (v >> 32) ? (v | 0xffffffffull) : v;
    });
  case Op::V_SUB_CO_U32_E32:
  case Op::V_SUB_CO_U32:
    return carryOp(x, false, [Clamp](u32 a, u32 b, u32) {
      u64 Bo = b > a;
      return Bo ? ((1ull << 32) | (Clamp ? 0u : u32(a - b))) : u64(a - b);
    });
  case Op::V_SUBREV_CO_U32_E32:
  case Op::V_SUBREV_CO_U32:
    return carryOp(x, false, [Clamp](u32 a, u32 b, u32) {
      u64 Bo = a > b;
      return Bo ? ((1ull << 32) | (Clamp ? 0u : u32(b - a))) : u64(b - a);
    });
  case Op::V_SUBB_CO_U32_E32:
  case Op::V_SUBB_CO_U32:
    return carryOp(x, true, [Clamp](u32 a, u32 b, u32 c) {
      u64 Bo = u64(b) + c > a;
      u32 v = a - b - c;
      return Bo ? ((1ull << 32) | (Clamp ? 0u : v)) : u64(v);
    });
  case Op::V_SUBBREV_CO_U32_E32:
  case Op::V_SUBBREV_CO_U32:
    return carryOp(x, true, [Clamp](u32 a, u32 b, u32 c) {
      u64 Bo = u64(a) + c > b;
      u32 v = b - a - c;
      return Bo ? ((1ull << 32) | (Clamp ? 0u : v)) : u64(v);
    });

  case Op::V_MUL_LO_U32:
    return n2(x, T::B32, T::B32, R::B32, [](u32 a, u32 b) { return a * b; });
  case Op::V_MUL_HI_U32:
    return n2(x, T::B32, T::B32, R::B32, [](u32 a, u32 b) { return u32((u64(a) * b) >> 32); });
  case Op::V_MUL_HI_I32:
    return n2(x, T::B32, T::B32, R::B32,
              [](u32 a, u32 b) { return u32(u64(i64(i32(a)) * i32(b)) >> 32); });
  case Op::V_MUL_U32_U24_E32:
  case Op::V_MUL_U32_U24_E64:
    return n2(x, T::B32, T::B32, R::B32,
              [](u32 a, u32 b) { return (a & 0xffffff) * (b & 0xffffff); });
  case Op::V_MUL_HI_U32_U24_E32:
  case Op::V_MUL_HI_U32_U24_E64:
    return n2(x, T::B32, T::B32, R::B32,
              [](u32 a, u32 b) { return u32((u64(a & 0xffffff) * (b & 0xffffff)) >> 32); });
  case Op::V_MUL_I32_I24_E32:
  case Op::V_MUL_I32_I24_E64:
    return n2(x, T::B32, T::B32, R::B32, [](u32 a, u32 b) { return u32(i64(s24(a)) * s24(b)); });
  case Op::V_MUL_HI_I32_I24_E32:
  case Op::V_MUL_HI_I32_I24_E64:
    return n2(x, T::B32, T::B32, R::B32,
              [](u32 a, u32 b) { return u32(u64(i64(s24(a)) * s24(b)) >> 32); });
  case Op::V_MAD_U32_U24_E64:
    return n3(x, T::B32, T::B32, T::B32, R::B32,
              [](u32 a, u32 b, u32 c) { return (a & 0xffffff) * (b & 0xffffff) + c; });
  case Op::V_MAD_I32_I24_E64:
    return n3(x, T::B32, T::B32, T::B32, R::B32,
              [](u32 a, u32 b, u32 c) { return u32(s24(a) * s24(b)) + c; });
  case Op::V_MAD_U32_U16_E64:
    return n3(x, T::B16, T::B16, T::B32, R::B32,
              [](u32 a, u32 b, u32 c) { return lo16(a) * lo16(b) + c; });
  case Op::V_MAD_I32_I16_E64:
    return n3(x, T::B16, T::B16, T::B32, R::B32,
              [](u32 a, u32 b, u32 c) { return u32(sx16(a) * sx16(b)) + c; });
  case Op::V_MAD_U64_U32:
  case Op::V_MAD_I64_I32: {
    const u32 *a = fetch32(x, 0, T::B32), *b = fetch32(x, 1, T::B32);
    const u64 *c = fetch64(x, 2, T::B64);
    u64 Co = 0;
    if (In.Operation == Op::V_MAD_U64_U32) {
      for (unsigned l = 0; l < 64; ++l) {
        unsigned __int128 v = (unsigned __int128)(u64(a[l]) * b[l]) + c[l];
        x.Rq[l] = u64(v);
        Co |= u64(v >> 64) << l;
      }
    } else {
      for (unsigned l = 0; l < 64; ++l) {
        __int128 v = (__int128)(i64(i32(a[l])) * i32(b[l])) + (__int128)i64(c[l]);
        x.Rq[l] = u64(v);
        Co |= u64(v != (__int128)i64(v)) << l; // signed overflow
      }
    }
    finish64(x, R::B64);
    writeMask(x, In.Sdst, Co & x.Exec);
    return true;
  }
  case Op::V_ADD3_U32_E64:
    return n3(x, T::B32, T::B32, T::B32, R::B32, [](u32 a, u32 b, u32 c) { return a + b + c; });
  case Op::V_XAD_U32_E64:
    return n3(x, T::B32, T::B32, T::B32, R::B32, [](u32 a, u32 b, u32 c) { return (a ^ b) + c; });
  case Op::V_LSHL_ADD_U32_E64:
    return n3(x, T::B32, T::B32, T::B32, R::B32,
              [](u32 a, u32 b, u32 c) { return (a << (b & 31)) + c; });
  case Op::V_ADD_LSHL_U32_E64:
    return n3(x, T::B32, T::B32, T::B32, R::B32,
              [](u32 a, u32 b, u32 c) { return (a + b) << (c & 31); });
  case Op::V_LSHL_OR_B32:
    return n3(x, T::B32, T::B32, T::B32, R::B32,
              [](u32 a, u32 b, u32 c) { return (a << (b & 31)) | c; });
  case Op::V_AND_OR_B32:
    return n3(x, T::B32, T::B32, T::B32, R::B32, [](u32 a, u32 b, u32 c) { return (a & b) | c; });
  case Op::V_OR3_B32:
    return n3(x, T::B32, T::B32, T::B32, R::B32, [](u32 a, u32 b, u32 c) { return a | b | c; });
  case Op::V_LSHL_ADD_U64:
    return w3(x, T::B64, T::B32, T::B64, R::B64,
              [](u64 a, u64 b, u64 c) { return (a << (b & 7)) + c; });

  // ---- min / max / med3 ---------------------------------------------------------------------
  case Op::V_MIN_I32_E32:
  case Op::V_MIN_I32_E64:
    return n2(x, T::B32, T::B32, R::B32, [](u32 a, u32 b) { return i32(a) < i32(b) ? a : b; });
  case Op::V_MAX_I32_E32:
  case Op::V_MAX_I32_E64:
    return n2(x, T::B32, T::B32, R::B32, [](u32 a, u32 b) { return i32(a) > i32(b) ? a : b; });
  case Op::V_MIN_U32_E32:
  case Op::V_MIN_U32_E64:
    return n2(x, T::B32, T::B32, R::B32, [](u32 a, u32 b) { return a < b ? a : b; });
  case Op::V_MAX_U32_E32:
  case Op::V_MAX_U32_E64:
    return n2(x, T::B32, T::B32, R::B32, [](u32 a, u32 b) { return a > b ? a : b; });
  case Op::V_MIN3_I32_E64:
    return n3(x, T::B32, T::B32, T::B32, R::B32,
              [](u32 a, u32 b, u32 c) { return u32(std::min(std::min(i32(a), i32(b)), i32(c))); });
  case Op::V_MAX3_I32_E64:
    return n3(x, T::B32, T::B32, T::B32, R::B32,
              [](u32 a, u32 b, u32 c) { return u32(std::max(std::max(i32(a), i32(b)), i32(c))); });
  case Op::V_MIN3_U32_E64:
    return n3(x, T::B32, T::B32, T::B32, R::B32,
              [](u32 a, u32 b, u32 c) { return std::min(std::min(a, b), c); });
  case Op::V_MAX3_U32_E64:
    return n3(x, T::B32, T::B32, T::B32, R::B32,
              [](u32 a, u32 b, u32 c) { return std::max(std::max(a, b), c); });
  case Op::V_MED3_I32_E64:
    return n3(x, T::B32, T::B32, T::B32, R::B32,
              [](u32 a, u32 b, u32 c) { return u32(med3(i32(a), i32(b), i32(c))); });
  case Op::V_MED3_U32_E64:
    return n3(x, T::B32, T::B32, T::B32, R::B32, [](u32 a, u32 b, u32 c) { return med3(a, b, c); });

  // ---- bit ops and shifts -------------------------------------------------------------------
  case Op::V_AND_B32_E32:
  case Op::V_AND_B32_E64:
    return n2(x, T::B32, T::B32, R::B32, [](u32 a, u32 b) { return a & b; });
  case Op::V_OR_B32_E32:
  case Op::V_OR_B32_E64:
    return n2(x, T::B32, T::B32, R::B32, [](u32 a, u32 b) { return a | b; });
  case Op::V_XOR_B32_E32:
  case Op::V_XOR_B32_E64:
    return n2(x, T::B32, T::B32, R::B32, [](u32 a, u32 b) { return a ^ b; });
  case Op::V_XNOR_B32_E32:
  case Op::V_XNOR_B32_E64:
    return n2(x, T::B32, T::B32, R::B32, [](u32 a, u32 b) { return ~(a ^ b); });
  case Op::V_LSHLREV_B32_E32:
  case Op::V_LSHLREV_B32_E64:
    return n2(x, T::B32, T::B32, R::B32, [](u32 a, u32 b) { return b << (a & 31); });
  case Op::V_LSHRREV_B32_E32:
  case Op::V_LSHRREV_B32_E64:
    return n2(x, T::B32, T::B32, R::B32, [](u32 a, u32 b) { return b >> (a & 31); });
  case Op::V_ASHRREV_I32_E32:
  case Op::V_ASHRREV_I32_E64:
    return n2(x, T::B32, T::B32, R::B32, [](u32 a, u32 b) { return u32(i32(b) >> (a & 31)); });
  case Op::V_LSHLREV_B64:
    return w2(x, T::B32, T::B64, R::B64, [](u64 a, u64 b) { return b << (a & 63); });
  case Op::V_LSHRREV_B64:
    return w2(x, T::B32, T::B64, R::B64, [](u64 a, u64 b) { return b >> (a & 63); });
  case Op::V_ASHRREV_I64:
    return w2(x, T::B32, T::B64, R::B64, [](u64 a, u64 b) { return u64(i64(b) >> (a & 63)); });
  case Op::V_BFE_U32_E64:
    return n3(x, T::B32, T::B32, T::B32, R::B32, [](u32 a, u32 b, u32 c) {
      u32 w = c & 31;
      return (a >> (b & 31)) & ((1u << w) - 1);
    });
  case Op::V_BFE_I32_E64:
    return n3(x, T::B32, T::B32, T::B32, R::B32, [](u32 a, u32 b, u32 c) {
      u32 w = c & 31;
      if (w == 0)
        return 0u;
      u32 v = (a >> (b & 31)) & ((1u << w) - 1);
      return u32(i32(v << (32 - w)) >> (32 - w));
    });
  case Op::V_BFI_B32_E64:
    return n3(x, T::B32, T::B32, T::B32, R::B32,
              [](u32 a, u32 b, u32 c) { return (a & b) | (~a & c); });
  case Op::V_BFM_B32:
    return n2(x, T::B32, T::B32, R::B32,
              [](u32 a, u32 b) { return ((1u << (a & 31)) - 1) << (b & 31); });
  case Op::V_ALIGNBIT_B32_E64:
    return n3(x, T::B32, T::B32, T::B32, R::B32,
              [](u32 a, u32 b, u32 c) { return u32((((u64)a << 32) | b) >> (c & 31)); });
  case Op::V_ALIGNBYTE_B32_E64:
    return n3(x, T::B32, T::B32, T::B32, R::B32,
              [](u32 a, u32 b, u32 c) { return u32((((u64)a << 32) | b) >> ((c & 3) * 8)); });
  case Op::V_BITOP3_B32:
  case Op::V_BITOP3_B16: {
    // gfx950: a three-input truth table TTBL = {OMOD[1:0], ABS[2:0], NEG[2:0]}; bit
    // (s0<<2 | s1<<1 | s2) of TTBL is the result bit.
    u32 Ttbl = (In.Neg & 7) | ((In.Abs & 7) << 3) | ((In.Omod & 3) << 6);
    auto f = [Ttbl](u32 a, u32 b, u32 c) {
      u32 r = 0;
      for (unsigned k = 0; k < 8; ++k)
        if ((Ttbl >> k) & 1)
          r |= ((k & 4) ? a : ~a) & ((k & 2) ? b : ~b) & ((k & 1) ? c : ~c);
      return r;
    };
    if (In.Operation == Op::V_BITOP3_B16)
      return n3(x, T::B16, T::B16, T::B16, R::B16, f);
    return n3(x, T::B32, T::B32, T::B32, R::B32, f);
  }
  case Op::V_PERM_B32_E64: {
    // A selector the same on every lane (an SGPR or a constant, as compilers emit it): each
    // result byte is one shift of {a, b} and one mask, decided once, and the lane loop is a few
    // shifts (the same bytes as permByte's).
    const u32 *a = fetch32(x, 0, T::B32), *b = fetch32(x, 1, T::B32), *c = fetch32(x, 2, T::B32);
    // An SGPR or constant selector is uniform by its operand; a VGPR one is checked.
    bool Uniform = In.Src[2] < kVgprBase;
    if (!Uniform) {
      u32 Diff = 0;
      for (unsigned l = 0; l < kWaveSize; ++l)
        Diff |= c[l] ^ c[0];
      Uniform = Diff == 0;
    }
    if (Uniform) {
      // The two packings compilers emit for a pair of 16-bit halves (LLVM's build_vector of two
      // f16/bf16 is v_perm_b32 with 0x05040100): plain lane loops, which vectorize.
      if (c[0] == 0x05040100u)
        return loop3(x, a, b, c, R::B32,
                     [](u32 a, u32 b, u32) { return (b & 0xffffu) | (a << 16); });
      if (c[0] == 0x07060302u)
        return loop3(x, a, b, c, R::B32,
                     [](u32 a, u32 b, u32) { return (b >> 16) | (a & 0xffff0000u); });
      // Per result byte: which source (a or b), the shift, the mask (0xff a byte, 1 a sign
      // bit), the multiplier (0xff spreads a sign bit) and a constant (12: 0, 13+: 0xff).
      struct Pick {
        u32 FromA, Sh, Mask, Mul, Cst;
      };
      auto PickOf = [](u32 Sel) -> Pick {
        if (Sel < 8)
          return {Sel >> 2 & 1, 8 * (Sel & 3), 0xff, 1, 0};
        if (Sel < 12)
          return {Sel >> 1 & 1, 16 * (Sel & 1) + 15, 1, 0xff, 0};
        return {0, 0, 0, 0, Sel == 12 ? 0u : 0xffu};
      };
      const Pick p0 = PickOf(c[0] & 0xff), p1 = PickOf(c[0] >> 8 & 0xff),
                 p2 = PickOf(c[0] >> 16 & 0xff), p3 = PickOf(c[0] >> 24);
      return loop3(x, a, b, c, R::B32, [p0, p1, p2, p3](u32 a, u32 b, u32) {
        auto Byte = [a, b](const Pick &p) {
          return (((p.FromA ? a : b) >> p.Sh) & p.Mask) * p.Mul | p.Cst;
        };
        return Byte(p0) | Byte(p1) << 8 | Byte(p2) << 16 | Byte(p3) << 24;
      });
    }
    return loop3(x, a, b, c, R::B32, [](u32 a, u32 b, u32 c) {
      return permByte(a, b, c) | (permByte(a, b, c >> 8) << 8) | (permByte(a, b, c >> 16) << 16) |
             (permByte(a, b, c >> 24) << 24);
    });
  }
  case Op::V_BCNT_U32_B32:
    return n2(x, T::B32, T::B32, R::B32,
              [](u32 a, u32 b) { return u32(__builtin_popcount(a)) + b; });
  case Op::V_MBCNT_LO_U32_B32:
  case Op::V_MBCNT_HI_U32_B32: {
    const u32 *a = fetch32(x, 0, T::B32), *b = fetch32(x, 1, T::B32);
    bool Hi = In.Operation == Op::V_MBCNT_HI_U32_B32;
    for (unsigned l = 0; l < 64; ++l) {
      u64 Tm = (1ull << l) - 1;
      u32 m = Hi ? u32(Tm >> 32) : u32(Tm);
      x.R[l] = u32(__builtin_popcount(a[l] & m)) + b[l];
    }
    finish32(x, R::B32);
    return true;
  }
  case Op::V_CNDMASK_B32_E32:
  case Op::V_CNDMASK_B32_E64: {
    const u32 *a = fetch32(x, 0, T::F32), *b = fetch32(x, 1, T::F32);
    const u32 *c = maskRow(x, 2, readMask(x, In.Src[2]));
    return loop3(x, a, b, c, R::B32, [](u32 a, u32 b, u32 c) { return c ? b : a; });
  }

  // ---- SAD / LERP ---------------------------------------------------------------------------
  case Op::V_SAD_U8_E64:
    return n3(x, T::B32, T::B32, T::B32, R::B32, Fn<sadU8>{});
  case Op::V_SAD_HI_U8_E64:
    return n3(x, T::B32, T::B32, T::B32, R::B32,
              [](u32 a, u32 b, u32 c) { return (sadU8(a, b, 0) << 16) + c; });
  case Op::V_SAD_U16_E64:
    return n3(x, T::B32, T::B32, T::B32, R::B32, [](u32 a, u32 b, u32 c) {
      return c + absdiff(a & 0xffff, b & 0xffff) + absdiff(a >> 16, b >> 16);
    });
  case Op::V_SAD_U32_E64:
    return n3(x, T::B32, T::B32, T::B32, R::B32,
              [](u32 a, u32 b, u32 c) { return absdiff(a, b) + c; });
  case Op::V_MSAD_U8_E64:
    return n3(x, T::B32, T::B32, T::B32, R::B32, [](u32 a, u32 b, u32 c) {
      for (unsigned i = 0; i < 32; i += 8)
        if ((b >> i) & 0xff)
          c += absdiff((a >> i) & 0xff, (b >> i) & 0xff);
      return c;
    });
  case Op::V_LERP_U8_E64:
    return n3(x, T::B32, T::B32, T::B32, R::B32, [](u32 a, u32 b, u32 c) {
      u32 t = 0;
      for (unsigned i = 0; i < 32; i += 8)
        t += (((a >> i) & 0xff) + ((b >> i) & 0xff) + ((c >> i) & 1)) >> 1 << i;
      return t;
    });

  // ---- 16-bit integer -----------------------------------------------------------------------
  case Op::V_ADD_U16_E32:
  case Op::V_ADD_U16_E64:
    if (Clamp)
      return n2(x, T::B16, T::B16, R::B16,
                [](u32 a, u32 b) { return satU16(i32(lo16(a) + lo16(b))); });
    return n2(x, T::B16, T::B16, R::B16, [](u32 a, u32 b) { return a + b; });
  case Op::V_SUB_U16_E32:
  case Op::V_SUB_U16_E64:
    if (Clamp)
      return n2(x, T::B16, T::B16, R::B16,
                [](u32 a, u32 b) { return satU16(i32(lo16(a)) - i32(lo16(b))); });
    return n2(x, T::B16, T::B16, R::B16, [](u32 a, u32 b) { return a - b; });
  case Op::V_SUBREV_U16_E32:
  case Op::V_SUBREV_U16_E64:
    if (Clamp)
      return n2(x, T::B16, T::B16, R::B16,
                [](u32 a, u32 b) { return satU16(i32(lo16(b)) - i32(lo16(a))); });
    return n2(x, T::B16, T::B16, R::B16, [](u32 a, u32 b) { return b - a; });
  case Op::V_ADD_I16:
    if (Clamp)
      return n2(x, T::B16, T::B16, R::B16P, [](u32 a, u32 b) { return satI16(sx16(a) + sx16(b)); });
    return n2(x, T::B16, T::B16, R::B16P, [](u32 a, u32 b) { return a + b; });
  case Op::V_SUB_I16:
    if (Clamp)
      return n2(x, T::B16, T::B16, R::B16P, [](u32 a, u32 b) { return satI16(sx16(a) - sx16(b)); });
    return n2(x, T::B16, T::B16, R::B16P, [](u32 a, u32 b) { return a - b; });
  case Op::V_MUL_LO_U16_E32:
  case Op::V_MUL_LO_U16_E64:
    return n2(x, T::B16, T::B16, R::B16, [](u32 a, u32 b) { return lo16(a) * lo16(b); });
  case Op::V_MAD_U16:
  case Op::V_MAD_LEGACY_U16_E64: {
    R Res = In.Operation == Op::V_MAD_U16 ? R::B16P : R::B16;
    if (Clamp)
      return n3(x, T::B16, T::B16, T::B16, Res, [](u32 a, u32 b, u32 c) {
        return satU16(i32(std::min<u32>(lo16(a) * lo16(b) + lo16(c), 0x10000)));
      });
    return n3(x, T::B16, T::B16, T::B16, Res, [](u32 a, u32 b, u32 c) { return a * b + c; });
  }
  case Op::V_MAD_I16:
  case Op::V_MAD_LEGACY_I16_E64: {
    R Res = In.Operation == Op::V_MAD_I16 ? R::B16P : R::B16;
    if (Clamp)
      return n3(x, T::B16, T::B16, T::B16, Res,
                [](u32 a, u32 b, u32 c) { return satI16(sx16(a) * sx16(b) + sx16(c)); });
    return n3(x, T::B16, T::B16, T::B16, Res, [](u32 a, u32 b, u32 c) { return a * b + c; });
  }
  case Op::V_LSHLREV_B16_E32:
  case Op::V_LSHLREV_B16_E64:
    return n2(x, T::B16, T::B16, R::B16, [](u32 a, u32 b) { return b << (a & 15); });
  case Op::V_LSHRREV_B16_E32:
  case Op::V_LSHRREV_B16_E64:
    return n2(x, T::B16, T::B16, R::B16, [](u32 a, u32 b) { return lo16(b) >> (a & 15); });
  case Op::V_ASHRREV_I16_E32:
  case Op::V_ASHRREV_I16_E64:
    return n2(x, T::B16, T::B16, R::B16, [](u32 a, u32 b) { return u32(sx16(b) >> (a & 15)); });
  case Op::V_MIN_I16_E32:
  case Op::V_MIN_I16_E64:
    return n2(x, T::B16, T::B16, R::B16, [](u32 a, u32 b) { return sx16(a) < sx16(b) ? a : b; });
  case Op::V_MAX_I16_E32:
  case Op::V_MAX_I16_E64:
    return n2(x, T::B16, T::B16, R::B16, [](u32 a, u32 b) { return sx16(a) > sx16(b) ? a : b; });
  case Op::V_MIN_U16_E32:
  case Op::V_MIN_U16_E64:
    return n2(x, T::B16, T::B16, R::B16, [](u32 a, u32 b) { return lo16(a) < lo16(b) ? a : b; });
  case Op::V_MAX_U16_E32:
  case Op::V_MAX_U16_E64:
    return n2(x, T::B16, T::B16, R::B16, [](u32 a, u32 b) { return lo16(a) > lo16(b) ? a : b; });
  case Op::V_MIN3_I16_E64:
    return n3(x, T::B16, T::B16, T::B16, R::B16P, [](u32 a, u32 b, u32 c) {
      return u32(std::min(std::min(sx16(a), sx16(b)), sx16(c)));
    });
  case Op::V_MAX3_I16_E64:
    return n3(x, T::B16, T::B16, T::B16, R::B16P, [](u32 a, u32 b, u32 c) {
      return u32(std::max(std::max(sx16(a), sx16(b)), sx16(c)));
    });
  case Op::V_MED3_I16_E64:
    return n3(x, T::B16, T::B16, T::B16, R::B16P,
              [](u32 a, u32 b, u32 c) { return u32(med3(sx16(a), sx16(b), sx16(c))); });
  case Op::V_MIN3_U16_E64:
    return n3(x, T::B16, T::B16, T::B16, R::B16P,
              [](u32 a, u32 b, u32 c) { return std::min(std::min(lo16(a), lo16(b)), lo16(c)); });
  case Op::V_MAX3_U16_E64:
    return n3(x, T::B16, T::B16, T::B16, R::B16P,
              [](u32 a, u32 b, u32 c) { return std::max(std::max(lo16(a), lo16(b)), lo16(c)); });
  case Op::V_MED3_U16_E64:
    return n3(x, T::B16, T::B16, T::B16, R::B16P,
              [](u32 a, u32 b, u32 c) { return med3(lo16(a), lo16(b), lo16(c)); });
  case Op::V_CVT_PK_I16_I32:
    return n2(x, T::B32, T::B32, R::B32, [](u32 a, u32 b) {
      auto s = [](u32 v) { return u32(u16(i16(std::max(-32768, std::min(32767, i32(v)))))); };
      return s(a) | (s(b) << 16);
    });
  case Op::V_CVT_PK_U16_U32:
    return n2(x, T::B32, T::B32, R::B32,
              [](u32 a, u32 b) { return std::min(a, 0xffffu) | (std::min(b, 0xffffu) << 16); });
  case Op::V_PACK_B32_F16:
    return n2(x, T::F16, T::F16, R::B32, [](u32 a, u32 b) { return lo16(a) | (lo16(b) << 16); });

  // ---- lane-crossing ------------------------------------------------------------------------
  case Op::V_READLANE_B32: {
    if (!isVgprCode(In.Src[0]) && !isAgprCode(In.Src[0]))
      return false;
    u32 Lane = readScalar32(x.W, In, In.Src[1], OpType::B32) & 63;
    writeScalar32(x.W, In.Dst, x.W.vrowOf(In.Src[0])[Lane]);
    return true;
  }
  case Op::V_READFIRSTLANE_B32_E32:
  case Op::V_READFIRSTLANE_B32_E64: {
    u64 e = x.W.exec();
    unsigned Lane = e ? unsigned(__builtin_ctzll(e)) : 0;
    u32 v = In.Src[0] >= kVgprBase ? x.W.vrowOf(In.Src[0])[Lane]
                                   : readScalar32(x.W, In, In.Src[0], OpType::B32);
    writeScalar32(x.W, In.Dst, v);
    return true;
  }
  case Op::V_WRITELANE_B32: {
    u32 v = readScalar32(x.W, In, In.Src[0], OpType::B32);
    u32 Lane = readScalar32(x.W, In, In.Src[1], OpType::B32) & 63;
    dstRow(x)[Lane] = v;
    return true;
  }
  case Op::V_SWAP_B32_E32:
  case Op::V_SWAP_B32_E64: {
    if (!isVgprCode(In.Src[0]))
      return false;
    u32 *a = dstRow(x), *b = x.W.vrowOf(In.Src[0]);
    for (unsigned l = 0; l < 64; ++l)
      if ((x.Exec >> l) & 1)
        std::swap(a[l], b[l]);
    return true;
  }
  case Op::V_PERMLANE16_SWAP_B32_E32:
  case Op::V_PERMLANE16_SWAP_B32_E64:
  case Op::V_PERMLANE32_SWAP_B32_E32:
  case Op::V_PERMLANE32_SWAP_B32_E64: {
    // gfx950: swap the odd rows of vdst with the even rows of src0 (16), or the upper half of
    // vdst with the lower half of src0 (32).
    if (!isVgprCode(In.Src[0]))
      return false;
    bool P32 = In.Operation == Op::V_PERMLANE32_SWAP_B32_E32 ||
               In.Operation == Op::V_PERMLANE32_SWAP_B32_E64;
    u32 *Vd = dstRow(x), *Vs = x.W.vrowOf(In.Src[0]);
    // As the ISA pseudocode has it: no EXEC test.
    for (unsigned Pass = 0; Pass < (P32 ? 1u : 2u); ++Pass)
      for (unsigned i = 0; i < (P32 ? 32u : 16u); ++i) {
        unsigned Dl = P32 ? 32 + i : Pass * 32 + 16 + i; // vdst lane
        unsigned Sl = P32 ? i : Pass * 32 + i;           // src0 lane
        std::swap(Vd[Dl], Vs[Sl]);
      }
    return true;
  }
  case Op::V_NOP_E32:
  case Op::V_NOP_E64:
  case Op::V_CLREXCP_E32:
  case Op::V_CLREXCP_E64:
    return true;
  default:
    return false;
  }
}

} // namespace vec

namespace {

// Which of the executors runs an op: integerOp, execVectorFp8, the float ops or the compares.
// Every op belongs to at most one of them (vector_test's OneExecutorPerOp checks it), so the
// chain in execVectorInst need run only until an op is first seen to run; after that the
// executor that ran it is called directly. The table belongs to the ops, not to a dispatch:
// threads share it through relaxed atomics, and each entry is either unknown or the one answer.
enum class Owner : uint8_t { Unknown, Integer, Fp8, Float, Compare };
std::atomic<uint8_t> GOwner[size_t(Op::Count)];

// One VOP1/VOP2/VOPC/VOP3 instruction (in its plain, DPP or SDWA form).
bool execVectorInst(ExecCtx &c, const Inst &In) {
  using namespace vec;
  VX x(c, In);
  x.Exec = c.W.exec();
  x.Vop3 = In.Encoding == Enc::VOP3;
  x.Dpp = !x.Vop3 && In.Form == VForm::Dpp;
  x.Sdwa = !x.Vop3 && In.Form == VForm::Sdwa;
  if (x.Dpp)
    setupDpp(x);
  // Round/denormal fields other than the compiled-kernel default: the moded float path, which
  // runs the float ops and the compares.
  const bool Moded = !fpmode::isDefault(c.W.Mode);
  // The float ops under that MODE, then the compares (whose moded inputs VX::ftzIn flushes).
  auto RunModed = [&x] { return execVectorModed(x) || execVectorCompare(x); };
  std::atomic<uint8_t> &Learned = GOwner[size_t(In.Operation)];
  switch (Owner(Learned.load(std::memory_order_relaxed))) {
  case Owner::Integer:
    return integerOp(x);
  case Owner::Fp8:
    return execVectorFp8(x);
  case Owner::Float:
    return Moded ? RunModed() : execVectorFloat(x);
  case Owner::Compare:
    return Moded ? RunModed() : execVectorCompare(x);
  case Owner::Unknown:
    break;
  }
  auto Learn = [&Learned](Owner o) {
    Learned.store(uint8_t(o), std::memory_order_relaxed);
    return true;
  };
  if (integerOp(x))
    return Learn(Owner::Integer);
  if (execVectorFp8(x))
    return Learn(Owner::Fp8);
  if (Moded)
    return RunModed(); // float or compare: learned when one runs in the default mode
  if (execVectorFloat(x))
    return Learn(Owner::Float);
  return execVectorCompare(x) && Learn(Owner::Compare);
}

// v_fmamk/v_madmk (S0 * K + S1) and v_fmaak/v_madak (S0 * S1 + K): K is the literal; the other
// two operands are staged as src0 and src1 whichever slot the decoder used for K. A separate
// function, so that the common path does not set up an Inst copy.
[[gnu::noinline]] bool execVectorKForm(ExecCtx &c, const Inst &In) {
  Inst Kin = In;
  if (Kin.Src[1] == kLiteralCode)
    Kin.Src[1] = Kin.Src[2];
  Kin.Src[2] = kNoOperand;
  return execVectorInst(c, Kin);
}

} // namespace

bool execVector(ExecCtx &c, const Inst &In) {
  if (In.Encoding != Enc::VOP1 && In.Encoding != Enc::VOP2 && In.Encoding != Enc::VOPC &&
      In.Encoding != Enc::VOP3)
    return false;
  if (In.Operation == Op::V_FMAMK_F32_E32 || In.Operation == Op::V_MADMK_F16_E32 ||
      In.Operation == Op::V_FMAAK_F32_E32 || In.Operation == Op::V_MADAK_F16_E32 ||
      In.Operation == Op::V_MADMK_F32_E32 || In.Operation == Op::V_MADAK_F32_E32)
    return execVectorKForm(c, In);
  return execVectorInst(c, In);
}

} // namespace asmevo::emu
