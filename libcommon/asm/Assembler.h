// In-process assembling (LLVM MC, as llvm-mc -filetype=obj does) and linking (lld, as
// ld.lld -shared does) of AMDGPU assembly into a code object.
#pragma once

#include "codeobj/TargetId.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace asmevo {

// Assemble Source (named SourceName in diagnostics) for Target into an ELF relocatable object.
// Assembler diagnostics become an error "'SourceName':LINE: message".
llvm::Expected<std::string> assembleObject(llvm::StringRef Source, llvm::StringRef SourceName,
                                           const TargetId &Target);

// Link one relocatable object into a shared code object with lld (in-process).
llvm::Expected<std::string> linkCodeObject(llvm::StringRef Object);

// Both steps.
llvm::Expected<std::string> assembleAndLink(llvm::StringRef Source, llvm::StringRef SourceName,
                                            const TargetId &Target);

} // namespace asmevo
