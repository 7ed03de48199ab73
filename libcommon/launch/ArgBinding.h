// The one binder of a launch to a code object: which kernel (by name, or the only one), and
// which explicit argument an argument reference names ("#N", a metadata name, or the next one
// in order). The launch spec and kernel-run's --arg text both bind through it.
#pragma once

#include "codeobj/CodeObject.h"
#include "codeobj/KernelArgs.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace asmevo::launch {

// The kernel named Name, or CO's only kernel when Name is empty. How says how a user names one
// ("--kernel", "\"kernel\" or --kernel"). Input errors: "'K.hsaco' has 3 kernels: name one with
// --kernel", "'K.hsaco' has no kernel named 'x' (kernels: a, b)".
llvm::Expected<const KernelInfo *> chooseKernel(const CodeObject &CO, const std::string &Name,
                                                const std::string &How);

// The index in Explicit of the argument Ref names: "#N" (the N-th explicit argument) or a
// metadata name; -1 when it names none.
int findExplicitArg(const std::vector<const KernelArg *> &Explicit, const std::string &Ref);

// The input error's text for Ref, which names no explicit argument of Sig's kernel: "kernel
// 'k' has no argument 'x' (its explicit arguments: #0 'a', #1 'b')". Where the metadata names
// none (Triton's code objects never do) it says so and lists each as #N with its kind and size,
// marking the two pointers Triton's compiler appends last (global_scratch, profile_scratch).
std::string noSuchArgument(const KernelSignature &Sig, const std::string &Ref);

// How messages name explicit argument I: its metadata name, else "#I".
std::string argLabel(const std::vector<const KernelArg *> &Explicit, size_t I);

// The bytes of the kernarg segment the explicit arguments take (the end of the last one): what
// a launch binds. Backends pad it to the kernel's segment and fill the hidden arguments, after
// checking the segment's size, so a declared size no dispatch could take allocates nothing here.
uint32_t explicitArgsEnd(const KernelSignature &Sig);

} // namespace asmevo::launch
