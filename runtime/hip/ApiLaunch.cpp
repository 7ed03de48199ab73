// The clang/hipcc launch path: the fat binary a HIP program registers from its constructor
// (__hipRegisterFatBinary, __hipRegisterFunction, __hipRegisterVar), the `<<<...>>>`
// configuration stack and hipLaunchKernel.
#include "Entry.h"

#include "launch/KernargPack.h"

using namespace asmevo;
using namespace asmevo::hiprt;

namespace {
// The wrapper clang emits for a HIP program's device code (__hip_fatbin_wrapper): magic "HIPF"
// (0x48495046), version 1, then a pointer to the offload bundle in .hip_fatbin.
struct FatbinWrapper {
  uint32_t Magic;
  uint32_t Version;
  const void *Binary;
  const void *Unused;
};
constexpr uint32_t HipFatbinMagic = 0x48495046;

// The kernel a host stub stands for, loaded.
hipError_t hostFunction(Runtime &R, const char *Call, const void *Host, hipFunction_t &F) {
  auto It = R.HostFunctions.find(Host);
  if (It == R.HostFunctions.end())
    return R.fail(hipErrorInvalidDeviceFunction, Call,
                  hexAddr(Host) + " is not a registered kernel (__hipRegisterFunction)");
  std::string Message;
  FatBinary &B = *It->second.Binary;
  if (hipError_t E = R.loadFatBinary(B, Message))
    return R.fail(E, Call, Message);
  if (hipError_t E = R.getFunction(*B.Module, It->second.Name, F, Message))
    return R.fail(E, Call, Message);
  return hipSuccess;
}
} // namespace

extern "C" {

void **__hipRegisterFatBinary(const void *Data) {
  HIPRT_ENTRY;
  const auto *W = static_cast<const FatbinWrapper *>(Data);
  auto B = std::make_unique<FatBinary>();
  if (!W || W->Magic != HipFatbinMagic || !W->Binary) {
    B->LoadError = hipErrorInvalidImage;
    B->LoadMessage = "the fat binary wrapper at " + hexAddr(Data) +
                     " has no HIPF magic (0x48495046) or no image";
  } else {
    B->Image = static_cast<const char *>(W->Binary);
  }
  FatBinary *P = B.get();
  R.FatBinaries.push_back(std::move(B));
  return reinterpret_cast<void **>(P);
}

void __hipUnregisterFatBinary(void **Modules) {
  // The program is exiting (atexit): keep the state, since other destructors may still call in.
}

void __hipRegisterFunction(void **Modules, const void *HostFunction, char *DeviceFunction,
                           const char *DeviceName, unsigned ThreadLimit, void *Tid, void *Bid,
                           dim3 *BlockDim, dim3 *GridDim, int *WarpSize) {
  HIPRT_ENTRY;
  R.HostFunctions[HostFunction] =
      RegisteredFunction{reinterpret_cast<FatBinary *>(Modules), DeviceName ? DeviceName : ""};
}

void __hipRegisterVar(void **Modules, void *Var, char *HostVar, char *DeviceVar, int Ext,
                      size_t Size, int Constant, int Global) {
  HIPRT_ENTRY;
  R.HostVars[Var] =
      RegisteredVar{reinterpret_cast<FatBinary *>(Modules), DeviceVar ? DeviceVar : "", Size};
}

hipError_t __hipPushCallConfiguration(dim3 Grid, dim3 Block, size_t SharedMem, hipStream_t Stream) {
  callConfigs().push_back(CallConfig{Grid, Block, SharedMem, Stream});
  return hipSuccess;
}

hipError_t __hipPopCallConfiguration(dim3 *Grid, dim3 *Block, size_t *SharedMem,
                                     hipStream_t *Stream) {
  std::vector<CallConfig> &S = callConfigs();
  if (S.empty()) {
    HIPRT_ENTRY;
    return R.fail(hipErrorInvalidConfiguration, "__hipPopCallConfiguration",
                  "no launch configuration was pushed");
  }
  CallConfig C = S.back();
  S.pop_back();
  *Grid = C.Grid;
  *Block = C.Block;
  *SharedMem = C.SharedMem;
  *Stream = C.Stream;
  return hipSuccess;
}

hipError_t hipLaunchKernel(const void *Function, dim3 Grid, dim3 Block, void **Args,
                           size_t SharedMem, hipStream_t Stream) {
  HIPRT_ENTRY;
  const char *Call = "hipLaunchKernel";
  hipFunction_t F = nullptr;
  if (hipError_t E = hostFunction(R, Call, Function, F))
    return E;
  auto K = launch::packKernelParams(F->Signature, Args);
  if (!K)
    return R.fail(hipErrorInvalidValue, Call, llvm::toString(K.takeError()));
  return R.launch(Call, F, Grid, Block, SharedMem, std::move(*K));
}

const char *hipKernelNameRefByPtr(const void *HostFunction, hipStream_t Stream) {
  HIPRT_ENTRY;
  auto It = R.HostFunctions.find(HostFunction);
  return It == R.HostFunctions.end() ? nullptr : It->second.Name.c_str();
}

} // extern "C"
