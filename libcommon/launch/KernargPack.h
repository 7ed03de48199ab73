// The kernarg bytes of a HIP launch, as a runtime builds them from what the program passed:
// hipModuleLaunchKernel's and hipLaunchKernel's `kernelParams` (one pointer per explicit
// argument, to its value), or hipModuleLaunchKernel's `extra` (a packed buffer and its size).
// The layout is the kernel's metadata (.args: offset and size of each explicit argument);
// hidden arguments are the launcher's to fill.
#pragma once

#include "codeobj/KernelArgs.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace asmevo::launch {

// The explicit part of the kernarg segment: the end of the last explicit argument.
uint32_t explicitKernargSize(const KernelSignature &S);

// Each explicit argument's bytes copied from *Params[i] to its metadata offset. Params must
// hold one pointer per explicit argument (the HIP contract); a null entry is an input error
// naming the argument.
llvm::Expected<std::vector<uint8_t>> packKernelParams(const KernelSignature &S,
                                                      void *const *Params);

// The `extra` array: HIP_LAUNCH_PARAM_BUFFER_POINTER (1), the buffer, HIP_LAUNCH_PARAM_BUFFER_SIZE
// (2), a pointer to its size_t size, HIP_LAUNCH_PARAM_END (3), in any order of the two pairs.
// The buffer must hold at least the explicit arguments and at most the kernarg segment; the
// explicit part is returned. Errors (input kind) say which rule the array broke.
llvm::Expected<std::vector<uint8_t>> packLaunchExtra(const KernelSignature &S, void *const *Extra);

} // namespace asmevo::launch
