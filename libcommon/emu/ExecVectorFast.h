// The short path of the commonest plain VALU instructions. A compiled kernel's vector ALU work
// is mostly 32-bit moves, bit ops, shifts, integer adds, selects and f32 add/mul/fma/min/max
// with plain operands; the general executor (ExecVector.cpp) spends most of such an
// instruction's time choosing what to do (encoding, form, modifiers, MODE, executor, op), not
// on its 64 lanes. Here the choice is made once, when the emulator pre-decodes a code object's
// .text (fastVectorOp); at run time execVectorFast switches on that choice and runs the lanes.
// Each op computes exactly what the general executor computes: vector_fast_test runs both on the
// same operands and compares every lane's bits.
#pragma once

#include "emu/Exec.h"

#include <cstdint>

namespace asmevo::emu {

enum class FastOp : uint8_t {
  None,
  // 32-bit integer and bit ops (any MODE)
  MovB32,
  NotB32,
  BfrevB32,
  AddU32,
  SubU32,
  SubrevU32,
  AndB32,
  OrB32,
  XorB32,
  LshlrevB32,
  LshrrevB32,
  AshrrevI32,
  Add3U32,
  LshlAddU32,
  AddLshlU32,
  LshlOrB32,
  AndOrB32,
  Or3B32,
  CndmaskB32,
  // f32 arithmetic (the default MODE only: nearest even, denormals kept)
  AddF32,
  SubF32,
  SubrevF32,
  MulF32,
  FmaF32,
  MaxF32,
  MinF32,
  // v_cmp_* of 32-bit operands into VCC or an SGPR pair (fastArg: the truth table); f32 ones in
  // the default MODE only
  CmpI32,
  CmpU32,
  CmpF32,
};

// The short path that runs `in`, or FastOp::None when the general executor must: a VOP1, VOP2,
// VOPC or VOP3 instruction in its plain form (no DPP or SDWA), without abs, neg, clamp, omod or
// op_sel, whose destination is a VGPR (a compare's: VCC or an SGPR pair). Sets in.fastArg where
// the op takes one.
FastOp fastVectorOp(Inst &In);

// Run `in` (whose fastVectorOp is `op`, not None, and fastArg set by it) for the wave. False, with
// nothing changed, when the wave's MODE is not the default one and `op` is an f32 op: the general
// executor runs it.
bool execVectorFast(ExecCtx &c, const Inst &In, FastOp Op);

} // namespace asmevo::emu
