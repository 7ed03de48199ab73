// Scalar ALU and program control: SOP1, SOP2, SOPK, SOPC, SOPP, as the ISA's pseudocode says.
// SOPK instructions keep their SGPR operand (destination or compared source) in in.dst.
#include "emu/EmuError.h"
#include "emu/Exec.h"

#include <cstdio>
#include <string>

namespace asmevo::emu {

namespace {

inline int32_t sext16(int32_t v) { return int32_t(int16_t(uint16_t(v))); }
inline uint32_t zext16(int32_t v) { return uint32_t(uint16_t(v)); }

uint32_t s32(ExecCtx &c, const Inst &In, int i) {
  return readScalar32(c.W, In, In.Src[i], OpType::B32);
}
uint64_t s64(ExecCtx &c, const Inst &In, int i) {
  return readScalar64(c.W, In, In.Src[i], OpType::B64);
}
void d32(ExecCtx &c, const Inst &In, uint32_t v) { writeScalar32(c.W, In.Dst, v); }
void d64(ExecCtx &c, const Inst &In, uint64_t v) { writeScalar64(c.W, In.Dst, v); }

uint32_t brev32(uint32_t x) {
  x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
  x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
  x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
  x = ((x >> 8) & 0x00ff00ffu) | ((x & 0x00ff00ffu) << 8);
  return (x >> 16) | (x << 16);
}

// Hardware registers readable with s_getreg / writable with s_setreg.
enum HwReg : unsigned {
  HwMode = 1,
  HwStatus = 2,
  HwTrapsts = 3,
  HwHwId = 4,
  HwGprAlloc = 5,
  HwLdsAlloc = 6,
  HwIbSts = 7,
  HwXccId = 20
};

bool readHwReg(ExecCtx &c, unsigned Id, uint32_t &Value) {
  switch (Id) {
  case HwMode:
    Value = c.W.Mode;
    return true;
  case HwStatus:
    // SCC (bit 0), EXECZ (bit 9), VCCZ (bit 10), IN_BARRIER (bit 11) are the ones a program
    // can observe; the emulator reports those.
    Value = uint32_t(c.W.Scc) | (uint32_t(c.W.exec() == 0) << 9) | (uint32_t(c.W.vcc() == 0) << 10);
    return true;
  case HwTrapsts:
    Value = c.W.Trapsts;
    return true;
  case HwHwId:
    // WAVE_ID 3:0, SIMD_ID 5:4, CU_ID 11:8 ...: the emulator reports wave slot and SIMD of a
    // one-CU device.
    Value = (c.W.WaveInGroup & 0xf) | ((c.W.WaveInGroup & 3) << 4);
    return true;
  case HwXccId:
    Value = 0;
    return true;
  default:
    return false;
  }
}

bool writeHwReg(ExecCtx &c, unsigned Id, uint32_t Value, uint32_t Mask) {
  switch (Id) {
  case HwMode:
    c.W.Mode = (c.W.Mode & ~Mask) | (Value & Mask);
    return true;
  case HwTrapsts:
    c.W.Trapsts = (c.W.Trapsts & ~Mask) | (Value & Mask);
    return true;
  default:
    return false;
  }
}

bool execSop2(ExecCtx &c, const Inst &in) {
  WaveState &w = c.W;
  switch (in.Operation) {
  case Op::S_ADD_U32: {
    uint64_t t = uint64_t(s32(c, in, 0)) + s32(c, in, 1);
    d32(c, in, uint32_t(t));
    w.Scc = t >> 32;
    return true;
  }
  case Op::S_SUB_U32: {
    uint32_t a = s32(c, in, 0), b = s32(c, in, 1);
    d32(c, in, a - b);
    w.Scc = b > a;
    return true;
  }
  case Op::S_ADDC_U32: {
    uint64_t t = uint64_t(s32(c, in, 0)) + s32(c, in, 1) + (w.Scc ? 1 : 0);
    d32(c, in, uint32_t(t));
    w.Scc = t >> 32;
    return true;
  }
  case Op::S_SUBB_U32: {
    uint64_t a = s32(c, in, 0), b = uint64_t(s32(c, in, 1)) + (w.Scc ? 1 : 0);
    d32(c, in, uint32_t(a - b));
    w.Scc = b > a;
    return true;
  }
  case Op::S_ADD_I32:
  case Op::S_SUB_I32: {
    uint32_t a = s32(c, in, 0), b = s32(c, in, 1);
    uint32_t r = in.Operation == Op::S_ADD_I32 ? a + b : a - b;
    d32(c, in, r);
    uint32_t Bs = in.Operation == Op::S_ADD_I32 ? b : ~b;
    w.Scc = ((a >> 31) == (Bs >> 31)) && ((a >> 31) != (r >> 31));
    return true;
  }
  case Op::S_MIN_I32:
  case Op::S_MAX_I32: {
    int32_t a = int32_t(s32(c, in, 0)), b = int32_t(s32(c, in, 1));
    bool PickA = in.Operation == Op::S_MIN_I32 ? a < b : a > b;
    w.Scc = PickA;
    d32(c, in, uint32_t(PickA ? a : b));
    return true;
  }
  case Op::S_MIN_U32:
  case Op::S_MAX_U32: {
    uint32_t a = s32(c, in, 0), b = s32(c, in, 1);
    bool PickA = in.Operation == Op::S_MIN_U32 ? a < b : a > b;
    w.Scc = PickA;
    d32(c, in, PickA ? a : b);
    return true;
  }
  case Op::S_CSELECT_B32:
    d32(c, in, w.Scc ? s32(c, in, 0) : s32(c, in, 1));
    return true;
  case Op::S_CSELECT_B64:
    d64(c, in, w.Scc ? s64(c, in, 0) : s64(c, in, 1));
    return true;
#define BIN32(OPC, EXPR)                                                                           \
  case Op::OPC: {                                                                                  \
    uint32_t a = s32(c, in, 0), b = s32(c, in, 1);                                                 \
    uint32_t r = (EXPR);                                                                           \
    d32(c, in, r);                                                                                 \
    w.Scc = r != 0;                                                                                \
    return true;                                                                                   \
  }
#define BIN64(OPC, EXPR)                                                                           \
  case Op::OPC: {                                                                                  \
    uint64_t a = s64(c, in, 0), b = s64(c, in, 1);                                                 \
    uint64_t r = (EXPR);                                                                           \
    d64(c, in, r);                                                                                 \
    w.Scc = r != 0;                                                                                \
    return true;                                                                                   \
  }
    BIN32(S_AND_B32, a & b)
    BIN32(S_OR_B32, a | b)
    BIN32(S_XOR_B32, a ^ b)
    BIN32(S_ANDN2_B32, a & ~b)
    BIN32(S_ORN2_B32, a | ~b)
    BIN32(S_NAND_B32, ~(a & b))
    BIN32(S_NOR_B32, ~(a | b))
    BIN32(S_XNOR_B32, ~(a ^ b))
    BIN64(S_AND_B64, a & b)
    BIN64(S_OR_B64, a | b)
    BIN64(S_XOR_B64, a ^ b)
    BIN64(S_ANDN2_B64, a & ~b)
    BIN64(S_ORN2_B64, a | ~b)
    BIN64(S_NAND_B64, ~(a & b))
    BIN64(S_NOR_B64, ~(a | b))
    BIN64(S_XNOR_B64, ~(a ^ b))
    BIN32(S_LSHL_B32, a << (b & 31))
    BIN32(S_LSHR_B32, a >> (b & 31))
    BIN32(S_ASHR_I32, uint32_t(int32_t(a) >> (b & 31)))
    BIN32(S_ABSDIFF_I32, uint32_t(int32_t(a - b) < 0 ? -(a - b) : (a - b)))
#undef BIN32
#undef BIN64
  case Op::S_LSHL_B64: {
    uint64_t r = s64(c, in, 0) << (s32(c, in, 1) & 63);
    d64(c, in, r);
    w.Scc = r != 0;
    return true;
  }
  case Op::S_LSHR_B64: {
    uint64_t r = s64(c, in, 0) >> (s32(c, in, 1) & 63);
    d64(c, in, r);
    w.Scc = r != 0;
    return true;
  }
  case Op::S_ASHR_I64: {
    uint64_t r = uint64_t(int64_t(s64(c, in, 0)) >> (s32(c, in, 1) & 63));
    d64(c, in, r);
    w.Scc = r != 0;
    return true;
  }
  case Op::S_BFM_B32: {
    uint32_t a = s32(c, in, 0) & 31, b = s32(c, in, 1) & 31;
    d32(c, in, uint32_t(((1ull << a) - 1) << b));
    return true;
  }
  case Op::S_BFM_B64: {
    uint32_t a = s32(c, in, 0) & 63, b = s32(c, in, 1) & 63;
    uint64_t m = a == 0 ? 0 : (~0ull >> (64 - a));
    d64(c, in, m << b);
    return true;
  }
  case Op::S_MUL_I32:
    d32(c, in, s32(c, in, 0) * s32(c, in, 1));
    return true;
  case Op::S_MUL_HI_U32:
    d32(c, in, uint32_t((uint64_t(s32(c, in, 0)) * s32(c, in, 1)) >> 32));
    return true;
  case Op::S_MUL_HI_I32:
    d32(c, in,
        uint32_t(uint64_t(int64_t(int32_t(s32(c, in, 0))) * int64_t(int32_t(s32(c, in, 1)))) >>
                 32));
    return true;
  case Op::S_BFE_U32:
  case Op::S_BFE_I32: {
    uint32_t a = s32(c, in, 0), b = s32(c, in, 1);
    unsigned Off = b & 31, Width = (b >> 16) & 0x7f;
    uint32_t r;
    if (Width == 0) {
      r = 0;
    } else {
      uint64_t Field = (uint64_t(a) >> Off) & (Width >= 32 ? 0xffffffffull : ((1ull << Width) - 1));
      r = uint32_t(Field);
      if (in.Operation == Op::S_BFE_I32 && Width < 32 && (Field >> (Width - 1)) & 1)
        r |= ~uint32_t((1ull << Width) - 1);
    }
    d32(c, in, r);
    w.Scc = r != 0;
    return true;
  }
  case Op::S_BFE_U64:
  case Op::S_BFE_I64: {
    uint64_t a = s64(c, in, 0);
    uint32_t b = s32(c, in, 1);
    unsigned Off = b & 63, Width = (b >> 16) & 0x7f;
    uint64_t r;
    if (Width == 0) {
      r = 0;
    } else {
      uint64_t Mask = Width >= 64 ? ~0ull : ((1ull << Width) - 1);
      r = (a >> Off) & Mask;
      if (in.Operation == Op::S_BFE_I64 && Width < 64 && (r >> (Width - 1)) & 1)
        r |= ~Mask;
    }
    d64(c, in, r);
    w.Scc = r != 0;
    return true;
  }
  case Op::S_LSHL1_ADD_U32:
  case Op::S_LSHL2_ADD_U32:
  case Op::S_LSHL3_ADD_U32:
  case Op::S_LSHL4_ADD_U32: {
    unsigned Sh = in.Operation == Op::S_LSHL1_ADD_U32   ? 1
                  : in.Operation == Op::S_LSHL2_ADD_U32 ? 2
                  : in.Operation == Op::S_LSHL3_ADD_U32 ? 3
                                                        : 4;
    uint64_t t = (uint64_t(s32(c, in, 0)) << Sh) + s32(c, in, 1);
    d32(c, in, uint32_t(t));
    w.Scc = t >= 0x100000000ull;
    return true;
  }
  case Op::S_PACK_LL_B32_B16:
    d32(c, in, (s32(c, in, 0) & 0xffff) | (s32(c, in, 1) << 16));
    return true;
  case Op::S_PACK_LH_B32_B16:
    d32(c, in, (s32(c, in, 0) & 0xffff) | (s32(c, in, 1) & 0xffff0000u));
    return true;
  case Op::S_PACK_HH_B32_B16:
    d32(c, in, (s32(c, in, 0) >> 16) | (s32(c, in, 1) & 0xffff0000u));
    return true;
  default:
    return false;
  }
}

bool execSop1(ExecCtx &c, const Inst &In) {
  WaveState &w = c.W;
  switch (In.Operation) {
  case Op::S_SET_GPR_IDX_IDX: // M0[7:0] = S0[7:0]
    w.S[kM0] = (w.S[kM0] & ~0xffu) | (s32(c, In, 0) & 0xffu);
    return true;
  case Op::S_MOV_B32:
    d32(c, In, s32(c, In, 0));
    return true;
  case Op::S_MOV_B64:
    d64(c, In, s64(c, In, 0));
    return true;
  case Op::S_CMOV_B32:
    if (w.Scc)
      d32(c, In, s32(c, In, 0));
    return true;
  case Op::S_CMOV_B64:
    if (w.Scc)
      d64(c, In, s64(c, In, 0));
    return true;
  case Op::S_NOT_B32: {
    uint32_t r = ~s32(c, In, 0);
    d32(c, In, r);
    w.Scc = r != 0;
    return true;
  }
  case Op::S_NOT_B64: {
    uint64_t r = ~s64(c, In, 0);
    d64(c, In, r);
    w.Scc = r != 0;
    return true;
  }
  case Op::S_WQM_B32:
  case Op::S_WQM_B64: {
    uint64_t a = In.Operation == Op::S_WQM_B32 ? s32(c, In, 0) : s64(c, In, 0), r = 0;
    for (unsigned i = 0; i < 64; i += 4)
      if ((a >> i) & 0xf)
        r |= 0xfull << i;
    if (In.Operation == Op::S_WQM_B32)
      d32(c, In, uint32_t(r));
    else
      d64(c, In, r);
    w.Scc = r != 0;
    return true;
  }
  case Op::S_QUADMASK_B32:
  case Op::S_QUADMASK_B64: {
    uint64_t a = In.Operation == Op::S_QUADMASK_B32 ? s32(c, In, 0) : s64(c, In, 0), r = 0;
    for (unsigned i = 0; i < 16; ++i)
      if ((a >> (i * 4)) & 0xf)
        r |= 1ull << i;
    if (In.Operation == Op::S_QUADMASK_B32)
      d32(c, In, uint32_t(r));
    else
      d64(c, In, r);
    w.Scc = r != 0;
    return true;
  }
  case Op::S_BREV_B32:
    d32(c, In, brev32(s32(c, In, 0)));
    return true;
  case Op::S_BREV_B64: {
    uint64_t a = s64(c, In, 0);
    d64(c, In, (uint64_t(brev32(uint32_t(a))) << 32) | brev32(uint32_t(a >> 32)));
    return true;
  }
  case Op::S_BCNT0_I32_B32:
  case Op::S_BCNT1_I32_B32:
  case Op::S_BCNT0_I32_B64:
  case Op::S_BCNT1_I32_B64: {
    bool Is64 = In.Operation == Op::S_BCNT0_I32_B64 || In.Operation == Op::S_BCNT1_I32_B64;
    uint64_t a = Is64 ? s64(c, In, 0) : s32(c, In, 0);
    unsigned Ones = unsigned(__builtin_popcountll(a));
    uint32_t r = (In.Operation == Op::S_BCNT1_I32_B32 || In.Operation == Op::S_BCNT1_I32_B64)
                     ? Ones
                     : (Is64 ? 64 : 32) - Ones;
    d32(c, In, r);
    w.Scc = r != 0;
    return true;
  }
  case Op::S_FF0_I32_B32:
  case Op::S_FF1_I32_B32:
  case Op::S_FF0_I32_B64:
  case Op::S_FF1_I32_B64: {
    bool Is64 = In.Operation == Op::S_FF0_I32_B64 || In.Operation == Op::S_FF1_I32_B64;
    uint64_t a = Is64 ? s64(c, In, 0) : s32(c, In, 0);
    if (In.Operation == Op::S_FF0_I32_B32 || In.Operation == Op::S_FF0_I32_B64)
      a = ~a;
    if (!Is64)
      a &= 0xffffffffull;
    d32(c, In, a ? uint32_t(__builtin_ctzll(a)) : 0xffffffffu);
    return true;
  }
  case Op::S_FLBIT_I32_B32:
  case Op::S_FLBIT_I32: {
    uint32_t a = s32(c, In, 0);
    d32(c, In, a ? uint32_t(__builtin_clz(a)) : 0xffffffffu);
    return true;
  }
  case Op::S_FLBIT_I32_B64: {
    uint64_t a = s64(c, In, 0);
    d32(c, In, a ? uint32_t(__builtin_clzll(a)) : 0xffffffffu);
    return true;
  }
  case Op::S_FLBIT_I32_I64: {
    uint64_t a = s64(c, In, 0);
    if (a >> 63)
      a = ~a;
    d32(c, In, a ? uint32_t(__builtin_clzll(a)) - 1 : 0xffffffffu);
    return true;
  }
  case Op::S_SEXT_I32_I8:
    d32(c, In, uint32_t(int32_t(int8_t(uint8_t(s32(c, In, 0))))));
    return true;
  case Op::S_SEXT_I32_I16:
    d32(c, In, uint32_t(int32_t(int16_t(uint16_t(s32(c, In, 0))))));
    return true;
  case Op::S_BITSET0_B32:
    d32(c, In, w.S[In.Dst] & ~(1u << (s32(c, In, 0) & 31)));
    return true;
  case Op::S_BITSET1_B32:
    d32(c, In, w.S[In.Dst] | (1u << (s32(c, In, 0) & 31)));
    return true;
  case Op::S_BITSET0_B64:
    d64(c, In, readScalar64(w, In, In.Dst, OpType::B64) & ~(1ull << (s32(c, In, 0) & 63)));
    return true;
  case Op::S_BITSET1_B64:
    d64(c, In, readScalar64(w, In, In.Dst, OpType::B64) | (1ull << (s32(c, In, 0) & 63)));
    return true;
  case Op::S_ABS_I32: {
    int32_t a = int32_t(s32(c, In, 0));
    uint32_t r = a < 0 ? 0u - uint32_t(a) : uint32_t(a);
    d32(c, In, r);
    w.Scc = r != 0;
    return true;
  }
  case Op::S_BITREPLICATE_B64_B32: {
    uint32_t a = s32(c, In, 0);
    uint64_t r = 0;
    for (unsigned i = 0; i < 32; ++i)
      if ((a >> i) & 1)
        r |= 3ull << (2 * i);
    d64(c, In, r);
    return true;
  }
  case Op::S_GETPC_B64:
    d64(c, In, w.Pc);
    return true;
  case Op::S_SETPC_B64:
    w.Pc = s64(c, In, 0);
    return true;
  case Op::S_SWAPPC_B64: {
    uint64_t Target = s64(c, In, 0);
    d64(c, In, w.Pc);
    w.Pc = Target;
    return true;
  }
  case Op::S_MOVRELS_B32:
  case Op::S_MOVRELS_B64:
  case Op::S_MOVRELD_B32:
  case Op::S_MOVRELD_B64: {
    bool Is64 = In.Operation == Op::S_MOVRELS_B64 || In.Operation == Op::S_MOVRELD_B64;
    bool SrcRel = In.Operation == Op::S_MOVRELS_B32 || In.Operation == Op::S_MOVRELS_B64;
    uint32_t m0 = w.S[kM0];
    uint32_t SrcCode = In.Src[0], DstCode = In.Dst;
    if (SrcRel)
      SrcCode += m0;
    else
      DstCode += m0;
    unsigned Limit = Is64 ? 101 : 102;
    if (SrcCode > Limit || DstCode > Limit)
      throw EmuError(EmuErrorKind::IllegalInst,
                     "s_movrel index out of the SGPR file (M0 = " + std::to_string(m0) + ")");
    unsigned RelCode = SrcRel ? SrcCode : DstCode;
    if (RelCode + (Is64 ? 1 : 0) >= c.NumSgprs)
      throwRegisterFault('s', RelCode + (Is64 ? 1 : 0), c.NumSgprs, c.InstPc);
    if (Is64)
      writeScalar64(w, uint16_t(DstCode), readScalar64(w, In, uint16_t(SrcCode), OpType::B64));
    else
      writeScalar32(w, uint16_t(DstCode), w.S[SrcCode]);
    return true;
  }
  default:
    break;
  }
  // The save-exec family: D = EXEC; EXEC = f(S0, EXEC); SCC = EXEC != 0.
  uint64_t Exec = w.exec();
  uint64_t r;
  bool WriteD = true;
  switch (In.Operation) {
  case Op::S_AND_SAVEEXEC_B64:
    r = s64(c, In, 0) & Exec;
    break;
  case Op::S_OR_SAVEEXEC_B64:
    r = s64(c, In, 0) | Exec;
    break;
  case Op::S_XOR_SAVEEXEC_B64:
    r = s64(c, In, 0) ^ Exec;
    break;
  case Op::S_ANDN2_SAVEEXEC_B64:
    r = s64(c, In, 0) & ~Exec;
    break;
  case Op::S_ORN2_SAVEEXEC_B64:
    r = s64(c, In, 0) | ~Exec;
    break;
  case Op::S_NAND_SAVEEXEC_B64:
    r = ~(s64(c, In, 0) & Exec);
    break;
  case Op::S_NOR_SAVEEXEC_B64:
    r = ~(s64(c, In, 0) | Exec);
    break;
  case Op::S_XNOR_SAVEEXEC_B64:
    r = ~(s64(c, In, 0) ^ Exec);
    break;
  case Op::S_ANDN1_SAVEEXEC_B64:
    r = ~s64(c, In, 0) & Exec;
    break;
  case Op::S_ORN1_SAVEEXEC_B64:
    r = ~s64(c, In, 0) | Exec;
    break;
  case Op::S_ANDN1_WREXEC_B64:
    r = ~s64(c, In, 0) & Exec;
    WriteD = false;
    break;
  case Op::S_ANDN2_WREXEC_B64:
    r = s64(c, In, 0) & ~Exec;
    WriteD = false;
    break;
  default:
    return false;
  }
  if (WriteD)
    d64(c, In, Exec);
  w.setExec(r);
  if (!WriteD)
    d64(c, In, r);
  w.Scc = r != 0;
  return true;
}

bool execSopc(ExecCtx &c, const Inst &In) {
  WaveState &w = c.W;
  auto i0 = [&] { return int32_t(s32(c, In, 0)); };
  auto i1 = [&] { return int32_t(s32(c, In, 1)); };
  switch (In.Operation) {
  case Op::S_SETVSKIP: // VSKIP = S0.u32[S1.u32[4:0]]
    w.Mode = (w.Mode & ~kModeVskip) | (((s32(c, In, 0) >> (s32(c, In, 1) & 31u)) & 1u) << 28);
    return true;
  case Op::S_SET_GPR_IDX_ON: {
    // GPR_IDX_EN = 1; M0[7:0] = S0[7:0]; M0[15:12] = the raw SSRC1 field [3:0] (an immediate
    // mask, not a register); the other M0 bits are kept.
    if (In.Src[1] == kNoOperand)
      return false;
    const uint32_t Mask = In.Src[1] & 0xfu;
    w.S[kM0] = (w.S[kM0] & ~0xf0ffu) | (s32(c, In, 0) & 0xffu) | (Mask << 12);
    w.Mode |= kModeGprIdxEn;
    return true;
  }
  case Op::S_CMP_EQ_I32:
    w.Scc = i0() == i1();
    return true;
  case Op::S_CMP_LG_I32:
    w.Scc = i0() != i1();
    return true;
  case Op::S_CMP_GT_I32:
    w.Scc = i0() > i1();
    return true;
  case Op::S_CMP_GE_I32:
    w.Scc = i0() >= i1();
    return true;
  case Op::S_CMP_LT_I32:
    w.Scc = i0() < i1();
    return true;
  case Op::S_CMP_LE_I32:
    w.Scc = i0() <= i1();
    return true;
  case Op::S_CMP_EQ_U32:
    w.Scc = s32(c, In, 0) == s32(c, In, 1);
    return true;
  case Op::S_CMP_LG_U32:
    w.Scc = s32(c, In, 0) != s32(c, In, 1);
    return true;
  case Op::S_CMP_GT_U32:
    w.Scc = s32(c, In, 0) > s32(c, In, 1);
    return true;
  case Op::S_CMP_GE_U32:
    w.Scc = s32(c, In, 0) >= s32(c, In, 1);
    return true;
  case Op::S_CMP_LT_U32:
    w.Scc = s32(c, In, 0) < s32(c, In, 1);
    return true;
  case Op::S_CMP_LE_U32:
    w.Scc = s32(c, In, 0) <= s32(c, In, 1);
    return true;
  case Op::S_CMP_EQ_U64:
    w.Scc = s64(c, In, 0) == s64(c, In, 1);
    return true;
  case Op::S_CMP_LG_U64:
    w.Scc = s64(c, In, 0) != s64(c, In, 1);
    return true;
  case Op::S_BITCMP0_B32:
    w.Scc = ((s32(c, In, 0) >> (s32(c, In, 1) & 31)) & 1) == 0;
    return true;
  case Op::S_BITCMP1_B32:
    w.Scc = ((s32(c, In, 0) >> (s32(c, In, 1) & 31)) & 1) == 1;
    return true;
  case Op::S_BITCMP0_B64:
    w.Scc = ((s64(c, In, 0) >> (s32(c, In, 1) & 63)) & 1) == 0;
    return true;
  case Op::S_BITCMP1_B64:
    w.Scc = ((s64(c, In, 0) >> (s32(c, In, 1) & 63)) & 1) == 1;
    return true;
  default:
    return false;
  }
}

bool execSopk(ExecCtx &c, const Inst &In) {
  WaveState &w = c.W;
  int32_t Simm = sext16(In.Simm16);
  uint32_t Uimm = zext16(In.Simm16);
  auto Reg = [&] { return w.S[In.Dst]; };
  switch (In.Operation) {
  case Op::S_MOVK_I32:
    writeScalar32(w, In.Dst, uint32_t(Simm));
    return true;
  case Op::S_CMOVK_I32:
    if (w.Scc)
      writeScalar32(w, In.Dst, uint32_t(Simm));
    return true;
  case Op::S_CMPK_EQ_I32:
    w.Scc = int32_t(Reg()) == Simm;
    return true;
  case Op::S_CMPK_LG_I32:
    w.Scc = int32_t(Reg()) != Simm;
    return true;
  case Op::S_CMPK_GT_I32:
    w.Scc = int32_t(Reg()) > Simm;
    return true;
  case Op::S_CMPK_GE_I32:
    w.Scc = int32_t(Reg()) >= Simm;
    return true;
  case Op::S_CMPK_LT_I32:
    w.Scc = int32_t(Reg()) < Simm;
    return true;
  case Op::S_CMPK_LE_I32:
    w.Scc = int32_t(Reg()) <= Simm;
    return true;
  case Op::S_CMPK_EQ_U32:
    w.Scc = Reg() == Uimm;
    return true;
  case Op::S_CMPK_LG_U32:
    w.Scc = Reg() != Uimm;
    return true;
  case Op::S_CMPK_GT_U32:
    w.Scc = Reg() > Uimm;
    return true;
  case Op::S_CMPK_GE_U32:
    w.Scc = Reg() >= Uimm;
    return true;
  case Op::S_CMPK_LT_U32:
    w.Scc = Reg() < Uimm;
    return true;
  case Op::S_CMPK_LE_U32:
    w.Scc = Reg() <= Uimm;
    return true;
  case Op::S_ADDK_I32: {
    uint32_t a = Reg(), r = a + uint32_t(Simm);
    writeScalar32(w, In.Dst, r);
    w.Scc = ((a >> 31) == (uint32_t(Simm) >> 31)) && ((a >> 31) != (r >> 31));
    return true;
  }
  case Op::S_MULK_I32:
    writeScalar32(w, In.Dst, Reg() * uint32_t(Simm));
    return true;
  case Op::S_CALL_B64:
    writeScalar64(w, In.Dst, w.Pc);
    w.Pc = w.Pc + int64_t(Simm) * 4;
    return true;
  case Op::S_GETREG_B32:
  case Op::S_SETREG_B32:
  case Op::S_SETREG_IMM32_B32: {
    unsigned Id = Uimm & 0x3f, Offset = (Uimm >> 6) & 0x1f, Size = ((Uimm >> 11) & 0x1f) + 1;
    uint32_t FieldMask = Size >= 32 ? 0xffffffffu : ((1u << Size) - 1);
    if (In.Operation == Op::S_GETREG_B32) {
      uint32_t Value;
      if (!readHwReg(c, Id, Value))
        throwUnsupported("s_getreg_b32 of hardware register " + std::to_string(Id), c.InstPc);
      writeScalar32(w, In.Dst, (Value >> Offset) & FieldMask);
      return true;
    }
    uint32_t Src = In.Operation == Op::S_SETREG_B32 ? Reg() : In.Literal;
    uint32_t Mask = FieldMask << Offset;
    if (!writeHwReg(c, Id, Src << Offset, Mask))
      throwUnsupported("s_setreg of hardware register " + std::to_string(Id), c.InstPc);
    return true;
  }
  default:
    return false;
  }
}

bool execSopp(ExecCtx &c, const Inst &In) {
  WaveState &w = c.W;
  int64_t Target = int64_t(w.Pc) + int64_t(sext16(In.Simm16)) * 4;
  switch (In.Operation) {
  case Op::S_SET_GPR_IDX_OFF:
    w.Mode &= ~kModeGprIdxEn;
    return true;
  case Op::S_SET_GPR_IDX_MODE: // M0[15:12] = SIMM16[3:0]
    w.S[kM0] = (w.S[kM0] & ~0xf000u) | ((uint32_t(In.Simm16) & 0xfu) << 12);
    return true;
  case Op::S_WAITCNT:
    // Results are immediate in this model (see issue 6), except loads into LDS, which land
    // when a wait proves them complete. vmcnt: bits 3:0 and 15:14.
    if (!w.PendingLds.empty())
      landLdsWrites(c, (uint32_t(In.Simm16) & 0xf) | (((uint32_t(In.Simm16) >> 14) & 3) << 4));
    return true;
  case Op::S_NOP:
  case Op::S_SLEEP:
  case Op::S_ICACHE_INV:
  case Op::S_INCPERFLEVEL:
  case Op::S_DECPERFLEVEL:
  case Op::S_TTRACEDATA:
  case Op::S_SET_VALU_COEXEC_MODE:
    return true;
  case Op::S_SETPRIO:
    w.Priority = uint32_t(In.Simm16) & 3;
    return true;
  case Op::S_ENDPGM:
  case Op::S_ENDPGM_SAVED:
    landLdsWrites(c, 0);
    w.Done = true;
    return true;
  case Op::S_BARRIER:
    w.AtBarrier = true;
    return true;
  case Op::S_BRANCH:
    w.Pc = uint64_t(Target);
    return true;
  case Op::S_CBRANCH_SCC0:
    if (!w.Scc)
      w.Pc = uint64_t(Target);
    return true;
  case Op::S_CBRANCH_SCC1:
    if (w.Scc)
      w.Pc = uint64_t(Target);
    return true;
  case Op::S_CBRANCH_VCCZ:
    if (w.vcc() == 0)
      w.Pc = uint64_t(Target);
    return true;
  case Op::S_CBRANCH_VCCNZ:
    if (w.vcc() != 0)
      w.Pc = uint64_t(Target);
    return true;
  case Op::S_CBRANCH_EXECZ:
    if (w.exec() == 0)
      w.Pc = uint64_t(Target);
    return true;
  case Op::S_CBRANCH_EXECNZ:
    if (w.exec() != 0)
      w.Pc = uint64_t(Target);
    return true;
  case Op::S_TRAP: {
    char b[96];
    std::snprintf(b, sizeof(b), "the kernel executed s_trap %u at pc 0x%llx",
                  unsigned(In.Simm16 & 0xff), (unsigned long long)c.InstPc);
    throw EmuError(EmuErrorKind::Trap, b);
  }
  default:
    return false;
  }
}

} // namespace

bool execScalar(ExecCtx &c, const Inst &In) {
  switch (In.Encoding) {
  case Enc::SOP2:
    return execSop2(c, In);
  case Enc::SOP1:
    return execSop1(c, In);
  case Enc::SOPC:
    return execSopc(c, In);
  case Enc::SOPK:
    return execSopk(c, In);
  case Enc::SOPP:
    return execSopp(c, In);
  default:
    return false;
  }
}

} // namespace asmevo::emu
