// Test support: a decoded instruction built by hand (op, encoding, destination and sources as
// operand codes, Inst.h), for the executors' unit tests.
#pragma once

#include "emu/Inst.h"

namespace asmevo::emu::test {

inline Inst mk(Op op, Enc enc, uint16_t dst, uint16_t s0, uint16_t s1 = kNoOperand,
               uint16_t s2 = kNoOperand) {
  Inst in;
  in.Operation = op;
  in.Encoding = enc;
  in.Dst = dst;
  in.Src[0] = s0;
  in.Src[1] = s1;
  in.Src[2] = s2;
  return in;
}

// A VOP3P instruction with the assembler's default op_sel_hi:[1,1,1].
inline Inst vop3p(Op op, uint16_t dst, uint16_t s0, uint16_t s1, uint16_t s2 = kNoOperand) {
  Inst in = mk(op, Enc::VOP3P, dst, s0, s1, s2);
  in.OpselHi = 7;
  return in;
}

} // namespace asmevo::emu::test
