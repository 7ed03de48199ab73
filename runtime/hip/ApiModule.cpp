// Module entry points: loading code objects (files, images), their kernels and globals, and
// hipModuleLaunchKernel with kernelParams or `extra`.
#include "Entry.h"

#include "codeobj/Container.h"
#include "launch/KernargPack.h"
#include "support/FileIO.h"

#include <algorithm>

using namespace asmevo;
using namespace asmevo::hiprt;

namespace {
hipError_t addModule(Runtime &R, const char *Call, hipModule_t *Out, const char *Image,
                     uint64_t Size, const std::string &Origin) {
  std::unique_ptr<ihipModule_t> M;
  std::string Message;
  if (hipError_t E = R.loadModule(Image, Size, Origin, M, Message))
    return R.fail(E, Call, Message);
  *Out = M.get();
  R.Modules.push_back(std::move(M));
  return hipSuccess;
}

bool known(Runtime &R, hipModule_t M) {
  return std::any_of(R.Modules.begin(), R.Modules.end(),
                     [&](const std::unique_ptr<ihipModule_t> &P) { return P.get() == M; });
}
} // namespace

extern "C" {

hipError_t hipModuleLoad(hipModule_t *Module, const char *Path) {
  HIPRT_ENTRY;
  if (!Module || !Path)
    return R.fail(hipErrorInvalidValue, "hipModuleLoad", "module or fname is null");
  auto Bytes = readFile(Path);
  if (!Bytes)
    return R.fail(hipErrorFileNotFound, "hipModuleLoad", llvm::toString(Bytes.takeError()));
  return addModule(R, "hipModuleLoad", Module, (*Bytes)->getBufferStart(),
                   (*Bytes)->getBufferSize(), Path);
}

hipError_t hipModuleLoadData(hipModule_t *Module, const void *Image) {
  HIPRT_ENTRY;
  if (!Module || !Image)
    return R.fail(hipErrorInvalidValue, "hipModuleLoadData", "module or image is null");
  std::string Origin = "the image at " + hexAddr(Image);
  auto Size = imageSizeInMemory(static_cast<const char *>(Image), Origin);
  if (!Size)
    return R.fail(hipErrorInvalidImage, "hipModuleLoadData", llvm::toString(Size.takeError()));
  return addModule(R, "hipModuleLoadData", Module, static_cast<const char *>(Image), *Size, Origin);
}

hipError_t hipModuleLoadDataEx(hipModule_t *Module, const void *Image, unsigned NumOptions,
                               hipJitOption *Options, void **OptionValues) {
  return hipModuleLoadData(Module, Image);
}

hipError_t hipModuleUnload(hipModule_t Module) {
  HIPRT_ENTRY;
  auto It = std::find_if(R.Modules.begin(), R.Modules.end(),
                         [&](const std::unique_ptr<ihipModule_t> &P) { return P.get() == Module; });
  if (It == R.Modules.end())
    return R.fail(hipErrorInvalidResourceHandle, "hipModuleUnload", "not a loaded module");
  R.Modules.erase(It);
  return hipSuccess;
}

hipError_t hipModuleGetFunction(hipFunction_t *Function, hipModule_t Module, const char *Name) {
  HIPRT_ENTRY;
  if (!Function || !Name)
    return R.fail(hipErrorInvalidValue, "hipModuleGetFunction", "function or kname is null");
  if (!known(R, Module))
    return R.fail(hipErrorInvalidResourceHandle, "hipModuleGetFunction", "not a loaded module");
  std::string Message;
  if (hipError_t E = R.getFunction(*Module, Name, *Function, Message))
    return R.fail(E, "hipModuleGetFunction", Message);
  return hipSuccess;
}

hipError_t hipModuleGetGlobal(hipDeviceptr_t *Ptr, size_t *Bytes, hipModule_t Module,
                              const char *Name) {
  HIPRT_ENTRY;
  if (!Name)
    return R.fail(hipErrorInvalidValue, "hipModuleGetGlobal", "name is null");
  if (!known(R, Module))
    return R.fail(hipErrorInvalidResourceHandle, "hipModuleGetGlobal", "not a loaded module");
  auto G = Module->Loaded->global(Name);
  if (!G)
    return R.fail(hipErrorNotFound, "hipModuleGetGlobal", llvm::toString(G.takeError()));
  R.Globals[G->Addr] = G->Size;
  if (Ptr)
    *Ptr = reinterpret_cast<void *>(G->Addr);
  if (Bytes)
    *Bytes = G->Size;
  return hipSuccess;
}

hipError_t hipModuleLaunchKernel(hipFunction_t F, unsigned GridX, unsigned GridY, unsigned GridZ,
                                 unsigned BlockX, unsigned BlockY, unsigned BlockZ,
                                 unsigned SharedMem, hipStream_t Stream, void **KernelParams,
                                 void **Extra) {
  HIPRT_ENTRY;
  const char *Call = "hipModuleLaunchKernel";
  if (!F)
    return R.fail(hipErrorInvalidResourceHandle, Call, "function is null");
  if (KernelParams && Extra)
    return R.fail(hipErrorInvalidValue, Call, "both kernelParams and extra are given");
  auto K = Extra ? launch::packLaunchExtra(F->Signature, Extra)
                 : launch::packKernelParams(F->Signature, KernelParams);
  if (!K)
    return R.fail(hipErrorInvalidValue, Call, llvm::toString(K.takeError()));
  return R.launch(Call, F, dim3(GridX, GridY, GridZ), dim3(BlockX, BlockY, BlockZ), SharedMem,
                  std::move(*K));
}

const char *hipKernelNameRef(const hipFunction_t F) {
  return F && F->Kernel ? F->Kernel->Name.c_str() : nullptr;
}

} // extern "C"
