// Register-use scanning over decoded instructions.
#include "asm/ResourceScan.h"
#include "asm/Disassembler.h"
#include "codeobj/KernelDescriptor.h"
#include "support/Error.h"

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/MC/MCInstrDesc.h"
#include "llvm/Support/Endian.h"

#include <functional>
#include <optional>
#include <set>

namespace asmevo {

void RegisterUse::merge(const RegisterUse &O) {
  MaxVgpr = std::max(MaxVgpr, O.MaxVgpr);
  MaxAgpr = std::max(MaxAgpr, O.MaxAgpr);
  MaxSgpr = std::max(MaxSgpr, O.MaxSgpr);
  Vcc |= O.Vcc;
  FlatScratch |= O.FlatScratch;
  XnackMask |= O.XnackMask;
  IndirectCall |= O.IndirectCall;
  IndirectIndexing |= O.IndirectIndexing;
}

namespace {

// What a physical register touches: the highest VGPR/AGPR/SGPR index and special registers.
struct RegFacts {
  int Vgpr = -1, Agpr = -1, Sgpr = -1;
  bool Vcc = false, Flat = false, Xnack = false;
};

class RegClassifier {
public:
  explicit RegClassifier(const llvm::MCRegisterInfo &MRI) : MRI(MRI), Cache(MRI.getNumRegs()) {}

  const RegFacts &facts(llvm::MCRegister R) {
    auto &E = Cache[R.id()];
    if (E.first)
      return E.second;
    E.first = true;
    for (llvm::MCPhysReg Sub : MRI.subregs_inclusive(R)) {
      llvm::StringRef N = MRI.getName(Sub);
      unsigned Idx;
      if (N.consume_front("VGPR") && !N.getAsInteger(10, Idx))
        E.second.Vgpr = std::max(E.second.Vgpr, int(Idx));
      else if (N.consume_front("AGPR") && !N.getAsInteger(10, Idx))
        E.second.Agpr = std::max(E.second.Agpr, int(Idx));
      else if (N.consume_front("SGPR") && !N.getAsInteger(10, Idx))
        E.second.Sgpr = std::max(E.second.Sgpr, int(Idx));
      else if (N.starts_with("VCC"))
        E.second.Vcc = true;
      else if (N.starts_with("FLAT_SCR"))
        E.second.Flat = true;
      else if (N.starts_with("XNACK_MASK"))
        E.second.Xnack = true;
    }
    return E.second;
  }

private:
  const llvm::MCRegisterInfo &MRI;
  std::vector<std::pair<bool, RegFacts>> Cache;
};

void add(RegisterUse &U, const RegFacts &F) {
  U.MaxVgpr = std::max(U.MaxVgpr, F.Vgpr);
  U.MaxAgpr = std::max(U.MaxAgpr, F.Agpr);
  U.MaxSgpr = std::max(U.MaxSgpr, F.Sgpr);
  U.Vcc |= F.Vcc;
  U.FlatScratch |= F.Flat;
  U.XnackMask |= F.Xnack;
}

unsigned alignTo4(unsigned X) { return (X + 3) & ~3u; }

} // namespace

RegisterFit registerFit(const KernelDescriptor &Kd, const TargetId &T, const KernelResources &R) {
  RegisterFit F;
  F.Alloc = registerAllocation(Kd, T, R.Use.Vcc, R.Use.FlatScratch);
  F.NeedArchVgprs = R.NumVgprs;
  F.NeedAgprs = R.NumAgprs;
  F.NeedSgprs = R.NumSgprs;
  return F;
}

llvm::Expected<std::vector<KernelResources>> scanKernelResources(const CodeObject &C) {
  auto MOr = McTarget::get(C.Target);
  if (!MOr)
    return MOr.takeError();
  McTarget &M = **MOr;
  RegClassifier Cls(*M.MRI);

  // Per function: its own use and the functions it calls.
  struct FuncInfo {
    RegisterUse Use;
    std::set<uint64_t> Calls; // callee entry addresses
  };
  std::map<uint64_t, FuncInfo> Funcs; // by entry address
  std::map<uint64_t, const FunctionExtent *> FuncAt;
  for (const FunctionExtent &E : C.Functions)
    FuncAt.emplace(E.Begin, &E);
  for (auto [Addr, E] : FuncAt) {
    auto Insns = decodeRange(M, C.code(*E), E->Begin);
    FuncInfo F;
    for (const auto &In : Insns) {
      if (!In.Valid)
        continue;
      const auto &Desc = M.MII->get(In.Inst.getOpcode());
      for (const auto &Op : In.Inst)
        if (Op.isReg() && Op.getReg())
          add(F.Use, Cls.facts(Op.getReg()));
      // Implicit operands count too, except FLAT_SCR: LLVM's instruction descriptions list it
      // for every FLAT instruction, but the compiler counts flat scratch only when the register
      // is named or initialised (a kernel with flat_load and no flat scratch is common).
      for (llvm::MCPhysReg R : Desc.implicit_uses()) {
        RegFacts Fa = Cls.facts(R);
        Fa.Flat = false;
        add(F.Use, Fa);
      }
      for (llvm::MCPhysReg R : Desc.implicit_defs()) {
        RegFacts Fa = Cls.facts(R);
        Fa.Flat = false;
        add(F.Use, Fa);
      }
      llvm::StringRef Mn = In.Mnemonic;
      if (Mn.starts_with("s_set_gpr_idx_") || Mn.starts_with("v_movrel") ||
          Mn.starts_with("s_movrel"))
        F.Use.IndirectIndexing = true;
      if (In.BranchTarget && In.Mnemonic == "s_call_b64") {
        auto It = FuncAt.find(*In.BranchTarget);
        if (It != FuncAt.end())
          F.Calls.insert(It->first);
      }
    }
    // Calls through s_getpc-relative addresses (s_swappc_b64 / s_setpc_b64 to a function): the
    // call is direct when the last writers of its source pair are the add/addc of such an
    // address computation; otherwise it is an indirect call.
    std::map<size_t, uint64_t> AddToFunc, AddcToFunc; // instruction index -> callee
    for (const auto &Ref : findPcRelativeRefs(M, Insns)) {
      auto It = FuncAt.find(Ref.Target);
      if (It != FuncAt.end() && It->first != Addr) {
        F.Calls.insert(It->first);
        AddToFunc[Ref.Add] = It->first;
        AddcToFunc[Ref.Addc] = It->first;
      }
    }
    auto LastWriter = [&](size_t Before, unsigned Sgpr) -> std::optional<size_t> {
      llvm::MCRegister R = M.sgpr(Sgpr);
      for (size_t K = Before; R && K-- > 0;) {
        if (!Insns[K].Valid)
          continue;
        const auto &D = M.MII->get(Insns[K].Inst.getOpcode());
        for (unsigned Op = 0; Op < D.getNumDefs() && Op < Insns[K].Inst.getNumOperands(); ++Op)
          if (Insns[K].Inst.getOperand(Op).isReg() &&
              M.MRI->regsOverlap(Insns[K].Inst.getOperand(Op).getReg(), R))
            return K;
      }
      return std::nullopt;
    };
    for (size_t K = 0; K < Insns.size(); ++K) {
      const auto &In = Insns[K];
      if (!In.Valid || In.Mnemonic != "s_swappc_b64")
        continue;
      unsigned N = llvm::support::endian::read32le(In.Bytes.data()) & 0xff;
      auto Lo = LastWriter(K, N), Hi = LastWriter(K, N + 1);
      bool Direct = Lo && Hi && AddToFunc.count(*Lo) && AddcToFunc.count(*Hi) &&
                    AddToFunc[*Lo] == AddcToFunc[*Hi];
      if (!Direct)
        F.Use.IndirectCall = true;
    }
    Funcs[Addr] = F;
  }

  RegisterUse All;
  for (auto &[I, F] : Funcs)
    All.merge(F.Use);

  std::vector<KernelResources> Out;
  const TargetId &T = C.Target;
  for (const auto &K : C.Kernels) {
    KernelResources R;
    R.Kernel = K.Name;
    std::set<uint64_t> Seen;
    std::function<void(uint64_t)> Visit = [&](uint64_t A) {
      if (!Seen.insert(A).second)
        return;
      auto It = Funcs.find(A);
      if (It == Funcs.end())
        return;
      R.Use.merge(It->second.Use);
      for (uint64_t Callee : It->second.Calls) {
        if (Callee != K.EntryAddr)
          R.Callees.push_back(FuncAt[Callee]->Name);
        Visit(Callee);
      }
    };
    Visit(K.EntryAddr);
    if (R.Use.IndirectCall) {
      // As LLVM assumes for a call it cannot see: any function's registers, VCC and flat
      // scratch.
      R.Use.merge(All);
      R.Use.Vcc = true;
      R.Use.FlatScratch = true;
    }
    R.NumVgprs = unsigned(R.Use.MaxVgpr + 1);
    R.NumAgprs = unsigned(R.Use.MaxAgpr + 1);
    R.NumSgprs = unsigned(R.Use.MaxSgpr + 1);
    if (T.hasGfx90aInsts()) {
      R.AccumOffset = alignTo4(std::max(1u, R.NumVgprs));
      R.TotalVgprs = R.NumAgprs ? alignTo4(R.NumVgprs) + R.NumAgprs : R.NumVgprs;
    } else {
      R.TotalVgprs = std::max(R.NumVgprs, R.NumAgprs);
    }
    // LLVM reserves VCC whenever it is used, XNACK where the target id asks for it, and flat
    // scratch where it is used or architected.
    R.TotalSgprs = R.NumSgprs + kdExtraSgprs(T, R.Use.Vcc, R.Use.FlatScratch, T.hasXnackReserved());
    unsigned VG = T.vgprEncodingGranule();
    R.VgprBlocks = (std::max(1u, R.TotalVgprs) + VG - 1) / VG - 1;
    R.SgprBlocks = (std::max(1u, R.TotalSgprs) + 7) / 8 - 1;
    Out.push_back(std::move(R));
  }
  return Out;
}

} // namespace asmevo
