// The vector ALU executor's operand staging and write-back (ExecVectorCore.h): DPP source
// lanes, operand fetch with inline constants, SDWA selects and VOP3 modifiers, result
// write-back with clamp/omod, 16-bit halves and SDWA destination selects, and lane masks. Every
// vector executor file (ExecVector*.cpp) calls these; none of them calls back.
#include "emu/ExecVectorCore.h"

#include "emu/Dpp.h"

#include <string>

namespace asmevo::emu::vec {

alignas(64) const u64 kZeroRow64[64] = {};

// ---- DPP ------------------------------------------------------------------------------------
// Source lane of each lane (Dpp.h; -1: out of range). Lanes whose source is out of range or
// inactive read zero with bound_ctrl, else they are not written. row_mask/bank_mask disable
// writes of whole rows (16 lanes) / banks (lanes 4b..4b+3 of each row).
void setupDpp(VX &x) {
  const Inst &in = x.In;
  const unsigned ctrl = in.DppCtrl;
  const int8_t *src = dppSourceLanes(ctrl);
  if (!src)
    throw EmuError(EmuErrorKind::IllegalInst,
                   "reserved DPP control " + hexText(ctrl) + " at pc " + hexText(x.C.InstPc));
  const u64 execIn = x.W.exec();
  // Lanes the row and bank masks let write.
  u64 write = 0;
  for (unsigned r = 0; r < 4; ++r)
    if ((in.RowMask >> r) & 1)
      for (unsigned b = 0; b < 4; ++b)
        if ((in.BankMask >> b) & 1)
          write |= 0xfull << (16 * r + 4 * b);
  if (execIn == ~0ull) { // every source lane active: the table is the answer
    std::memcpy(x.DppSrc, src, sizeof(x.DppSrc));
    x.Exec &= write & (in.BoundCtrl ? ~0ull : dppLanesWithSource(ctrl));
    return;
  }
  u64 keep = 0;
  for (unsigned l = 0; l < 64; ++l) {
    int s = src[l];
    if (s >= 0 && !((execIn >> s) & 1))
      s = -1;
    x.DppSrc[l] = int8_t(s);
    const bool w = ((write >> l) & 1) && (s >= 0 || in.BoundCtrl);
    keep |= u64(w) << l;
  }
  x.Exec &= keep;
}

static u32 *own(VX &x, int i, const u32 *p) {
  u32 *o = x.T[i];
  if (p != o)
    std::memcpy(o, p, sizeof(x.T[i]));
  return o;
}

const u32 *fetch32General(VX &x, int i, Ty t) {
  uint16_t code = x.In.Src[i];
  if (t == Ty::N || code == kNoOperand)
    return kZeroRow;
  const u32 *p = readVectorSrc32(x.W, x.In, code, opType(t), x.T[i]);
  if (x.Dpp && i == 0) {
    u32 *o = x.T[i];
    if (p == o) { // a broadcast value: only the zero-reading lanes change
      for (unsigned l = 0; l < 64; ++l)
        if (x.DppSrc[l] < 0)
          o[l] = 0;
    } else {
      for (unsigned l = 0; l < 64; ++l)
        o[l] = x.DppSrc[l] >= 0 ? p[x.DppSrc[l]] : 0;
    }
    p = o;
  }
  if (x.Sdwa && i < 2) {
    unsigned sel = x.In.SrcSel[i];
    bool sx = (x.In.Sext >> i) & 1;
    if (sel < 6) {
      u32 *o = own(x, i, p);
      unsigned shift = sel < 4 ? sel * 8 : (sel - 4) * 16;
      unsigned bits = sel < 4 ? 8 : 16;
      for (unsigned l = 0; l < 64; ++l) {
        u32 v = o[l] << (32 - shift - bits);
        o[l] = sx ? u32(i32(v) >> (32 - bits)) : v >> (32 - bits);
      }
      p = o;
    } else if (sel > 6) {
      throw EmuError(EmuErrorKind::IllegalInst, "reserved SDWA source select");
    }
  } else if (x.Vop3 && is16Ty(t) && ((x.In.Opsel >> i) & 1)) {
    u32 *o = own(x, i, p);
    for (unsigned l = 0; l < 64; ++l)
      o[l] >>= 16;
    p = o;
  }
  if (isFloatTy(t) && ((x.SrcMod >> i) & 1)) {
    u32 sb = is16Ty(t) ? 0x8000u : 0x80000000u;
    u32 andm = ((x.In.Abs >> i) & 1) ? ~sb : ~0u;
    u32 xorm = ((x.In.Neg >> i) & 1) ? sb : 0u;
    u32 *o = own(x, i, p);
    if (andm != ~0u || xorm)
      for (unsigned l = 0; l < 64; ++l)
        o[l] = (o[l] & andm) ^ xorm;
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
  uint16_t code = x.In.Src[i];
  if (t == Ty::N || code == kNoOperand)
    return kZeroRow64;
  u64 *o = x.Q[i];
  if (!is64Ty(t)) {
    const u32 *p = fetch32(x, i, t);
    for (unsigned l = 0; l < 64; ++l)
      o[l] = p[l];
    return o;
  }
  if (code >= kVgprBase) {
    const u32 *lo = x.W.vrowOf(code), *hi = x.W.vrow(vectorIndex(code) + 1);
    if (x.Dpp && i == 0) {
      for (unsigned l = 0; l < 64; ++l) {
        int s = x.DppSrc[l];
        o[l] = s >= 0 ? (lo[s] | (u64(hi[s]) << 32)) : 0;
      }
    } else {
      for (unsigned l = 0; l < 64; ++l)
        o[l] = lo[l] | (u64(hi[l]) << 32);
    }
  } else {
    u64 v = readScalar64(x.W, x.In, code, opType(t));
    for (unsigned l = 0; l < 64; ++l)
      o[l] = v;
    if (x.Dpp && i == 0)
      for (unsigned l = 0; l < 64; ++l)
        if (x.DppSrc[l] < 0)
          o[l] = 0;
  }
  if (t == Ty::F64 && ((x.SrcMod >> i) & 1)) {
    u64 sb = 1ull << 63;
    u64 andm = ((x.In.Abs >> i) & 1) ? ~sb : ~0ull;
    u64 xorm = ((x.In.Neg >> i) & 1) ? sb : 0ull;
    for (unsigned l = 0; l < 64; ++l)
      o[l] = (o[l] & andm) ^ xorm;
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
static inline float applyOmodClamp(float v, unsigned omod, bool clamp, bool dx10) {
  if (omod == 1)
    v = v * 2.0f;
  else if (omod == 2)
    v = v * 4.0f;
  else if (omod == 3)
    v = v * 0.5f;
  if (clamp) {
    if (v != v)
      v = dx10 ? 0.0f : v;
    else
      v = v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v);
  }
  return v;
}

// The integer ops whose executors saturate under clamp (the ISA's integer clamp). Any other op
// with an integer result refuses clamp and omod rather than ignore them.
static bool saturatesItself(Op op) {
  switch (op) {
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

void finish32General(VX &x, R res) {
  const Inst &in = x.In;
  u32 *r = x.R;
  // (gfx950's v_bitop3 keeps part of its truth table in the omod field: not a modifier.)
  const bool omod = in.Omod && in.Operation != Op::V_BITOP3_B32 && in.Operation != Op::V_BITOP3_B16;
  if ((in.Clamp || omod) && (res == R::B32 || res == R::B16 || res == R::B16P) &&
      !saturatesItself(in.Operation))
    refuseIntegerPost(x);
  if (x.Post && (res == R::F32 || res == R::F16 || res == R::F16P)) {
    bool dx = dx10Clamp(x);
    if (in.Clamp || in.Omod) {
      if (res == R::F32) {
        for (unsigned l = 0; l < 64; ++l)
          r[l] = outF32(applyOmodClamp(F(r[l]), in.Omod, in.Clamp, dx));
      } else {
        for (unsigned l = 0; l < 64; ++l)
          r[l] = outF16(applyOmodClamp(H(r[l]), in.Omod, in.Clamp, dx));
      }
    }
    // Denormal results flushed after rounding (moded path).
    if (res == R::F32 && (x.FtzOut & 1)) {
      for (unsigned l = 0; l < 64; ++l)
        r[l] = fpmode::flush32(r[l]);
    } else if (res != R::F32 && (x.FtzOut & 2)) {
      for (unsigned l = 0; l < 64; ++l)
        r[l] = fpmode::flush16(r[l]);
    }
  }
  u32 *d = dstRow(x);
  if (is16R(res)) {
    if (x.Vop3 && (in.Opsel & 8)) {
      for (unsigned l = 0; l < 64; ++l)
        r[l] = (d[l] & 0xffffu) | (r[l] << 16);
    } else if (res == R::B16P || res == R::F16P) {
      for (unsigned l = 0; l < 64; ++l)
        r[l] = (d[l] & 0xffff0000u) | (r[l] & 0xffffu);
    } else {
      for (unsigned l = 0; l < 64; ++l)
        r[l] &= 0xffffu;
    }
  }
  if (x.Sdwa && in.DstSel != 6) {
    unsigned sel = in.DstSel;
    if (sel > 6 || in.DstUnused > 2)
      throw EmuError(EmuErrorKind::IllegalInst, "reserved SDWA destination select");
    unsigned shift = sel < 4 ? sel * 8 : (sel - 4) * 16;
    unsigned bits = sel < 4 ? 8 : 16;
    u32 field = (bits == 32 ? ~0u : ((1u << bits) - 1)) << shift;
    for (unsigned l = 0; l < 64; ++l) {
      u32 v = (r[l] << shift) & field;
      if (in.DstUnused == 2)
        v |= d[l] & ~field;
      else if (in.DstUnused == 1 && ((v >> (shift + bits - 1)) & 1))
        v |= ~0u << (shift + bits);
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

void finish64(VX &x, R res) {
  const Inst &in = x.In;
  u64 *r = x.Rq;
  if ((in.Clamp || in.Omod) && res == R::B64)
    refuseIntegerPost(x);
  if (x.Post && res == R::F64) {
    bool dx = dx10Clamp(x);
    for (unsigned l = 0; l < 64 && (in.Clamp || in.Omod); ++l) {
      double v = D(r[l]);
      if (in.Omod == 1)
        v = v * 2.0;
      else if (in.Omod == 2)
        v = v * 4.0;
      else if (in.Omod == 3)
        v = v * 0.5;
      if (in.Clamp)
        v = v != v ? (dx ? 0.0 : v) : (v < 0.0 ? 0.0 : (v > 1.0 ? 1.0 : v));
      r[l] = outF64(v);
    }
    if (x.FtzOut & 2)
      for (unsigned l = 0; l < 64; ++l)
        r[l] = fpmode::flush64(r[l]);
  }
  u32 *lo = dstRow(x);
  u32 *hi = x.W.vrow(vectorIndex(in.Dst) + 1);
  u64 m = x.Exec;
  for (unsigned l = 0; l < 64; ++l)
    if ((m >> l) & 1) {
      lo[l] = u32(r[l]);
      hi[l] = u32(r[l] >> 32);
    }
}

u64 readMask(VX &x, uint16_t code) { return readScalar64(x.W, x.In, code, OpType::B64); }

void writeMask(VX &x, uint16_t code, u64 mask) { writeScalar64(x.W, code, mask); }

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

void maskLanes(u64 mask, u32 *row) {
  for (unsigned c = 0; c < 8; ++c)
    std::memcpy(row + 8 * c, kMaskBytes.Row[(mask >> (8 * c)) & 0xff], sizeof(kMaskBytes.Row[0]));
}

const u32 *maskRow(VX &x, int i, u64 mask) {
  maskLanes(mask, x.T[i]);
  return x.T[i];
}

} // namespace asmevo::emu::vec
