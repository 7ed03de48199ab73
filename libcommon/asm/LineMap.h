// Which line of an assembly text (recovered by asm/Recover.h, possibly edited since) holds which
// instruction of a kernel's function in the code object built from that text. The walk starts at
// the kernel's label: an instruction line takes its decoded size (asm/SchedInfo.h), a
// `.long`/`.fill`/`.zero`/`.byte`/`.short` line its bytes; labels, comments and other
// directives hold none. A line whose mnemonic is not the one decoded at its address stops the
// walk with an error: the text is not the code object's.
#pragma once

#include "asm/SchedInfo.h"
#include "codeobj/CodeObject.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace asmevo {

struct CodeLine {
  size_t Line = 0;                // 0-based index into the text's lines
  uint64_t Offset = 0;            // from the kernel's entry
  unsigned Size = 0;              // bytes
  const InstCost *Cost = nullptr; // null for a data line (raw words: opaque to editing)
};

struct KernelLines {
  std::vector<std::string> Lines; // the whole text, split at '\n'
  size_t Label = 0;               // the line "kernel:"
  size_t End = 0;                 // one past the function's last code line
  // The first line an edit may touch: after the kernarg-preload compatibility prologue (the
  // first 256 bytes, which newer firmware skips, so the body must stay at +256), else Label + 1.
  size_t FirstEditable = 0;
  std::vector<CodeLine> Code; // in address order
};

// The bytes a data directive line emits, or -1 when it is not one of those.
int64_t dataDirectiveBytes(llvm::StringRef Line);

// Map Text's lines of Kernel's function to K's instructions (K built from Text). Sched is K's.
llvm::Expected<KernelLines> mapKernelLines(const CodeObject &K, SchedInfo &Sched,
                                           llvm::StringRef Text, llvm::StringRef Kernel);

} // namespace asmevo
