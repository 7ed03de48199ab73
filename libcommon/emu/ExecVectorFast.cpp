#include "emu/ExecVectorFast.h"

#include "emu/ExecVectorCore.h"

#include <cstring>

namespace asmevo::emu {

using namespace vec;

namespace {

// The op of a VOP1/VOP2/VOP3 instruction the short path runs (sources and destination aside).
FastOp plainOp(const Inst &in) {
  // The sources the op reads must be there (the decoder gives every form its operands).
  auto with = [&in](unsigned n, FastOp op) {
    for (unsigned i = 0; i < n; ++i)
      if (in.Src[i] == kNoOperand)
        return FastOp::None;
    return op;
  };
  switch (in.Operation) {
  case Op::V_MOV_B32_E32:
  case Op::V_MOV_B32_E64:
    return with(1, FastOp::MovB32);
  case Op::V_NOT_B32_E32:
  case Op::V_NOT_B32_E64:
    return with(1, FastOp::NotB32);
  case Op::V_BFREV_B32_E32:
  case Op::V_BFREV_B32_E64:
    return with(1, FastOp::BfrevB32);
  case Op::V_ADD_U32_E32:
  case Op::V_ADD_U32_E64:
    return with(2, FastOp::AddU32);
  case Op::V_SUB_U32_E32:
  case Op::V_SUB_U32_E64:
    return with(2, FastOp::SubU32);
  case Op::V_SUBREV_U32_E32:
  case Op::V_SUBREV_U32_E64:
    return with(2, FastOp::SubrevU32);
  case Op::V_AND_B32_E32:
  case Op::V_AND_B32_E64:
    return with(2, FastOp::AndB32);
  case Op::V_OR_B32_E32:
  case Op::V_OR_B32_E64:
    return with(2, FastOp::OrB32);
  case Op::V_XOR_B32_E32:
  case Op::V_XOR_B32_E64:
    return with(2, FastOp::XorB32);
  case Op::V_LSHLREV_B32_E32:
  case Op::V_LSHLREV_B32_E64:
    return with(2, FastOp::LshlrevB32);
  case Op::V_LSHRREV_B32_E32:
  case Op::V_LSHRREV_B32_E64:
    return with(2, FastOp::LshrrevB32);
  case Op::V_ASHRREV_I32_E32:
  case Op::V_ASHRREV_I32_E64:
    return with(2, FastOp::AshrrevI32);
  case Op::V_ADD3_U32_E64:
    return with(3, FastOp::Add3U32);
  case Op::V_LSHL_ADD_U32_E64:
    return with(3, FastOp::LshlAddU32);
  case Op::V_ADD_LSHL_U32_E64:
    return with(3, FastOp::AddLshlU32);
  case Op::V_LSHL_OR_B32:
    return with(3, FastOp::LshlOrB32);
  case Op::V_AND_OR_B32:
    return with(3, FastOp::AndOrB32);
  case Op::V_OR3_B32:
    return with(3, FastOp::Or3B32);
  case Op::V_CNDMASK_B32_E32:
  case Op::V_CNDMASK_B32_E64:
    return with(3, FastOp::CndmaskB32);
  case Op::V_ADD_F32_E32:
  case Op::V_ADD_F32_E64:
    return with(2, FastOp::AddF32);
  case Op::V_SUB_F32_E32:
  case Op::V_SUB_F32_E64:
    return with(2, FastOp::SubF32);
  case Op::V_SUBREV_F32_E32:
  case Op::V_SUBREV_F32_E64:
    return with(2, FastOp::SubrevF32);
  case Op::V_MUL_F32_E32:
  case Op::V_MUL_F32_E64:
    return with(2, FastOp::MulF32);
  case Op::V_FMA_F32_E64:
  case Op::V_FMAC_F32_E32:
  case Op::V_FMAC_F32_E64:
    return with(3, FastOp::FmaF32);
  case Op::V_MAX_F32_E32:
  case Op::V_MAX_F32_E64:
    return with(2, FastOp::MaxF32);
  case Op::V_MIN_F32_E32:
  case Op::V_MIN_F32_E64:
    return with(2, FastOp::MinF32);
  default:
    return FastOp::None;
  }
}

} // namespace

FastOp fastVectorOp(Inst &in) {
  if ((in.Encoding != Enc::VOP1 && in.Encoding != Enc::VOP2 && in.Encoding != Enc::VOPC &&
       in.Encoding != Enc::VOP3) ||
      in.Form != VForm::Plain || in.Clamp || in.Omod || in.Opsel)
    return FastOp::None;
  // abs and neg apply to the sources an op reads as floats (f32 ops, moves, selects: fetch32
  // applies them to float-typed sources only); an integer op with them set stays general.
  const bool mods = in.Abs || in.Neg;
  Compare32 type;
  unsigned tt;
  if (plainCompare32(in.Operation, type, tt)) {
    if (in.Src[0] == kNoOperand || in.Src[1] == kNoOperand || (mods && type != Compare32::F32))
      return FastOp::None;
    in.FastArg = uint8_t(tt);
    return type == Compare32::I32   ? FastOp::CmpI32
           : type == Compare32::U32 ? FastOp::CmpU32
                                    : FastOp::CmpF32;
  }
  if (in.Encoding == Enc::VOPC || in.Dst < kVgprBase || in.Dst >= kAgprBase)
    return FastOp::None;
  const FastOp op = plainOp(in);
  const bool floatSources =
      op == FastOp::MovB32 || op == FastOp::CndmaskB32 || op >= FastOp::AddF32;
  return mods && !floatSources ? FastOp::None : op;
}

namespace {

// The lanes of a one-, two- or three-source op into res (a local row: the compiler need not
// assume that it overlaps a source, and vectorizes the loop).
template <class Fn> inline void lanes1(const u32 *a, u32 *res, Fn f) {
  for (unsigned l = 0; l < kWaveSize; ++l)
    res[l] = f(a[l]);
}
template <class Fn> inline void lanes2(const u32 *a, const u32 *b, u32 *res, Fn f) {
  for (unsigned l = 0; l < kWaveSize; ++l)
    res[l] = f(a[l], b[l]);
}
template <class Fn> inline void lanes3(const u32 *a, const u32 *b, const u32 *c, u32 *res, Fn f) {
  for (unsigned l = 0; l < kWaveSize; ++l)
    res[l] = f(a[l], b[l], c[l]);
}

} // namespace

bool execVectorFast(ExecCtx &c, const Inst &in, FastOp op) {
  WaveState &w = c.W;
  if (op >= FastOp::AddF32 && op != FastOp::CmpI32 && op != FastOp::CmpU32 &&
      !fpmode::isDefault(w.Mode))
    return false;
  alignas(64) u32 t0[kWaveSize], t1[kWaveSize], t2[kWaveSize], res[kWaveSize];
  // Source i as the general executor reads an operand of type t (fetch32): abs and neg clear and
  // flip the sign bit of an f32 source.
  auto src = [&](unsigned i, OpType t, u32 *tmp) -> const u32 * {
    const u32 *p = readVectorSrc32(w, in, in.Src[i], t, tmp);
    if (t != OpType::F32 || !(((in.Abs | in.Neg) >> i) & 1))
      return p;
    const u32 andm = (in.Abs >> i) & 1 ? 0x7fffffffu : ~0u;
    const u32 xorm = (in.Neg >> i) & 1 ? 0x80000000u : 0u;
    for (unsigned l = 0; l < kWaveSize; ++l)
      tmp[l] = (p[l] & andm) ^ xorm;
    return tmp;
  };
  const OpType B = OpType::B32, Fl = OpType::F32;
  switch (op) {
  case FastOp::MovB32:
    std::memcpy(res, src(0, Fl, t0), sizeof res);
    break;
  case FastOp::NotB32:
    lanes1(src(0, B, t0), res, [](u32 a) { return ~a; });
    break;
  case FastOp::BfrevB32:
    lanes1(src(0, B, t0), res, Fn<bitReverse32>{});
    break;
  case FastOp::AddU32:
    lanes2(src(0, B, t0), src(1, B, t1), res, [](u32 a, u32 b) { return a + b; });
    break;
  case FastOp::SubU32:
    lanes2(src(0, B, t0), src(1, B, t1), res, [](u32 a, u32 b) { return a - b; });
    break;
  case FastOp::SubrevU32:
    lanes2(src(0, B, t0), src(1, B, t1), res, [](u32 a, u32 b) { return b - a; });
    break;
  case FastOp::AndB32:
    lanes2(src(0, B, t0), src(1, B, t1), res, [](u32 a, u32 b) { return a & b; });
    break;
  case FastOp::OrB32:
    lanes2(src(0, B, t0), src(1, B, t1), res, [](u32 a, u32 b) { return a | b; });
    break;
  case FastOp::XorB32:
    lanes2(src(0, B, t0), src(1, B, t1), res, [](u32 a, u32 b) { return a ^ b; });
    break;
  case FastOp::LshlrevB32:
    lanes2(src(0, B, t0), src(1, B, t1), res, [](u32 a, u32 b) { return b << (a & 31); });
    break;
  case FastOp::LshrrevB32:
    lanes2(src(0, B, t0), src(1, B, t1), res, [](u32 a, u32 b) { return b >> (a & 31); });
    break;
  case FastOp::AshrrevI32:
    lanes2(src(0, B, t0), src(1, B, t1), res, [](u32 a, u32 b) { return u32(i32(b) >> (a & 31)); });
    break;
  case FastOp::Add3U32:
    lanes3(src(0, B, t0), src(1, B, t1), src(2, B, t2), res,
           [](u32 a, u32 b, u32 cc) { return a + b + cc; });
    break;
  case FastOp::LshlAddU32:
    lanes3(src(0, B, t0), src(1, B, t1), src(2, B, t2), res,
           [](u32 a, u32 b, u32 cc) { return (a << (b & 31)) + cc; });
    break;
  case FastOp::AddLshlU32:
    lanes3(src(0, B, t0), src(1, B, t1), src(2, B, t2), res,
           [](u32 a, u32 b, u32 cc) { return (a + b) << (cc & 31); });
    break;
  case FastOp::LshlOrB32:
    lanes3(src(0, B, t0), src(1, B, t1), src(2, B, t2), res,
           [](u32 a, u32 b, u32 cc) { return (a << (b & 31)) | cc; });
    break;
  case FastOp::AndOrB32:
    lanes3(src(0, B, t0), src(1, B, t1), src(2, B, t2), res,
           [](u32 a, u32 b, u32 cc) { return (a & b) | cc; });
    break;
  case FastOp::Or3B32:
    lanes3(src(0, B, t0), src(1, B, t1), src(2, B, t2), res,
           [](u32 a, u32 b, u32 cc) { return a | b | cc; });
    break;
  case FastOp::CndmaskB32: {
    // VCC (e32) or an SGPR pair (e64) selects src1 for a lane whose bit is set, else src0.
    const u32 *a = src(0, Fl, t0), *b = src(1, Fl, t1);
    maskLanes(readScalar64(w, in, in.Src[2], OpType::B64), t2);
    lanes3(a, b, t2, res, [](u32 x, u32 y, u32 sel) { return sel ? y : x; });
    break;
  }
  case FastOp::AddF32:
    addF32Rows(src(0, Fl, t0), src(1, Fl, t1), nullptr, res);
    break;
  case FastOp::SubF32:
    subF32Rows(src(0, Fl, t0), src(1, Fl, t1), nullptr, res);
    break;
  case FastOp::SubrevF32:
    subrevF32Rows(src(0, Fl, t0), src(1, Fl, t1), nullptr, res);
    break;
  case FastOp::MulF32:
    mulF32Rows(src(0, Fl, t0), src(1, Fl, t1), nullptr, res);
    break;
  case FastOp::FmaF32:
    fmaF32Rows(src(0, Fl, t0), src(1, Fl, t1), src(2, Fl, t2), res);
    break;
  case FastOp::MaxF32:
  case FastOp::MinF32:
    minMaxF32Rows(op == FastOp::MaxF32, (w.Mode & fpmode::kIeee) != 0, src(0, Fl, t0),
                  src(1, Fl, t1), res);
    break;
  case FastOp::CmpI32:
  case FastOp::CmpU32:
  case FastOp::CmpF32: {
    // The mask, zero for the lanes EXEC disables, goes to VCC (VOPC) or the VOP3 form's SGPRs.
    const OpType t = op == FastOp::CmpF32 ? Fl : B;
    const Compare32 type = op == FastOp::CmpI32   ? Compare32::I32
                           : op == FastOp::CmpU32 ? Compare32::U32
                                                  : Compare32::F32;
    const u64 m = compareLanes32(type, in.FastArg, src(0, t, t0), src(1, t, t1)) & w.exec();
    writeScalar64(w, in.Sdst == kNoOperand ? uint16_t(kVccLo) : in.Sdst, m);
    return true;
  }
  case FastOp::None:
    return false;
  }
  // The lanes EXEC enables take their result; the others keep the destination's value.
  u32 *d = w.vrowOf(in.Dst);
  const u64 exec = w.exec();
  if (exec == ~0ull) {
    std::memcpy(d, res, sizeof res);
  } else {
    for (unsigned l = 0; l < kWaveSize; ++l)
      d[l] = (exec >> l) & 1 ? res[l] : d[l];
  }
  return true;
}

} // namespace asmevo::emu
