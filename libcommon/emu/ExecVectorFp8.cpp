// Narrow-float conversions of the vector ALU. FP8 / BF8 (gfx940+): v_cvt_pk_fp8_f32,
// v_cvt_pk_bf8_f32 (VOP3), v_cvt_f32_fp8, v_cvt_f32_bf8, v_cvt_pk_f32_fp8, v_cvt_pk_f32_bf8
// (VOP1, VOP3); and gfx950's scaled (MX) ones listed further down. As the ISA's pseudocode says
// (cdna4-isa.json; the same text for CDNA3):
//   v_cvt_pk_fp8_f32  D[15:0] = {f32_to_fp8(S1), f32_to_fp8(S0)} (OPSEL[3]: D[31:16]); the other
//                     half is kept. Rounding is nearest even whatever MODE says.
//   v_cvt_f32_fp8     D = fp8_to_f32(byte SDWA_SRC0_SEL of S0); BYTE0 in the e32 form.
//   v_cvt_pk_f32_fp8  tmp = SDWA_SRC0_SEL == WORD1 ? S0[31:16] : S0[15:0];
//                     D[31:0] = fp8_to_f32(tmp[7:0]), D[63:32] = fp8_to_f32(tmp[15:8]).
// The format is the target's (SmallFloat.h): FNUZ on gfx940..942, OCP on gfx950.
// Overflow: the conversions do not saturate (NaN for E4M3 and FNUZ, infinity for OCP E5M2)
// unless MODE.FP16_OVFL (bit 23) is set, which saturates to the largest finite value (as
// Triton and hipBLASLt use it; the guides' text on it was not available here).
//
// Not emulated, with the reason: the VOP3 clamp bit and output modifier on the f32 -> fp8
// conversions, op_sel on the VOP3 forms of the fp8 -> f32 ones, clamp or omod on the 64-bit
// v_cvt_pk_f32_* results, an SDWA destination select on them, and an infinite input under
// MODE.FP16_OVFL: no document available here says what they do. The stochastic-rounding forms
// (v_cvt_sr_*) are left out too: the ISA's pseudocode and AMD's own emulator disagree on them.
#include "emu/ExecVectorCore.h"
#include "support/SmallFloat.h"

#include <cmath>

namespace asmevo::emu::vec {

namespace {

constexpr uint32_t kModeFp16Ovfl = 1u << 23;

[[noreturn]] void undocumented(VX &x, const char *What) {
  throw EmuError(EmuErrorKind::Unsupported,
                 "unsupported instruction " + std::string(opNameLower(x.In.Operation)) + " at pc " +
                     hexText(x.C.InstPc) + ": " + What + " is not documented",
                 x.C.InstPc);
}

bool cvtPkToFp8(VX &x, SmallFormat f) {
  if (x.In.Clamp || x.In.Omod)
    undocumented(x, "clamp or an output modifier on a conversion to fp8");
  const bool Sat = x.W.Mode & kModeFp16Ovfl;
  const u32 *a = fetch32(x, 0, Ty::F32), *b = fetch32(x, 1, Ty::F32);
  const u32 *Old = x.W.vrowOf(x.In.Dst);
  const unsigned Shift = (x.In.Opsel & 8) ? 16 : 0;
  for (unsigned l = 0; l < kWaveSize; ++l) {
    uint32_t Lo = 0, Hi = 0;
    if (((x.Exec >> l) & 1) &&
        (!f32ToSmall(F(a[l]), f, Sat, Lo) || !f32ToSmall(F(b[l]), f, Sat, Hi)))
      undocumented(x, "saturating an infinite input (MODE.FP16_OVFL set)");
    x.R[l] = (Old[l] & ~(0xffffu << Shift)) | ((Lo | Hi << 8) << Shift);
  }
  finish32(x, R::B32);
  return true;
}

bool cvtFp8ToF32(VX &x, SmallFormat f) {
  if (x.Vop3 && x.In.Opsel)
    undocumented(x, "op_sel on the VOP3 form of an fp8 -> f32 conversion");
  // The SDWA byte select is applied by fetch32 (the selected byte arrives in bits 7:0).
  return n1(x, Ty::B32, R::F32, [f](u32 a) { return outF32(smallToF32(a & 0xffu, f)); });
}

bool cvtPkFp8ToF32(VX &x, SmallFormat f) {
  if (x.Vop3 && x.In.Opsel)
    undocumented(x, "op_sel on the VOP3 form of an fp8 -> f32 conversion");
  if (x.In.Clamp || x.In.Omod)
    undocumented(x, "clamp or an output modifier on a 64-bit fp8 -> f32 pair");
  if (x.Sdwa && x.In.DstSel != 6)
    undocumented(x, "an SDWA destination select on a 64-bit result");
  if (x.Sdwa && x.In.SrcSel[0] != 4 && x.In.SrcSel[0] != 5 && x.In.SrcSel[0] != 6)
    undocumented(x, "an SDWA byte select (the pseudocode selects words)");
  // WORD_1 arrives in bits 15:0 from fetch32; WORD_0 and DWORD select the low word.
  const u32 *a = fetch32(x, 0, Ty::B32);
  for (unsigned l = 0; l < kWaveSize; ++l) {
    const u32 w = a[l] & 0xffffu;
    x.Rq[l] =
        u64(f32ToBits(smallToF32(w & 0xffu, f))) | (u64(f32ToBits(smallToF32(w >> 8, f))) << 32);
  }
  finish64(x, R::B64);
  return true;
}

// 2^(exponent field of the f32 scale - 127), as a double; refused for exponent 255.
double scaleOf(VX &x, u32 ScaleBits) {
  const unsigned e = (ScaleBits >> 23) & 0xffu;
  if (e == 255)
    undocumented(x, "a scale whose exponent field is 255 (infinity or NaN)");
  return std::ldexp(1.0, int(e) - 127);
}

void requireNearestEven(VX &x) {
  if (fpmode::roundSp(x.W.Mode) != fpmode::kNearestEven)
    undocumented(x, "a scaled conversion under a MODE round mode other than nearest even");
}

bool cvtScalePkFp4F32(VX &x) {
  if (x.In.Clamp || x.In.Omod)
    undocumented(x, "clamp or an output modifier on a conversion to fp4");
  requireNearestEven(x);
  const u32 *a = fetch32(x, 0, Ty::F32), *b = fetch32(x, 1, Ty::F32), *s = fetch32(x, 2, Ty::F32);
  const u32 *Old = x.W.vrowOf(x.In.Dst);
  const unsigned Shift = 8 * ((x.In.Opsel >> 2) & 3);
  for (unsigned l = 0; l < kWaveSize; ++l) {
    u32 Lo = 0, Hi = 0;
    if ((x.Exec >> l) & 1) {
      const double Sc = scaleOf(x, s[l]);
      if (!f64ToSmall(double(F(a[l])) / Sc, SmallFormat::E2M1, false, Lo) ||
          !f64ToSmall(double(F(b[l])) / Sc, SmallFormat::E2M1, false, Hi))
        undocumented(x, "an fp4 conversion of a NaN or of a value past fp4's range (+-6)");
    }
    x.R[l] = (Old[l] & ~(0xffu << Shift)) | ((Lo | Hi << 4) << Shift);
  }
  finish32(x, R::B32);
  return true;
}

bool cvtScalePkBf16Fp8(VX &x) {
  if (x.In.Clamp || x.In.Omod)
    undocumented(x, "clamp or an output modifier on a scaled conversion to bf16");
  requireNearestEven(x);
  if (x.In.Src[0] < kVgprBase || x.In.Src[0] >= kAgprBase)
    return false; // SRC0 is a VGPR in the pseudocode
  const u32 *a = x.W.vrowOf(x.In.Src[0]);
  const u32 *s = fetch32(x, 1, Ty::F32);
  const unsigned Word = 16 * (x.In.Opsel & 1);
  for (unsigned l = 0; l < kWaveSize; ++l) {
    u32 Out = 0;
    if ((x.Exec >> l) & 1) {
      const double Sc = scaleOf(x, s[l]);
      const u32 Src = (a[l] >> Word) & 0xffffu;
      for (unsigned h = 0; h < 2; ++h) {
        const double v = double(smallToF32((Src >> (8 * h)) & 0xffu, SmallFormat::E4M3)) * Sc;
        // fp8 values have 4 significant bits: the product is exact in f32 within its range.
        if (std::isfinite(v) && std::fabs(v) > double(bf16ToF32(0x7f7f)))
          undocumented(x, "a scaled bf16 result past bf16's range");
        Out |= u32(f32ToBf16(float(v))) << (16 * h);
      }
    }
    x.R[l] = Out;
  }
  finish32(x, R::B32);
  return true;
}

} // namespace

bool execVectorFp8(VX &x) {
  const bool Ocp = x.C.Target == Gfx::Gfx950;
  switch (x.In.Operation) {
  case Op::V_CVT_PK_FP8_F32:
    return cvtPkToFp8(x, fp8Format(Ocp));
  case Op::V_CVT_PK_BF8_F32:
    return cvtPkToFp8(x, bf8Format(Ocp));
  case Op::V_CVT_F32_FP8_E32:
  case Op::V_CVT_F32_FP8_E64:
    return cvtFp8ToF32(x, fp8Format(Ocp));
  case Op::V_CVT_F32_BF8_E32:
  case Op::V_CVT_F32_BF8_E64:
    return cvtFp8ToF32(x, bf8Format(Ocp));
  case Op::V_CVT_PK_F32_FP8_E32:
  case Op::V_CVT_PK_F32_FP8_E64:
    return cvtPkFp8ToF32(x, fp8Format(Ocp));
  case Op::V_CVT_PK_F32_BF8_E32:
  case Op::V_CVT_PK_F32_BF8_E64:
    return cvtPkFp8ToF32(x, bf8Format(Ocp));
  case Op::V_CVT_SCALEF32_PK_FP4_F32:
    return cvtScalePkFp4F32(x);
  case Op::V_CVT_SCALEF32_PK_BF16_FP8:
    return cvtScalePkBf16Fp8(x);
  default:
    return false;
  }
}

} // namespace asmevo::emu::vec
