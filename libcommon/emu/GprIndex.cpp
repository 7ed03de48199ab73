#include "emu/GprIndex.h"

#include "emu/Decoder.h"

namespace asmevo::emu {

bool gprIndexApplies(const Inst &In) {
  switch (In.Encoding) {
  case Enc::VOP1:
  case Enc::VOP2:
  case Enc::VOPC:
  case Enc::VOP3:
  case Enc::VOP3P:
    return true;
  default:
    return false;
  }
}

bool applyGprIndex(const Inst &In, uint32_t M0, Inst &Out, std::string &Why) {
  Out = In;
  const unsigned Index = M0 & 0xffu, Mask = (M0 >> 12) & 0xfu;
  // Which M0 enable bit governs each slot: src0, src1, src2, dst.
  unsigned Bit[4] = {0, 1, 2, 3};
  if (isMacOp(In.Operation))
    Bit[2] = 3; // the implicit src2 is the destination
  if (In.Operation == Op::V_MADMK_F32_E32 || In.Operation == Op::V_MADMK_F16_E32 ||
      In.Operation == Op::V_FMAMK_F32_E32)
    Bit[1] = 2; // the VGPR second source sits in the src2 slot of the encoding
  auto Fix = [&](uint16_t &Code, unsigned Slot) {
    if (!(Mask & (1u << Bit[Slot])) || Code == kNoOperand)
      return true;
    if (isAgprCode(Code)) {
      Why = "an AGPR operand in a slot VGPR indexing is enabled for (the ISA documents do not say "
            "whether the index applies to AGPRs)";
      return false;
    }
    if (!isVgprCode(Code))
      return true; // SGPRs, constants, literals are not indexed
    unsigned Reg = Code - kVgprBase + Index;
    if (Reg > 255) {
      Why = "VGPR indexing addresses v" + std::to_string(Reg) + " (v" +
            std::to_string(Code - kVgprBase) + " + M0[7:0] = " + std::to_string(Index) +
            "), past v255: illegal per the ISA";
      return false;
    }
    Code = uint16_t(kVgprBase + Reg);
    return true;
  };
  for (unsigned S = 0; S < 3; ++S)
    if (!Fix(Out.Src[S], S))
      return false;
  return Fix(Out.Dst, 3);
}

} // namespace asmevo::emu
