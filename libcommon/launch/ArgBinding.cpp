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

std::string argLabel(const std::vector<const KernelArg *> &Explicit, size_t I) {
  return Explicit[I]->Name.empty() ? "#" + std::to_string(I) : Explicit[I]->Name;
}

} // namespace asmevo::launch
