// Decoding gfx9 CDNA machine code into the emulator's instruction model (Inst.h), from the
// generated encoding tables (IsaTables.inc). The printer (LLVM syntax) is InstPrinter.cpp.
#include "emu/Decoder.h"
#include "emu/DecoderTables.h"
#include "emu/Wave.h"

#include <cstring>

namespace asmevo::emu {

#include "emu/IsaTables.inc"

namespace {

inline uint32_t load32(const uint8_t *P) {
  uint32_t V;
  std::memcpy(&V, P, 4);
  return V;
}
inline uint32_t bits(uint64_t W, unsigned Hi, unsigned Lo) {
  return uint32_t((W >> Lo) & ((uint64_t(1) << (Hi - Lo + 1)) - 1));
}

bool fail(std::string *Why, const char *Msg) {
  if (Why)
    *Why = Msg;
  return false;
}

// Vector register code of an 8-bit VGPR field, AGPR when Acc.
inline uint16_t vreg(uint32_t Field, bool Acc = false) {
  return uint16_t((Acc ? kAgprBase : kVgprBase) + Field);
}
// A 9-bit source code that names a VGPR becomes an AGPR code when Acc.
inline uint16_t accSrc(uint16_t Code, bool Acc) {
  return (Acc && isVgprCode(Code)) ? uint16_t(Code + 256) : Code;
}

bool isCarryIn(Op O) {
  return O == Op::V_ADDC_CO_U32_E32 || O == Op::V_SUBB_CO_U32_E32 ||
         O == Op::V_SUBBREV_CO_U32_E32 || O == Op::V_CNDMASK_B32_E32;
}
bool isCarryOut(Op O) {
  return O == Op::V_ADD_CO_U32_E32 || O == Op::V_SUB_CO_U32_E32 || O == Op::V_SUBREV_CO_U32_E32 ||
         O == Op::V_ADDC_CO_U32_E32 || O == Op::V_SUBB_CO_U32_E32 || O == Op::V_SUBBREV_CO_U32_E32;
}
bool isMacImpl(Op O) {
  switch (O) {
  case Op::V_MAC_F32_E32:
  case Op::V_MAC_F32_E64:
  case Op::V_FMAC_F32_E32:
  case Op::V_FMAC_F32_E64:
  case Op::V_FMAC_F64_E32:
  case Op::V_FMAC_F64_E64:
  case Op::V_MAC_F16_E32:
  case Op::V_MAC_F16_E64:
  case Op::V_DOT2C_F32_F16_E32:
  case Op::V_DOT2C_F32_F16_E64:
  case Op::V_DOT2C_I32_I16_E32:
  case Op::V_DOT2C_I32_I16_E64:
  case Op::V_DOT4C_I32_I8_E32:
  case Op::V_DOT4C_I32_I8_E64:
  case Op::V_DOT8C_I32_I4_E32:
  case Op::V_DOT8C_I32_I4_E64:
  case Op::V_DOT2C_F32_BF16_E32:
  case Op::V_DOT2C_F32_BF16_E64:
  case Op::V_PK_FMAC_F16_E32:
  case Op::V_PK_FMAC_F16_E64:
    return true;
  default:
    return false;
  }
}

} // namespace

bool isMacOp(Op O) { return isMacImpl(O); }

unsigned f8f6f4SourceRegs(const Inst &In, unsigned S) {
  if (S > 1 || (In.Operation != Op::V_MFMA_F32_16X16X128_F8F6F4 &&
                In.Operation != Op::V_MFMA_F32_32X32X64_F8F6F4))
    return 0;
  static constexpr unsigned kRegs[8] = {8, 8, 6, 6, 4, 0, 0, 0};
  return kRegs[(S == 0 ? In.Cbsz : In.Blgp) & 7];
}

const OpInfo *lookupInfo(unsigned Family, unsigned Opcode, Gfx Target) {
  unsigned T = Target == Gfx::Gfx90a ? 0 : Target == Gfx::Gfx950 ? 2 : 1;
  if (Opcode >= kMapSize[Family])
    return nullptr;
  uint16_t R = kMaps[T][Family][Opcode];
  return R == 0xffff ? nullptr : &kOpInfo[R];
}

unsigned familyOf(const Inst &In) {
  switch (In.Encoding) {
  case Enc::SOP1:
    return kFamSOP1;
  case Enc::SOP2:
    return kFamSOP2;
  case Enc::SOPK:
    return kFamSOPK;
  case Enc::SOPC:
    return kFamSOPC;
  case Enc::SOPP:
    return kFamSOPP;
  case Enc::SMEM:
    return kFamSMEM;
  case Enc::VOP1:
    return kFamVOP1;
  case Enc::VOP2:
    return kFamVOP2;
  case Enc::VOPC:
    return kFamVOPC;
  case Enc::VOP3:
    return kFamVOP3;
  case Enc::VOP3P:
    return kFamVOP3P;
  case Enc::DS:
    return kFamDS;
  case Enc::FLAT:
    return kFamFLAT;
  case Enc::GLOBAL:
    return kFamGLOBAL;
  case Enc::SCRATCH:
    return kFamSCRATCH;
  case Enc::MUBUF:
    return kFamMUBUF;
  case Enc::MTBUF:
    return kFamMTBUF;
  }
  return kFamSOPP;
}

const OpInfo *infoOf(const Inst &In, Gfx Target) {
  return lookupInfo(familyOf(In), In.Opcode, Target);
}

bool isAtomicOp(Op O) {
  const char *N = opName(O);
  return std::strstr(N, "ATOMIC") != nullptr;
}

bool decodeInst(const uint8_t *Bytes, size_t Avail, Gfx Target, Inst &Out, std::string *Why) {
  Out = Inst();
  if (Avail < 4)
    return fail(Why, "truncated instruction (fewer than 4 bytes)");
  const uint32_t W0 = load32(Bytes);
  const bool Have8 = Avail >= 8;
  const uint64_t W = Have8 ? (uint64_t(load32(Bytes + 4)) << 32) | W0 : W0;
  const bool G94 = isGfx94Plus(Target);

  // Reads the literal dword at byte offset Size when a source is the literal code.
  auto TakeLiteral = [&](unsigned At) -> bool {
    if (Avail < At + 4)
      return fail(Why, "truncated literal");
    Out.HasLiteral = true;
    Out.Literal = load32(Bytes + At);
    Out.Size = uint8_t(At + 4);
    return true;
  };
  auto Need8 = [&]() -> bool {
    if (!Have8)
      return fail(Why, "truncated 64-bit instruction");
    Out.Size = 8;
    return true;
  };
  const OpInfo *I = nullptr;
  auto Lookup = [&](unsigned Fam, unsigned Opc) -> bool {
    Out.Opcode = uint16_t(Opc);
    I = lookupInfo(Fam, Opc, Target);
    if (!I)
      return fail(Why, "unknown opcode");
    Out.Operation = I->Operation;
    return true;
  };

  if ((W0 >> 31) == 0 || (W0 >> 25) == 0x3F || (W0 >> 25) == 0x3E) {
    // VOP2 / VOP1 / VOPC.
    unsigned Fam;
    uint32_t Opc;
    if ((W0 >> 25) != 0x3F && (W0 >> 25) != 0x3E) {
      Out.Encoding = Enc::VOP2;
      Fam = kFamVOP2;
      Opc = bits(W0, 30, 25);
    } else if ((W0 >> 25) == 0x3F) {
      Out.Encoding = Enc::VOP1;
      Fam = kFamVOP1;
      Opc = bits(W0, 16, 9);
    } else {
      Out.Encoding = Enc::VOPC;
      Fam = kFamVOPC;
      Opc = bits(W0, 24, 17);
    }
    if (!Lookup(Fam, Opc))
      return false;
    const Op O = Out.Operation;
    uint16_t Src0 = uint16_t(bits(W0, 8, 0));
    uint16_t VSrc1 = uint16_t(kVgprBase + bits(W0, 16, 9));
    uint16_t VDst = uint16_t(kVgprBase + bits(W0, 24, 17));
    if (Out.Encoding == Enc::VOP1 && (O == Op::V_READFIRSTLANE_B32_E32))
      VDst = uint16_t(bits(W0, 24, 17));
    if (Out.Encoding != Enc::VOPC && I->W[0])
      Out.Dst = VDst;
    if (Out.Encoding == Enc::VOPC)
      Out.Sdst = kVccLo;
    if (Out.Encoding != Enc::VOP1)
      Out.Src[1] = VSrc1;
    if (Out.Encoding == Enc::VOP2 && isCarryOut(O))
      Out.Sdst = kVccLo;
    if (Out.Encoding == Enc::VOP2 && isCarryIn(O))
      Out.Src[2] = kVccLo;
    if (Out.Encoding == Enc::VOP2 && isMacOp(O))
      Out.Src[2] = Out.Dst;
    if (Out.Encoding == Enc::VOP1 && I->W[2] == 0) {
      // v_nop / v_clrexcp: no source.
      Src0 = kNoOperand;
    }
    if (Src0 == 0xFA) { // DPP
      if (!Need8())
        return false;
      Out.Form = VForm::Dpp;
      Out.Src[0] = uint16_t(kVgprBase + bits(W, 39, 32));
      Out.DppCtrl = uint16_t(bits(W, 48, 40));
      Out.BoundCtrl = bits(W, 51, 51);
      Out.Neg = uint8_t(bits(W, 52, 52) | bits(W, 54, 54) << 1);
      Out.Abs = uint8_t(bits(W, 53, 53) | bits(W, 55, 55) << 1);
      Out.BankMask = uint8_t(bits(W, 59, 56));
      Out.RowMask = uint8_t(bits(W, 63, 60));
    } else if (Src0 == 0xF9) { // SDWA
      if (!Need8())
        return false;
      Out.Form = VForm::Sdwa;
      uint16_t S0 = uint16_t(bits(W, 39, 32));
      Out.Src[0] = bits(W, 55, 55) ? S0 : uint16_t(kVgprBase + S0);
      if (Out.Encoding != Enc::VOP1 && bits(W, 63, 63))
        Out.Src[1] = uint16_t(bits(W0, 16, 9));
      if (Out.Encoding == Enc::VOP2 && isMacOp(O))
        Out.Src[2] = Out.Dst;
      if (Out.Encoding == Enc::VOPC) {
        if (bits(W, 47, 47))
          Out.Sdst = uint16_t(bits(W, 46, 40));
      } else {
        Out.DstSel = uint8_t(bits(W, 42, 40));
        Out.DstUnused = uint8_t(bits(W, 44, 43));
        Out.Clamp = bits(W, 45, 45);
        Out.Omod = uint8_t(bits(W, 47, 46));
      }
      Out.SrcSel[0] = uint8_t(bits(W, 50, 48));
      Out.SrcSel[1] = uint8_t(bits(W, 58, 56));
      Out.Sext = uint8_t(bits(W, 51, 51) | bits(W, 59, 59) << 1);
      Out.Neg = uint8_t(bits(W, 52, 52) | bits(W, 60, 60) << 1);
      Out.Abs = uint8_t(bits(W, 53, 53) | bits(W, 61, 61) << 1);
    } else {
      Out.Src[0] = Src0;
      if (I->Flags & kLitK) {
        if (!TakeLiteral(4))
          return false;
      } else if (Src0 == kLiteralCode) {
        if (!TakeLiteral(4))
          return false;
      }
    }
    return true;
  }

  if ((W0 >> 30) == 2) {
    // Scalar ALU.
    if ((W0 >> 23) == 0x17D) {
      Out.Encoding = Enc::SOP1;
      if (!Lookup(kFamSOP1, bits(W0, 15, 8)))
        return false;
      if (I->W[0])
        Out.Dst = uint16_t(bits(W0, 22, 16));
      if (I->W[2]) {
        Out.Src[0] = uint16_t(bits(W0, 7, 0));
        if (Out.Src[0] == kLiteralCode && !TakeLiteral(4))
          return false;
      }
    } else if ((W0 >> 23) == 0x17E) {
      Out.Encoding = Enc::SOPC;
      if (!Lookup(kFamSOPC, bits(W0, 22, 16)))
        return false;
      Out.Src[0] = uint16_t(bits(W0, 7, 0));
      Out.Src[1] = uint16_t(bits(W0, 15, 8));
      if ((Out.Src[0] == kLiteralCode || Out.Src[1] == kLiteralCode) && !TakeLiteral(4))
        return false;
    } else if ((W0 >> 23) == 0x17F) {
      Out.Encoding = Enc::SOPP;
      if (!Lookup(kFamSOPP, bits(W0, 22, 16)))
        return false;
      Out.Simm16 = int16_t(bits(W0, 15, 0));
    } else if ((W0 >> 28) == 0xB) {
      Out.Encoding = Enc::SOPK;
      if (!Lookup(kFamSOPK, bits(W0, 27, 23)))
        return false;
      if (I->W[0])
        Out.Dst = uint16_t(bits(W0, 22, 16));
      Out.Simm16 = int16_t(bits(W0, 15, 0));
      if (Out.Operation == Op::S_SETREG_IMM32_B32 && !TakeLiteral(4))
        return false;
    } else {
      Out.Encoding = Enc::SOP2;
      if (!Lookup(kFamSOP2, bits(W0, 29, 23)))
        return false;
      if (I->W[0])
        Out.Dst = uint16_t(bits(W0, 22, 16));
      Out.Src[0] = uint16_t(bits(W0, 7, 0));
      Out.Src[1] = uint16_t(bits(W0, 15, 8));
      if ((Out.Src[0] == kLiteralCode || Out.Src[1] == kLiteralCode) && !TakeLiteral(4))
        return false;
    }
    return true;
  }

  // 64-bit encodings.
  if ((W0 >> 23) == 0x1A7) {
    Out.Encoding = Enc::VOP3P;
    if (!Need8() || !Lookup(kFamVOP3P, bits(W0, 22, 16)))
      return false;
    Out.Src[0] = uint16_t(bits(W, 40, 32));
    if (I->W[3])
      Out.Src[1] = uint16_t(bits(W, 49, 41));
    if (I->W[4])
      Out.Src[2] = uint16_t(bits(W, 58, 50));
    if (Out.Operation == Op::V_MFMA_LD_SCALE_B32) {
      // The prefix of a scaled MFMA (VOP3PX2, low half): scale_src0 40:32, scale_src1 49:41,
      // op_sel 12:11 and op_sel_hi 60:59 (bits 13 and 14, op_sel[2] / op_sel_hi[2] of a
      // third source it does not have, select nothing).
      Out.Src[1] = uint16_t(bits(W, 49, 41));
      Out.Opsel = uint8_t(bits(W0, 12, 11));
      Out.OpselHi = uint8_t(bits(W, 60, 59));
      Out.Neg = uint8_t(bits(W, 63, 61));
      Out.NegHi = uint8_t(bits(W0, 10, 8));
      for (uint16_t S : {Out.Src[0], Out.Src[1]})
        if (S == kLiteralCode)
          return fail(Why, "literal constant in v_mfma_ld_scale_b32");
      return true;
    }
    if (I->Flags & kMfma) {
      bool AccCd = bits(W0, 15, 15);
      Out.Cbsz = uint8_t(bits(W0, 10, 8));
      Out.Abid = uint8_t(bits(W0, 14, 11));
      Out.Blgp = uint8_t(bits(W, 63, 61));
      Out.Src[0] = accSrc(Out.Src[0], bits(W, 59, 59));
      Out.Src[1] = accSrc(Out.Src[1], bits(W, 60, 60));
      bool Smfmac = std::strncmp(opName(Out.Operation), "V_SMFMAC", 8) == 0;
      if (!Smfmac)
        Out.Src[2] = accSrc(Out.Src[2], AccCd);
      Out.Dst = vreg(bits(W0, 7, 0), AccCd);
      // opsel/neg fields of gfx940+ f64 MFMA: neg (blgp bits) are kept as blgp.
      return true;
    }
    Out.Dst = vreg(bits(W0, 7, 0));
    if (Out.Operation == Op::V_ACCVGPR_READ)
      Out.Src[0] = accSrc(Out.Src[0], true);
    if (Out.Operation == Op::V_ACCVGPR_WRITE)
      Out.Dst = vreg(bits(W0, 7, 0), true);
    Out.NegHi = uint8_t(bits(W0, 10, 8));
    Out.Opsel = uint8_t(bits(W0, 13, 11));
    Out.OpselHi = uint8_t(bits(W, 60, 59) | bits(W0, 14, 14) << 2);
    Out.Clamp = bits(W0, 15, 15);
    Out.Neg = uint8_t(bits(W, 63, 61));
    if (isMacOp(Out.Operation))
      Out.Src[2] = Out.Dst;
    for (uint16_t S : Out.Src)
      if (S == kLiteralCode)
        return fail(Why, "literal constant in a VOP3P instruction");
    return true;
  }

  switch (W0 >> 26) {
  case 0x30: { // SMEM
    Out.Encoding = Enc::SMEM;
    if (!Need8() || !Lookup(kFamSMEM, bits(W0, 25, 18)))
      return false;
    Out.SmemImm = bits(W0, 17, 17);
    Out.Glc = bits(W0, 16, 16);
    Out.SmemSoffsetEn = bits(W0, 14, 14);
    if (bits(W0, 15, 15))
      Out.Nt = true; // nv
    if (I->W[0])
      Out.Dst = uint16_t(bits(W0, 12, 6));
    if (I->W[2])
      Out.Sbase = uint16_t(bits(W0, 5, 0) * 2);
    if (Out.SmemImm) {
      uint32_t Off = bits(W, 52, 32);
      Out.Offset = int32_t(Off << 11) >> 11;
      if (Out.SmemSoffsetEn)
        Out.Soffset = uint16_t(bits(W, 63, 57));
    } else {
      Out.Soffset = uint16_t(bits(W, 52, 32) & 0xFF);
    }
    return true;
  }
  case 0x34: { // VOP3
    Out.Encoding = Enc::VOP3;
    const uint32_t Opc = bits(W0, 25, 16);
    if (!Need8() || !Lookup(kFamVOP3, Opc))
      return false;
    const Op O = Out.Operation;
    Out.Src[0] = uint16_t(bits(W, 40, 32));
    if (I->W[3])
      Out.Src[1] = uint16_t(bits(W, 49, 41));
    if (I->W[4])
      Out.Src[2] = uint16_t(bits(W, 58, 50));
    Out.Clamp = bits(W0, 15, 15);
    Out.Omod = uint8_t(bits(W, 60, 59));
    Out.Neg = uint8_t(bits(W, 63, 61));
    if (I->Flags & kVop3b) {
      Out.Dst = vreg(bits(W0, 7, 0));
      Out.Sdst = uint16_t(bits(W0, 14, 8));
    } else {
      Out.Abs = uint8_t(bits(W0, 10, 8));
      Out.Opsel = uint8_t(bits(W0, 14, 11));
      if (Opc < 256) {
        Out.Sdst = uint16_t(bits(W0, 7, 0));
      } else if (O == Op::V_READLANE_B32 || O == Op::V_READFIRSTLANE_B32_E32) {
        Out.Dst = uint16_t(bits(W0, 7, 0));
      } else if (I->W[0]) {
        Out.Dst = vreg(bits(W0, 7, 0));
      }
    }
    if (isMacOp(O))
      Out.Src[2] = Out.Dst;
    if (O == Op::V_NOP_E64 || O == Op::V_CLREXCP_E64)
      Out.Src[0] = kNoOperand;
    for (uint16_t S : Out.Src)
      if (S == kLiteralCode)
        return fail(Why, "literal constant in a VOP3 instruction");
    return true;
  }
  case 0x36: { // DS
    Out.Encoding = Enc::DS;
    if (!Need8() || !Lookup(kFamDS, bits(W0, 24, 17)))
      return false;
    bool Acc = bits(W0, 25, 25);
    Out.Offset0 = uint8_t(bits(W0, 7, 0));
    Out.Offset1 = uint8_t(bits(W0, 15, 8));
    Out.Offset = int32_t(bits(W0, 15, 0));
    Out.Gds = bits(W0, 16, 16);
    if (I->W[2])
      Out.Addr = vreg(bits(W, 39, 32));
    if (I->W[3])
      Out.Data0 = vreg(bits(W, 47, 40), Acc);
    if (I->W[4])
      Out.Data1 = vreg(bits(W, 55, 48), Acc);
    if (I->W[0])
      Out.Dst = vreg(bits(W, 63, 56), Acc);
    return true;
  }
  case 0x37: { // FLAT / SCRATCH / GLOBAL
    const uint32_t Seg = bits(W0, 15, 14);
    unsigned Fam;
    if (Seg == 0) {
      Out.Encoding = Enc::FLAT;
      Fam = kFamFLAT;
    } else if (Seg == 1) {
      Out.Encoding = Enc::SCRATCH;
      Fam = kFamSCRATCH;
    } else if (Seg == 2) {
      Out.Encoding = Enc::GLOBAL;
      Fam = kFamGLOBAL;
    } else {
      return fail(Why, "reserved FLAT segment");
    }
    if (!Need8() || !Lookup(Fam, bits(W0, 24, 18)))
      return false;
    bool Acc = bits(W, 55, 55);
    Out.Glc = Out.Sc0 = bits(W0, 16, 16);
    Out.Slc = Out.Nt = bits(W0, 17, 17);
    Out.Sc1 = bits(W0, 25, 25);
    Out.Lds = false;
    Out.Sve = bits(W0, 13, 13);
    if (Seg == 0)
      Out.Offset = int32_t(bits(W0, 11, 0));
    else
      Out.Offset = int32_t(bits(W0, 12, 0) << 19) >> 19;
    uint32_t SAddr = bits(W, 54, 48);
    if (Seg != 0 && SAddr != 0x7F)
      Out.Saddr = uint16_t(SAddr);
    bool UsesVaddr = true;
    if (Seg == 1)
      UsesVaddr = G94 ? Out.Sve : SAddr == 0x7F;
    if (UsesVaddr)
      Out.Addr = vreg(bits(W, 39, 32));
    bool Atomic = isAtomicOp(Out.Operation);
    if (I->W[3])
      Out.Data0 = vreg(bits(W, 47, 40), Acc);
    // global/scratch_load_lds_*: the data goes to LDS at M0; the vdst field is unused, so
    // there is no destination register (the table's width is the load's size).
    if (std::strstr(opName(Out.Operation), "LOAD_LDS"))
      Out.Lds = true;
    if (I->W[0] && (!Atomic || Out.Glc) && !Out.Lds)
      Out.Dst = vreg(bits(W, 63, 56), Acc);
    return true;
  }
  case 0x38:   // MUBUF
  case 0x3A: { // MTBUF
    const bool Typed = (W0 >> 26) == 0x3A;
    Out.Encoding = Typed ? Enc::MTBUF : Enc::MUBUF;
    if (!Need8() ||
        !Lookup(Typed ? kFamMTBUF : kFamMUBUF, Typed ? bits(W0, 18, 15) : bits(W0, 24, 18)))
      return false;
    bool Acc = bits(W, 55, 55);
    Out.Offset = int32_t(bits(W0, 11, 0));
    Out.Offen = bits(W0, 12, 12);
    Out.Idxen = bits(W0, 13, 13);
    Out.Glc = Out.Sc0 = bits(W0, 14, 14);
    if (Typed) {
      Out.Dfmt = uint8_t(bits(W0, 22, 19));
      Out.Nfmt = uint8_t(bits(W0, 25, 23));
      Out.Sc1 = bits(W, 53, 53);
      Out.Slc = Out.Nt = bits(W, 54, 54);
    } else {
      Out.Sc1 = bits(W0, 15, 15);
      Out.Lds = bits(W0, 16, 16);
      Out.Slc = Out.Nt = bits(W0, 17, 17);
    }
    if (I->W[3]) {
      Out.Sbase = uint16_t(bits(W, 52, 48) * 4);
      Out.Soffset = uint16_t(bits(W, 63, 56));
      if (Out.Idxen || Out.Offen)
        Out.Addr = vreg(bits(W, 39, 32));
    }
    if (I->W[0] && !Out.Lds) {
      const char *N = opName(Out.Operation);
      bool Store = std::strstr(N, "STORE") != nullptr;
      bool Atomic = isAtomicOp(Out.Operation);
      uint16_t V = vreg(bits(W, 47, 40), Acc);
      if (Store || Atomic)
        Out.Data0 = V;
      if ((!Store && !Atomic) || (Atomic && Out.Glc))
        Out.Dst = V;
    }
    return true;
  }
  default:
    return fail(Why, "unknown encoding");
  }
}

} // namespace asmevo::emu
