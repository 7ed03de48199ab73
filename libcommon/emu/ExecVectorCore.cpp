// The vector ALU executor's operand staging and write-back (ExecVectorCore.h): DPP source
// lanes, operand fetch with inline constants, SDWA selects and VOP3 modifiers, result
// write-back with clamp/omod, 16-bit halves and SDWA destination selects, and lane masks. Every
// vector executor file (ExecVector*.cpp) calls these; none of them calls back.
#include "emu/ExecVectorCore.h"

#include "emu/Dpp.h"
#include "emu/LaneBlockCopy.h"

#include <string>

namespace asmevo::emu::vec {

alignas(64) const u64 kZeroRow64[64] = {};

// ---- DPP ------------------------------------------------------------------------------------
// Source lane of each lane (Dpp.h; -1: out of range). Lanes whose source is out of range or
// inactive read zero with bound_ctrl, else they are not written. row_mask/bank_mask disable
// writes of whole rows (16 lanes) / banks (lanes 4b..4b+3 of each row).
void setupDpp(VX &x) {
  const Inst &In = x.In;
  const unsigned Ctrl = In.DppCtrl;
  const int8_t *Src = dppSourceLanes(Ctrl);
  if (!Src)
    throw EmuError(EmuErrorKind::IllegalInst,
                   "reserved DPP control " + hexText(Ctrl) + " at pc " + hexText(x.C.InstPc));
  const u64 ExecIn = x.W.exec();
  // Lanes the row and bank masks let write.
  u64 Write = 0;
  for (unsigned r = 0; r < 4; ++r)
    if ((In.RowMask >> r) & 1)
      for (unsigned b = 0; b < 4; ++b)
        if ((In.BankMask >> b) & 1)
          Write |= 0xfull << (16 * r + 4 * b);
  if (ExecIn == ~0ull) { // every source lane active: the table is the answer
    std::memcpy(x.DppSrc, Src, sizeof(x.DppSrc));
    x.Exec &= Write & (In.BoundCtrl ? ~0ull : dppLanesWithSource(Ctrl));
    return;
  }
  u64 Keep = 0;
  for (unsigned l = 0; l < 64; ++l) {
    int s = Src[l];
    if (s >= 0 && !((ExecIn >> s) & 1))
      s = -1;
    x.DppSrc[l] = int8_t(s);
    const bool w = ((Write >> l) & 1) && (s >= 0 || In.BoundCtrl);
    Keep |= u64(w) << l;
  }
  x.Exec &= Keep;
}

static u32 *own(VX &x, int i, const u32 *p) {
  u32 *o = x.T[i];
  if (p != o)
    std::memcpy(o, p, sizeof(x.T[i]));
  return o;
}

const u32 *fetch32General(VX &x, int i, Ty t) {
  uint16_t Code = x.In.Src[i];
  if (t == Ty::N || Code == kNoOperand)
    return kZeroRow;
  const u32 *p = readVectorSrc32(x.W, x.In, Code, opType(t), x.T[i]);
  if (x.Dpp && i == 0) {
    u32 *o = x.T[i];
    if (p == o) { // a broadcast value: only the zero-reading lanes change
      for (unsigned l = 0; l < 64; ++l)
        if (x.DppSrc[l] < 0)
          o[l] = 0;
    } else {
      permuteLanes(p, x.DppSrc, o);
    }
    p = o;
  }
  if (x.Sdwa && i < 2) {
    unsigned Sel = x.In.SrcSel[i];
    bool Sx = (x.In.Sext >> i) & 1;
    if (Sel < 6) {
      u32 *o = own(x, i, p);
      unsigned Shift = Sel < 4 ? Sel * 8 : (Sel - 4) * 16;
      unsigned Bits = Sel < 4 ? 8 : 16;
      for (unsigned l = 0; l < 64; ++l) {
        u32 v = o[l] << (32 - Shift - Bits);
        o[l] = Sx ? u32(i32(v) >> (32 - Bits)) : v >> (32 - Bits);
      }
      p = o;
    } else if (Sel > 6) {
      throw EmuError(EmuErrorKind::IllegalInst, "reserved SDWA source select");
    }
  } else if (x.Vop3 && is16Ty(t) && ((x.In.Opsel >> i) & 1)) {
    u32 *o = own(x, i, p);
    for (unsigned l = 0; l < 64; ++l)
      o[l] >>= 16;
    p = o;
  }
  if (isFloatTy(t) && ((x.SrcMod >> i) & 1)) {
    u32 Sb = is16Ty(t) ? 0x8000u : 0x80000000u;
    u32 Andm = ((x.In.Abs >> i) & 1) ? ~Sb : ~0u;
    u32 Xorm = ((x.In.Neg >> i) & 1) ? Sb : 0u;
    u32 *o = own(x, i, p);
    if (Andm != ~0u || Xorm)
      for (unsigned l = 0; l < 64; ++l)
        o[l] = (o[l] & Andm) ^ Xorm;
    // Denormal inputs flushed (moded path): f32 by the single field, f16 by the double/half one.
    if (t == Ty::F32 && (x.FtzIn & 1)) {
      for (unsigned l = 0; l < 64; ++l)
        o[l] = fpmode::flush32(o[l]);
    } else if (t == Ty::F16 && (x.FtzIn & 2)) {
      for (unsigned l = 0; l < 64; ++l)
        o[l] = fpmode::flush16(o[l]);
    }
    p = o;
  }
  return p;
}

const u64 *fetch64(VX &x, int i, Ty t) {
  uint16_t Code = x.In.Src[i];
  if (t == Ty::N || Code == kNoOperand)
    return kZeroRow64;
  u64 *o = x.Q[i];
  if (!is64Ty(t)) {
    const u32 *p = fetch32(x, i, t);
    for (unsigned l = 0; l < 64; ++l)
      o[l] = p[l];
    return o;
  }
  if (Code >= kVgprBase) {
    const u32 *Lo = x.W.vrowOf(Code), *Hi = x.W.vrow(vectorIndex(Code) + 1);
    if (x.Dpp && i == 0) {
      for (unsigned l = 0; l < 64; ++l) {
        int s = x.DppSrc[l];
        o[l] = s >= 0 ? (Lo[s] | (u64(Hi[s]) << 32)) : 0;
      }
    } else {
      for (unsigned l = 0; l < 64; ++l)
        o[l] = Lo[l] | (u64(Hi[l]) << 32);
    }
  } else {
    u64 v = readScalar64(x.W, x.In, Code, opType(t));
    for (unsigned l = 0; l < 64; ++l)
      o[l] = v;
    if (x.Dpp && i == 0)
      for (unsigned l = 0; l < 64; ++l)
        if (x.DppSrc[l] < 0)
          o[l] = 0;
  }
  if (t == Ty::F64 && ((x.SrcMod >> i) & 1)) {
    u64 Sb = 1ull << 63;
    u64 Andm = ((x.In.Abs >> i) & 1) ? ~Sb : ~0ull;
    u64 Xorm = ((x.In.Neg >> i) & 1) ? Sb : 0ull;
    for (unsigned l = 0; l < 64; ++l)
      o[l] = (o[l] & Andm) ^ Xorm;
    if (x.FtzIn & 2)
      for (unsigned l = 0; l < 64; ++l)
        o[l] = fpmode::flush64(o[l]);
  }
  return o;
}

u32 *dstRow(VX &x) {
  uint16_t d = x.In.Dst;
  if (d < kVgprBase || d >= kAgprBase + 256)
    throw EmuError(EmuErrorKind::IllegalInst, "vector instruction " +
                                                  std::string(opName(x.In.Operation)) +
                                                  " has no vector destination");
  return x.W.vrowOf(d);
}

static inline bool dx10Clamp(const VX &x) { return (x.W.Mode >> 8) & 1; }

// Output modifiers: omod (1: *2, 2: *4, 3: /2) then clamp to [0, 1] (NaN -> 0 in DX10-clamp
// mode, the default for compute; else NaN stays).
static inline float applyOmodClamp(float v, unsigned Omod, bool Clamp, bool Dx10) {
  if (Omod == 1)
    v = v * 2.0f;
  else if (Omod == 2)
    v = v * 4.0f;
  else if (Omod == 3)
    v = v * 0.5f;
  if (Clamp) {
    if (v != v)
      v = Dx10 ? 0.0f : v;
    else
      v = v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v);
  }
  return v;
}

// The integer ops whose executors saturate under clamp (the ISA's integer clamp). Any other op
// with an integer result refuses clamp and omod rather than ignore them.
static bool saturatesItself(Op Op) {
  switch (Op) {
  case Op::V_ADD_U32_E32:
  case Op::V_ADD_U32_E64:
  case Op::V_SUB_U32_E32:
  case Op::V_SUB_U32_E64:
  case Op::V_SUBREV_U32_E32:
  case Op::V_SUBREV_U32_E64:
  case Op::V_ADD_I32:
  case Op::V_SUB_I32:
  case Op::V_ADD_CO_U32_E32:
  case Op::V_ADD_CO_U32:
  case Op::V_ADDC_CO_U32_E32:
  case Op::V_ADDC_CO_U32:
  case Op::V_SUB_CO_U32_E32:
  case Op::V_SUB_CO_U32:
  case Op::V_SUBREV_CO_U32_E32:
  case Op::V_SUBREV_CO_U32:
  case Op::V_SUBB_CO_U32_E32:
  case Op::V_SUBB_CO_U32:
  case Op::V_SUBBREV_CO_U32_E32:
  case Op::V_SUBBREV_CO_U32:
  case Op::V_ADD_U16_E32:
  case Op::V_ADD_U16_E64:
  case Op::V_SUB_U16_E32:
  case Op::V_SUB_U16_E64:
  case Op::V_SUBREV_U16_E32:
  case Op::V_SUBREV_U16_E64:
  case Op::V_ADD_I16:
  case Op::V_SUB_I16:
  case Op::V_MAD_U16:
  case Op::V_MAD_LEGACY_U16_E64:
  case Op::V_MAD_I16:
  case Op::V_MAD_LEGACY_I16_E64:
    return true;
  default:
    return false;
  }
}

[[noreturn]] static void refuseIntegerPost(const VX &x) {
  throw EmuError(EmuErrorKind::Unsupported,
                 "unsupported instruction " + std::string(opNameLower(x.In.Operation)) + " at pc " +
                     hexText(x.C.InstPc) +
                     ": clamp or an output modifier on this integer result (no saturation is "
                     "implemented for it)",
                 x.C.InstPc);
}

void finish32General(VX &x, R Res) {
  const Inst &In = x.In;
  u32 *r = x.R;
  // (gfx950's v_bitop3 keeps part of its truth table in the omod field: not a modifier.)
  const bool Omod = In.Omod && In.Operation != Op::V_BITOP3_B32 && In.Operation != Op::V_BITOP3_B16;
  if ((In.Clamp || Omod) && (Res == R::B32 || Res == R::B16 || Res == R::B16P) &&
      !saturatesItself(In.Operation))
    refuseIntegerPost(x);
  if (x.Post && (Res == R::F32 || Res == R::F16 || Res == R::F16P)) {
    bool Dx = dx10Clamp(x);
    if (In.Clamp || In.Omod) {
      if (Res == R::F32) {
        for (unsigned l = 0; l < 64; ++l)
          r[l] = outF32(applyOmodClamp(F(r[l]), In.Omod, In.Clamp, Dx));
      } else {
        for (unsigned l = 0; l < 64; ++l)
          r[l] = outF16(applyOmodClamp(H(r[l]), In.Omod, In.Clamp, Dx));
      }
    }
    // Denormal results flushed after rounding (moded path).
    if (Res == R::F32 && (x.FtzOut & 1)) {
      for (unsigned l = 0; l < 64; ++l)
        r[l] = fpmode::flush32(r[l]);
    } else if (Res != R::F32 && (x.FtzOut & 2)) {
      for (unsigned l = 0; l < 64; ++l)
        r[l] = fpmode::flush16(r[l]);
    }
  }
  u32 *d = dstRow(x);
  if (is16R(Res)) {
    if (x.Vop3 && (In.Opsel & 8)) {
      for (unsigned l = 0; l < 64; ++l)
        r[l] = (d[l] & 0xffffu) | (r[l] << 16);
    } else if (Res == R::B16P || Res == R::F16P) {
      for (unsigned l = 0; l < 64; ++l)
        r[l] = (d[l] & 0xffff0000u) | (r[l] & 0xffffu);
    } else {
      for (unsigned l = 0; l < 64; ++l)
        r[l] &= 0xffffu;
    }
  }
  if (x.Sdwa && In.DstSel != 6) {
    unsigned Sel = In.DstSel;
    if (Sel > 6 || In.DstUnused > 2)
      throw EmuError(EmuErrorKind::IllegalInst, "reserved SDWA destination select");
    unsigned Shift = Sel < 4 ? Sel * 8 : (Sel - 4) * 16;
    unsigned Bits = Sel < 4 ? 8 : 16;
    u32 Field = (Bits == 32 ? ~0u : ((1u << Bits) - 1)) << Shift;
    for (unsigned l = 0; l < 64; ++l) {
      u32 v = (r[l] << Shift) & Field;
      if (In.DstUnused == 2)
        v |= d[l] & ~Field;
      else if (In.DstUnused == 1 && ((v >> (Shift + Bits - 1)) & 1))
        v |= ~0u << (Shift + Bits);
      r[l] = v;
    }
  }
  u64 m = x.Exec;
  if (m == ~0ull) {
    std::memcpy(d, r, sizeof(x.R));
  } else {
    for (unsigned l = 0; l < 64; ++l)
      d[l] = ((m >> l) & 1) ? r[l] : d[l];
  }
}

void finish64(VX &x, R Res) {
  const Inst &In = x.In;
  u64 *r = x.Rq;
  if ((In.Clamp || In.Omod) && Res == R::B64)
    refuseIntegerPost(x);
  if (x.Post && Res == R::F64) {
    bool Dx = dx10Clamp(x);
    for (unsigned l = 0; l < 64 && (In.Clamp || In.Omod); ++l) {
      double v = D(r[l]);
      if (In.Omod == 1)
        v = v * 2.0;
      else if (In.Omod == 2)
        v = v * 4.0;
      else if (In.Omod == 3)
        v = v * 0.5;
      if (In.Clamp)
        v = v != v ? (Dx ? 0.0 : v) : (v < 0.0 ? 0.0 : (v > 1.0 ? 1.0 : v));
      r[l] = outF64(v);
    }
    if (x.FtzOut & 2)
      for (unsigned l = 0; l < 64; ++l)
        r[l] = fpmode::flush64(r[l]);
  }
  u32 *Lo = dstRow(x);
  u32 *Hi = x.W.vrow(vectorIndex(In.Dst) + 1);
  u64 m = x.Exec;
  for (unsigned l = 0; l < 64; ++l)
    if ((m >> l) & 1) {
      Lo[l] = u32(r[l]);
      Hi[l] = u32(r[l] >> 32);
    }
}

u64 readMask(VX &x, uint16_t Code) { return readScalar64(x.W, x.In, Code, OpType::B64); }

void writeMask(VX &x, uint16_t Code, u64 Mask) { writeScalar64(x.W, Code, Mask); }

namespace {
// The 0/1 dwords of every byte of a lane mask: row b holds bit l of b in dword l.
struct MaskBytes {
  alignas(32) u32 Row[256][8];
  MaskBytes() {
    for (unsigned b = 0; b < 256; ++b)
      for (unsigned l = 0; l < 8; ++l)
        Row[b][l] = (b >> l) & 1;
  }
};
const MaskBytes kMaskBytes;
} // namespace

void maskLanes(u64 Mask, u32 *Row) {
  for (unsigned c = 0; c < 8; ++c)
    std::memcpy(Row + 8 * c, kMaskBytes.Row[(Mask >> (8 * c)) & 0xff], sizeof(kMaskBytes.Row[0]));
}

const u32 *maskRow(VX &x, int i, u64 Mask) {
  maskLanes(Mask, x.T[i]);
  return x.T[i];
}

} // namespace asmevo::emu::vec
