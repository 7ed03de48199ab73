// LLVM MC objects for one AMDGPU target (register info, subtarget, instruction info, printer,
// disassembler, code emitter), set up once and shared by the disassembler, recovery and assembler.
#pragma once

#include "codeobj/TargetId.h"

#include "llvm/MC/MCAsmInfo.h"
#include "llvm/MC/MCCodeEmitter.h"
#include "llvm/MC/MCContext.h"
#include "llvm/MC/MCDisassembler/MCDisassembler.h"
#include "llvm/MC/MCInstPrinter.h"
#include "llvm/MC/MCInstrAnalysis.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCObjectFileInfo.h"
#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/MCTargetOptions.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/Error.h"
#include "llvm/TargetParser/Triple.h"

#include <memory>
#include <vector>

namespace asmevo {

// Register the AMDGPU target with LLVM (idempotent, thread-safe).
void initializeAmdgpuTarget();

struct McTarget {
  TargetId Target;
  llvm::Triple TheTriple;
  const llvm::Target *TheTarget = nullptr;
  llvm::MCTargetOptions Options;
  std::unique_ptr<llvm::MCRegisterInfo> MRI;
  std::unique_ptr<llvm::MCAsmInfo> MAI;
  std::unique_ptr<llvm::MCSubtargetInfo> STI;
  std::unique_ptr<llvm::MCInstrInfo> MII;
  std::unique_ptr<llvm::MCInstrAnalysis> MIA;
  std::unique_ptr<llvm::MCContext> Ctx; // for the disassembler and printer
  std::unique_ptr<llvm::MCObjectFileInfo> MOFI;
  std::unique_ptr<llvm::MCDisassembler> Disasm;
  std::unique_ptr<llvm::MCInstPrinter> Printer;
  std::unique_ptr<llvm::MCCodeEmitter> Emitter; // re-encodes decoded instructions

  // The 32-bit scalar register sN (invalid if there is none).
  llvm::MCRegister sgpr(unsigned N) const {
    return N < Sgprs.size() ? Sgprs[N] : llvm::MCRegister();
  }

  static llvm::Expected<std::unique_ptr<McTarget>> create(const TargetId &T);
  // The instance for T of the calling thread (made once per thread and kept: setting LLVM's MC
  // layer up costs more than decoding a kernel; LLVM's MC objects are not for concurrent use, so
  // every thread has its own).
  static llvm::Expected<McTarget *> get(const TargetId &T);

private:
  std::vector<llvm::MCRegister> Sgprs;
};

} // namespace asmevo
