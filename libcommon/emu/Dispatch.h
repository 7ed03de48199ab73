// Which executor runs an instruction: the one switch over encodings that the scheduler
// (Emulator.cpp) and the coverage probe (Coverage.cpp) call. The executors (Exec.h) do not
// include it, so the scheduler sits above them and none of them above it.
#pragma once

#include "emu/Exec.h"
#include "emu/Inst.h"

namespace asmevo::emu {

// Run one instruction with the executor of its class; false when that executor does not
// implement it. Inline: the scheduler calls it once per instruction.
inline bool executeInst(ExecCtx &c, const Inst &In) {
  if (In.Refused) [[unlikely]]
    throwRefusal(c, In);
  switch (In.Encoding) {
  case Enc::SOP1:
  case Enc::SOP2:
  case Enc::SOPK:
  case Enc::SOPC:
  case Enc::SOPP:
    return execScalar(c, In);
  case Enc::SMEM:
    return execSmem(c, In);
  case Enc::VOP1:
  case Enc::VOP2:
  case Enc::VOPC:
  case Enc::VOP3:
    // v_accvgpr_mov_b32 is VOP1-encoded; the AGPR moves live with the VOP3P executor.
    return execVector(c, In) || execPacked(c, In);
  case Enc::VOP3P:
    return execPacked(c, In) || execMfma(c, In) || execMfmaF8F6F4(c, In) || execSmfmac(c, In);
  case Enc::DS:
    return execLds(c, In);
  default:
    return execVmem(c, In);
  }
}

} // namespace asmevo::emu
