// The register operands of gfx950's F8F6F4 and sparse MFMAs (ExecMfmaF8F6F4.cpp,
// ExecSmfmac.cpp): the first unified register index of a vector operand of `regs` consecutive
// VGPRs or AGPRs, or an illegal-instruction error naming the operand and the pc.
#pragma once

#include "emu/EmuError.h"
#include "emu/Exec.h"

#include <string>

namespace asmevo::emu {

inline unsigned mfmaOperandBase(const ExecCtx &c, const Inst &In, uint16_t Code, unsigned Regs,
                                const char *What) {
  if (Code < kVgprBase || Code >= kAgprBase + 256 || vectorIndex(Code) + Regs > kNumVectorRegs)
    throw EmuError(EmuErrorKind::IllegalInst, std::string(opNameLower(In.Operation)) + " at pc " +
                                                  hexText(c.InstPc) + ": " + What +
                                                  " operand out of range");
  return vectorIndex(Code);
}

} // namespace asmevo::emu
