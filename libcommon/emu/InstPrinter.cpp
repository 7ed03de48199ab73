// Printing a decoded instruction (Inst.h) in LLVM's AMDGPU assembler syntax, as LLVM 22's
// instruction printer writes it for gfx90a / gfx940+ (the decoder cross-check compares texts).
#include "emu/Decoder.h"
#include "emu/DecoderTables.h"
#include "emu/Wave.h"
#include "support/Error.h"

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <vector>

namespace asmevo::emu {

namespace {

std::string fmt(const char *F, ...) __attribute__((format(printf, 1, 2)));
std::string fmt(const char *F, ...) {
  char B[128];
  va_list A;
  va_start(A, F);
  vsnprintf(B, sizeof(B), F, A);
  va_end(A);
  return B;
}

// Cache-policy bits of FLAT/GLOBAL/SCRATCH and MUBUF/MTBUF: gfx940+ spells them sc0 nt sc1,
// gfx90a glc slc scc (the same bits).
std::string cacheBits(const Inst &In, bool G94) {
  std::string T;
  if (G94 ? In.Sc0 : In.Glc)
    T += G94 ? " sc0" : " glc";
  if (G94 ? In.Nt : In.Slc)
    T += G94 ? " nt" : " slc";
  if (In.Sc1)
    T += G94 ? " sc1" : " scc";
  return T;
}

// SMEM immediate offsets are signed 21-bit values; LLVM prints negative ones as -0x...
std::string smemOffset(int32_t V) {
  return V < 0 ? "-" + hexText(uint64_t(-int64_t(V))) : hexText(uint64_t(V));
}

std::string tuple(const char *P, unsigned N, unsigned W) {
  if (W <= 1)
    return fmt("%s%u", P, N);
  return fmt("%s[%u:%u]", P, N, N + W - 1);
}

// A register or inline-constant operand code (no literal) of W dwords.
std::string reg(uint16_t C, unsigned W, NumType T = kI32) {
  if (W == 0)
    W = 1;
  if (C >= kAgprBase)
    return tuple("a", C - kAgprBase, W);
  if (C >= kVgprBase)
    return tuple("v", C - kVgprBase, W);
  if (C <= 101)
    return tuple("s", C, W);
  if (C >= 108 && C <= 123)
    return W == 1 ? fmt("ttmp%u", C - 108) : fmt("ttmp[%u:%u]", C - 108, C - 108 + W - 1);
  switch (C) {
  case 102:
    return W == 2 ? "flat_scratch" : "flat_scratch_lo";
  case 103:
    return "flat_scratch_hi";
  case 104:
    return W == 2 ? "xnack_mask" : "xnack_mask_lo";
  case 105:
    return "xnack_mask_hi";
  case 106:
    return W == 2 ? "vcc" : "vcc_lo";
  case 107:
    return "vcc_hi";
  case 124:
    return "m0";
  case 126:
    return W == 2 ? "exec" : "exec_lo";
  case 127:
    return "exec_hi";
  case 235:
    return "src_shared_base";
  case 236:
    return "src_shared_limit";
  case 237:
    return "src_private_base";
  case 238:
    return "src_private_limit";
  case 239:
    return "src_pops_exiting_wave_id";
  case 251:
    return "src_vccz";
  case 252:
    return "src_execz";
  case 253:
    return "src_scc";
  case 254:
    return "src_lds_direct";
  default:
    break;
  }
  if (C >= 128 && C <= 192)
    return fmt("%d", C - 128);
  if (C >= 193 && C <= 208)
    return fmt("%d", 192 - C);
  static const char *const Fl[] = {"0.5", "-0.5", "1.0", "-1.0", "2.0", "-2.0", "4.0", "-4.0"};
  if (C >= 240 && C <= 247)
    return Fl[C - 240];
  if (C == 248)
    return T == kF64 ? "0.15915494309189532" : "0.15915494";
  return fmt("<invalid operand %u>", C);
}

// Would the literal's value be encodable as an inline constant of an operand of type T? LLVM
// then prints it as lit(...), to keep the encoding.
bool literalIsInlinable(uint32_t L, NumType T) {
  switch (T) {
  case kF16:
  case kI16: {
    uint16_t H = uint16_t(L);
    if (L >> 16)
      return false;
    int16_t I = int16_t(H);
    if (I >= -16 && I <= 64)
      return true;
    static const uint16_t F[] = {0x3800, 0xB800, 0x3C00, 0xBC00, 0x4000,
                                 0xC000, 0x4400, 0xC400, 0x3118};
    for (uint16_t X : F)
      if (H == X)
        return true;
    return false;
  }
  case kBF16: {
    uint16_t H = uint16_t(L);
    if (L >> 16)
      return false;
    int16_t I = int16_t(H);
    if (I >= -16 && I <= 64)
      return true;
    static const uint16_t F[] = {0x3F00, 0xBF00, 0x3F80, 0xBF80, 0x4000,
                                 0xC000, 0x4080, 0xC080, 0x3E22};
    for (uint16_t X : F)
      if (H == X)
        return true;
    return false;
  }
  case kF64: {
    // The literal is the high half of the double.
    static const uint32_t F[] = {0x3FE00000, 0xBFE00000, 0x3FF00000, 0xBFF00000,
                                 0x40000000, 0xC0000000, 0x40100000, 0xC0100000};
    if (L == 0)
      return true;
    for (uint32_t X : F)
      if (L == X)
        return true;
    return false;
  }
  case kI64:
    // Zero-extended to 64 bits, so only 0..64 would be inline constants (-16..-1 are not:
    // their 64-bit values are not 0x00000000ffffff..).
    return L <= 64;
  default: {
    int32_t I = int32_t(L);
    if (I >= -16 && I <= 64)
      return true;
    static const uint32_t F[] = {0x3F000000, 0xBF000000, 0x3F800000, 0xBF800000, 0x40000000,
                                 0xC0000000, 0x40800000, 0xC0800000, 0x3E22F983};
    for (uint32_t X : F)
      if (L == X)
        return true;
    return false;
  }
  }
}

// A source operand: register, inline constant or the literal.
std::string src(const Inst &In, uint16_t C, unsigned W, NumType T) {
  if (C == kLiteralCode) {
    uint64_t V = In.Literal;
    if (T == kF64)
      V <<= 32;
    if (literalIsInlinable(In.Literal, T))
      return "lit(" + hexText(V) + ")";
    return hexText(V);
  }
  return reg(C, W, T);
}

// ds_swizzle_b32's offset in LLVM's swizzle() macro syntax.
std::string swizzle(unsigned Off) {
  if (Off & 0x8000)
    return fmt("swizzle(QUAD_PERM,%u,%u,%u,%u)", Off & 3, (Off >> 2) & 3, (Off >> 4) & 3,
               (Off >> 6) & 3);
  unsigned And = Off & 0x1F, Or = (Off >> 5) & 0x1F, Xor = (Off >> 10) & 0x1F;
  auto Pow2 = [](unsigned X) { return X && !(X & (X - 1)); };
  if (And == 0x1F && Or == 0 && Pow2(Xor))
    return fmt("swizzle(SWAP,%u)", Xor);
  if (And == 0x1F && Or == 0 && Xor && Pow2(Xor + 1))
    return fmt("swizzle(REVERSE,%u)", Xor + 1);
  unsigned Group = 0x1F - And + 1;
  if (Group > 1 && Pow2(Group) && Or < Group && Xor == 0)
    return fmt("swizzle(BROADCAST,%u,%u)", Group, Or);
  std::string M;
  for (int B = 4; B >= 0; --B) {
    bool A = (And >> B) & 1, O = (Or >> B) & 1, X = (Xor >> B) & 1;
    M += !A ? (O ? '1' : '0') : (X ? 'i' : 'p');
  }
  return "swizzle(BITMASK_PERM,\"" + M + "\")";
}

std::string withMods(std::string S, bool Neg, bool Abs) {
  if (Abs)
    S = "|" + S + "|";
  if (Neg)
    S = "-" + S;
  return S;
}

const char *selName(unsigned S) {
  static const char *const N[] = {"BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3",
                                  "WORD_0", "WORD_1", "DWORD"};
  return S < 7 ? N[S] : "DWORD";
}

std::string dppCtrl(unsigned C) {
  if (C <= 0xFF)
    return fmt("quad_perm:[%u,%u,%u,%u]", C & 3, (C >> 2) & 3, (C >> 4) & 3, (C >> 6) & 3);
  if (C >= 0x101 && C <= 0x10F)
    return fmt("row_shl:%u", C & 0xF);
  if (C >= 0x111 && C <= 0x11F)
    return fmt("row_shr:%u", C & 0xF);
  if (C >= 0x121 && C <= 0x12F)
    return fmt("row_ror:%u", C & 0xF);
  switch (C) {
  case 0x130:
    return "wave_shl:1";
  case 0x134:
    return "wave_rol:1";
  case 0x138:
    return "wave_shr:1";
  case 0x13C:
    return "wave_ror:1";
  case 0x140:
    return "row_mirror";
  case 0x141:
    return "row_half_mirror";
  case 0x142:
    return "row_bcast:15";
  case 0x143:
    return "row_bcast:31";
  default:
    break;
  }
  if (C >= 0x150 && C <= 0x15F)
    return fmt("row_newbcast:%u", C & 0xF);
  return fmt("dpp_ctrl:%#x", C);
}

std::string bitList(unsigned Bits, unsigned N) {
  std::string S = "[";
  for (unsigned I = 0; I < N; ++I) {
    if (I)
      S += ",";
    S += (Bits >> I) & 1 ? "1" : "0";
  }
  return S + "]";
}

// s_set_gpr_idx_on's mode immediate as LLVM prints it: gpr_idx(SRC0,SRC1,SRC2,DST).
std::string gprIdxMode(unsigned M) {
  if (M > 15)
    return fmt("0x%x", M);
  static const char *const Names[4] = {"SRC0", "SRC1", "SRC2", "DST"};
  std::string S = "gpr_idx(";
  bool Comma = false;
  for (unsigned I = 0; I < 4; ++I)
    if (M >> I & 1) {
      S += Comma ? "," : "";
      S += Names[I];
      Comma = true;
    }
  return S + ")";
}

std::string omodStr(unsigned O) {
  switch (O) {
  case 1:
    return " mul:2";
  case 2:
    return " mul:4";
  case 3:
    return " div:2";
  default:
    return "";
  }
}

std::string waitcnt(uint32_t V) {
  unsigned Vm = (V & 0xF) | ((V >> 10) & 0x30);
  unsigned Exp = (V >> 4) & 7;
  unsigned Lgkm = (V >> 8) & 0xF;
  std::string S;
  auto Add = [&](const char *N, unsigned X) {
    if (!S.empty())
      S += " ";
    S += fmt("%s(%u)", N, X);
  };
  if (Vm != 63)
    Add("vmcnt", Vm);
  if (Exp != 7)
    Add("expcnt", Exp);
  if (Lgkm != 15)
    Add("lgkmcnt", Lgkm);
  if (S.empty())
    S = "vmcnt(63) expcnt(7) lgkmcnt(15)";
  return S;
}

const char *hwregName(unsigned Id, Gfx G) {
  switch (Id) {
  case 1:
    return "HW_REG_MODE";
  case 2:
    return "HW_REG_STATUS";
  case 3:
    return "HW_REG_TRAPSTS";
  case 4:
    return "HW_REG_HW_ID";
  case 5:
    return "HW_REG_GPR_ALLOC";
  case 6:
    return "HW_REG_LDS_ALLOC";
  case 7:
    return "HW_REG_IB_STS";
  case 15:
    return "HW_REG_SH_MEM_BASES";
  case 16:
    return "HW_REG_TBA_LO";
  case 17:
    return "HW_REG_TBA_HI";
  case 18:
    return "HW_REG_TMA_LO";
  case 19:
    return "HW_REG_TMA_HI";
  case 20:
    return isGfx94Plus(G) ? "HW_REG_XCC_ID" : nullptr;
  default:
    return nullptr;
  }
}

std::string hwreg(uint32_t V, Gfx G) {
  unsigned Id = V & 0x3F, Off = (V >> 6) & 0x1F, Size = ((V >> 11) & 0x1F) + 1;
  const char *N = hwregName(Id, G);
  std::string S = "hwreg(" + (N ? std::string(N) : fmt("%u", Id));
  if (!(Off == 0 && Size == 32))
    S += fmt(", %u, %u", Off, Size);
  return S + ")";
}

std::string sendmsg(uint32_t V) {
  unsigned Id = V & 0xF, OpId = (V >> 4) & 7, Stream = (V >> 8) & 3;
  static const char *const Msg[] = {nullptr,
                                    "MSG_INTERRUPT",
                                    "MSG_GS",
                                    "MSG_GS_DONE",
                                    "MSG_SAVEWAVE",
                                    "MSG_STALL_WAVE_GEN",
                                    "MSG_HALT_WAVES",
                                    "MSG_ORDERED_PS_DONE",
                                    "MSG_EARLY_PRIM_DEALLOC",
                                    "MSG_GS_ALLOC_REQ",
                                    "MSG_GET_DOORBELL",
                                    "MSG_GET_DDID",
                                    nullptr,
                                    nullptr,
                                    nullptr,
                                    "MSG_SYSMSG"};
  if (Msg[Id] && (Id == 2 || Id == 3)) {
    static const char *const GsOp[] = {"GS_OP_NOP", "GS_OP_CUT", "GS_OP_EMIT", "GS_OP_EMIT_CUT"};
    if (OpId < 4)
      return fmt("sendmsg(%s, %s, %u)", Msg[Id], GsOp[OpId], Stream);
  }
  if (Msg[Id] && OpId == 0 && Stream == 0)
    return fmt("sendmsg(%s)", Msg[Id]);
  return fmt("sendmsg(%u, %u, %u)", Id, OpId, Stream);
}

bool noE32Suffix(Op O) {
  return O == Op::V_MADMK_F32_E32 || O == Op::V_MADAK_F32_E32 || O == Op::V_FMAMK_F32_E32 ||
         O == Op::V_FMAAK_F32_E32 || O == Op::V_MADMK_F16_E32 || O == Op::V_MADAK_F16_E32 ||
         O == Op::V_READFIRSTLANE_B32_E32 || O == Op::V_SWAP_B32_E32 ||
         O == Op::V_ACCVGPR_MOV_B32_E32 || O == Op::V_NOP_E32;
}

bool isCarryIn(Op O) {
  return O == Op::V_ADDC_CO_U32_E32 || O == Op::V_SUBB_CO_U32_E32 ||
         O == Op::V_SUBBREV_CO_U32_E32 || O == Op::V_CNDMASK_B32_E32;
}
bool isCarryOut(Op O) {
  return O == Op::V_ADD_CO_U32_E32 || O == Op::V_SUB_CO_U32_E32 || O == Op::V_SUBREV_CO_U32_E32 ||
         O == Op::V_ADDC_CO_U32_E32 || O == Op::V_SUBB_CO_U32_E32 || O == Op::V_SUBBREV_CO_U32_E32;
}

} // namespace

std::string mnemonic(const Inst &In, Gfx Target) {
  const OpInfo *I = infoOf(In, Target);
  if (!I)
    return opName(In.Operation);
  std::string N = I->Name;
  switch (In.Encoding) {
  case Enc::VOP1:
  case Enc::VOP2:
  case Enc::VOPC:
    if (In.Form == VForm::Dpp)
      N += "_dpp";
    else if (In.Form == VForm::Sdwa)
      N += "_sdwa";
    else if (!noE32Suffix(In.Operation))
      N += "_e32";
    break;
  case Enc::VOP3:
    if (I->Flags & kE64)
      N += "_e64";
    break;
  default:
    break;
  }
  return N;
}

std::string printInst(const Inst &In, Gfx Target, uint64_t Pc) {
  (void)Pc; // branch offsets print as LLVM prints them without symbols: the raw simm16
  const OpInfo *I = infoOf(In, Target);
  std::string S = mnemonic(In, Target);
  if (!I)
    return S;
  const Op O = In.Operation;
  std::vector<std::string> Ops;
  std::string Tail;
  auto W = [&](unsigned K) { return unsigned(I->W[K]); };
  const bool G94 = isGfx94Plus(Target);

  switch (In.Encoding) {
  case Enc::SOP1:
  case Enc::SOP2:
  case Enc::SOPC:
    if (In.Dst != kNoOperand)
      Ops.push_back(reg(In.Dst, W(0)));
    for (int K = 0; K < 2; ++K) {
      if (In.Src[K] == kNoOperand)
        continue;
      if (K == 1 && O == Op::S_SET_GPR_IDX_ON)
        Ops.push_back(gprIdxMode(In.Src[1]));
      else
        Ops.push_back(src(In, In.Src[K], W(2 + K), I->T[K]));
    }
    break;
  case Enc::SOPK: {
    uint32_t U = uint16_t(In.Simm16);
    if (O == Op::S_GETREG_B32) {
      Ops.push_back(reg(In.Dst, 1));
      Ops.push_back(hwreg(U, Target));
    } else if (O == Op::S_SETREG_B32) {
      Ops.push_back(hwreg(U, Target));
      Ops.push_back(reg(In.Dst, 1));
    } else if (O == Op::S_SETREG_IMM32_B32) {
      Ops.push_back(hwreg(U, Target));
      Ops.push_back(hexText(In.Literal));
    } else if (O == Op::S_CALL_B64 || O == Op::S_CBRANCH_I_FORK) {
      if (In.Dst != kNoOperand)
        Ops.push_back(reg(In.Dst, W(0)));
      Ops.push_back(fmt("%u", U));
    } else {
      if (In.Dst != kNoOperand)
        Ops.push_back(reg(In.Dst, W(0)));
      Ops.push_back(hexText(U));
    }
    break;
  }
  case Enc::SOPP: {
    uint32_t U = uint16_t(In.Simm16);
    switch (O) {
    case Op::S_WAITCNT:
      Ops.push_back(waitcnt(U));
      break;
    case Op::S_SENDMSG:
    case Op::S_SENDMSGHALT:
      Ops.push_back(sendmsg(U));
      break;
    case Op::S_BRANCH:
    case Op::S_CBRANCH_SCC0:
    case Op::S_CBRANCH_SCC1:
    case Op::S_CBRANCH_VCCZ:
    case Op::S_CBRANCH_VCCNZ:
    case Op::S_CBRANCH_EXECZ:
    case Op::S_CBRANCH_EXECNZ:
    case Op::S_CBRANCH_CDBGSYS:
    case Op::S_CBRANCH_CDBGUSER:
    case Op::S_CBRANCH_CDBGSYS_OR_USER:
    case Op::S_CBRANCH_CDBGSYS_AND_USER:
      // LLVM prints the branch offset (dwords) as an unsigned immediate without symbols.
      Ops.push_back(fmt("%u", U));
      break;
    case Op::S_ENDPGM:
    case Op::S_BARRIER:
    case Op::S_WAKEUP:
    case Op::S_ICACHE_INV:
    case Op::S_TTRACEDATA:
    case Op::S_SET_GPR_IDX_OFF:
    case Op::S_ENDPGM_SAVED:
    case Op::S_ENDPGM_ORDERED_PS_DONE:
      if (U)
        Ops.push_back(fmt("%u", U));
      break;
    case Op::S_NOP:
    case Op::S_SETPRIO:
    case Op::S_SLEEP:
    case Op::S_SETHALT:
    case Op::S_SETKILL:
    case Op::S_TRAP:
      Ops.push_back(fmt("%u", U));
      break;
    default:
      Ops.push_back(hexText(U));
      break;
    }
    break;
  }
  case Enc::SMEM: {
    if (In.Dst != kNoOperand)
      Ops.push_back(reg(In.Dst, W(0)));
    if (In.Sbase != kNoOperand)
      Ops.push_back(reg(In.Sbase, W(2)));
    if (In.SmemImm) {
      if (In.Soffset != kNoOperand) {
        Ops.push_back(reg(In.Soffset, 1));
        Tail += " offset:" + smemOffset(In.Offset);
      } else if (W(2)) {
        Ops.push_back(smemOffset(In.Offset));
      }
    } else if (In.Soffset != kNoOperand && W(2)) {
      Ops.push_back(reg(In.Soffset, 1));
    }
    if (In.Glc) // LLVM keeps "glc" for scalar memory on gfx940+ too
      Tail += " glc";
    if (In.Nt)
      Tail += " nv";
    break;
  }
  case Enc::VOP1:
  case Enc::VOP2:
  case Enc::VOPC: {
    const bool Vopc = In.Encoding == Enc::VOPC;
    if (Vopc) {
      Ops.push_back(reg(In.Sdst, 2));
    } else if (In.Dst != kNoOperand) {
      Ops.push_back(reg(In.Dst, W(0)));
    }
    if (In.Encoding == Enc::VOP2 && isCarryOut(O))
      Ops.push_back("vcc");
    if (In.Src[0] == kNoOperand)
      break;
    auto Src = [&](int K) {
      std::string X = src(In, In.Src[K], W(2 + K), I->T[K]);
      if (In.Form != VForm::Plain) {
        if (In.Form == VForm::Sdwa && ((In.Sext >> K) & 1))
          X = "sext(" + X + ")";
        X = withMods(X, (In.Neg >> K) & 1, (In.Abs >> K) & 1);
      }
      return X;
    };
    Ops.push_back(Src(0));
    if (I->Flags & kLitK) {
      if (O == Op::V_MADMK_F32_E32 || O == Op::V_FMAMK_F32_E32 || O == Op::V_MADMK_F16_E32) {
        Ops.push_back(hexText(In.Literal));
        Ops.push_back(Src(1));
      } else {
        Ops.push_back(Src(1));
        Ops.push_back(hexText(In.Literal));
      }
      break;
    }
    if (In.Encoding != Enc::VOP1)
      Ops.push_back(Src(1));
    if (In.Encoding == Enc::VOP2 && isCarryIn(O))
      Ops.push_back("vcc");
    if (In.Form == VForm::Dpp) {
      Tail += " " + dppCtrl(In.DppCtrl);
      Tail += fmt(" row_mask:0x%x bank_mask:0x%x", In.RowMask, In.BankMask);
      if (In.BoundCtrl)
        Tail += " bound_ctrl:1";
    } else if (In.Form == VForm::Sdwa) {
      if (In.Clamp)
        Tail += " clamp";
      Tail += omodStr(In.Omod);
      // v_cvt_pk_f32_fp8/bf8 write a VGPR pair and have no dst_sel / dst_unused.
      const bool PairDst = O == Op::V_CVT_PK_F32_FP8_E32 || O == Op::V_CVT_PK_F32_BF8_E32;
      if (!Vopc && !PairDst) {
        Tail += std::string(" dst_sel:") + selName(In.DstSel);
        static const char *const U[] = {"UNUSED_PAD", "UNUSED_SEXT", "UNUSED_PRESERVE",
                                        "UNUSED_PRESERVE"};
        Tail += std::string(" dst_unused:") + U[In.DstUnused & 3];
      }
      Tail += std::string(" src0_sel:") + selName(In.SrcSel[0]);
      if (In.Encoding != Enc::VOP1)
        Tail += std::string(" src1_sel:") + selName(In.SrcSel[1]);
    }
    break;
  }
  case Enc::VOP3: {
    const bool Vop3b = I->Flags & kVop3b;
    if (In.Opcode < 256)
      Ops.push_back(reg(In.Sdst, 2));
    else if (In.Dst != kNoOperand)
      Ops.push_back(reg(In.Dst, W(0)));
    if (Vop3b)
      Ops.push_back(reg(In.Sdst, 2));
    const bool Bitop3 = O == Op::V_BITOP3_B32 || O == Op::V_BITOP3_B16;
    unsigned NSrc = 0;
    const bool Mac = In.Dst != kNoOperand && In.Src[2] == In.Dst && In.Opcode >= 256 &&
                     In.Opcode < 320 && W(4) == 0;
    for (int K = 0; K < 3; ++K) {
      if (In.Src[K] == kNoOperand || (K == 2 && Mac))
        continue;
      ++NSrc;
      unsigned Wd = W(2 + K);
      std::string X = src(In, In.Src[K], Wd, I->T[K]);
      Ops.push_back(Bitop3 ? X : withMods(X, (In.Neg >> K) & 1, (In.Abs >> K) & 1));
    }
    if (Bitop3) {
      // gfx950 v_bitop3: the truth table lives in the neg (2:0), abs (5:3) and omod (7:6) fields.
      unsigned Tt = In.Neg | In.Abs << 3 | In.Omod << 6;
      if (Tt)
        Tail += fmt(" bitop3:0x%x", Tt);
      if (In.Opsel)
        Tail += " op_sel:" + bitList(In.Opsel, 4);
      break;
    }
    // LLVM prints one op_sel bit per source, then the destination's (bit 3).
    if (In.Opsel)
      Tail += " op_sel:" +
              bitList((In.Opsel & ((1u << NSrc) - 1)) | ((In.Opsel >> 3) & 1) << NSrc, NSrc + 1);
    if (In.Clamp)
      Tail += " clamp";
    Tail += omodStr(In.Omod);
    break;
  }
  case Enc::VOP3P: {
    if (In.Dst != kNoOperand) // v_mfma_ld_scale_b32 has none
      Ops.push_back(reg(In.Dst, W(0)));
    unsigned NSrc = 0;
    const bool Mfma = I->Flags & kMfma;
    const bool Mix = O == Op::V_MAD_MIX_F32 || O == Op::V_MAD_MIXLO_F16 || O == Op::V_MAD_MIXHI_F16;
    for (int K = 0; K < 3; ++K) {
      if (In.Src[K] == kNoOperand || (K == 2 && In.Src[2] == In.Dst &&
                                      (O == Op::V_PK_FMAC_F16_E32 || O == Op::V_PK_FMAC_F16_E64)))
        continue;
      ++NSrc;
      unsigned Width = f8f6f4SourceRegs(In, unsigned(K));
      std::string X = src(In, In.Src[K], Width ? Width : W(2 + K), I->T[K]);
      if (Mix)
        X = withMods(X, (In.Neg >> K) & 1, (In.NegHi >> K) & 1);
      Ops.push_back(X);
    }
    if (Mfma && O != Op::V_MFMA_LD_SCALE_B32) {
      if (In.Cbsz)
        Tail += fmt(" cbsz:%u", In.Cbsz);
      if (In.Abid)
        Tail += fmt(" abid:%u", In.Abid);
      if (In.Blgp)
        Tail += fmt(" blgp:%u", In.Blgp);
      break;
    }
    if (O == Op::V_ACCVGPR_READ || O == Op::V_ACCVGPR_WRITE)
      break;
    unsigned All = (1u << NSrc) - 1;
    if (In.Opsel & All)
      Tail += " op_sel:" + bitList(In.Opsel, NSrc);
    if (Mix) {
      if (In.OpselHi & All)
        Tail += " op_sel_hi:" + bitList(In.OpselHi, NSrc);
    } else {
      if ((In.OpselHi & All) != All)
        Tail += " op_sel_hi:" + bitList(In.OpselHi, NSrc);
      if (In.Neg & All)
        Tail += " neg_lo:" + bitList(In.Neg, NSrc);
      if (In.NegHi & All)
        Tail += " neg_hi:" + bitList(In.NegHi, NSrc);
    }
    if (In.Clamp)
      Tail += " clamp";
    break;
  }
  case Enc::DS: {
    if (In.Dst != kNoOperand)
      Ops.push_back(reg(In.Dst, W(0)));
    if (In.Addr != kNoOperand)
      Ops.push_back(reg(In.Addr, 1));
    if (In.Data0 != kNoOperand)
      Ops.push_back(reg(In.Data0, W(3)));
    if (In.Data1 != kNoOperand)
      Ops.push_back(reg(In.Data1, W(4)));
    bool Two = std::strstr(I->Name, "2st64") || std::strstr(I->Name, "ds_read2") ||
               std::strstr(I->Name, "ds_write2") || std::strstr(I->Name, "wrxchg2");
    if (O == Op::DS_SWIZZLE_B32) {
      if (In.Offset)
        Tail += " offset:" + swizzle(unsigned(In.Offset));
    } else if (Two) {
      if (In.Offset0)
        Tail += fmt(" offset0:%u", In.Offset0);
      if (In.Offset1)
        Tail += fmt(" offset1:%u", In.Offset1);
    } else if (In.Offset) {
      Tail += fmt(" offset:%u", unsigned(In.Offset));
    }
    if (In.Gds)
      Tail += " gds";
    break;
  }
  case Enc::FLAT:
  case Enc::GLOBAL:
  case Enc::SCRATCH: {
    if (In.Dst != kNoOperand)
      Ops.push_back(reg(In.Dst, W(0)));
    if (In.Encoding == Enc::FLAT) {
      Ops.push_back(reg(In.Addr, 2));
    } else if (In.Encoding == Enc::GLOBAL) {
      Ops.push_back(reg(In.Addr, In.Saddr == kNoOperand ? 2 : 1));
    } else {
      Ops.push_back(In.Addr == kNoOperand ? std::string("off") : reg(In.Addr, 1));
    }
    if (In.Data0 != kNoOperand)
      Ops.push_back(reg(In.Data0, W(3)));
    if (In.Encoding != Enc::FLAT)
      Ops.push_back(In.Saddr == kNoOperand ? std::string("off")
                                           : reg(In.Saddr, In.Encoding == Enc::GLOBAL ? 2 : 1));
    if (In.Offset)
      Tail += fmt(" offset:%d", In.Offset);
    Tail += cacheBits(In, G94);
    break;
  }
  case Enc::MUBUF:
  case Enc::MTBUF: {
    if (In.Sbase == kNoOperand) { // buffer_wbinvl1 & co.
      if (G94) {
        if (In.Sc0)
          Tail += " sc0";
        if (In.Sc1)
          Tail += " sc1";
      }
      break;
    }
    uint16_t V = In.Dst != kNoOperand ? In.Dst : In.Data0;
    if (V != kNoOperand)
      Ops.push_back(reg(V, W(0)));
    if (In.Addr == kNoOperand)
      Ops.push_back("off");
    else
      Ops.push_back(reg(In.Addr, In.Idxen && In.Offen ? 2 : 1));
    Ops.push_back(reg(In.Sbase, 4));
    Ops.push_back(src(In, In.Soffset, 1, kI32));
    if (In.Encoding == Enc::MTBUF)
      Tail += fmt(" format:%u", unsigned(In.Dfmt | In.Nfmt << 4));
    if (In.Idxen)
      Tail += " idxen";
    if (In.Offen)
      Tail += " offen";
    if (In.Offset)
      Tail += fmt(" offset:%d", In.Offset);
    Tail += cacheBits(In, G94);
    if (In.Lds)
      Tail += " lds";
    break;
  }
  }
  for (size_t K = 0; K < Ops.size(); ++K) {
    S += K ? ", " : " ";
    S += Ops[K];
  }
  return S + Tail;
}

} // namespace asmevo::emu
