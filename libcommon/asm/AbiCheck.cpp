// Frozen-ABI and resource-consistency checks.
#include "asm/AbiCheck.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/ELF.h"

#include <map>

namespace asmevo {

using namespace llvm::ELF;

std::string AbiViolation::text() const {
  std::string S = "abi_invalid: ";
  if (!Kernel.empty())
    S += "kernel " + Kernel + ": ";
  return S + Field + ": " + Detail;
}

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
  return W == Bits::Rsrc2 ? K.ComputePgmRsrc2 : W == Bits::Props ? K.KernelCodeProperties
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
    V.push_back({"", "e_flags", "0x" + llvm::utohexstr(A.Target.EFlags) + " in K0, 0x" +
                                    llvm::utohexstr(B.Target.EFlags) + " here (" +
                                    A.Target.str() + " vs " + B.Target.str() + ")"});
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
      V.push_back({"", "symbol " + N, "size " + std::to_string(S->Size) + " in K0, " +
                                          std::to_string(T->Size) + " here"});
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
      V.push_back({KA.Name, "kernarg_size", std::to_string(KA.Kd.KernargSize) + " in K0, " +
                                                std::to_string(KB->Kd.KernargSize) + " here"});
    for (const auto &F : FrozenBits) {
      uint32_t M = ((1u << F.Width) - 1) << F.Shift;
      uint32_t X = (word(KA.Kd, F.W) & M) >> F.Shift, Y = (word(KB->Kd, F.W) & M) >> F.Shift;
      if (X != Y)
        V.push_back({KA.Name, F.Field, std::to_string(X) + " in K0, " + std::to_string(Y) + " here"});
    }
    if (KA.Meta && KB->Meta)
      for (const char *Key : FrozenKeys) {
        const msgpack::object *OA = Metadata::get(*KA.Meta, Key), *OB = Metadata::get(*KB->Meta, Key);
        if (!OA && !OB)
          continue;
        std::string D = OA && OB ? metadataDifference(*OA, *OB) : "x";
        if (!D.empty())
          V.push_back({KA.Name, Key, (D == "x" ? value(OA) + " in K0, " + value(OB) + " here"
                                              : D)});
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
  for (const auto &R : Scan) {
    const KernelInfo *K = C.kernel(R.Kernel);
    if (!K)
      continue;
    auto Less = [&](const char *Field, uint64_t Have, uint64_t Need) {
      if (Have < Need)
        V.push_back({R.Kernel, Field, "allocates " + std::to_string(Have) + ", the code needs " +
                                          std::to_string(Need)});
    };
    Less("compute_pgm_rsrc1.granulated_workitem_vgpr_count", K->Kd.granulatedVgprCount(),
         R.VgprBlocks);
    Less("compute_pgm_rsrc1.granulated_wavefront_sgpr_count", K->Kd.granulatedSgprCount(),
         R.SgprBlocks);
    if (C.Target.hasGfx90aInsts())
      Less("compute_pgm_rsrc3.accum_offset", K->Kd.accumOffset(), R.AccumOffset);
    if (K->Meta) {
      if (auto X = Metadata::getUInt(*K->Meta, ".vgpr_count"))
        Less(".vgpr_count", *X, R.TotalVgprs);
      if (auto X = Metadata::getUInt(*K->Meta, ".agpr_count"))
        Less(".agpr_count", *X, R.NumAgprs);
      if (auto X = Metadata::getUInt(*K->Meta, ".sgpr_count"))
        Less(".sgpr_count", *X, R.TotalSgprs);
    }
  }
  return V;
}

} // namespace asmevo
