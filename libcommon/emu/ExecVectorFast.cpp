#include "emu/ExecVectorFast.h"

#include "emu/ExecVectorCore.h"

#include <cstring>

namespace asmevo::emu {

using namespace vec;

namespace {

// The op of a VOP1/VOP2/VOP3 instruction the short path runs (sources and destination aside).
FastOp plainOp(const Inst &In) {
  // The sources the op reads must be there (the decoder gives every form its operands).
  auto With = [&In](unsigned n, FastOp Op) {
    for (unsigned i = 0; i < n; ++i)
      if (In.Src[i] == kNoOperand)
        return FastOp::None;
    return Op;
  };
  switch (In.Operation) {
  case Op::V_MOV_B32_E32:
  case Op::V_MOV_B32_E64:
    return With(1, FastOp::MovB32);
  case Op::V_NOT_B32_E32:
  case Op::V_NOT_B32_E64:
    return With(1, FastOp::NotB32);
  case Op::V_BFREV_B32_E32:
  case Op::V_BFREV_B32_E64:
    return With(1, FastOp::BfrevB32);
  case Op::V_ADD_U32_E32:
  case Op::V_ADD_U32_E64:
    return With(2, FastOp::AddU32);
  case Op::V_SUB_U32_E32:
  case Op::V_SUB_U32_E64:
    return With(2, FastOp::SubU32);
  case Op::V_SUBREV_U32_E32:
  case Op::V_SUBREV_U32_E64:
    return With(2, FastOp::SubrevU32);
  case Op::V_AND_B32_E32:
  case Op::V_AND_B32_E64:
    return With(2, FastOp::AndB32);
  case Op::V_OR_B32_E32:
  case Op::V_OR_B32_E64:
    return With(2, FastOp::OrB32);
  case Op::V_XOR_B32_E32:
  case Op::V_XOR_B32_E64:
    return With(2, FastOp::XorB32);
  case Op::V_LSHLREV_B32_E32:
  case Op::V_LSHLREV_B32_E64:
    return With(2, FastOp::LshlrevB32);
  case Op::V_LSHRREV_B32_E32:
  case Op::V_LSHRREV_B32_E64:
    return With(2, FastOp::LshrrevB32);
  case Op::V_ASHRREV_I32_E32:
  case Op::V_ASHRREV_I32_E64:
    return With(2, FastOp::AshrrevI32);
  case Op::V_ADD3_U32_E64:
    return With(3, FastOp::Add3U32);
  case Op::V_LSHL_ADD_U32_E64:
    return With(3, FastOp::LshlAddU32);
  case Op::V_ADD_LSHL_U32_E64:
    return With(3, FastOp::AddLshlU32);
  case Op::V_LSHL_OR_B32:
    return With(3, FastOp::LshlOrB32);
  case Op::V_AND_OR_B32:
    return With(3, FastOp::AndOrB32);
  case Op::V_OR3_B32:
    return With(3, FastOp::Or3B32);
  case Op::V_CNDMASK_B32_E32:
  case Op::V_CNDMASK_B32_E64:
    return With(3, FastOp::CndmaskB32);
  case Op::V_ADD_F32_E32:
  case Op::V_ADD_F32_E64:
    return With(2, FastOp::AddF32);
  case Op::V_SUB_F32_E32:
  case Op::V_SUB_F32_E64:
    return With(2, FastOp::SubF32);
  case Op::V_SUBREV_F32_E32:
  case Op::V_SUBREV_F32_E64:
    return With(2, FastOp::SubrevF32);
  case Op::V_MUL_F32_E32:
  case Op::V_MUL_F32_E64:
    return With(2, FastOp::MulF32);
  case Op::V_FMA_F32_E64:
  case Op::V_FMAC_F32_E32:
  case Op::V_FMAC_F32_E64:
    return With(3, FastOp::FmaF32);
  case Op::V_MAX_F32_E32:
  case Op::V_MAX_F32_E64:
    return With(2, FastOp::MaxF32);
  case Op::V_MIN_F32_E32:
  case Op::V_MIN_F32_E64:
    return With(2, FastOp::MinF32);
  default:
    return FastOp::None;
  }
}

} // namespace

FastOp fastVectorOp(Inst &In) {
  if ((In.Encoding != Enc::VOP1 && In.Encoding != Enc::VOP2 && In.Encoding != Enc::VOPC &&
       In.Encoding != Enc::VOP3) ||
      In.Form != VForm::Plain || In.Clamp || In.Omod || In.Opsel)
    return FastOp::None;
  // abs and neg apply to the sources an op reads as floats (f32 ops, moves, selects: fetch32
  // applies them to float-typed sources only); an integer op with them set stays general.
  const bool Mods = In.Abs || In.Neg;
  Compare32 Type;
  unsigned Tt;
  if (plainCompare32(In.Operation, Type, Tt)) {
    if (In.Src[0] == kNoOperand || In.Src[1] == kNoOperand || (Mods && Type != Compare32::F32))
      return FastOp::None;
    In.FastArg = uint8_t(Tt);
    return Type == Compare32::I32   ? FastOp::CmpI32
           : Type == Compare32::U32 ? FastOp::CmpU32
                                    : FastOp::CmpF32;
  }
  if (In.Encoding == Enc::VOPC || In.Dst < kVgprBase || In.Dst >= kAgprBase)
    return FastOp::None;
  const FastOp Op = plainOp(In);
  const bool FloatSources =
      Op == FastOp::MovB32 || Op == FastOp::CndmaskB32 || Op >= FastOp::AddF32;
  return Mods && !FloatSources ? FastOp::None : Op;
}

namespace {

// The lanes of a one-, two- or three-source op into res (a local row: the compiler need not
// assume that it overlaps a source, and vectorizes the loop).
template <class Fn> inline void lanes1(const u32 *a, u32 *Res, Fn f) {
  for (unsigned l = 0; l < kWaveSize; ++l)
    Res[l] = f(a[l]);
}
template <class Fn> inline void lanes2(const u32 *a, const u32 *b, u32 *Res, Fn f) {
  for (unsigned l = 0; l < kWaveSize; ++l)
    Res[l] = f(a[l], b[l]);
}
template <class Fn> inline void lanes3(const u32 *a, const u32 *b, const u32 *c, u32 *Res, Fn f) {
  for (unsigned l = 0; l < kWaveSize; ++l)
    Res[l] = f(a[l], b[l], c[l]);
}

} // namespace

bool execVectorFast(ExecCtx &c, const Inst &In, FastOp Op) {
  WaveState &w = c.W;
  if (Op >= FastOp::AddF32 && Op != FastOp::CmpI32 && Op != FastOp::CmpU32 &&
      !fpmode::isDefault(w.Mode))
    return false;
  alignas(64) u32 t0[kWaveSize], t1[kWaveSize], t2[kWaveSize], Res[kWaveSize];
  // Source i as the general executor reads an operand of type t (fetch32): abs and neg clear and
  // flip the sign bit of an f32 source.
  auto Src = [&](unsigned i, OpType t, u32 *Tmp) -> const u32 * {
    const u32 *p = readVectorSrc32(w, In, In.Src[i], t, Tmp);
    if (t != OpType::F32 || !(((In.Abs | In.Neg) >> i) & 1))
      return p;
    const u32 Andm = (In.Abs >> i) & 1 ? 0x7fffffffu : ~0u;
    const u32 Xorm = (In.Neg >> i) & 1 ? 0x80000000u : 0u;
    for (unsigned l = 0; l < kWaveSize; ++l)
      Tmp[l] = (p[l] & Andm) ^ Xorm;
    return Tmp;
  };
  const OpType B = OpType::B32, Fl = OpType::F32;
  switch (Op) {
  case FastOp::MovB32:
    std::memcpy(Res, Src(0, Fl, t0), sizeof Res);
    break;
  case FastOp::NotB32:
    lanes1(Src(0, B, t0), Res, [](u32 a) { return ~a; });
    break;
  case FastOp::BfrevB32:
    lanes1(Src(0, B, t0), Res, Fn<bitReverse32>{});
    break;
  case FastOp::AddU32:
    lanes2(Src(0, B, t0), Src(1, B, t1), Res, [](u32 a, u32 b) { return a + b; });
    break;
  case FastOp::SubU32:
    lanes2(Src(0, B, t0), Src(1, B, t1), Res, [](u32 a, u32 b) { return a - b; });
    break;
  case FastOp::SubrevU32:
    lanes2(Src(0, B, t0), Src(1, B, t1), Res, [](u32 a, u32 b) { return b - a; });
    break;
  case FastOp::AndB32:
    lanes2(Src(0, B, t0), Src(1, B, t1), Res, [](u32 a, u32 b) { return a & b; });
    break;
  case FastOp::OrB32:
    lanes2(Src(0, B, t0), Src(1, B, t1), Res, [](u32 a, u32 b) { return a | b; });
    break;
  case FastOp::XorB32:
    lanes2(Src(0, B, t0), Src(1, B, t1), Res, [](u32 a, u32 b) { return a ^ b; });
    break;
  case FastOp::LshlrevB32:
    lanes2(Src(0, B, t0), Src(1, B, t1), Res, [](u32 a, u32 b) { return b << (a & 31); });
    break;
  case FastOp::LshrrevB32:
    lanes2(Src(0, B, t0), Src(1, B, t1), Res, [](u32 a, u32 b) { return b >> (a & 31); });
    break;
  case FastOp::AshrrevI32:
    lanes2(Src(0, B, t0), Src(1, B, t1), Res, [](u32 a, u32 b) { return u32(i32(b) >> (a & 31)); });
    break;
  case FastOp::Add3U32:
    lanes3(Src(0, B, t0), Src(1, B, t1), Src(2, B, t2), Res,
           [](u32 a, u32 b, u32 Cc) { return a + b + Cc; });
    break;
  case FastOp::LshlAddU32:
    lanes3(Src(0, B, t0), Src(1, B, t1), Src(2, B, t2), Res,
           [](u32 a, u32 b, u32 Cc) { return (a << (b & 31)) + Cc; });
    break;
  case FastOp::AddLshlU32:
    lanes3(Src(0, B, t0), Src(1, B, t1), Src(2, B, t2), Res,
           [](u32 a, u32 b, u32 Cc) { return (a + b) << (Cc & 31); });
    break;
  case FastOp::LshlOrB32:
    lanes3(Src(0, B, t0), Src(1, B, t1), Src(2, B, t2), Res,
           [](u32 a, u32 b, u32 Cc) { return (a << (b & 31)) | Cc; });
    break;
  case FastOp::AndOrB32:
    lanes3(Src(0, B, t0), Src(1, B, t1), Src(2, B, t2), Res,
           [](u32 a, u32 b, u32 Cc) { return (a & b) | Cc; });
    break;
  case FastOp::Or3B32:
    lanes3(Src(0, B, t0), Src(1, B, t1), Src(2, B, t2), Res,
           [](u32 a, u32 b, u32 Cc) { return a | b | Cc; });
    break;
  case FastOp::CndmaskB32: {
    // VCC (e32) or an SGPR pair (e64) selects src1 for a lane whose bit is set, else src0.
    const u32 *a = Src(0, Fl, t0), *b = Src(1, Fl, t1);
    maskLanes(readScalar64(w, In, In.Src[2], OpType::B64), t2);
    lanes3(a, b, t2, Res, [](u32 x, u32 y, u32 Sel) { return Sel ? y : x; });
    break;
  }
  case FastOp::AddF32:
    addF32Rows(Src(0, Fl, t0), Src(1, Fl, t1), nullptr, Res);
    break;
  case FastOp::SubF32:
    subF32Rows(Src(0, Fl, t0), Src(1, Fl, t1), nullptr, Res);
    break;
  case FastOp::SubrevF32:
    subrevF32Rows(Src(0, Fl, t0), Src(1, Fl, t1), nullptr, Res);
    break;
  case FastOp::MulF32:
    mulF32Rows(Src(0, Fl, t0), Src(1, Fl, t1), nullptr, Res);
    break;
  case FastOp::FmaF32:
    fmaF32Rows(Src(0, Fl, t0), Src(1, Fl, t1), Src(2, Fl, t2), Res);
    break;
  case FastOp::MaxF32:
  case FastOp::MinF32:
    minMaxF32Rows(Op == FastOp::MaxF32, (w.Mode & fpmode::kIeee) != 0, Src(0, Fl, t0),
                  Src(1, Fl, t1), Res);
    break;
  case FastOp::CmpI32:
  case FastOp::CmpU32:
  case FastOp::CmpF32: {
    // The mask, zero for the lanes EXEC disables, goes to VCC (VOPC) or the VOP3 form's SGPRs.
    const OpType t = Op == FastOp::CmpF32 ? Fl : B;
    const Compare32 Type = Op == FastOp::CmpI32   ? Compare32::I32
                           : Op == FastOp::CmpU32 ? Compare32::U32
                                                  : Compare32::F32;
    const u64 m = compareLanes32(Type, In.FastArg, Src(0, t, t0), Src(1, t, t1)) & w.exec();
    writeScalar64(w, In.Sdst == kNoOperand ? uint16_t(kVccLo) : In.Sdst, m);
    return true;
  }
  case FastOp::None:
    return false;
  }
  // The lanes EXEC enables take their result; the others keep the destination's value.
  u32 *d = w.vrowOf(In.Dst);
  const u64 Exec = w.exec();
  if (Exec == ~0ull) {
    std::memcpy(d, Res, sizeof Res);
  } else {
    for (unsigned l = 0; l < kWaveSize; ++l)
      d[l] = (Exec >> l) & 1 ? Res[l] : d[l];
  }
  return true;
}

} // namespace asmevo::emu
