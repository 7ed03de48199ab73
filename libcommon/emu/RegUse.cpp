// Register reads/writes and issue class of a decoded instruction (see RegUse.h). Operand widths
// come from the generated ISA tables (DecoderTables.h); what the tables cannot say (implicit
// VCC/EXEC/M0, address widths that depend on saddr/idxen/offen) is spelled out here.
#include "emu/RegUse.h"
#include "emu/Decoder.h"
#include "emu/DecoderTables.h"
#include "emu/Wave.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace asmevo::emu {

namespace {

// Per-op facts derived once from the ISA names.
struct OpFacts {
  uint8_t Mem = kMemNone;
  bool Cmpx = false, Saveexec = false, Wrexec = false, Cmpswap = false, D16 = false;
  bool SopkReadsDst = false, SopkRmw = false, ReadsM0 = false, Setreg = false, Getreg = false;
};

struct FactTable {
  OpFacts F[size_t(Op::Count)];
  FactTable() {
    for (size_t I = 0; I < size_t(Op::Count); ++I) {
      std::string N = opName(Op(I));
      OpFacts &O = F[I];
      auto Has = [&](const char *S) { return N.find(S) != std::string::npos; };
      auto Starts = [&](const char *S) { return N.rfind(S, 0) == 0; };
      if (Starts("DS_")) {
        if (Starts("DS_READ") || Starts("DS_BPERMUTE") || Starts("DS_PERMUTE") ||
            Starts("DS_SWIZZLE"))
          O.Mem = Starts("DS_READ") ? kMemRead : kMemNone;
        else if (Starts("DS_WRITE"))
          O.Mem = kMemWrite;
        else if (Starts("DS_NOP") || Starts("DS_GWS"))
          O.Mem = kMemNone;
        else
          O.Mem = kMemRead | kMemWrite | kMemAtomic;
        O.ReadsM0 =
            Has("ADDTID") || Starts("DS_APPEND") || Starts("DS_CONSUME") || Starts("DS_GWS");
      } else if (Starts("BUFFER_") || Starts("TBUFFER_") || Starts("GLOBAL_") || Starts("FLAT_") ||
                 Starts("SCRATCH_") || Starts("S_LOAD") || Starts("S_BUFFER_") ||
                 Starts("S_STORE") || Starts("S_SCRATCH_") || Starts("S_ATOMIC") ||
                 Starts("S_BUFFER_ATOMIC")) {
        if (Has("ATOMIC"))
          O.Mem = kMemRead | kMemWrite | kMemAtomic;
        else if (Has("LOAD"))
          O.Mem = kMemRead;
        else if (Has("STORE"))
          O.Mem = kMemWrite;
      }
      O.Cmpx = Starts("V_CMPX_");
      O.Saveexec = Has("_SAVEEXEC_");
      O.Wrexec = Has("_WREXEC_");
      O.Cmpswap = Has("CMPSWAP");
      O.D16 = Has("_D16");
      O.SopkReadsDst = Starts("S_CMPK_") || N == "S_SETREG_B32";
      O.SopkRmw = N == "S_ADDK_I32" || N == "S_MULK_I32" || N == "S_CMOVK_I32";
      O.ReadsM0 = O.ReadsM0 || Starts("S_MOVREL") || Starts("S_SENDMSG") || Starts("S_TTRACEDATA");
      O.Setreg = Starts("S_SETREG");
      O.Getreg = N == "S_GETREG_B32";
    }
  }
};

const FactTable &facts() {
  static const FactTable T;
  return T;
}

bool isRegister(uint16_t C) { return C < 128 || (C >= kVgprBase && C < kAgprBase + 256); }

struct Builder {
  RegUses &U;
  void read(uint16_t C, unsigned N) {
    if (C == kSrcVccz)
      C = kVccLo, N = 2;
    else if (C == kSrcExecz)
      C = kExecLo, N = 2;
    if (C == kNoOperand || N == 0 || !isRegister(C) || U.NumReads == RegUses::kMaxReads)
      return;
    U.Reads[U.NumReads++] = RegRange{C, uint8_t(N)};
  }
  void write(uint16_t C, unsigned N) {
    if (C == kNoOperand || N == 0 || !isRegister(C) || U.NumWrites == RegUses::kMaxWrites)
      return;
    U.Writes[U.NumWrites++] = RegRange{C, uint8_t(N)};
  }
};

bool isMfmaOp(const OpInfo *I) { return I && (I->Flags & kMfma); }

} // namespace

RegUses regUses(const Inst &In, Gfx Target) {
  RegUses U;
  Builder B{U};
  const OpInfo *I = infoOf(In, Target);
  const OpFacts &F = facts().F[size_t(In.Operation) < size_t(Op::Count) ? size_t(In.Operation) : 0];
  auto w = [&](unsigned K) -> unsigned { return I ? I->W[K] : 1; };
  switch (In.Encoding) {
  case Enc::SOP1:
  case Enc::SOP2:
  case Enc::SOPC:
    U.Cls = IssueClass::Salu;
    for (unsigned S = 0; S < 2; ++S)
      // s_set_gpr_idx_on's SSRC1 field is an immediate mask, not a register.
      if (In.Src[S] != kNoOperand && !(S == 1 && In.Operation == Op::S_SET_GPR_IDX_ON))
        B.read(In.Src[S], w(2 + S) ? w(2 + S) : 1);
    if (In.Operation == Op::S_SET_GPR_IDX_ON || In.Operation == Op::S_SET_GPR_IDX_IDX) {
      B.read(kM0, 1); // the bits it keeps
      B.write(kM0, 1);
    }
    if (In.Encoding != Enc::SOPC)
      B.write(In.Dst, w(0) ? w(0) : 1);
    if (F.Saveexec || F.Wrexec) {
      B.read(kExecLo, 2);
      B.write(kExecLo, 2);
    }
    if (F.ReadsM0)
      B.read(kM0, 1);
    break;
  case Enc::SOPK:
    U.Cls = IssueClass::Salu;
    if (F.Getreg) {
      B.write(In.Dst, 1);
    } else if (F.SopkReadsDst) {
      B.read(In.Dst, 1);
    } else if (F.SopkRmw) {
      B.read(In.Dst, 1);
      B.write(In.Dst, 1);
    } else if (!F.Setreg) {
      B.write(In.Dst, w(0) ? w(0) : 1);
    }
    break;
  case Enc::SOPP:
    U.Cls = IssueClass::Sopp;
    if (In.Operation == Op::S_CBRANCH_VCCZ || In.Operation == Op::S_CBRANCH_VCCNZ)
      B.read(kVccLo, 2);
    if (In.Operation == Op::S_CBRANCH_EXECZ || In.Operation == Op::S_CBRANCH_EXECNZ)
      B.read(kExecLo, 2);
    if (F.ReadsM0)
      B.read(kM0, 1);
    if (In.Operation == Op::S_SET_GPR_IDX_MODE) {
      B.read(kM0, 1);
      B.write(kM0, 1);
    }
    break;
  case Enc::SMEM:
    U.Cls = IssueClass::Smem;
    U.Mem = F.Mem;
    B.read(In.Sbase, w(2) ? w(2) : 2);
    if (In.Soffset != kNoOperand)
      B.read(In.Soffset, 1);
    if (F.Mem & kMemWrite) {
      B.read(In.Dst, w(0));
      U.StoreData = RegRange{In.Dst, uint8_t(w(0))};
      if (F.Mem & kMemAtomic && In.Glc) {
        B.write(In.Dst, F.Cmpswap ? w(0) / 2 : w(0));
        U.ReturnsData = true;
      }
    } else if (In.Dst != kNoOperand) {
      B.write(In.Dst, w(0) ? w(0) : 2); // s_memtime / s_memrealtime: 64 bits
      U.ReturnsData = true;
    }
    break;
  case Enc::VOP1:
  case Enc::VOP2:
  case Enc::VOPC:
  case Enc::VOP3:
  case Enc::VOP3P: {
    U.Cls = isMfmaOp(I) ? IssueClass::Mfma : IssueClass::Valu;
    for (unsigned S = 0; S < 3; ++S) {
      uint16_t C = In.Src[S];
      if (C == kNoOperand)
        continue;
      unsigned N = w(2 + S);
      if (unsigned F = f8f6f4SourceRegs(In, S))
        N = F; // FP6 / FP4 operands are narrower than the table's FP8 width
      if (C == kVccLo || (S == 2 && C < 128 && U.Cls == IssueClass::Valu &&
                          (In.Operation == Op::V_CNDMASK_B32_E64 || (I && (I->Flags & kVop3b)))))
        N = 2; // a wave64 lane mask (carry-in, select)
      B.read(C, N ? N : 1);
    }
    if (In.Dst != kNoOperand)
      B.write(In.Dst, w(0) ? w(0) : 1);
    if (In.Sdst != kNoOperand)
      B.write(In.Sdst, 2);
    if (In.Operation == Op::V_WRITELANE_B32 || F.D16)
      B.read(In.Dst, 1); // other lanes / the other half are kept
    if (In.Operation == Op::V_PERMLANE16_SWAP_B32_E32 ||
        In.Operation == Op::V_PERMLANE16_SWAP_B32_E64 ||
        In.Operation == Op::V_PERMLANE32_SWAP_B32_E32 ||
        In.Operation == Op::V_PERMLANE32_SWAP_B32_E64)
      B.write(In.Src[0], 1); // the two operands swap
    if (In.Operation == Op::V_DIV_FMAS_F32_E64 || In.Operation == Op::V_DIV_FMAS_F64_E64)
      B.read(kVccLo, 2);
    B.read(kExecLo, 2);
    if (F.Cmpx)
      B.write(kExecLo, 2);
    break;
  }
  case Enc::DS:
    U.Cls = IssueClass::Ds;
    U.Mem = In.Gds ? uint8_t(kMemNone) : F.Mem;
    B.read(In.Addr, 1);
    B.read(In.Data0, w(3));
    B.read(In.Data1, w(4));
    if (In.Data0 != kNoOperand && (F.Mem & kMemWrite))
      U.StoreData = RegRange{In.Data0, uint8_t(w(3))};
    if (In.Dst != kNoOperand) {
      B.write(In.Dst, w(0) ? w(0) : 1);
      U.ReturnsData = true;
      if (F.D16)
        B.read(In.Dst, 1);
    }
    if (F.ReadsM0 || In.Gds)
      B.read(kM0, 1);
    B.read(kExecLo, 2);
    break;
  case Enc::FLAT:
  case Enc::GLOBAL:
  case Enc::SCRATCH: {
    U.Cls = In.Encoding == Enc::FLAT ? IssueClass::Flat : IssueClass::Vmem;
    U.Mem = F.Mem;
    bool HasSaddr = In.Saddr != kNoOperand;
    unsigned AddrN = In.Encoding == Enc::SCRATCH                ? 1
                     : (In.Encoding == Enc::GLOBAL && HasSaddr) ? 1
                                                                : 2;
    B.read(In.Addr, AddrN);
    if (HasSaddr)
      B.read(In.Saddr, In.Encoding == Enc::SCRATCH ? 1 : 2);
    if (In.Data0 != kNoOperand) {
      B.read(In.Data0, w(3) ? w(3) : 1);
      U.StoreData = RegRange{In.Data0, uint8_t(w(3) ? w(3) : 1)};
    }
    if (In.Dst != kNoOperand) {
      B.write(In.Dst, w(0) ? w(0) : 1);
      U.ReturnsData = true;
      if (F.D16)
        B.read(In.Dst, 1);
    }
    if (In.Lds)
      B.read(kM0, 1);
    B.read(kExecLo, 2);
    break;
  }
  case Enc::MUBUF:
  case Enc::MTBUF: {
    U.Cls = IssueClass::Vmem;
    U.Mem = F.Mem;
    if (In.Addr != kNoOperand)
      B.read(In.Addr, (In.Idxen && In.Offen) ? 2 : 1);
    B.read(In.Sbase, 4);
    if (In.Soffset != kNoOperand && In.Soffset < 128)
      B.read(In.Soffset, 1);
    unsigned DataN = w(0) ? w(0) : 1;
    if (In.Data0 != kNoOperand) {
      B.read(In.Data0, DataN);
      U.StoreData = RegRange{In.Data0, uint8_t(DataN)};
    }
    if (In.Dst != kNoOperand) {
      B.write(In.Dst, F.Cmpswap && In.Data0 != kNoOperand ? DataN / 2 : DataN);
      U.ReturnsData = true;
      if (F.D16)
        B.read(In.Dst, 1);
    }
    if (In.Lds)
      B.read(kM0, 1);
    B.read(kExecLo, 2);
    break;
  }
  }
  auto Note = [&U](const RegRange &R) {
    if (!R.Count)
      return;
    int Last = R.Code + R.Count - 1;
    if (R.Code < kNumberedSgprs)
      U.MaxSgpr = int16_t(std::max<int>(U.MaxSgpr, std::min<int>(Last, kNumberedSgprs - 1)));
    else if (R.Code >= kAgprBase)
      U.MaxAgpr = int16_t(std::max<int>(U.MaxAgpr, Last - kAgprBase));
    else if (R.Code >= kVgprBase)
      U.MaxVgpr = int16_t(std::max<int>(U.MaxVgpr, Last - kVgprBase));
  };
  for (unsigned K = 0; K < U.NumReads; ++K)
    Note(U.Reads[K]);
  for (unsigned K = 0; K < U.NumWrites; ++K)
    Note(U.Writes[K]);
  U.Need = packRegCounts(unsigned(U.MaxVgpr + 1), unsigned(U.MaxAgpr + 1), unsigned(U.MaxSgpr + 1));
  return U;
}

std::string regName(RegRange R) {
  uint16_t C = R.Code;
  unsigned N = R.Count ? R.Count : 1;
  auto Range = [&](const char *P, unsigned Base) {
    if (N == 1)
      return std::string(P) + std::to_string(Base);
    return std::string(P) + "[" + std::to_string(Base) + ":" + std::to_string(Base + N - 1) + "]";
  };
  if (C >= kAgprBase)
    return Range("a", C - kAgprBase);
  if (C >= kVgprBase)
    return Range("v", C - kVgprBase);
  if (C == kVccLo && N == 2)
    return "vcc";
  if (C == kExecLo && N == 2)
    return "exec";
  switch (C) {
  case kVccLo:
    return "vcc_lo";
  case kVccHi:
    return "vcc_hi";
  case kExecLo:
    return "exec_lo";
  case kExecHi:
    return "exec_hi";
  case kM0:
    return "m0";
  case kFlatScratchLo:
    return N == 2 ? "flat_scratch" : "flat_scratch_lo";
  case kFlatScratchHi:
    return "flat_scratch_hi";
  case kSccCode:
    return "scc";
  default:
    break;
  }
  if (C >= kTtmp0 && C < kTtmp0 + 16)
    return Range("ttmp", C - kTtmp0);
  return Range("s", C);
}

} // namespace asmevo::emu
