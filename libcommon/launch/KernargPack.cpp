// Packing HIP kernelParams and `extra` arrays into kernarg bytes.
#include "launch/KernargPack.h"

#include "support/Error.h"

#include <algorithm>
#include <cstring>

namespace asmevo::launch {

namespace {
// hip_runtime_api.h (AMD platform): HIP_LAUNCH_PARAM_BUFFER_POINTER ((void*)0x01),
// HIP_LAUNCH_PARAM_BUFFER_SIZE ((void*)0x02), HIP_LAUNCH_PARAM_END ((void*)0x03).
constexpr uintptr_t ParamBufferPointer = 1, ParamBufferSize = 2, ParamEnd = 3;
// An `extra` array longer than this has lost its HIP_LAUNCH_PARAM_END.
constexpr unsigned MaxExtraWords = 64;

std::string argName(const KernelArg &A, size_t I) {
  return "argument " + std::to_string(I) + (A.Name.empty() ? "" : " ('" + A.Name + "')");
}
} // namespace

uint32_t explicitKernargSize(const KernelSignature &S) {
  uint32_t End = 0;
  for (const KernelArg *A : S.explicitArgs())
    End = std::max(End, A->Offset + A->Size);
  return End;
}

llvm::Expected<std::vector<uint8_t>> packKernelParams(const KernelSignature &S,
                                                      void *const *Params) {
  std::vector<uint8_t> K(explicitKernargSize(S), 0);
  auto Args = S.explicitArgs();
  if (!Params && !Args.empty())
    return makeError("kernel '" + S.Symbol + "' takes " + std::to_string(Args.size()) +
                     " arguments and kernelParams is null");
  for (size_t I = 0; I < Args.size(); ++I) {
    if (!Params[I])
      return makeError("kernelParams[" + std::to_string(I) + "] of kernel '" + S.Symbol + "' (" +
                       argName(*Args[I], I) + ") is null");
    std::memcpy(K.data() + Args[I]->Offset, Params[I], Args[I]->Size);
  }
  return K;
}

llvm::Expected<std::vector<uint8_t>> packLaunchExtra(const KernelSignature &S, void *const *Extra) {
  const void *Buffer = nullptr;
  const size_t *SizePtr = nullptr;
  unsigned I = 0;
  for (;; I += 2) {
    if (I >= MaxExtraWords)
      return makeError("the extra array has no HIP_LAUNCH_PARAM_END in its first " +
                       std::to_string(MaxExtraWords) + " entries");
    uintptr_t Key = reinterpret_cast<uintptr_t>(Extra[I]);
    if (Key == ParamEnd)
      break;
    if (Key == ParamBufferPointer)
      Buffer = Extra[I + 1];
    else if (Key == ParamBufferSize)
      SizePtr = static_cast<const size_t *>(Extra[I + 1]);
    else
      return makeError("extra[" + std::to_string(I) + "] is " + std::to_string(Key) +
                       ", not HIP_LAUNCH_PARAM_BUFFER_POINTER, _BUFFER_SIZE or _END");
  }
  if (!Buffer || !SizePtr)
    return makeError(std::string("the extra array has no ") +
                     (Buffer ? "HIP_LAUNCH_PARAM_BUFFER_SIZE" : "HIP_LAUNCH_PARAM_BUFFER_POINTER"));
  uint64_t Size = *SizePtr, Need = explicitKernargSize(S);
  if (Size < Need)
    return makeError("the extra buffer holds " + std::to_string(Size) + " bytes; kernel '" +
                     S.Symbol + "' takes " + std::to_string(Need) + " bytes of explicit arguments");
  if (Size > S.KernargSize)
    return makeError("the extra buffer holds " + std::to_string(Size) + " bytes; kernel '" +
                     S.Symbol + "' has a kernarg segment of " + std::to_string(S.KernargSize) +
                     " bytes");
  const auto *B = static_cast<const uint8_t *>(Buffer);
  return std::vector<uint8_t>(B, B + Need);
}

} // namespace asmevo::launch
