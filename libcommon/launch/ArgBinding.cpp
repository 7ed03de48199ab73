#include "launch/ArgBinding.h"

#include "support/Error.h"

#include <algorithm>
#include <cstdlib>

namespace asmevo::launch {

llvm::Expected<const KernelInfo *> chooseKernel(const CodeObject &CO, const std::string &Name,
                                                const std::string &How) {
  if (Name.empty()) {
    if (CO.Kernels.size() != 1)
      return makeError("'" + CO.Path + "' has " + std::to_string(CO.Kernels.size()) +
                       " kernels: name one with " + How);
    return &CO.Kernels[0];
  }
  if (const KernelInfo *K = CO.kernel(Name))
    return K;
  std::string Names;
  for (const KernelInfo &X : CO.Kernels)
    Names += (Names.empty() ? "" : ", ") + X.Name;
  return makeError("'" + CO.Path + "' has no kernel named '" + Name + "' (kernels: " + Names + ")");
}

int findExplicitArg(const std::vector<const KernelArg *> &Explicit, const std::string &Ref) {
  if (Ref.size() > 1 && Ref[0] == '#') {
    char *End = nullptr;
    long V = std::strtol(Ref.c_str() + 1, &End, 10);
    if (End && !*End && V >= 0 && size_t(V) < Explicit.size())
      return int(V);
    return -1;
  }
  for (size_t I = 0; I < Explicit.size(); ++I)
    if (!Ref.empty() && Explicit[I]->Name == Ref)
      return int(I);
  return -1;
}

uint32_t explicitArgsEnd(const KernelSignature &Sig) {
  uint32_t End = 0;
  for (const KernelArg *A : Sig.explicitArgs())
    End = std::max(End, A->Offset + A->Size);
  return End;
}

std::string noSuchArgument(const KernelSignature &Sig, const std::string &Ref) {
  auto Explicit = Sig.explicitArgs();
  std::string Head = "kernel '" + Sig.Symbol + "' has no argument '" + Ref + "'";
  bool AnyName = false, AnyHidden = Explicit.size() != Sig.Args.size();
  for (const KernelArg *A : Explicit)
    AnyName = AnyName || !A->Name.empty();
  if (Explicit.empty())
    return Head + " (it takes no explicit arguments)";
  if (AnyName) {
    std::string L;
    for (size_t I = 0; I < Explicit.size(); ++I)
      L += (I ? ", #" : "#") + std::to_string(I) +
           (Explicit[I]->Name.empty() ? "" : " '" + Explicit[I]->Name + "'");
    return Head + " (its explicit arguments: " + L + ")";
  }
  // Triton's compiler appends two pointers to every kernel's arguments: its global and profile
  // scratch buffers. Without Triton's DWARF producer, a kernel shaped like Triton's (no names,
  // no hidden arguments, two trailing pointers) gets them marked with a doubt.
  size_t N = Explicit.size();
  auto trailingPointers = [&] {
    return N >= 2 && Explicit[N - 2]->isGlobalBuffer() && Explicit[N - 1]->isGlobalBuffer();
  };
  bool Mark = trailingPointers() && (Sig.Triton || !AnyHidden);
  std::string L;
  for (size_t I = 0; I < N; ++I) {
    const KernelArg &A = *Explicit[I];
    L += (I ? ", #" : "#") + std::to_string(I) + " " + A.ValueKind + " (" + std::to_string(A.Size) +
         " byte" + (A.Size == 1 ? "" : "s");
    if (Mark && I + 2 >= N)
      L += std::string("; Triton's ") + (I + 2 == N ? "global_scratch" : "profile_scratch") +
           " pointer" + (Sig.Triton ? "" : ", if Triton compiled it");
    L += ")";
  }
  return Head + ": its metadata names none of its " + std::to_string(N) + " explicit argument" +
         (N == 1 ? "" : "s") + (Sig.Triton ? " (a Triton kernel's never does)" : "") +
         ", so name them by index: " + L;
}

std::string argLabel(const std::vector<const KernelArg *> &Explicit, size_t I) {
  return Explicit[I]->Name.empty() ? "#" + std::to_string(I) : Explicit[I]->Name;
}

} // namespace asmevo::launch
