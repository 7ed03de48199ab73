#include "asm/SchedInfo.h"

#include "asm/Disassembler.h"
#include "asm/McTarget.h"
#include "support/Error.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/MC/MCSchedule.h"

#include <mutex>
#include <regex>
#include <unordered_map>

namespace asmevo {

const char *instUnitName(InstUnit U) {
  switch (U) {
  case InstUnit::Salu:
    return "salu";
  case InstUnit::Valu:
    return "valu";
  case InstUnit::Mfma:
    return "mfma";
  case InstUnit::Vmem:
    return "vmem";
  case InstUnit::Lds:
    return "lds";
  case InstUnit::Smem:
    return "smem";
  case InstUnit::Branch:
    return "branch";
  case InstUnit::Export:
    return "export";
  case InstUnit::Internal:
    return "internal";
  }
  return "?";
}

struct SchedInfo::Impl {
  const CodeObject *Code = nullptr;
  McTarget *M = nullptr;
  std::unordered_map<uint64_t, std::unique_ptr<InstCost>> ByAddr;
  std::mutex Lock; // cost() may be called from several threads (simulations in parallel)
};

SchedInfo::~SchedInfo() = default;

namespace {

bool startsWith(const std::string &S, const char *P) { return S.rfind(P, 0) == 0; }

// The immediate of operand N, if it is one.
std::optional<int64_t> immOperand(const llvm::MCInst &I, unsigned N) {
  if (N < I.getNumOperands() && I.getOperand(N).isImm())
    return I.getOperand(N).getImm();
  return std::nullopt;
}

// Whether the printed operands (after the mnemonic) have Word as a whole modifier ("sc1" in
// "global_load_dword v1, v0, s[2:3] sc0 sc1").
bool hasWord(const std::string &Text, const char *Word) {
  llvm::SmallVector<llvm::StringRef, 16> Parts;
  llvm::StringRef(Text).split(Parts, ' ', -1, false);
  for (size_t I = 1; I < Parts.size(); ++I)
    if (Parts[I].trim(", ") == Word)
      return true;
  return false;
}

// The value of a printed modifier "name:N" (cbsz:1), or Default when the printer omitted it.
unsigned printedModifier(const std::string &Text, const std::string &Name, unsigned Default) {
  std::smatch Mt;
  std::regex Re("\\b" + Name + ":([0-9]+)");
  if (std::regex_search(Text, Mt, Re))
    return unsigned(std::stoul(Mt[1].str()));
  return Default;
}

// The 32-bit registers a printed operand names: "v4", "v[4:7]", "s[2:3]", "a0", "vcc",
// "exec" (vcc_lo/exec_lo count as vcc/exec).
void operandRegisters(const std::string &Op, std::vector<std::string> &Out) {
  static const std::regex Range("\\b([vsa])\\[([0-9]+):([0-9]+)\\]");
  static const std::regex Single("\\b([vsa])([0-9]+)\\b");
  static const std::regex Special("\\b(vcc|exec|scc|m0)(_lo|_hi)?\\b");
  for (std::sregex_iterator I(Op.begin(), Op.end(), Range), E; I != E; ++I)
    for (unsigned R = std::stoul((*I)[2].str()), Hi = std::stoul((*I)[3].str()); R <= Hi; ++R)
      Out.push_back((*I)[1].str() + std::to_string(R));
  std::string Rest = std::regex_replace(Op, Range, " ");
  for (std::sregex_iterator I(Rest.begin(), Rest.end(), Single), E; I != E; ++I)
    Out.push_back((*I)[1].str() + (*I)[2].str());
  for (std::sregex_iterator I(Rest.begin(), Rest.end(), Special), E; I != E; ++I)
    Out.push_back((*I)[1].str());
}

void registers(const McTarget &M, const DecodedInsn &D, InstCost &C) {
  const llvm::MCInstrDesc &Desc = M.MII->get(D.Inst.getOpcode());
  std::string Ops = C.Text.size() > C.Mnemonic.size() ? C.Text.substr(C.Mnemonic.size()) : "";
  // Operands are separated by ", "; modifiers ("offen", "offset:16") follow with spaces.
  std::vector<std::string> List;
  size_t Start = 0;
  for (size_t Comma; (Comma = Ops.find(',', Start)) != std::string::npos; Start = Comma + 1)
    List.push_back(Ops.substr(Start, Comma - Start));
  List.push_back(Ops.substr(Start));
  for (size_t I = 0; I < List.size(); ++I)
    operandRegisters(List[I], I < Desc.getNumDefs() ? C.Writes : C.Reads);
  // A def tied to a use is read too, though printed once: v_fmac/v_mac's accumulator, the old
  // value a DPP move or v_writelane keeps in the lanes it leaves, the half a d16_hi load keeps.
  for (unsigned Def = 0; Def < Desc.getNumDefs() && Def < List.size(); ++Def)
    for (unsigned Use = Desc.getNumDefs(); Use < Desc.getNumOperands(); ++Use)
      if (Desc.getOperandConstraint(Use, llvm::MCOI::TIED_TO) == int(Def)) {
        operandRegisters(List[Def], C.TiedReads);
        C.Reads.insert(C.Reads.end(), C.TiedReads.begin(), C.TiedReads.end());
        break;
      }
  auto Implicit = [&](llvm::ArrayRef<llvm::MCPhysReg> Regs, std::vector<std::string> &Out) {
    for (llvm::MCPhysReg R : Regs) {
      std::string N = llvm::StringRef(M.MRI->getName(R)).lower();
      if (N == "exec" || N == "vcc" || N == "scc" || N == "m0")
        Out.push_back(N);
    }
  };
  Implicit(Desc.implicit_uses(), C.Reads);
  Implicit(Desc.implicit_defs(), C.Writes);
  // A VOPC e32 compare prints the VCC it writes as an operand after its defs (LLVM lists VCC as
  // an implicit def, not a def): a printed special register the instruction only defines is not
  // a read.
  std::vector<std::string> Uses, Defs;
  Implicit(Desc.implicit_uses(), Uses);
  Implicit(Desc.implicit_defs(), Defs);
  for (const std::string &D : Defs)
    if (std::find(Uses.begin(), Uses.end(), D) == Uses.end())
      C.Reads.erase(std::remove(C.Reads.begin(), C.Reads.end(), D), C.Reads.end());
  for (auto *V : {&C.Reads, &C.Writes, &C.TiedReads}) {
    std::sort(V->begin(), V->end());
    V->erase(std::unique(V->begin(), V->end()), V->end());
  }
}

InstCost costOf(const McTarget &M, const DecodedInsn &D) {
  InstCost C;
  C.Size = D.Size;
  C.Mnemonic = D.Mnemonic;
  C.Text = printInsn(M, D);
  C.BranchTarget = D.BranchTarget;
  registers(M, D, C);
  const std::string &Mn = C.Mnemonic;

  // LLVM's scheduling model: latency, and the unit resource with its release cycle.
  const llvm::MCSchedModel &SM = M.STI->getSchedModel();
  std::string Resource;
  if (SM.hasInstrSchedModel()) {
    unsigned SC = M.MII->get(D.Inst.getOpcode()).getSchedClass();
    const llvm::MCSchedClassDesc *Desc = SM.getSchedClassDesc(SC);
    while (Desc && Desc->isVariant()) {
      SC = M.STI->resolveVariantSchedClass(SC, &D.Inst, M.MII.get(), SM.getProcessorID());
      Desc = SC ? SM.getSchedClassDesc(SC) : nullptr;
    }
    if (Desc && Desc->isValid()) {
      int Lat = llvm::MCSchedModel::computeInstrLatency(*M.STI, *Desc);
      if (Lat >= 0) {
        C.LatencyQuads = unsigned(std::max(Lat, 1));
        C.FromLlvm = true;
      }
      for (const llvm::MCWriteProcResEntry *W = M.STI->getWriteProcResBegin(Desc),
                                           *E = M.STI->getWriteProcResEnd(Desc);
           W != E; ++W) {
        const llvm::MCProcResourceDesc *R = SM.getProcResource(W->ProcResourceIdx);
        if (!R || !R->Name)
          continue;
        std::string Name = R->Name;
        // The most specific unit: the matrix core wins over the VALU it issues through.
        if (Resource.empty() || Name == "HWXDL") {
          Resource = Name;
          C.BusyQuads = std::max(1u, unsigned(W->ReleaseAtCycle));
        }
      }
    }
  }

  // The unit: the model's resource, refined by the instruction's own kind.
  if (startsWith(Mn, "ds_")) {
    C.Unit = InstUnit::Lds;
    C.Lgkm = true;
    C.Store = Mn.find("write") != std::string::npos ||
              (Mn.find("_rtn") == std::string::npos && !startsWith(Mn, "ds_read") &&
               !startsWith(Mn, "ds_swizzle") && !startsWith(Mn, "ds_permute") &&
               !startsWith(Mn, "ds_bpermute") && !startsWith(Mn, "ds_consume") &&
               !startsWith(Mn, "ds_append"));
  } else if (startsWith(Mn, "global_") || startsWith(Mn, "buffer_") || startsWith(Mn, "scratch_") ||
             startsWith(Mn, "tbuffer_") || startsWith(Mn, "flat_")) {
    C.Unit = InstUnit::Vmem;
    C.Vm = true;
    C.Lgkm = startsWith(Mn, "flat_");
    C.Store = Mn.find("store") != std::string::npos ||
              (Mn.find("atomic") != std::string::npos && C.Text.find(" glc") == std::string::npos &&
               C.Text.find(" sc0") == std::string::npos);
    C.Atomic = Mn.find("atomic") != std::string::npos;
    for (const char *Bit : {"sc0", "glc"})
      C.Sc0 |= hasWord(C.Text, Bit);
    for (const char *Bit : {"sc1", "scc"})
      C.Sc1 |= hasWord(C.Text, Bit);
    for (const char *Bit : {"nt", "slc"})
      C.Nt |= hasWord(C.Text, Bit);
    C.LdsDirect = Mn.find("load_lds") != std::string::npos ||
                  (startsWith(Mn, "buffer_load") &&
                   (C.Text.size() >= 4 && C.Text.compare(C.Text.size() - 4, 4, " lds") == 0));
  } else if (startsWith(Mn, "s_load") || startsWith(Mn, "s_buffer_load") ||
             startsWith(Mn, "s_store") || startsWith(Mn, "s_buffer_store") ||
             startsWith(Mn, "s_scratch_") || startsWith(Mn, "s_atomic") ||
             startsWith(Mn, "s_buffer_atomic") || startsWith(Mn, "s_memtime") ||
             startsWith(Mn, "s_memrealtime") || startsWith(Mn, "s_dcache")) {
    C.Unit = InstUnit::Smem;
    C.Lgkm = true;
    C.Store = Mn.find("store") != std::string::npos;
  } else if (Mn == "s_sendmsg" || Mn == "s_sendmsghalt") {
    C.Unit = InstUnit::Internal;
    C.Lgkm = true;
  } else if (Mn == "s_waitcnt") {
    C.Unit = InstUnit::Internal;
    int64_t Imm = immOperand(D.Inst, 0).value_or(0);
    unsigned Vm = unsigned((Imm & 0xf) | ((Imm >> 14) & 3) << 4), ExpC = unsigned((Imm >> 4) & 7),
             Lgkm = unsigned((Imm >> 8) & 0xf);
    C.WaitVm = Vm == 63 ? -1 : int(Vm);
    C.WaitExp = ExpC == 7 ? -1 : int(ExpC);
    C.WaitLgkm = Lgkm == 15 ? -1 : int(Lgkm);
  } else if (Mn == "s_nop") {
    C.Unit = InstUnit::Internal;
    C.NopStates = unsigned(immOperand(D.Inst, 0).value_or(0) & 0xf) + 1;
  } else if (Mn == "s_sleep") {
    C.Unit = InstUnit::Internal;
    C.SleepClk = 64 * unsigned(immOperand(D.Inst, 0).value_or(0) & 0x7f);
  } else if (Mn == "s_barrier") {
    C.Unit = InstUnit::Internal;
    C.Barrier = true;
  } else if (Mn == "s_endpgm" || Mn == "s_endpgm_saved") {
    C.Unit = InstUnit::Internal;
    C.EndPgm = true;
  } else if (startsWith(Mn, "s_cbranch") || Mn == "s_branch" || startsWith(Mn, "s_setpc") ||
             startsWith(Mn, "s_swappc") || startsWith(Mn, "s_call") || startsWith(Mn, "s_getpc")) {
    C.Unit = InstUnit::Branch;
  } else if (startsWith(Mn, "s_setprio") || startsWith(Mn, "s_set_gpr_idx") ||
             startsWith(Mn, "s_trap") || startsWith(Mn, "s_icache") || startsWith(Mn, "s_ttrace") ||
             Mn == "s_setkill" || Mn == "s_setvskip" || Mn == "s_sethalt") {
    C.Unit = InstUnit::Internal;
  } else if (startsWith(Mn, "exp")) {
    C.Unit = InstUnit::Export;
    C.Exp = true;
  } else if (startsWith(Mn, "s_")) {
    C.Unit = InstUnit::Salu;
  } else if (Resource == "HWXDL" || startsWith(Mn, "v_mfma") || startsWith(Mn, "v_smfmac")) {
    C.Unit = InstUnit::Mfma;
  } else {
    C.Unit = InstUnit::Valu;
  }
  // A VALU instruction holds its SIMD's VALU for its latency: LLVM's SI models give the
  // quarter-rate ones (transcendentals, 32-bit integer multiplies, f64 where not full rate)
  // latency 4 but release the VALU after 1, which would issue four in the time the hardware
  // takes for one.
  if (C.Unit == InstUnit::Valu)
    C.BusyQuads = std::max(C.BusyQuads, C.LatencyQuads);
  // The internal ones take an issue slot and no unit time.
  if (C.Unit == InstUnit::Internal) {
    C.LatencyQuads = 1;
    C.BusyQuads = 1;
  }
  // gfx950 f8f6f4 MFMAs: LLVM models the FP4/FP6 rate; an FP8 or BF8 operand (format 0 or 1 in
  // cbsz for A, blgp for B; 0 when not printed) takes twice the passes.
  if (C.Unit == InstUnit::Mfma && Mn.find("f8f6f4") != std::string::npos &&
      (printedModifier(C.Text, "cbsz", 0) <= 1 || printedModifier(C.Text, "blgp", 0) <= 1)) {
    C.LatencyQuads *= 2;
    C.BusyQuads *= 2;
    C.Fp8Patched = true;
  }
  return C;
}

// Enters D's cost at its address. gfx950's scaled MFMA (v_mfma_scale_*, VOP3PX2) is one
// 128-bit instruction to LLVM and to the hardware, but the emulator executes it, and traces
// it, as two steps: the prefix v_mfma_ld_scale_b32 at +0 and the MFMA at +8
// (emu/ExecMfmaF8F6F4.cpp). The whole instruction, with all its operands and the MFMA's
// passes, is charged at +0 (where the assembly text and a GPU's thread trace have it); the
// step at +8 only takes an issue slot (assumed: no source gives a 128-bit instruction's issue
// cost).
void addCost(std::unordered_map<uint64_t, std::unique_ptr<InstCost>> &ByAddr, McTarget &M,
             const DecodedInsn &D) {
  auto C = std::make_unique<InstCost>(costOf(M, D));
  if (D.Size == 16 && startsWith(C->Mnemonic, "v_mfma_scale_")) {
    auto Half = std::make_unique<InstCost>();
    Half->Mnemonic = C->Mnemonic;
    Half->Text = C->Text + " (its MFMA step at +8)";
    Half->Size = 8;
    Half->Unit = InstUnit::Internal;
    ByAddr.emplace(D.Addr + 8, std::move(Half));
  }
  ByAddr.emplace(D.Addr, std::move(C));
}

} // namespace

llvm::Expected<std::unique_ptr<SchedInfo>> SchedInfo::create(const CodeObject &Code) {
  auto M = McTarget::get(Code.Target);
  if (!M)
    return M.takeError();
  std::unique_ptr<SchedInfo> S(new SchedInfo);
  S->I = std::make_unique<Impl>();
  S->I->Code = &Code;
  S->I->M = *M;
  S->Processor = Code.Target.Processor;
  for (const FunctionExtent &F : Code.Functions) {
    llvm::StringRef Bytes = Code.code(F);
    for (const DecodedInsn &D : decodeRange(**M, Bytes, F.Begin))
      if (D.Valid && !S->I->ByAddr.count(D.Addr))
        addCost(S->I->ByAddr, **M, D);
  }
  return S;
}

llvm::Expected<const InstCost *> SchedInfo::cost(uint64_t Addr) {
  std::lock_guard<std::mutex> L(I->Lock);
  auto It = I->ByAddr.find(Addr);
  if (It != I->ByAddr.end())
    return It->second.get();
  // Outside the functions: decode the one instruction (at most 16 bytes, within its section).
  const ElfSection *Sec = I->Code->sectionAt(Addr);
  if (!Sec || !Sec->isExec())
    return makeError(I->Code->Path + ": no code at address 0x" + llvm::utohexstr(Addr));
  uint64_t N = std::min<uint64_t>(16, Sec->Addr + Sec->Size - Addr);
  std::vector<DecodedInsn> D = decodeRange(*I->M, I->Code->bytesAt(Addr, N), Addr);
  if (D.empty() || !D[0].Valid)
    return makeError(I->Code->Path + ": no instruction decodes at address 0x" +
                     llvm::utohexstr(Addr));
  addCost(I->ByAddr, *I->M, D[0]);
  return I->ByAddr.at(Addr).get();
}

} // namespace asmevo
