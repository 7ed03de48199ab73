// The wait-state hazard table and its tracker (see Hazards.h).
//
// The tracker keeps the last kRing issued instructions of a wave in a ring, each reduced to what
// the rules ask of a producer (registers written, MFMA pass count and kind, the C matrix it
// read, wide-store data, s_setreg field). check() walks the ring once, newest first, adding up
// wait states, and stops at the target's horizon (the largest requirement of any rule); the
// consumer's side is derived once per call. Nothing allocates unless a hazard is reported.
#include "emu/Hazards.h"

#include "emu/Decoder.h"
#include "emu/DecoderTables.h"
#include "emu/Wave.h"
#include "support/Error.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

namespace asmevo::emu {

namespace {

enum RuleId : uint8_t {
  RValuSgprThenVmem,
  RValuVccThenDivFmas,
  RValuSgprThenLaneSelect,
  RValuExecThenDpp,
  RValuVgprThenDpp,
  RValuMaskThenZSrc,
  RSaluM0ThenMovrelLds,
  RSaluM0ThenSendmsgGds,
  RSetregThenGetreg,
  RSetregThenSetreg,
  RSetregVskipThenVector,
  RWideStoreThenWrite,
  RValuSgprThenValu,
  RValuExecThenLaneAccess,
  RValuVgprThenReadlane,
  RTransThenValu,
  RDstSelThenValu,
  RVcmpxThenPermlane,
  RValuVgprThenPermlane,
  RValuExecThenMfma,
  RValuVgprThenMfma,
  RMfmaThenMfmaSrcC,
  RMfmaThenMfmaSrcAB,
  RMfmaThenValuRead,
  RMfmaThenMemRead,
  RMfmaThenWrite,
  RMfmaSrcCThenWrite,
  RDgemmThenFma64,
  RDotThenRead,
  RDotThenWrite,
  RValuDgemmThenMem,
  RCount
};

const HazardRule kRules[RCount] = {
    {"valu-sgpr-then-vmem",
     "VALU writes an SGPR (VCC, EXEC and M0 included), then a VMEM/FLAT instruction reads "
     "that SGPR",
     kHzAll, "5", "ISA; LLVM checkVMEMHazards"},
    {"valu-vcc-then-div-fmas", "VALU writes VCC (v_div_scale included), then V_DIV_FMAS reads it",
     kHzAll, "4", "ISA; LLVM checkDivFMasHazards"},
    {"valu-sgpr-then-lane-select",
     "VALU writes an SGPR or VCC (v_readlane, v_cmp, v_add/sub carry, v_div_scale), then "
     "V_READLANE/V_WRITELANE uses it as the lane select",
     kHzAll, "4", "ISA; LLVM checkRWLaneHazards"},
    {"valu-exec-then-dpp", "VALU writes EXEC, then a VALU DPP op (EXEC is not forwarded to DPP)",
     kHzAll, "5", "ISA; LLVM checkDPPHazards"},
    {"valu-vgpr-then-dpp", "VALU writes a VGPR, then a VALU DPP op reads that VGPR", kHzAll, "2",
     "ISA; LLVM checkDPPHazards"},
    {"valu-mask-then-execz-vccz",
     "VALU writes VCC or EXEC, then a VALU uses EXECZ or VCCZ as a data source", kHzAll, "5",
     "ISA (LLVM never emits EXECZ/VCCZ operands)"},
    {"salu-m0-then-movrel-lds",
     "SALU writes M0, then S_MOVREL, an LDS add-TID instruction, or a buffer/global/scratch "
     "load to LDS reads it",
     kHzAll, "1", "ISA; LLVM checkReadM0Hazards"},
    {"salu-m0-then-sendmsg-gds", "SALU writes M0, then S_SENDMSG, S_TTRACEDATA or a GDS op", kHzAll,
     "1", "ISA; LLVM checkReadM0Hazards"},
    {"setreg-then-getreg", "S_SETREG, then S_GETREG of the same hardware register", kHzAll, "2",
     "ISA; LLVM checkGetRegHazards"},
    {"setreg-then-setreg", "S_SETREG, then S_SETREG of the same hardware register", kHzAll, "2",
     "ISA; LLVM checkSetRegHazards"},
    {"setreg-vskip-then-vector",
     "S_SETREG writes MODE.VSKIP, then any vector (VALU, MFMA, memory) instruction", kHzAll, "2",
     "ISA (LLVM never writes VSKIP)"},
    {"wide-store-then-valu-write",
     "a VMEM store of more than 64 bits of data (FLAT/GLOBAL/SCRATCH_STORE_X3/X4, "
     "BUFFER_STORE_X3/X4 and formats, CMPSWAP_X2; not BUFFER ops with an SGPR soffset), then a "
     "VALU writes the VGPRs holding its data",
     kHzAll, "1 (gfx90a), 2 (gfx940+)", "ISA; LLVM checkVALUHazardsHelper"},
    {"valu-sgpr-then-valu", "VALU writes an SGPR or VCC, then a VALU reads that SGPR/VCC",
     kHzGfx94Plus, "2", "CDNA3 ISA; LLVM checkVALUHazards (VDecCoExec)"},
    {"valu-exec-then-lane-access",
     "VALU writes EXEC, then V_READLANE, V_READFIRSTLANE or V_WRITELANE", kHzGfx94Plus, "4",
     "CDNA3 ISA; LLVM checkVALUHazards (VDecCoExec)"},
    {"valu-vgpr-then-readlane",
     "VALU writes a VGPR, then V_READLANE/V_READFIRSTLANE reads it as its source", kHzGfx94Plus,
     "1", "CDNA3 ISA; LLVM checkVALUHazards (VDecCoExec)"},
    {"trans-then-valu",
     "a transcendental VALU op (v_exp, v_log, v_rcp, v_rsq, v_sqrt, v_sin, v_cos) writes a "
     "VGPR, then a non-transcendental VALU reads it",
     kHzGfx94Plus, "1", "CDNA3 ISA; LLVM checkVALUHazards (TransForwarding)"},
    {"dst-sel-then-valu",
     "a VALU op whose result changes bit position (SDWA dst_sel other than DWORD, VOP3 op_sel "
     "destination high half; as LLVM reads it, a packed VOP3P op with op_sel_hi[0] set), then a "
     "VALU reads or writes that VGPR",
     kHzGfx94Plus, "1", "CDNA3 ISA; LLVM checkVALUHazards (DstSelForwarding)"},
    {"vcmpx-then-permlane", "V_CMPX writes EXEC, then V_PERMLANE16_SWAP/V_PERMLANE32_SWAP",
     kHzGfx950, "4", "CDNA4 ISA; LLVM checkPermlaneHazards"},
    {"valu-vgpr-then-permlane",
     "VALU writes a VGPR, then V_PERMLANE16_SWAP/V_PERMLANE32_SWAP reads it", kHzGfx950, "2",
     "CDNA4 ISA; LLVM checkPermlaneHazards"},
    {"valu-exec-then-mfma", "VALU writes EXEC, then an MFMA", kHzAll, "4",
     "MAI dependency table; LLVM checkMAIHazards90A"},
    {"valu-vgpr-then-mfma",
     "VALU (not MFMA, not dot) writes a VGPR/AGPR (v_accvgpr_write included), then an MFMA "
     "reads it as SrcA, SrcB or SrcC",
     kHzAll, "2", "MAI dependency table; LLVM checkMAIHazards90A"},
    {"mfma-then-mfma-srcc",
     "an MFMA writes VGPRs/AGPRs, then an MFMA reads them as SrcC: 0 when the same registers "
     "are read back (same size, back to back), otherwise by pass count",
     kHzAll,
     "gfx90a XDL 2/8/16 passes: 2/8/16 (3/9/17 into a DGEMM); DGEMM 4x4: 4 (same regs too), "
     "16x16: 9 (gfx950: 17); gfx940+ XDL: passes+1 (gfx950: +1 more; into SGEMM/DGEMM only "
     "beyond 2 passes), SGEMM: passes, same regs 2-pass: 2",
     "MAI dependency table; LLVM checkMAIHazards90A"},
    {"mfma-then-mfma-srcab", "an MFMA writes VGPRs/AGPRs, then an MFMA reads them as SrcA/SrcB",
     kHzAll,
     "gfx90a: 5/11/19 for 2/8/16 passes; DGEMM 4x4: 6, 16x16: 11 (gfx950: 19); gfx940+ XDL: "
     "passes+3 (gfx950 beyond 2 passes: +4), SGEMM: passes+2",
     "MAI dependency table; LLVM checkMAIHazards90A"},
    {"mfma-then-valu-read",
     "an MFMA writes VGPRs/AGPRs, then a VALU (v_accvgpr_read included) reads them", kHzAll,
     "gfx90a: 5/11/19 for 2/8/16 passes; DGEMM 4x4: 6, 16x16: 11 (gfx950: 19); gfx940+ XDL: "
     "passes+3 (gfx950 beyond 2 passes: +4), SGEMM: passes+2",
     "MAI dependency table; LLVM checkMAIVALUHazards"},
    {"mfma-then-mem-read",
     "an MFMA writes VGPRs/AGPRs, then a VMEM/FLAT/DS instruction reads them (address or data)",
     kHzAll,
     "gfx90a: 5/11/19 for 2/8/16 passes; DGEMM 4x4: 9, 16x16: 18; gfx940+ XDL: passes+3 "
     "(gfx950 beyond 2 passes: +4), SGEMM: passes+2",
     "MAI dependency table; LLVM checkMAIVALUHazards"},
    {"mfma-then-write",
     "an MFMA writes VGPRs/AGPRs, then a VALU or a VMEM/DS load writes them (WAW)", kHzAll,
     "gfx90a: 5/11/19 for 2/8/16 passes; DGEMM 4x4: 6, 16x16: 11; gfx940+ XDL: passes+3 "
     "(gfx950 beyond 2 passes: +4), SGEMM: passes+2",
     "MAI dependency table; LLVM checkMAIVALUHazards"},
    {"mfma-srcc-then-write",
     "an XDL MFMA (gfx90a: any non-DGEMM MFMA) reads SrcC, then a VALU or a VMEM/DS load "
     "overwrites those registers (WAR)",
     kHzAll, "1/3/7/15 for 2/4/8/16 passes", "MAI dependency table; LLVM checkMAIVALUHazards"},
    {"dgemm-then-fma64", "a DGEMM (f64 MFMA), then V_FMA_F64/V_FMAC_F64", kHzAll, "2",
     "MAI dependency table; LLVM checkMAIVALUHazards"},
    {"dot-then-read",
     "a dot op (v_dot*) writes a VGPR, then a VALU or memory instruction reads it (0 when the "
     "same dot op reads it as its accumulator)",
     kHzAll, "3", "MAI dependency table; LLVM checkMAIVALUHazards"},
    {"dot-then-write", "a dot op writes a VGPR, then a different VALU or a load writes it", kHzAll,
     "3", "MAI dependency table; LLVM checkMAIVALUHazards"},
    {"valu-dgemm-then-mem",
     "VALU writes a VGPR, a DGEMM issues, then a VMEM/DS instruction reads that VGPR (gfx90a "
     "SQ bug)",
     kHzGfx90a, "2", "LLVM checkMAIVALUHazards (gfx90a workaround)"},
};

// ---- per-op facts, derived once from the ISA names ---------------------------------------------

enum OpFlag : uint32_t {
  FTrans = 1u << 0,
  FDot = 1u << 1,
  FMfma = 1u << 2,  // a real MFMA/SMFMAC (not v_mfma_ld_scale)
  FDgemm = 1u << 3, // f64 MFMA
  FF32In = 1u << 4, // MFMA with f32 inputs (not XDL on gfx940+)
  FSmfmac = 1u << 5,
  FF8F6F4 = 1u << 6,
  FLaneRead = 1u << 7, // v_readlane, v_readfirstlane
  FWriteLane = 1u << 8,
  FDivFmas = 1u << 9,
  FFma64 = 1u << 10,
  FMovrel = 1u << 11,
  FSendmsg = 1u << 12, // s_sendmsg, s_sendmsghalt, s_ttracedata
  FAddtid = 1u << 13,
  FSetreg = 1u << 14,
  FGetreg = 1u << 15,
  FNop = 1u << 16,
  FCmpx = 1u << 17,
  FPermSwap = 1u << 18,
  FDsNoGds = 1u << 19, // ds_nop, ds_permute, ds_bpermute: no GDS form
  FGws = 1u << 20,
  FOpSel = 1u << 21, // a VOP3P op with op_sel modifiers in LLVM (packed math, dot, mix)
};

struct OpFact {
  uint32_t F = 0;
  uint8_t M = 0, K = 0; // MFMA block dimensions from the name (4/16/32, K)
};

struct FactTable {
  OpFact T[size_t(Op::Count)];
  FactTable() {
    for (size_t I = 0; I < size_t(Op::Count); ++I) {
      std::string N = opName(Op(I));
      OpFact &O = T[I];
      auto Starts = [&](const char *S) { return N.rfind(S, 0) == 0; };
      auto Has = [&](const char *S) { return N.find(S) != std::string::npos; };
      static const char *Trans[] = {"V_EXP_",  "V_LOG_", "V_RCP_", "V_RSQ_",
                                    "V_SQRT_", "V_SIN_", "V_COS_"};
      for (const char *P : Trans)
        if (Starts(P))
          O.F |= FTrans;
      if (Starts("V_DOT"))
        O.F |= FDot;
      if (Starts("V_PK_") || Starts("V_DOT") || Starts("V_FMA_MIX") || Starts("V_MAD_MIX"))
        O.F |= FOpSel;
      if ((Starts("V_MFMA_") || Starts("V_SMFMAC_")) && !Starts("V_MFMA_LD_SCALE")) {
        O.F |= FMfma;
        if (Starts("V_SMFMAC_"))
          O.F |= FSmfmac;
        if (Starts("V_MFMA_F64"))
          O.F |= FDgemm;
        // Inputs of f32: the name ends in _F32 (not _XF32): 32x32x1_2b_f32, 32x32x2_f32, ...
        if (N.size() > 4 && N.compare(N.size() - 4, 4, "_F32") == 0)
          O.F |= FF32In;
        if (Has("F8F6F4"))
          O.F |= FF8F6F4;
        // Dimensions: the first "_<M>X<N>X<K>" group of the name.
        for (size_t P = N.find('_'); P != std::string::npos; P = N.find('_', P + 1)) {
          unsigned A = 0, B = 0, Kd = 0;
          if (std::sscanf(N.c_str() + P + 1, "%uX%uX%u", &A, &B, &Kd) == 3) {
            O.M = uint8_t(A);
            O.K = uint8_t(Kd);
            break;
          }
        }
      }
      if (Starts("V_READLANE") || Starts("V_READFIRSTLANE"))
        O.F |= FLaneRead;
      if (Starts("V_WRITELANE"))
        O.F |= FWriteLane;
      if (Starts("V_DIV_FMAS"))
        O.F |= FDivFmas;
      if (Starts("V_FMA_F64") || Starts("V_FMAC_F64"))
        O.F |= FFma64;
      if (Starts("S_MOVREL"))
        O.F |= FMovrel;
      if (Starts("S_SENDMSG") || Starts("S_TTRACEDATA"))
        O.F |= FSendmsg;
      if (Starts("DS_") && Has("ADDTID"))
        O.F |= FAddtid;
      if (Starts("S_SETREG"))
        O.F |= FSetreg;
      if (N == "S_GETREG_B32")
        O.F |= FGetreg;
      if (N == "S_NOP")
        O.F |= FNop;
      if (Starts("V_CMP"))
        O.F |= FCmpx; // v_cmp (e64 with an EXEC sdst) and v_cmpx
      if (Starts("V_PERMLANE16_SWAP") || Starts("V_PERMLANE32_SWAP"))
        O.F |= FPermSwap;
      if (N == "DS_NOP" || Starts("DS_PERMUTE") || Starts("DS_BPERMUTE"))
        O.F |= FDsNoGds;
      if (Starts("DS_GWS"))
        O.F |= FGws;
    }
  }
};

const FactTable &facts() {
  static const FactTable T;
  return T;
}

const OpFact &factOf(Op O) {
  static const OpFact None;
  return size_t(O) < size_t(Op::Count) ? facts().T[size_t(O)] : None;
}

// Entry kinds (Entry::Kind).
enum EntryKind : uint32_t {
  KValu = 1u << 0, // a VALU op (not MFMA)
  KMfma = 1u << 1, // an MFMA / SMFMAC
  KTrans = 1u << 2,
  KDot = 1u << 3,
  KDgemm = 1u << 4,
  KXdl = 1u << 5,    // XDL MFMA on this target
  KDstSel = 1u << 6, // result at a shifted bit position (SDWA dst_sel, VOP3 op_sel[3])
  KCmpx = 1u << 7,   // a VALU compare that writes EXEC
  KSetreg = 1u << 8,
  KWideStore = 1u << 9,
  KSalu = 1u << 10,
  KF64x4 = 1u << 11,  // v_mfma_f64_4x4x4
  KF64x16 = 1u << 12, // v_mfma_f64_16x16x4
};

uint8_t targetBit(Gfx G) {
  switch (G) {
  case Gfx::Gfx90a:
    return kHzGfx90a;
  case Gfx::Gfx950:
    return kHzGfx950;
  default:
    return kHzGfx94x;
  }
}

// MFMA pass count on the target (the issue cycles / 4 the MAI tables are keyed on).
unsigned mfmaPasses(const OpFact &F, const Inst &In, Gfx G) {
  if (F.F & FDgemm)
    return F.M == 4 ? 4 : (G == Gfx::Gfx950 ? 16 : 8);
  if (F.M == 4)
    return 2;
  if (G == Gfx::Gfx90a)
    return F.M == 16 ? 8 : 16;
  if (F.F & FSmfmac)
    return F.M == 16 ? 4 : 8;
  if (F.F & FF8F6F4) {
    // Twice as long when either matrix is an 8-bit float (format 0 fp8, 1 bf8).
    bool F8 = In.Cbsz <= 1 || In.Blgp <= 1;
    return (F.M == 16 ? 4 : 8) * (F8 ? 2 : 1);
  }
  bool Short = F.K == 1 || F.K == 2 || F.K == 4; // 16x16x1/x4, 32x32x1/x2/x4 (not xf32)
  bool Xf32 =
      F.K == 4 && F.M == 32 && (F.F & FF32In) == 0 && In.Operation == Op::V_MFMA_F32_32X32X4_XF32;
  if (F.M == 16)
    return Short ? 8 : 4;
  return Short && !Xf32 ? 16 : 8;
}

bool isXdl(const OpFact &F, Gfx G) {
  if (!(F.F & FMfma) || (F.F & FDgemm))
    return false;
  return G == Gfx::Gfx90a || !(F.F & FF32In);
}

// The operand width in dwords (src I of the ISA tables; 1 when unknown).
unsigned srcWidth(const Inst &In, Gfx G, unsigned I) {
  const OpInfo *Info = infoOf(In, G);
  unsigned W = Info ? Info->W[2 + I] : 1;
  return W ? W : 1;
}

bool isReg(uint16_t C) { return C < 128 || (C >= kVgprBase && C < kAgprBase + 256); }

RegRange intersect(RegRange A, RegRange B) {
  uint16_t Lo = A.Code > B.Code ? A.Code : B.Code;
  unsigned Hi = std::min(unsigned(A.Code) + A.Count, unsigned(B.Code) + B.Count);
  return RegRange{Lo, uint8_t(Hi > Lo ? Hi - Lo : 0)};
}

// A found violation.
struct Hit {
  RuleId Rule = RCount;
  const HazardTracker::Entry *Prod = nullptr;
  unsigned Since = 0, Need = 0;
  std::string ProdWhat, ConsWhat; // "writes v3", "reads it"
};

std::string states(unsigned N) {
  return std::to_string(N) + (N == 1 ? " wait state" : " wait states");
}

const char *hwregName(unsigned Id) {
  switch (Id) {
  case 1:
    return "MODE";
  case 2:
    return "STATUS";
  case 3:
    return "TRAPSTS";
  case 4:
    return "HW_ID";
  case 5:
    return "GPR_ALLOC";
  case 6:
    return "LDS_ALLOC";
  case 7:
    return "IB_STS";
  default:
    return nullptr;
  }
}

std::string hwregText(unsigned Id) {
  const char *N = hwregName(Id);
  return std::string("hwreg(") + (N ? std::string("HW_REG_") + N : std::to_string(Id)) + ")";
}

// The consumer's side, derived once per check().
struct Consumer {
  const Inst &In;
  const RegUses &U;
  const OpFact &F;
  bool Valu = false, Mfma = false, Mem = false, Vmem = false, Vector = false;
  // MFMA operands: A, B, C (SMFMAC: C is the accumulator = dst, the index is a fourth source).
  RegRange MOps[4];
  uint8_t NumMOps = 0;
  int8_t MOpC = -1; // index of SrcC in MOps
  // Vector reads and writes (VGPR/AGPR), SGPR reads (code < 128).
  RegRange VReads[RegUses::kMaxReads], VWrites[RegUses::kMaxWrites], SReads[RegUses::kMaxReads];
  uint8_t NumVReads = 0, NumVWrites = 0, NumSReads = 0;
  bool SReadImplicitExec = false; // the last SGPR read is the implicit EXEC of a vector op
  // Explicit sources of a VALU (dot rules): ranges per source index.
  RegRange Src[3];

  Consumer(const Inst &I, const RegUses &R, Gfx G) : In(I), U(R), F(factOf(I.Operation)) {
    Mfma = U.Cls == IssueClass::Mfma && (F.F & FMfma);
    Valu = (U.Cls == IssueClass::Valu || U.Cls == IssueClass::Mfma) && !Mfma;
    Vmem = U.Cls == IssueClass::Vmem || U.Cls == IssueClass::Flat;
    Mem = Vmem || U.Cls == IssueClass::Ds;
    Vector = Valu || Mfma || Mem;
    for (unsigned I = 0; I < U.NumReads; ++I) {
      RegRange R = U.Reads[I];
      if (R.Code >= kVgprBase)
        VReads[NumVReads++] = R;
      else if (R.Code < 128)
        SReads[NumSReads++] = R;
    }
    if (Vector && NumSReads && SReads[NumSReads - 1].Code == kExecLo &&
        SReads[NumSReads - 1].Count == 2 && U.Reads[U.NumReads - 1].Code == kExecLo)
      SReadImplicitExec = true;
    for (unsigned I = 0; I < U.NumWrites; ++I)
      if (U.Writes[I].Code >= kVgprBase)
        VWrites[NumVWrites++] = U.Writes[I];
    if (Valu || Mfma)
      for (unsigned S = 0; S < 3; ++S)
        if (In.Src[S] != kNoOperand && isReg(In.Src[S]))
          Src[S] = RegRange{In.Src[S], uint8_t(srcWidth(In, G, S))};
    if (Mfma) {
      for (unsigned S = 0; S < 2; ++S)
        if (Src[S].Count && Src[S].Code >= kVgprBase)
          MOps[NumMOps++] = Src[S];
      if (F.F & FSmfmac) {
        if (Src[2].Count && Src[2].Code >= kVgprBase)
          MOps[NumMOps++] = RegRange{Src[2].Code, 1}; // the sparsity index
        if (U.NumWrites && U.Writes[0].Code >= kVgprBase) {
          MOpC = int8_t(NumMOps);
          MOps[NumMOps++] = U.Writes[0];
        }
      } else if (Src[2].Count && Src[2].Code >= kVgprBase) {
        MOpC = int8_t(NumMOps);
        MOps[NumMOps++] = Src[2];
      }
    }
  }
};

} // namespace

const std::vector<HazardRule> &hazardRules() {
  static const std::vector<HazardRule> R(kRules, kRules + RCount);
  return R;
}

HazardTracker::HazardTracker(Gfx T) : Target(T), TargetBit(targetBit(T)) {
  Horizon = T == Gfx::Gfx950 ? 20 : 19;
  (void)facts();
}

void HazardTracker::reset() { Head = Count = 0; }

void HazardTracker::issued(const Inst &In, const RegUses &U, uint64_t Pc) {
  Entry &E = Ring[Head];
  Head = (Head + 1) % kRing;
  if (Count < kRing)
    ++Count;
  const OpFact &F = factOf(In.Operation);
  E.In = In;
  E.Pc = Pc;
  E.Cls = U.Cls;
  E.NumWrites = U.NumWrites;
  for (unsigned I = 0; I < U.NumWrites; ++I)
    E.Writes[I] = U.Writes[I];
  E.Waits = (F.F & FNop) ? uint8_t((In.Simm16 & 0xf) + 1) : 1;
  E.Kind = 0;
  E.Passes = 0;
  E.HwReg = 0;
  E.HwMask = 0;
  E.SrcC = RegRange{};
  E.StoreData = RegRange{};
  switch (U.Cls) {
  case IssueClass::Valu:
  case IssueClass::Mfma:
    if (U.Cls == IssueClass::Mfma && (F.F & FMfma)) {
      E.Kind |= KMfma;
      E.Passes = uint8_t(mfmaPasses(F, In, Target));
      if (F.F & FDgemm)
        E.Kind |= KDgemm | (F.M == 4 ? KF64x4 : KF64x16);
      if (isXdl(F, Target))
        E.Kind |= KXdl;
      if (F.F & FSmfmac) {
        if (U.NumWrites)
          E.SrcC = U.Writes[0];
      } else if (In.Src[2] != kNoOperand && In.Src[2] >= kVgprBase) {
        E.SrcC = RegRange{In.Src[2], uint8_t(srcWidth(In, Target, 2))};
      }
      break;
    }
    E.Kind |= KValu;
    if (F.F & FTrans)
      E.Kind |= KTrans;
    if (F.F & FDot)
      E.Kind |= KDot;
    // LLVM's getDstSelForwardingOperand reads bit 3 of src0_modifiers as the destination
    // select; on a VOP3P op with op_sel modifiers (not v_accvgpr_*, not MFMA) that bit is
    // op_sel_hi[0], set by default, so LLVM pads every packed op whose result the next VALU reads
    // (llc -mcpu=gfx942 puts an s_nop 0 after v_pk_add_f32 and v_pk_mul_f16 there). The check
    // follows LLVM.
    if ((In.Form == VForm::Sdwa && In.DstSel != 6 && In.Dst != kNoOperand && In.Dst >= kVgprBase) ||
        (In.Encoding == Enc::VOP3 && (In.Opsel & 8) && In.Dst >= kVgprBase &&
         In.Dst != kNoOperand) ||
        (In.Encoding == Enc::VOP3P && (F.F & FOpSel) && (In.OpselHi & 1) && In.Dst >= kVgprBase &&
         In.Dst != kNoOperand))
      E.Kind |= KDstSel;
    if (U.writesCode(kExecLo) || U.writesCode(kExecHi))
      if (F.F & FCmpx)
        E.Kind |= KCmpx;
    break;
  case IssueClass::Salu:
    E.Kind |= KSalu;
    if (F.F & FSetreg) {
      unsigned H = unsigned(In.Simm16) & 0xffff;
      unsigned Off = (H >> 6) & 31, Size = ((H >> 11) & 31) + 1;
      E.Kind |= KSetreg;
      E.HwReg = uint8_t(H & 63);
      uint64_t M = ((uint64_t(1) << Size) - 1) << Off;
      E.HwMask = uint32_t(M);
    }
    break;
  case IssueClass::Vmem:
  case IssueClass::Flat:
    if ((U.Mem & kMemWrite) && U.StoreData.Count > 2) {
      bool Buffer = In.Encoding == Enc::MUBUF || In.Encoding == Enc::MTBUF;
      // BUFFER stores with an SGPR soffset need no wait states.
      if (!Buffer || In.Soffset == kNoOperand || In.Soffset >= 128) {
        E.Kind |= KWideStore;
        E.StoreData = U.StoreData;
      }
    }
    break;
  default:
    break;
  }
}

bool HazardTracker::check(const Inst &In, const RegUses &U, uint64_t Pc, std::string &Why,
                          const char **Rule, std::string *Producer) const {
  if (!Count)
    return true;
  const OpFact &CF = factOf(In.Operation);
  // Scalar consumers: only the s_setreg/s_getreg and M0 rules concern them.
  bool ScalarInterest = (CF.F & (FSetreg | FGetreg | FMovrel | FSendmsg)) != 0;
  if ((U.Cls == IssueClass::Salu || U.Cls == IssueClass::Sopp || U.Cls == IssueClass::Smem) &&
      !ScalarInterest)
    return true;

  const Consumer C(In, U, Target);
  const bool G90a = Target == Gfx::Gfx90a, G94Plus = !G90a, G950 = Target == Gfx::Gfx950;
  const bool LaneSelect = (CF.F & (FLaneRead | FWriteLane)) &&
                          In.Operation != Op::V_READFIRSTLANE_B32_E32 &&
                          In.Operation != Op::V_READFIRSTLANE_B32_E64 && In.Src[1] < 128;
  const bool Dpp = In.Form == VForm::Dpp;
  bool ZSrc = false;
  if (C.Vector)
    for (unsigned S = 0; S < 3; ++S)
      ZSrc |= In.Src[S] == kSrcVccz || In.Src[S] == kSrcExecz;
  const bool M0MovrelLds = (CF.F & (FMovrel | FAddtid)) || (C.Vmem && In.Lds);
  const bool M0SendGds =
      (CF.F & (FSendmsg | FGws)) || (U.Cls == IssueClass::Ds && In.Gds && !(CF.F & FDsNoGds));
  const bool Dgemm = C.Mfma && (CF.F & FDgemm);
  const bool CXdl = C.Mfma && isXdl(CF, Target);
  const bool CF64x4 = Dgemm && CF.M == 4;
  const unsigned GetSetReg = (CF.F & (FSetreg | FGetreg)) ? (unsigned(In.Simm16) & 63) : ~0u;

  // Most recent producer only, per operand, for the MFMA rules (as the MAI tables are read).
  uint32_t MfmaSeen = 0; // bits: MOps 0..3, VReads 4..11, VWrites 12..15, WAR 16..19
  bool SawDgemm = false;
  Hit H;
  unsigned S = 0;

  auto Report = [&](RuleId R, const Entry &E, unsigned Need, std::string PW, std::string CW) {
    H.Rule = R;
    H.Prod = &E;
    H.Since = S;
    H.Need = Need;
    H.ProdWhat = std::move(PW);
    H.ConsWhat = std::move(CW);
  };
  auto On = [&](RuleId R) { return (kRules[R].Targets & TargetBit) != 0; };
  // The producer's write overlapping R (count 0 if none).
  auto Wrote = [](const Entry &E, RegRange R) {
    for (unsigned I = 0; I < E.NumWrites; ++I)
      if (E.Writes[I].overlaps(R))
        return intersect(E.Writes[I], R);
    return RegRange{};
  };
  auto WroteCode = [&](const Entry &E, uint16_t Code, uint8_t N) {
    return Wrote(E, RegRange{Code, N});
  };
  auto Writes = [](RegRange R) { return "writes " + regName(R); };

  for (unsigned Back = 0; Back < Count && S < Horizon; S += at(Back).Waits, ++Back) {
    const Entry &E = at(Back);
    const uint32_t K = E.Kind;

    if (K & KSalu) {
      if (K & KSetreg) {
        if (GetSetReg == E.HwReg && S < 2) {
          RuleId R = (CF.F & FGetreg) ? RSetregThenGetreg : RSetregThenSetreg;
          Report(R, E, 2, "writes " + hwregText(E.HwReg),
                 (CF.F & FGetreg) ? "reads it" : "writes it");
          break;
        }
        if (C.Vector && E.HwReg == 1 && (E.HwMask & (1u << 28)) && S < 2) {
          Report(RSetregVskipThenVector, E, 2, "writes MODE.VSKIP", "issues");
          break;
        }
      }
      if ((M0MovrelLds || M0SendGds) && S < 1) {
        RegRange M = WroteCode(E, kM0, 1);
        if (M.Count) {
          Report(M0MovrelLds ? RSaluM0ThenMovrelLds : RSaluM0ThenSendmsgGds, E, 1, Writes(M),
                 "reads it");
          break;
        }
      }
      continue;
    }
    if (!C.Vector)
      continue;

    if (K & KValu) {
      // Rules on SGPR/VCC/EXEC written by a VALU.
      if (C.Vmem && S < 5) {
        RegRange Hr;
        for (unsigned I = 0; I < C.NumSReads && !Hr.Count; ++I)
          Hr = Wrote(E, C.SReads[I]);
        if (Hr.Count) {
          Report(RValuSgprThenVmem, E, 5, Writes(Hr), "reads it");
          break;
        }
      }
      if (Dpp && S < 5) {
        RegRange Hr = WroteCode(E, kExecLo, 2);
        if (Hr.Count) {
          Report(RValuExecThenDpp, E, 5, Writes(Hr), "is a DPP op");
          break;
        }
      }
      if (ZSrc && S < 5) {
        RegRange Hr = WroteCode(E, kVccLo, 2);
        if (!Hr.Count)
          Hr = WroteCode(E, kExecLo, 2);
        if (Hr.Count) {
          Report(RValuMaskThenZSrc, E, 5, Writes(Hr), "reads VCCZ/EXECZ");
          break;
        }
      }
      if ((CF.F & FDivFmas) && S < 4) {
        RegRange Hr = WroteCode(E, kVccLo, 2);
        if (Hr.Count) {
          Report(RValuVccThenDivFmas, E, 4, Writes(Hr), "reads it");
          break;
        }
      }
      if (LaneSelect && S < 4) {
        RegRange Hr = WroteCode(E, In.Src[1], 1);
        if (Hr.Count) {
          Report(RValuSgprThenLaneSelect, E, 4, Writes(Hr), "uses it as the lane select");
          break;
        }
      }
      if (C.Mfma && S < 4 && On(RValuExecThenMfma)) {
        RegRange Hr = WroteCode(E, kExecLo, 2);
        if (Hr.Count) {
          Report(RValuExecThenMfma, E, 4, Writes(Hr), "issues");
          break;
        }
      }
      if (G94Plus && (CF.F & (FLaneRead | FWriteLane)) && S < 4) {
        RegRange Hr = WroteCode(E, kExecLo, 2);
        if (Hr.Count) {
          Report(RValuExecThenLaneAccess, E, 4, Writes(Hr), "issues");
          break;
        }
      }
      if (G950 && (CF.F & FPermSwap) && (K & KCmpx) && S < 4) {
        Report(RVcmpxThenPermlane, E, 4, Writes(WroteCode(E, kExecLo, 2)), "issues");
        break;
      }
      if (G94Plus && C.Valu && S < 2) {
        RegRange Hr;
        unsigned N = C.NumSReads - (C.SReadImplicitExec ? 1 : 0);
        for (unsigned I = 0; I < N && !Hr.Count; ++I)
          Hr = Wrote(E, C.SReads[I]);
        if (Hr.Count) {
          Report(RValuSgprThenValu, E, 2, Writes(Hr), "reads it");
          break;
        }
      }
      // VGPR rules.
      if (C.Mfma && S < 2 && !(K & KDot)) {
        RegRange Hr;
        for (unsigned I = 0; I < C.NumMOps && !Hr.Count; ++I)
          Hr = Wrote(E, C.MOps[I]);
        if (Hr.Count) {
          Report(RValuVgprThenMfma, E, 2, Writes(Hr), "reads it");
          break;
        }
      }
      if (Dpp && S < 2) {
        RegRange Hr;
        for (unsigned I = 0; I < C.NumVReads && !Hr.Count; ++I)
          Hr = Wrote(E, C.VReads[I]);
        if (Hr.Count) {
          Report(RValuVgprThenDpp, E, 2, Writes(Hr), "reads it");
          break;
        }
      }
      if (G950 && (CF.F & FPermSwap) && S < 2) {
        RegRange Hr;
        for (unsigned I = 0; I < C.NumVReads && !Hr.Count; ++I)
          Hr = Wrote(E, C.VReads[I]);
        for (unsigned I = 0; I < C.NumVWrites && !Hr.Count; ++I)
          Hr = Wrote(E, C.VWrites[I]);
        if (Hr.Count) {
          Report(RValuVgprThenPermlane, E, 2, Writes(Hr), "reads it");
          break;
        }
      }
      if (G94Plus && (CF.F & FLaneRead) && S < 1 && C.Src[0].Count) {
        RegRange Hr = Wrote(E, C.Src[0]);
        if (Hr.Count) {
          Report(RValuVgprThenReadlane, E, 1, Writes(Hr), "reads it");
          break;
        }
      }
      if (G94Plus && (K & KTrans) && C.Valu && !(CF.F & FTrans) && S < 1) {
        RegRange Hr;
        for (unsigned I = 0; I < C.NumVReads && !Hr.Count; ++I)
          Hr = Wrote(E, C.VReads[I]);
        if (Hr.Count) {
          Report(RTransThenValu, E, 1, Writes(Hr), "reads it");
          break;
        }
      }
      if (G94Plus && (K & KDstSel) && (C.Valu || C.Mfma) && S < 1) {
        RegRange Hr;
        for (unsigned I = 0; I < C.NumVReads && !Hr.Count; ++I)
          Hr = Wrote(E, C.VReads[I]);
        for (unsigned I = 0; I < C.NumVWrites && !Hr.Count; ++I)
          Hr = Wrote(E, C.VWrites[I]);
        if (Hr.Count) {
          Report(RDstSelThenValu, E, 1, Writes(Hr), "uses it");
          break;
        }
      }
      if ((K & KDot) && (C.Valu || C.Mem) && S < 3) {
        // Reads: 3, except the same dot op reading it as its accumulator (SrcC).
        RegRange Hr;
        bool Same = In.Operation == E.In.Operation;
        if (C.Valu && Same) {
          for (unsigned I = 0; I < 2 && !Hr.Count; ++I)
            if (C.Src[I].Count)
              Hr = Wrote(E, C.Src[I]);
        } else {
          for (unsigned I = 0; I < C.NumVReads && !Hr.Count; ++I)
            Hr = Wrote(E, C.VReads[I]);
        }
        if (Hr.Count) {
          Report(RDotThenRead, E, 3, Writes(Hr), "reads it");
          break;
        }
        if (!Same) {
          for (unsigned I = 0; I < C.NumVWrites && !Hr.Count; ++I)
            Hr = Wrote(E, C.VWrites[I]);
          if (Hr.Count) {
            Report(RDotThenWrite, E, 3, Writes(Hr), "writes it");
            break;
          }
        }
      }
      if (G90a && SawDgemm && C.Mem && S < 2) {
        RegRange Hr;
        for (unsigned I = 0; I < C.NumVReads && !Hr.Count; ++I)
          Hr = Wrote(E, C.VReads[I]);
        if (Hr.Count) {
          Report(RValuDgemmThenMem, E, 2, Writes(Hr) + ", then a DGEMM issues", "reads it");
          break;
        }
      }
      continue;
    }

    if (K & KMfma) {
      const unsigned P = E.Passes;
      const bool PXdl = K & KXdl, PDgemm = K & KDgemm;
      // The generic requirement of an MFMA result read by SrcA/B, a VALU or memory, or
      // overwritten (gfx940+: by XDL/SGEMM pass count; gfx90a: 4x4/16x16/32x32).
      auto ByPasses = [&]() -> unsigned {
        if (G94Plus)
          return PXdl ? P + 3 + (P != 2 && G950) : P + 2;
        return P == 2 ? 5 : P == 8 ? 11 : 19;
      };
      if (PDgemm)
        SawDgemm = true;
      if ((CF.F & FFma64) && PDgemm && S < 2) {
        Report(RDgemmThenFma64, E, 2, "is a DGEMM", "issues");
        break;
      }
      if (C.Mfma) {
        for (unsigned I = 0; I < C.NumMOps; ++I) {
          if (MfmaSeen & (1u << I))
            continue;
          RegRange Hr = Wrote(E, C.MOps[I]);
          if (!Hr.Count)
            continue;
          MfmaSeen |= 1u << I;
          unsigned Need = 0;
          RuleId R;
          if (int(I) == C.MOpC) {
            R = RMfmaThenMfmaSrcC;
            bool Full = E.NumWrites && E.Writes[0].Code == C.MOps[I].Code &&
                        E.Writes[0].Count == C.MOps[I].Count;
            if (!Dgemm && G90a && PDgemm)
              Need = 0;
            else if (Full)
              Need = (CF64x4 && (K & KF64x4)) ? 4 : (G94Plus && P == 2) ? 2 : 0;
            else if (K & KF64x16)
              Need = CXdl ? 0 : (G950 ? 17 : 9);
            else if (K & KF64x4)
              Need = CXdl ? 0 : 4;
            else if (G94Plus)
              Need = (CXdl && !PXdl) ? 0 : PXdl ? P + 1 + (CXdl ? G950 : (P != 2 && G950)) : P;
            else
              Need = P == 2 ? (Dgemm ? 3 : 2) : P == 8 ? (Dgemm ? 9 : 8) : (Dgemm ? 17 : 16);
          } else {
            R = RMfmaThenMfmaSrcAB;
            if (K & KF64x16)
              Need = G950 ? 19 : 11;
            else if (K & KF64x4)
              Need = 6;
            else
              Need = ByPasses();
          }
          if (S < Need) {
            Report(R, E, Need, Writes(Hr),
                   R == RMfmaThenMfmaSrcC ? "reads it as SrcC" : "reads it as SrcA/B");
            break;
          }
        }
        if (H.Rule != RCount)
          break;
        continue;
      }
      // VALU / memory consumers.
      for (unsigned I = 0; I < C.NumVReads; ++I) {
        if (MfmaSeen & (1u << (4 + I)))
          continue;
        RegRange Hr = Wrote(E, C.VReads[I]);
        if (!Hr.Count)
          continue;
        MfmaSeen |= 1u << (4 + I);
        unsigned Need;
        if (PDgemm)
          Need = P == 4 ? (C.Mem ? 9 : 6) : (C.Mem ? 18 : (G950 ? 19 : 11));
        else
          Need = ByPasses();
        if (S < Need) {
          Report(C.Mem ? RMfmaThenMemRead : RMfmaThenValuRead, E, Need, Writes(Hr), "reads it");
          break;
        }
      }
      if (H.Rule != RCount)
        break;
      for (unsigned I = 0; I < C.NumVWrites; ++I) {
        RegRange W = C.VWrites[I];
        if (!(MfmaSeen & (1u << (12 + I)))) {
          RegRange Hr = Wrote(E, W);
          if (Hr.Count) {
            MfmaSeen |= 1u << (12 + I);
            unsigned Need = PDgemm ? (P == 4 ? 6 : 11) : ByPasses();
            if (S < Need) {
              Report(RMfmaThenWrite, E, Need, Writes(Hr), "writes it");
              break;
            }
          }
        }
        // WAR: an XDL (gfx90a: non-DGEMM) MFMA read W as SrcC.
        if (!(MfmaSeen & (1u << (16 + I))) && !PDgemm && (G90a || PXdl) && E.SrcC.overlaps(W)) {
          MfmaSeen |= 1u << (16 + I);
          unsigned Need = P == 2 ? 1 : P == 4 ? 3 : P == 8 ? 7 : 15;
          if (S < Need) {
            Report(RMfmaSrcCThenWrite, E, Need,
                   "reads " + regName(intersect(E.SrcC, W)) + " as SrcC", "writes it");
            break;
          }
        }
      }
      if (H.Rule != RCount)
        break;
      continue;
    }

    // VMEM/FLAT producers: wide stores whose data a VALU overwrites.
    if ((K & KWideStore) && (C.Valu || C.Mfma)) {
      unsigned Need = G90a ? 1 : 2;
      if (S < Need)
        for (unsigned I = 0; I < C.NumVWrites; ++I)
          if (E.StoreData.overlaps(C.VWrites[I])) {
            Report(RWideStoreThenWrite, E, Need,
                   "stores " + regName(intersect(E.StoreData, C.VWrites[I])), "writes it");
            break;
          }
      if (H.Rule != RCount)
        break;
    }
  }

  if (H.Rule == RCount)
    return true;
  if (Rule)
    *Rule = kRules[H.Rule].Name;
  if (Producer)
    *Producer = opNameLower(H.Prod->In.Operation);
  Why = std::string("wait-state hazard ") + kRules[H.Rule].Name + ": " +
        mnemonic(H.Prod->In, Target) + " at pc " + hexText(H.Prod->Pc) + " " + H.ProdWhat + "; " +
        mnemonic(In, Target) + " at pc " + hexText(Pc) + " " + H.ConsWhat + " after " +
        states(H.Since) + ", needs " + std::to_string(H.Need);
  return false;
}

} // namespace asmevo::emu
