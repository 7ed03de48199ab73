// Creation of the LLVM MC layer for an AMDGPU target.
#include "asm/McTarget.h"
#include "support/Error.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/TargetSelect.h"

#include <map>
#include <mutex>

extern "C" {
void LLVMInitializeAMDGPUTargetInfo();
void LLVMInitializeAMDGPUTargetMC();
void LLVMInitializeAMDGPUDisassembler();
void LLVMInitializeAMDGPUAsmParser();
}

namespace asmevo {

void initializeAmdgpuTarget() {
  static std::once_flag Once;
  std::call_once(Once, [] {
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUDisassembler();
    LLVMInitializeAMDGPUAsmParser();
  });
}

llvm::Expected<McTarget *> McTarget::get(const TargetId &T) {
  // One per thread: LLVM's disassembler, printer and MCContext are not for concurrent use.
  static thread_local std::map<std::string, std::unique_ptr<McTarget>> Cache;
  std::string Key = T.str() + "/v" + std::to_string(T.CodeObjectVersion);
  auto It = Cache.find(Key);
  if (It != Cache.end())
    return It->second.get();
  auto M = create(T);
  if (!M)
    return M.takeError();
  return Cache.emplace(Key, std::move(*M)).first->second.get();
}

llvm::Expected<std::unique_ptr<McTarget>> McTarget::create(const TargetId &T) {
  initializeAmdgpuTarget();
  auto M = std::make_unique<McTarget>();
  M->Target = T;
  M->TheTriple = llvm::Triple("amdgcn-amd-amdhsa");
  std::string Err;
  M->TheTarget = llvm::TargetRegistry::lookupTarget(M->TheTriple, Err);
  if (!M->TheTarget)
    return makeError("LLVM has no AMDGPU target: " + Err);
  M->MRI.reset(M->TheTarget->createMCRegInfo(M->TheTriple));
  M->MAI.reset(M->TheTarget->createMCAsmInfo(*M->MRI, M->TheTriple, M->Options));
  M->STI.reset(M->TheTarget->createMCSubtargetInfo(M->TheTriple, T.Processor, T.mattr()));
  if (!M->STI || !M->STI->isCPUStringValid(T.Processor))
    return makeError("LLVM " LLVM_VERSION_STRING " does not know processor " + T.Processor);
  M->MII.reset(M->TheTarget->createMCInstrInfo());
  M->MIA.reset(M->TheTarget->createMCInstrAnalysis(M->MII.get()));
  M->Ctx =
      std::make_unique<llvm::MCContext>(M->TheTriple, M->MAI.get(), M->MRI.get(), M->STI.get());
  M->MOFI.reset(M->TheTarget->createMCObjectFileInfo(*M->Ctx, /*PIC=*/true));
  M->Ctx->setObjectFileInfo(M->MOFI.get());
  M->Disasm.reset(M->TheTarget->createMCDisassembler(*M->STI, *M->Ctx));
  M->Printer.reset(M->TheTarget->createMCInstPrinter(M->TheTriple, 0, *M->MAI, *M->MII, *M->MRI));
  M->Emitter.reset(M->TheTarget->createMCCodeEmitter(*M->MII, *M->Ctx));
  if (!M->MRI || !M->MAI || !M->MII || !M->Disasm || !M->Printer || !M->MIA || !M->Emitter)
    return makeError("cannot set up LLVM's AMDGPU MC layer");
  for (unsigned R = 1; R < M->MRI->getNumRegs(); ++R) {
    llvm::StringRef Name = M->MRI->getName(R);
    unsigned N;
    if (Name.consume_front("SGPR") && !Name.getAsInteger(10, N)) {
      if (M->Sgprs.size() <= N)
        M->Sgprs.resize(N + 1);
      M->Sgprs[N] = llvm::MCRegister(R);
    }
  }
  return M;
}

} // namespace asmevo
