// The emulator's instruction model: one decoded gfx9 (CDNA2/3/4) machine instruction.
//
// The decoder (Decoder.h) fills it from the instruction words; the executors (Exec*.cpp) and
// the printer read it. Register operands keep the ISA's own operand codes so that nothing is
// lost in translation:
//   scalar source codes  0..255 : SGPRs, specials (VCC 106/107, M0 124, EXEC 126/127, ...),
//                                 inline constants 128..208 / 240..248, SCC 253, literal 255
//   vector source codes 256..511: VGPR (code - 256)
//   AGPR operand codes  512..767: AGPR (code - 512)   (acc bit, or 'acc' fields of MFMA/DS/VMEM)
// Destination codes use the same space: an SGPR destination is 0..127, a VGPR one 256..511,
// an AGPR one 512..767. kNoOperand marks an absent operand.
//
// The decoder makes implicit operands explicit, so that executors never re-derive encodings:
//  - VOPC: the result mask goes to `sdst` (kVccLo=106 for e32 and for SDWA without sdst; the
//    encoded SGPR pair for VOP3 and SDWA with sdst). `dst` stays kNoOperand. v_cmpx_* also
//    writes EXEC (the executor knows that from the op).
//  - VOP2 carry ops (v_add_co_u32, v_addc_co_u32, ...) and v_cndmask_b32 in e32/DPP/SDWA form:
//    carry-out `sdst` = kVccLo, carry-in / select `src[2]` = kVccLo. In VOP3 form: the encoded
//    sdst field and src2.
//  - VOP3b ops (carry ops, v_div_scale_*, v_mad_u64_u32, v_mad_i64_i32): `dst` = vdst,
//    `sdst` = the encoded SGPR pair.
//  - v_readlane_b32 / v_readfirstlane_b32: `dst` is an SGPR code (< 128). v_writelane_b32:
//    `dst` is a VGPR code, src[0] the value, src[1] the lane select.
//  - v_mac/v_fmac (VOP2 and VOP3): src[2] = dst (the accumulator).
//  - SMEM: `dst` = sdata (first SGPR), `sbase` = first SGPR of the base pair/quad (field * 2),
//    `offset` = immediate (when smemImm), `soffset` = SGPR code (when smemSoffsetEn or !smemImm).
//  - MUBUF/MTBUF: `sbase` = first SGPR of the V# (srsrc field * 4), `soffset` = scalar source
//    code, `addr` = vaddr (VGPR code; kNoOperand when neither idxen nor offen), loads put vdata
//    in `dst`, stores in `data0`, returning atomics in both. acc bit -> AGPR codes.
//  - FLAT/GLOBAL/SCRATCH: `addr` = vaddr code (kNoOperand when unused: scratch with saddr, or
//    SVE=0 on gfx940+), `saddr` = SGPR code (kNoOperand for "off"), loads put vdst in `dst`,
//    stores put data in `data0`, returning atomics use both. `offset` is sign-extended where the
//    segment's offset is signed (GLOBAL/SCRATCH 13 bits), FLAT 12 bits unsigned.
//  - DS: `addr`, `data0`, `data1`, `dst` as encoded (acc bit -> AGPR codes for data and dst).
//  - MFMA: src[0] = A, src[1] = B, src[2] = C, `dst` = D, AGPR-ness per the acc / acc_cd bits
//    (gfx90a+ encodes C and D with acc_cd, A and B with acc).
//  - VOP1/VOP2/VOPC DPP and SDWA forms: src[0] is the VGPR from the extension dword.
//  - v_fmamk/v_fmaak/v_madmk/v_madak: the constant K is `literal`; src[0], src[1] are the
//    register operands.
//  - ds_swizzle_b32: its source VGPR is the ADDR field (`addr`), as the ISA encodes it.
//  - `simm16` is sign-extended (mask with 0xffff for s_waitcnt and hwreg fields). The DS
//    16-bit offset is `offset1:offset0`; SMEM `offset` is sign-extended from 21 bits.
//  - Cache bits: `glc` and `sc0` are the same bit, as are `slc` and `nt`; `sc1` is FLAT
//    bit 25 / MUBUF bit 15. SMEM's nv bit is kept in `nt`. FLAT/MUBUF atomics have a `dst`
//    only when they return (glc/sc0).
//  - gfx950 v_bitop3: the truth table stays in the raw fields, neg | abs << 3 | omod << 6.
#pragma once

#include <cstdint>

namespace asmevo::emu {

enum class Op : uint16_t {
#define ASMEVO_OP(name) name,
#include "emu/IsaOps.inc"
#undef ASMEVO_OP
  Count
};

// The ISA's upper-case mnemonic of an operation ("V_ADD_F32").
const char *opName(Op Opc);
// The same in lower case ("global_load_dword"): a static string, for messages on hot paths.
const char *opNameLower(Op Opc);

// Encoding family. VOP3 covers VOP3a and VOP3b (sdst); VOP3P covers MFMA and packed math.
enum class Enc : uint8_t {
  SOP1,
  SOP2,
  SOPK,
  SOPC,
  SOPP,
  SMEM,
  VOP1,
  VOP2,
  VOPC,
  VOP3,
  VOP3P,
  DS,
  FLAT,
  GLOBAL,
  SCRATCH,
  MUBUF,
  MTBUF,
};

// Sub-form of a VOP1/VOP2/VOPC instruction (src0 replaced by an extension dword).
enum class VForm : uint8_t { Plain, Dpp, Sdwa };

constexpr uint16_t kNoOperand = 0xffff;
constexpr uint16_t kVgprBase = 256;
constexpr uint16_t kAgprBase = 512;
constexpr uint16_t kLiteralCode = 255;

inline bool isVgprCode(uint16_t c) { return c >= kVgprBase && c < kAgprBase; }
inline bool isAgprCode(uint16_t c) { return c >= kAgprBase && c < kAgprBase + 256; }
// Index into the wave's unified vector register file (arch VGPRs 0..255, AGPRs 256..511).
inline unsigned vectorIndex(uint16_t c) { return c - kVgprBase; }

struct Inst {
  Op Operation = Op::Count;
  uint16_t Opcode = 0; // the encoding's opcode field (VOP3: the 10-bit VOP3 opcode)
  Enc Encoding = Enc::SOPP;
  VForm Form = VForm::Plain;
  uint8_t Size = 4; // bytes, literal and extension dwords included
  bool HasLiteral = false;
  uint32_t Literal = 0;

  // Operands, as operand codes (see above).
  uint16_t Src[3] = {kNoOperand, kNoOperand, kNoOperand};
  uint16_t Dst = kNoOperand;  // vdst / sdst / SMEM sdata / DS vdst / VMEM vdst or vdata (loads)
  uint16_t Sdst = kNoOperand; // VOP3b carry-out / VOPC-in-VOP3 sdst / SDWA VOPC sdst

  // SOPK simm16, SOPP simm16 (branch offsets in dwords, waitcnt fields, ...).
  int32_t Simm16 = 0;

  // VOP3 / VOP3P / SDWA / DPP modifiers. Bit i is for source i.
  uint8_t Abs = 0, Neg = 0, NegHi = 0;
  uint8_t Opsel = 0;   // VOP3: bit 3 selects the destination half; VOP3P: op_sel
  uint8_t OpselHi = 0; // VOP3P op_sel_hi (bits 0..2, bit 2 from opsel_hi2)
  bool Clamp = false;
  uint8_t Omod = 0;

  // DPP (VForm::Dpp).
  uint16_t DppCtrl = 0;
  uint8_t RowMask = 0xf, BankMask = 0xf;
  bool BoundCtrl = false;

  // SDWA (VForm::Sdwa). Selects: 0..3 byte, 4..5 word, 6 dword.
  uint8_t DstSel = 6, DstUnused = 0, SrcSel[2] = {6, 6};
  uint8_t Sext = 0; // bit i: source i sign-extends

  // MFMA (Enc::VOP3P with an MFMA op): broadcast controls.
  uint8_t Cbsz = 0, Abid = 0, Blgp = 0;

  // Memory operands.
  uint16_t Addr = kNoOperand;       // DS addr, FLAT/GLOBAL/SCRATCH addr, MUBUF vaddr (VGPR code)
  uint16_t Data0 = kNoOperand;      // DS data0, VMEM store data (vector code, VGPR or AGPR)
  uint16_t Data1 = kNoOperand;      // DS data1
  uint16_t Saddr = kNoOperand;      // GLOBAL/SCRATCH saddr (SGPR code; kNoOperand when "off")
  uint16_t Sbase = kNoOperand;      // SMEM sbase (first SGPR), MUBUF/MTBUF srsrc (first SGPR)
  uint16_t Soffset = kNoOperand;    // SMEM soffset (SGPR), MUBUF soffset (scalar source code)
  int32_t Offset = 0;               // SMEM/FLAT/MUBUF immediate offset (sign-extended where signed)
  uint8_t Offset0 = 0, Offset1 = 0; // DS offsets
  bool Gds = false;
  bool SmemImm = false, SmemSoffsetEn = false;
  bool Glc = false, Slc = false; // SMEM glc / MUBUF-FLAT sc0 (glc), sc1 (slc on gfx90a)
  bool Nt = false, Sc0 = false, Sc1 = false;
  bool Idxen = false, Offen = false, Lds = false, Sve = false;
  uint8_t Dfmt = 0, Nfmt = 0; // MTBUF

  // Not a field of the encoding: the emulator's short path for this instruction (a FastOp of
  // ExecVectorFast.h), set when it pre-decodes a code object; 0 runs the general executor.
  uint8_t Fast = 0, FastArg = 0;
  // Not a field either: formRefusal (Refusal.h) refuses this instruction's form; set with
  // markRefusal wherever instructions are decoded to run, and checked by executeInst.
  bool Refused = false;
};

} // namespace asmevo::emu
