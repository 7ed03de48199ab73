// Recovery: a code object -> one assembly file that LLVM's assembler accepts and that
// reassembles to the same code object: symbolized branches and PC-relative references,
// `.amdhsa_kernel` blocks rebuilt from the descriptors, the metadata as `.amdgpu_metadata`,
// data sections and symbols kept.
#pragma once

#include "codeobj/CodeObject.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace asmevo {

// Version of the recovered-assembly format (first header line: "; asmevo-recovered-asm v1").
constexpr unsigned RecoveredAsmVersion = 1;

struct RecoverResult {
  std::string Asm;
  std::vector<std::string> Notes; // facts worth telling (descriptors emitted raw, ...)
  unsigned Functions = 0, Instructions = 0, Branches = 0, PcRelRefs = 0;
  unsigned RawDescriptors = 0; // descriptors emitted as bytes (no directive form)
  // Instructions written as their original words (`.long`, the disassembly in a comment)
  // because LLVM's encoder would not give their bytes back from the text.
  unsigned RawInstructions = 0;
};

// SourceName and SourceHash go into the self-describing header, with the stock reassembly
// command for the file named AsmName (the -o name; "K.s" when it goes to stdout).
llvm::Expected<RecoverResult> recoverAssembly(const CodeObject &C, llvm::StringRef SourceName,
                                              llvm::StringRef SourceHash,
                                              llvm::StringRef AsmName = "K.s");

// The directory of the LLVM tools this suite was built with ("/usr/lib/llvm-22/bin").
std::string stockLlvmBinDir();
// The command lines that reassemble a recovered file In into Out with the stock LLVM tools of
// that directory (llvm-mc, ld.lld).
std::string stockReassembleCommand(const TargetId &T, llvm::StringRef In, llvm::StringRef Out);
// Where that command writes for AsmName: "K.s" -> "K.rebuilt.hsaco", never the source's name.
std::string rebuiltObjectName(llvm::StringRef AsmName);

// Quote a symbol name for the assembler if it is not a plain identifier.
std::string asmSymbolName(llvm::StringRef Name);

} // namespace asmevo
