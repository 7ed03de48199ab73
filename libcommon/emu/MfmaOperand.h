// The register operands of gfx950's F8F6F4 and sparse MFMAs (ExecMfmaF8F6F4.cpp,
// ExecSmfmac.cpp): the first unified register index of a vector operand of `regs` consecutive
// VGPRs or AGPRs, or an illegal-instruction error naming the operand and the pc.
#pragma once

#include "emu/EmuError.h"
#include "emu/Exec.h"

#include <string>

namespace asmevo::emu {

inline unsigned mfmaOperandBase(const ExecCtx &c, const Inst &in, uint16_t code, unsigned regs,
                                const char *what) {
  if (code < kVgprBase || code >= kAgprBase + 256 || vectorIndex(code) + regs > kNumVectorRegs)
    throw EmuError(EmuErrorKind::IllegalInst, std::string(opNameLower(in.Operation)) + " at pc " +
                                                  hexText(c.InstPc) + ": " + what +
                                                  " operand out of range");
  return vectorIndex(code);
}

} // namespace asmevo::emu
