// Which executor runs an instruction: the one switch over encodings that the scheduler
// (Emulator.cpp) and the coverage probe (Coverage.cpp) call. The executors (Exec.h) do not
// include it, so the scheduler sits above them and none of them above it.
#pragma once

#include "emu/Exec.h"
#include "emu/Inst.h"

namespace asmevo::emu {

// Run one instruction with the executor of its class; false when that executor does not
// implement it. Inline: the scheduler calls it once per instruction.
inline bool executeInst(ExecCtx &c, const Inst &in) {
  if (in.Refused) [[unlikely]]
    throwRefusal(c, in);
  switch (in.Encoding) {
  case Enc::SOP1:
  case Enc::SOP2:
  case Enc::SOPK:
  case Enc::SOPC:
  case Enc::SOPP:
    return execScalar(c, in);
  case Enc::SMEM:
    return execSmem(c, in);
  case Enc::VOP1:
  case Enc::VOP2:
  case Enc::VOPC:
  case Enc::VOP3:
    // v_accvgpr_mov_b32 is VOP1-encoded; the AGPR moves live with the VOP3P executor.
    return execVector(c, in) || execPacked(c, in);
  case Enc::VOP3P:
    return execPacked(c, in) || execMfma(c, in) || execMfmaF8F6F4(c, in) || execSmfmac(c, in);
  case Enc::DS:
    return execLds(c, in);
  default:
    return execVmem(c, in);
  }
}

} // namespace asmevo::emu
