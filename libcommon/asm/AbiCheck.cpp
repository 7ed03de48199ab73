// Frozen-ABI and resource-consistency checks.
#include "asm/AbiCheck.h"
#include "codeobj/KernelArgs.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/ELF.h"

#include <map>

namespace asmevo {

using namespace llvm::ELF;

std::string AbiViolation::what() const {
  return (Kernel.empty() ? "" : "kernel " + Kernel + ": ") + Field + ": " + Detail;
}

std::string AbiViolation::text() const { return "abi_invalid: " + what(); }

nlohmann::json violationsJson(const std::vector<AbiViolation> &V) {
  nlohmann::json J = nlohmann::json::array();
  for (const auto &X : V)
    J.push_back({{"kernel", X.Kernel}, {"field", X.Field}, {"detail", X.Detail}});
  return J;
}

namespace {

struct Bits {
  const char *Field;
  enum Word { Rsrc2, Props, Preload } W;
  unsigned Shift, Width;
};

// Launch semantics fixed by the descriptor: user/system SGPR and VGPR enables, kernarg preload,
// dynamic stack, wavefront size.
const Bits FrozenBits[] = {
    {"kernel_code_properties.enable_sgpr_private_segment_buffer", Bits::Props, 0, 1},
    {"kernel_code_properties.enable_sgpr_dispatch_ptr", Bits::Props, 1, 1},
    {"kernel_code_properties.enable_sgpr_queue_ptr", Bits::Props, 2, 1},
    {"kernel_code_properties.enable_sgpr_kernarg_segment_ptr", Bits::Props, 3, 1},
    {"kernel_code_properties.enable_sgpr_dispatch_id", Bits::Props, 4, 1},
    {"kernel_code_properties.enable_sgpr_flat_scratch_init", Bits::Props, 5, 1},
    {"kernel_code_properties.enable_sgpr_private_segment_size", Bits::Props, 6, 1},
    {"kernel_code_properties.enable_wavefront_size32", Bits::Props, 10, 1},
    {"kernel_code_properties.uses_dynamic_stack", Bits::Props, 11, 1},
    {"compute_pgm_rsrc2.user_sgpr_count", Bits::Rsrc2, 1, 5},
    {"compute_pgm_rsrc2.enable_sgpr_workgroup_id_x", Bits::Rsrc2, 7, 1},
    {"compute_pgm_rsrc2.enable_sgpr_workgroup_id_y", Bits::Rsrc2, 8, 1},
    {"compute_pgm_rsrc2.enable_sgpr_workgroup_id_z", Bits::Rsrc2, 9, 1},
    {"compute_pgm_rsrc2.enable_sgpr_workgroup_info", Bits::Rsrc2, 10, 1},
    {"compute_pgm_rsrc2.enable_vgpr_workitem_id", Bits::Rsrc2, 11, 2},
    {"kernarg_preload.length", Bits::Preload, 0, 7},
    {"kernarg_preload.offset", Bits::Preload, 7, 9},
};

uint32_t word(const KernelDescriptor &K, Bits::Word W) {
  return W == Bits::Rsrc2   ? K.ComputePgmRsrc2
         : W == Bits::Props ? K.KernelCodeProperties
                            : K.KernargPreload;
}

// Metadata keys of a kernel the launcher depends on.
const char *FrozenKeys[] = {".args",
                            ".kernarg_segment_size",
                            ".kernarg_segment_align",
                            ".wavefront_size",
                            ".max_flat_workgroup_size",
                            ".uses_dynamic_stack",
                            ".name",
                            ".reqd_workgroup_size",
                            ".workgroup_size_hint",
                            ".language",
                            ".kind"};

std::string value(const msgpack::object *O) { return O ? metadataValueString(*O) : "absent"; }

} // namespace

std::vector<AbiViolation> checkFrozenAbi(const CodeObject &A, const CodeObject &B) {
  std::vector<AbiViolation> V;
  if (A.Target.EFlags != B.Target.EFlags)
    V.push_back({"", "e_flags",
                 "0x" + llvm::utohexstr(A.Target.EFlags) + " in K0, 0x" +
                     llvm::utohexstr(B.Target.EFlags) + " here (" + A.Target.str() + " vs " +
                     B.Target.str() + ")"});
  if (A.Target.CodeObjectVersion != B.Target.CodeObjectVersion)
    V.push_back({"", "code object version",
                 std::to_string(A.Target.CodeObjectVersion) + " in K0, " +
                     std::to_string(B.Target.CodeObjectVersion) + " here"});
  // Exported symbols: same names, types, bindings, visibilities (sizes of code may change).
  auto DA = A.exportedSymbols(), DB = B.exportedSymbols();
  for (const auto &[N, S] : DA) {
    auto It = DB.find(N);
    if (It == DB.end()) {
      V.push_back({"", "symbol " + N, "exported by K0, missing here"});
      continue;
    }
    const ElfSymbol *T = It->second;
    if (S->Type != T->Type || S->Binding != T->Binding || S->Visibility != T->Visibility)
      V.push_back({"", "symbol " + N, "type, binding or visibility changed"});
    if (S->Type == STT_OBJECT && S->Size != T->Size)
      V.push_back(
          {"", "symbol " + N,
           "size " + std::to_string(S->Size) + " in K0, " + std::to_string(T->Size) + " here"});
  }
  for (const auto &[N, S] : DB)
    if (!DA.count(N))
      V.push_back({"", "symbol " + N, "exported here, not by K0"});

  for (const auto &KA : A.Kernels) {
    const KernelInfo *KB = B.kernel(KA.Name);
    if (!KB) {
      V.push_back({KA.Name, "kernel", "missing"});
      continue;
    }
    if (KA.Kd.KernargSize != KB->Kd.KernargSize)
      V.push_back({KA.Name, "kernarg_size",
                   std::to_string(KA.Kd.KernargSize) + " in K0, " +
                       std::to_string(KB->Kd.KernargSize) + " here"});
    for (const auto &F : FrozenBits) {
      uint32_t M = ((1u << F.Width) - 1) << F.Shift;
      uint32_t X = (word(KA.Kd, F.W) & M) >> F.Shift, Y = (word(KB->Kd, F.W) & M) >> F.Shift;
      if (X != Y)
        V.push_back(
            {KA.Name, F.Field, std::to_string(X) + " in K0, " + std::to_string(Y) + " here"});
    }
    if (KA.Meta && KB->Meta)
      for (const char *Key : FrozenKeys) {
        const msgpack::object *OA = Metadata::get(*KA.Meta, Key),
                              *OB = Metadata::get(*KB->Meta, Key);
        if (!OA && !OB)
          continue;
        std::string D = OA && OB ? metadataDifference(*OA, *OB) : "x";
        if (!D.empty())
          V.push_back(
              {KA.Name, Key, (D == "x" ? value(OA) + " in K0, " + value(OB) + " here" : D)});
      }
  }
  for (const auto &KB : B.Kernels)
    if (!A.kernel(KB.Name))
      V.push_back({KB.Name, "kernel", "not in K0"});
  return V;
}

std::vector<AbiViolation> checkResources(const CodeObject &C,
                                         const std::vector<KernelResources> &Scan) {
  std::vector<AbiViolation> V;
  const TargetId &T = C.Target;
  for (const auto &R : Scan) {
    const KernelInfo *K = C.kernel(R.Kernel);
    if (!K)
      continue;
    RegisterFit F = registerFit(K->Kd, T, R);
    const RegisterAllocation &A = F.Alloc;
    std::string Alloc = "the descriptor allocates " + std::to_string(A.UnifiedVgprs) +
                        (targetLimits(T).UnifiedVgprFile
                             ? " VGPRs with accum_offset " + std::to_string(K->Kd.accumOffset())
                             : " VGPRs");
    if (!F.archFits())
      V.push_back({R.Kernel, "compute_pgm_rsrc1.granulated_workitem_vgpr_count",
                   "the code uses v" + std::to_string(F.NeedArchVgprs - 1) + "; " + Alloc +
                       ": v0-v" + std::to_string(A.ArchVgprs - 1)});
    if (F.overlaps())
      V.push_back({R.Kernel, "compute_pgm_rsrc3.accum_offset",
                   "the code uses v" + std::to_string(F.NeedArchVgprs - 1) + " and a0-a" +
                       std::to_string(F.NeedAgprs - 1) + "; with accum_offset " +
                       std::to_string(A.AccumOffset) + " they share registers"});
    if (!F.agprsFit())
      V.push_back({R.Kernel, "compute_pgm_rsrc1.granulated_workitem_vgpr_count",
                   "the code uses a" + std::to_string(F.NeedAgprs - 1) + "; " + Alloc +
                       (A.Agprs ? ": a0-a" + std::to_string(A.Agprs - 1) : ": no AGPRs")});
    if (!F.sgprsFit())
      V.push_back({R.Kernel, "compute_pgm_rsrc1.granulated_wavefront_sgpr_count",
                   "the code uses s" + std::to_string(F.NeedSgprs - 1) +
                       "; the descriptor allocates " + std::to_string(A.Sgprs) + " SGPRs, " +
                       std::to_string(A.ExtraSgprs) + " of them for VCC/flat scratch/XNACK: s0-s" +
                       std::to_string(int(A.NumberedSgprs) - 1)});
  }
  return V;
}

std::vector<AbiViolation> checkLaunchBounds(const CodeObject &C) {
  std::vector<AbiViolation> V;
  for (const KernelInfo &K : C.Kernels) {
    std::optional<unsigned> MaxWg;
    if (K.Meta)
      if (auto X = Metadata::getUInt(*K.Meta, ".max_flat_workgroup_size"))
        MaxWg = unsigned(std::min<uint64_t>(*X, 1u << 20));
    for (const LimitViolation &L : checkLaunchLimits(K.Kd, C.Target, MaxWg))
      V.push_back({K.Name, L.Field, L.Detail});
    if (auto Conflict = kernargSizeConflict(K))
      V.push_back({K.Name, "kernarg_size", *Conflict});
  }
  return V;
}

std::vector<AbiViolation> staticViolations(const CodeObject &C,
                                           const std::vector<KernelResources> &Scan) {
  auto V = checkResources(C, Scan);
  auto B = checkLaunchBounds(C);
  V.insert(V.end(), B.begin(), B.end());
  return V;
}

llvm::Expected<std::vector<AbiViolation>> staticViolations(const CodeObject &C) {
  auto Scan = scanKernelResources(C);
  if (!Scan)
    return Scan.takeError();
  return staticViolations(C, *Scan);
}

std::vector<AbiViolation> violationsNotInK0(const std::vector<AbiViolation> &K1,
                                            const std::vector<AbiViolation> &K0,
                                            std::vector<AbiViolation> *Inherited) {
  std::vector<AbiViolation> New;
  for (const AbiViolation &X : K1) {
    bool InK0 = false;
    for (const AbiViolation &Y : K0)
      InK0 |= X.Kernel == Y.Kernel && X.Field == Y.Field && X.Detail == Y.Detail;
    if (!InK0)
      New.push_back(X);
    else if (Inherited)
      Inherited->push_back(X);
  }
  return New;
}

} // namespace asmevo
