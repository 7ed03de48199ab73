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
  uint8_t mem = kMemNone;
  bool cmpx = false, saveexec = false, wrexec = false, cmpswap = false, d16 = false;
  bool sopkReadsDst = false, sopkRmw = false, readsM0 = false, setreg = false, getreg = false;
};

struct FactTable {
  OpFacts F[size_t(Op::Count)];
  FactTable() {
    for (size_t I = 0; I < size_t(Op::Count); ++I) {
      std::string N = opName(Op(I));
      OpFacts &O = F[I];
      auto has = [&](const char *S) { return N.find(S) != std::string::npos; };
      auto starts = [&](const char *S) { return N.rfind(S, 0) == 0; };
      if (starts("DS_")) {
        if (starts("DS_READ") || starts("DS_BPERMUTE") || starts("DS_PERMUTE") ||
            starts("DS_SWIZZLE"))
          O.mem = starts("DS_READ") ? kMemRead : kMemNone;
        else if (starts("DS_WRITE"))
          O.mem = kMemWrite;
        else if (starts("DS_NOP") || starts("DS_GWS"))
          O.mem = kMemNone;
        else
          O.mem = kMemRead | kMemWrite | kMemAtomic;
        O.readsM0 =
            has("ADDTID") || starts("DS_APPEND") || starts("DS_CONSUME") || starts("DS_GWS");
      } else if (starts("BUFFER_") || starts("TBUFFER_") || starts("GLOBAL_") || starts("FLAT_") ||
                 starts("SCRATCH_") || starts("S_LOAD") || starts("S_BUFFER_") ||
                 starts("S_STORE") || starts("S_SCRATCH_") || starts("S_ATOMIC") ||
                 starts("S_BUFFER_ATOMIC")) {
        if (has("ATOMIC"))
          O.mem = kMemRead | kMemWrite | kMemAtomic;
        else if (has("LOAD"))
          O.mem = kMemRead;
        else if (has("STORE"))
          O.mem = kMemWrite;
      }
      O.cmpx = starts("V_CMPX_");
      O.saveexec = has("_SAVEEXEC_");
      O.wrexec = has("_WREXEC_");
      O.cmpswap = has("CMPSWAP");
      O.d16 = has("_D16");
      O.sopkReadsDst = starts("S_CMPK_") || N == "S_SETREG_B32";
      O.sopkRmw = N == "S_ADDK_I32" || N == "S_MULK_I32" || N == "S_CMOVK_I32";
      O.readsM0 = O.readsM0 || starts("S_MOVREL") || starts("S_SENDMSG") || starts("S_TTRACEDATA");
      O.setreg = starts("S_SETREG");
      O.getreg = N == "S_GETREG_B32";
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
    if (C == kNoOperand || N == 0 || !isRegister(C) || U.numReads == RegUses::kMaxReads)
      return;
    U.reads[U.numReads++] = RegRange{C, uint8_t(N)};
  }
  void write(uint16_t C, unsigned N) {
    if (C == kNoOperand || N == 0 || !isRegister(C) || U.numWrites == RegUses::kMaxWrites)
      return;
    U.writes[U.numWrites++] = RegRange{C, uint8_t(N)};
  }
};

bool isMfmaOp(const OpInfo *I) { return I && (I->flags & kMfma); }

} // namespace

RegUses regUses(const Inst &In, Gfx Target) {
  RegUses U;
  Builder B{U};
  const OpInfo *I = infoOf(In, Target);
  const OpFacts &F = facts().F[size_t(In.op) < size_t(Op::Count) ? size_t(In.op) : 0];
  auto w = [&](unsigned K) -> unsigned { return I ? I->w[K] : 1; };
  switch (In.enc) {
  case Enc::SOP1:
  case Enc::SOP2:
  case Enc::SOPC:
    U.cls = IssueClass::Salu;
    for (unsigned S = 0; S < 2; ++S)
      // s_set_gpr_idx_on's SSRC1 field is an immediate mask, not a register.
      if (In.src[S] != kNoOperand && !(S == 1 && In.op == Op::S_SET_GPR_IDX_ON))
        B.read(In.src[S], w(2 + S) ? w(2 + S) : 1);
    if (In.op == Op::S_SET_GPR_IDX_ON || In.op == Op::S_SET_GPR_IDX_IDX) {
      B.read(kM0, 1); // the bits it keeps
      B.write(kM0, 1);
    }
    if (In.enc != Enc::SOPC)
      B.write(In.dst, w(0) ? w(0) : 1);
    if (F.saveexec || F.wrexec) {
      B.read(kExecLo, 2);
      B.write(kExecLo, 2);
    }
    if (F.readsM0)
      B.read(kM0, 1);
    break;
  case Enc::SOPK:
    U.cls = IssueClass::Salu;
    if (F.getreg) {
      B.write(In.dst, 1);
    } else if (F.sopkReadsDst) {
      B.read(In.dst, 1);
    } else if (F.sopkRmw) {
      B.read(In.dst, 1);
      B.write(In.dst, 1);
    } else if (!F.setreg) {
      B.write(In.dst, w(0) ? w(0) : 1);
    }
    break;
  case Enc::SOPP:
    U.cls = IssueClass::Sopp;
    if (In.op == Op::S_CBRANCH_VCCZ || In.op == Op::S_CBRANCH_VCCNZ)
      B.read(kVccLo, 2);
    if (In.op == Op::S_CBRANCH_EXECZ || In.op == Op::S_CBRANCH_EXECNZ)
      B.read(kExecLo, 2);
    if (F.readsM0)
      B.read(kM0, 1);
    if (In.op == Op::S_SET_GPR_IDX_MODE) {
      B.read(kM0, 1);
      B.write(kM0, 1);
    }
    break;
  case Enc::SMEM:
    U.cls = IssueClass::Smem;
    U.mem = F.mem;
    B.read(In.sbase, w(2) ? w(2) : 2);
    if (In.soffset != kNoOperand)
      B.read(In.soffset, 1);
    if (F.mem & kMemWrite) {
      B.read(In.dst, w(0));
      U.storeData = RegRange{In.dst, uint8_t(w(0))};
      if (F.mem & kMemAtomic && In.glc) {
        B.write(In.dst, F.cmpswap ? w(0) / 2 : w(0));
        U.returnsData = true;
      }
    } else if (In.dst != kNoOperand) {
      B.write(In.dst, w(0) ? w(0) : 2); // s_memtime / s_memrealtime: 64 bits
      U.returnsData = true;
    }
    break;
  case Enc::VOP1:
  case Enc::VOP2:
  case Enc::VOPC:
  case Enc::VOP3:
  case Enc::VOP3P: {
    U.cls = isMfmaOp(I) ? IssueClass::Mfma : IssueClass::Valu;
    for (unsigned S = 0; S < 3; ++S) {
      uint16_t C = In.src[S];
      if (C == kNoOperand)
        continue;
      unsigned N = w(2 + S);
      if (unsigned F = f8f6f4SourceRegs(In, S))
        N = F; // FP6 / FP4 operands are narrower than the table's FP8 width
      if (C == kVccLo || (S == 2 && C < 128 && U.cls == IssueClass::Valu &&
                          (In.op == Op::V_CNDMASK_B32_E64 || (I && (I->flags & kVop3b)))))
        N = 2; // a wave64 lane mask (carry-in, select)
      B.read(C, N ? N : 1);
    }
    if (In.dst != kNoOperand)
      B.write(In.dst, w(0) ? w(0) : 1);
    if (In.sdst != kNoOperand)
      B.write(In.sdst, 2);
    if (In.op == Op::V_WRITELANE_B32 || F.d16)
      B.read(In.dst, 1); // other lanes / the other half are kept
    if (In.op == Op::V_PERMLANE16_SWAP_B32_E32 || In.op == Op::V_PERMLANE16_SWAP_B32_E64 ||
        In.op == Op::V_PERMLANE32_SWAP_B32_E32 || In.op == Op::V_PERMLANE32_SWAP_B32_E64)
      B.write(In.src[0], 1); // the two operands swap
    if (In.op == Op::V_DIV_FMAS_F32_E64 || In.op == Op::V_DIV_FMAS_F64_E64)
      B.read(kVccLo, 2);
    B.read(kExecLo, 2);
    if (F.cmpx)
      B.write(kExecLo, 2);
    break;
  }
  case Enc::DS:
    U.cls = IssueClass::Ds;
    U.mem = In.gds ? uint8_t(kMemNone) : F.mem;
    B.read(In.addr, 1);
    B.read(In.data0, w(3));
    B.read(In.data1, w(4));
    if (In.data0 != kNoOperand && (F.mem & kMemWrite))
      U.storeData = RegRange{In.data0, uint8_t(w(3))};
    if (In.dst != kNoOperand) {
      B.write(In.dst, w(0) ? w(0) : 1);
      U.returnsData = true;
      if (F.d16)
        B.read(In.dst, 1);
    }
    if (F.readsM0 || In.gds)
      B.read(kM0, 1);
    B.read(kExecLo, 2);
    break;
  case Enc::FLAT:
  case Enc::GLOBAL:
  case Enc::SCRATCH: {
    U.cls = In.enc == Enc::FLAT ? IssueClass::Flat : IssueClass::Vmem;
    U.mem = F.mem;
    bool HasSaddr = In.saddr != kNoOperand;
    unsigned AddrN = In.enc == Enc::SCRATCH ? 1 : (In.enc == Enc::GLOBAL && HasSaddr) ? 1 : 2;
    B.read(In.addr, AddrN);
    if (HasSaddr)
      B.read(In.saddr, In.enc == Enc::SCRATCH ? 1 : 2);
    if (In.data0 != kNoOperand) {
      B.read(In.data0, w(3) ? w(3) : 1);
      U.storeData = RegRange{In.data0, uint8_t(w(3) ? w(3) : 1)};
    }
    if (In.dst != kNoOperand) {
      B.write(In.dst, w(0) ? w(0) : 1);
      U.returnsData = true;
      if (F.d16)
        B.read(In.dst, 1);
    }
    if (In.lds)
      B.read(kM0, 1);
    B.read(kExecLo, 2);
    break;
  }
  case Enc::MUBUF:
  case Enc::MTBUF: {
    U.cls = IssueClass::Vmem;
    U.mem = F.mem;
    if (In.addr != kNoOperand)
      B.read(In.addr, (In.idxen && In.offen) ? 2 : 1);
    B.read(In.sbase, 4);
    if (In.soffset != kNoOperand && In.soffset < 128)
      B.read(In.soffset, 1);
    unsigned DataN = w(0) ? w(0) : 1;
    if (In.data0 != kNoOperand) {
      B.read(In.data0, DataN);
      U.storeData = RegRange{In.data0, uint8_t(DataN)};
    }
    if (In.dst != kNoOperand) {
      B.write(In.dst, F.cmpswap && In.data0 != kNoOperand ? DataN / 2 : DataN);
      U.returnsData = true;
      if (F.d16)
        B.read(In.dst, 1);
    }
    if (In.lds)
      B.read(kM0, 1);
    B.read(kExecLo, 2);
    break;
  }
  }
  auto Note = [&U](const RegRange &R) {
    if (!R.count)
      return;
    int Last = R.code + R.count - 1;
    if (R.code < kNumberedSgprs)
      U.maxSgpr = int16_t(std::max<int>(U.maxSgpr, std::min<int>(Last, kNumberedSgprs - 1)));
    else if (R.code >= kAgprBase)
      U.maxAgpr = int16_t(std::max<int>(U.maxAgpr, Last - kAgprBase));
    else if (R.code >= kVgprBase)
      U.maxVgpr = int16_t(std::max<int>(U.maxVgpr, Last - kVgprBase));
  };
  for (unsigned K = 0; K < U.numReads; ++K)
    Note(U.reads[K]);
  for (unsigned K = 0; K < U.numWrites; ++K)
    Note(U.writes[K]);
  U.need = packRegCounts(unsigned(U.maxVgpr + 1), unsigned(U.maxAgpr + 1), unsigned(U.maxSgpr + 1));
  return U;
}

std::string regName(RegRange R) {
  uint16_t C = R.code;
  unsigned N = R.count ? R.count : 1;
  auto range = [&](const char *P, unsigned Base) {
    if (N == 1)
      return std::string(P) + std::to_string(Base);
    return std::string(P) + "[" + std::to_string(Base) + ":" + std::to_string(Base + N - 1) + "]";
  };
  if (C >= kAgprBase)
    return range("a", C - kAgprBase);
  if (C >= kVgprBase)
    return range("v", C - kVgprBase);
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
    return range("ttmp", C - kTtmp0);
  return range("s", C);
}

} // namespace asmevo::emu
