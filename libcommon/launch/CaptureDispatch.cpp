// Recording a dispatch into a capture bundle (launch/CaptureDispatch.h).
#include "launch/CaptureDispatch.h"

#include "codeobj/CodeObject.h"
#include "codeobj/KernelArgs.h"
#include "launch/KernargPack.h"
#include "support/Error.h"

#include "llvm/BinaryFormat/ELF.h"

namespace asmevo::launch {

std::vector<std::string> capturedGlobalNames(const CodeObject &CO) {
  std::vector<std::string> Names;
  for (const auto &[Name, S] : CO.exportedSymbols())
    // __hip_cuid_<hash>: the one-byte compilation-unit id clang puts in every HIP translation
    // unit; no kernel reads it and runtimes do not register it.
    if (S->Type == llvm::ELF::STT_OBJECT && S->Size && S->SectionIndex &&
        !llvm::StringRef(Name).ends_with(".kd") &&
        !llvm::StringRef(Name).starts_with("__hip_cuid_"))
      Names.push_back(Name);
  return Names;
}

namespace {
llvm::Error readGlobal(const DispatchCall &D, const std::string &Name, ReadDeviceMemory Read,
                       std::vector<uint8_t> &Out) {
  auto At = D.FindGlobal ? D.FindGlobal(Name) : std::nullopt;
  if (!At)
    return runtimeError("cannot locate global variable '" + Name + "' of " + D.Origin +
                        " on the device");
  return Read(At->first, At->second, Out);
}
} // namespace

llvm::Expected<CaptureBundle> capturePreState(const DispatchCall &D,
                                              llvm::ArrayRef<DeviceAllocation> Allocations,
                                              ReadDeviceMemory Read, uint64_t MaxBytes) {
  auto CO = CodeObject::read(D.CodeObject, D.Origin);
  if (!CO)
    return CO.takeError();
  const KernelInfo *K = CO->kernel(D.Kernel);
  if (!K)
    return makeError(D.Origin + " has no kernel '" + D.Kernel + "'");
  auto Sig = kernelSignature(*CO, *K);
  if (!Sig)
    return Sig.takeError();
  auto Kernarg = D.Extra ? packLaunchExtra(*Sig, D.Extra) : packKernelParams(*Sig, D.KernelParams);
  if (!Kernarg)
    return Kernarg.takeError();
  auto Reached = reachableAllocations(*Kernarg, Allocations, Read, MaxBytes);
  if (!Reached)
    return Reached.takeError();
  CaptureBundle B;
  B.CodeObject.assign(D.CodeObject.begin(), D.CodeObject.end());
  B.Kernel = D.Kernel;
  B.GridWorkgroups = D.GridWorkgroups;
  B.Block = D.Block;
  B.DynamicLds = D.DynamicLds;
  B.Stream = D.Stream;
  B.Kernarg = std::move(*Kernarg);
  for (ReachedAllocation &A : *Reached) {
    CapturedRegion R;
    R.Base = A.Base;
    R.ReachedFrom = A.From;
    R.Pre = std::move(A.Bytes);
    B.Regions.push_back(std::move(R));
  }
  for (const std::string &Name : capturedGlobalNames(*CO)) {
    CapturedGlobal G;
    G.Name = Name;
    if (llvm::Error E = readGlobal(D, Name, Read, G.Pre))
      return std::move(E);
    B.Globals.push_back(std::move(G));
  }
  return B;
}

llvm::Error capturePostState(CaptureBundle &B, const DispatchCall &D, ReadDeviceMemory Read) {
  for (CapturedRegion &R : B.Regions)
    if (llvm::Error E = Read(R.Base, R.Pre.size(), R.Post))
      return E;
  for (CapturedGlobal &G : B.Globals)
    if (llvm::Error E = readGlobal(D, G.Name, Read, G.Post))
      return E;
  return llvm::Error::success();
}

} // namespace asmevo::launch
