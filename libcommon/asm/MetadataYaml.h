// The `.amdgpu_metadata` blocks of an assembly file, checked as YAML before the assembler sees
// them: LLVM's parser prints a YAML syntax error itself, numbered from the block's start, and
// then reports only "invalid HSA metadata" at `.end_amdgpu_metadata`. Here the first syntax error
// is an error at its own line of the file, with the column and the line's text.
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace asmevo {

// Success, or "'FILE':LINE: metadata YAML: <reason> (column C): '<text>'".
llvm::Error checkMetadataYaml(llvm::StringRef Source, llvm::StringRef SourceName);

} // namespace asmevo
