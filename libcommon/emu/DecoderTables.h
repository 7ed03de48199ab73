// Internal to the decoder and its printer: the generated per-target opcode tables' row type
// (IsaTables.inc) and lookups. Not for executors (they use Inst.h).
#pragma once

#include "emu/Gfx.h"
#include "emu/Inst.h"

#include <cstdint>

namespace asmevo::emu {

// Number type of a source operand: how an inline constant or literal prints.
enum NumType : uint8_t {
  kI32,
  kF32,
  kF16,
  kBF16,
  kF64,
  kI64,
  kI16,
  kPkF16,
  kPkBF16,
  kPkI16,
  kPkF32
};
// OpInfo flags.
enum : uint8_t {
  kE64 = 1,   // a VOP3 op that also has a VOP1/VOP2/VOPC form: printed with _e64
  kVop3b = 2, // VOP3b: sdst field
  kMfma = 4,  // MFMA / SMFMAC
  kLitK = 8,  // VOP2 with a literal constant operand (madmk/madak/fmamk/fmaak)
};
// Family indices of the generated tables (order of FAMILIES in gen_emu_ops.py).
enum : unsigned {
  kFamSOP1,
  kFamSOP2,
  kFamSOPK,
  kFamSOPC,
  kFamSOPP,
  kFamSMEM,
  kFamVOP1,
  kFamVOP2,
  kFamVOPC,
  kFamVOP3,
  kFamVOP3P,
  kFamDS,
  kFamFLAT,
  kFamGLOBAL,
  kFamSCRATCH,
  kFamMUBUF,
  kFamMTBUF,
};

struct OpInfo {
  Op Operation;
  const char *Name; // LLVM's mnemonic without encoding suffix
  uint8_t Flags;
  uint8_t W[5]; // widths in dwords: dst, sdst, src0, src1, src2 (0: absent)
  NumType T[3]; // number types of src0..src2
};

const OpInfo *lookupInfo(unsigned Family, unsigned Opcode, Gfx Target);
unsigned familyOf(const Inst &In);
const OpInfo *infoOf(const Inst &In, Gfx Target);
bool isAtomicOp(Op O);

} // namespace asmevo::emu
