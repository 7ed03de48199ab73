// --annotate: the recovered assembly of a kernel (asm/Recover.h) with each instruction line of
// the kernel's function followed, as an assembler comment, by its modeled figures: executions,
// wave-cycles and the main reason. The text still reassembles to the same code.
#pragma once

#include "codeobj/CodeObject.h"
#include "timing/Model.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace asmevo::timing {

// Recover K's assembly and annotate the lines of Kernel's function from Insts (a profile by
// offset from the kernel's entry). Lines are matched to addresses by walking the function:
// instruction lines take their decoded size, `.long`/`.fill`/`.zero`/`.byte` their bytes;
// an instruction line whose mnemonic is not the one decoded at its address stops the walk with
// an error (nothing is written).
// AsmName: the file it will be written to (for the header's reassembly command).
llvm::Expected<std::string> annotatedAssembly(const CodeObject &K, const std::string &SourceName,
                                              const std::string &AsmName, const std::string &Kernel,
                                              const std::vector<InstProfile> &Insts);

} // namespace asmevo::timing
