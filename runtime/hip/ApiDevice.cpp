// Device, version and error entry points, and the few entry points whose return type leaves no
// room for an error value (names, strings, flags).
#include "Entry.h"

#include <hip/hiprtc.h>

#include <cstring>
#include <unistd.h>

using namespace asmevo::hiprt;

namespace {
// The emulated device's properties, by processor: the reference part's public figures (the
// CU count and peak engine clock as /work/shared/notes' device table gives them: ROCm's
// gpu-specs; one GCD for MI250X, as HIP sees it), and the processor's limits.
struct Part {
  const char *Processor, *Name, *ArchName;
  int Major, Minor, Cus, ClockKHz;
  size_t Lds, L2, Memory;
};
constexpr size_t GiB = size_t(1) << 30, MiB = size_t(1) << 20;
const Part Parts[] = {
    {"gfx90a", "AsmEvo emulated gfx90a (MI250X GCD figures)", "gfx90a:sramecc+:xnack-", 9, 0, 110,
     1700000, 64 * 1024, 8 * MiB, 64 * GiB},
    {"gfx942", "AsmEvo emulated gfx942 (MI300X figures)", "gfx942:sramecc+:xnack-", 9, 4, 304,
     2100000, 64 * 1024, 4 * MiB, 192 * GiB},
    {"gfx950", "AsmEvo emulated gfx950 (MI355X figures)", "gfx950:sramecc+:xnack-", 9, 5, 256,
     2400000, 160 * 1024, 4 * MiB, 288 * GiB},
};

const Part *part(const std::string &Processor) {
  for (const Part &P : Parts)
    if (Processor == P.Processor)
      return &P;
  return nullptr;
}

hipError_t checkDevice(Runtime &R, const char *Call, int Device) {
  if (Device != 0)
    return R.fail(hipErrorInvalidDevice, Call,
                  "device " + std::to_string(Device) + " (the emulated runtime has device 0)");
  if (!part(R.processor()))
    return R.fail(hipErrorInvalidDevice, Call,
                  "$ASMEVO_HIP_ARCH is '" + R.processor() +
                      "'; the emulated runtime knows gfx90a, gfx942 and gfx950");
  return hipSuccess;
}
} // namespace

namespace asmevo::hiprt {

void fillProperties(const std::string &Processor, hipDeviceProp_t &P) {
  std::memset(&P, 0, sizeof P);
  const Part *D = part(Processor);
  if (!D)
    return;
  std::strncpy(P.name, D->Name, sizeof P.name - 1);
  std::strncpy(P.gcnArchName, D->ArchName, sizeof P.gcnArchName - 1);
  P.gcnArch = D->Major * 100 + D->Minor * 10;
  P.totalGlobalMem = D->Memory;
  P.sharedMemPerBlock = D->Lds;
  P.maxSharedMemoryPerMultiProcessor = D->Lds;
  P.regsPerBlock = 65536;
  P.warpSize = 64;
  P.maxThreadsPerBlock = 1024;
  P.maxThreadsDim[0] = P.maxThreadsDim[1] = P.maxThreadsDim[2] = 1024;
  P.maxGridSize[0] = P.maxGridSize[1] = P.maxGridSize[2] = 2147483647;
  P.clockRate = D->ClockKHz;
  P.memoryClockRate = 0;
  P.totalConstMem = D->Memory;
  P.major = D->Major;
  P.minor = D->Minor;
  P.multiProcessorCount = D->Cus;
  P.l2CacheSize = int(D->L2);
  P.maxThreadsPerMultiProcessor = 2048;
  P.computeMode = 0;
  P.concurrentKernels = 1;
  P.isMultiGpuBoard = 0;
  P.canMapHostMemory = 0;
  P.managedMemory = 0;
  P.cooperativeLaunch = 0;
}

} // namespace asmevo::hiprt

extern "C" {

// Its presence tells a HIP client (libcommon's hip backend) that the "GPU" is the CPU emulator.
const char *asmevoHipEmulatedRuntime() { return "libasmevo-hip: the AsmEvo CPU emulator"; }

hipError_t hipInit(unsigned Flags) { return hipSuccess; }

hipError_t hipGetDeviceCount(int *Count) {
  HIPRT_ENTRY;
  if (!Count)
    return R.fail(hipErrorInvalidValue, "hipGetDeviceCount", "count is null");
  *Count = 1;
  return hipSuccess;
}

hipError_t hipSetDevice(int Device) {
  HIPRT_ENTRY;
  return checkDevice(R, "hipSetDevice", Device);
}

hipError_t hipGetDevice(int *Device) {
  HIPRT_ENTRY;
  if (!Device)
    return R.fail(hipErrorInvalidValue, "hipGetDevice", "device is null");
  *Device = 0;
  return hipSuccess;
}

hipError_t hipDeviceReset() {
  HIPRT_ENTRY;
  for (const auto &[Base, Size] : R.Allocations)
    llvm::consumeError(R.dev().free(Base));
  R.Allocations.clear();
  return hipSuccess;
}

hipError_t hipGetDeviceProperties(hipDeviceProp_t *Prop, int Device) {
  HIPRT_ENTRY;
  if (!Prop)
    return R.fail(hipErrorInvalidValue, "hipGetDeviceProperties", "prop is null");
  if (hipError_t E = checkDevice(R, "hipGetDeviceProperties", Device))
    return E;
  fillProperties(R.processor(), *Prop);
  return hipSuccess;
}

hipError_t hipDeviceGetName(char *Name, int Len, int Device) {
  HIPRT_ENTRY;
  if (!Name || Len <= 0)
    return R.fail(hipErrorInvalidValue, "hipDeviceGetName", "name is null or len <= 0");
  if (hipError_t E = checkDevice(R, "hipDeviceGetName", Device))
    return E;
  hipDeviceProp_t P;
  fillProperties(R.processor(), P);
  std::strncpy(Name, P.name, size_t(Len) - 1);
  Name[Len - 1] = 0;
  return hipSuccess;
}

hipError_t hipDeviceGetAttribute(int *Value, hipDeviceAttribute_t Attr, int Device) {
  HIPRT_ENTRY;
  if (!Value)
    return R.fail(hipErrorInvalidValue, "hipDeviceGetAttribute", "pi is null");
  if (hipError_t E = checkDevice(R, "hipDeviceGetAttribute", Device))
    return E;
  hipDeviceProp_t P;
  fillProperties(R.processor(), P);
  switch (Attr) {
  case hipDeviceAttributeMaxThreadsPerBlock:
    *Value = P.maxThreadsPerBlock;
    break;
  case hipDeviceAttributeMaxBlockDimX:
  case hipDeviceAttributeMaxBlockDimY:
  case hipDeviceAttributeMaxBlockDimZ:
    *Value = P.maxThreadsDim[0];
    break;
  case hipDeviceAttributeMaxGridDimX:
  case hipDeviceAttributeMaxGridDimY:
  case hipDeviceAttributeMaxGridDimZ:
    *Value = P.maxGridSize[0];
    break;
  case hipDeviceAttributeMaxSharedMemoryPerBlock:
  case hipDeviceAttributeMaxSharedMemoryPerMultiprocessor:
    *Value = int(P.sharedMemPerBlock);
    break;
  case hipDeviceAttributeWarpSize:
    *Value = P.warpSize;
    break;
  case hipDeviceAttributeMultiprocessorCount:
    *Value = P.multiProcessorCount;
    break;
  case hipDeviceAttributeClockRate:
    *Value = P.clockRate;
    break;
  case hipDeviceAttributeComputeCapabilityMajor:
    *Value = P.major;
    break;
  case hipDeviceAttributeComputeCapabilityMinor:
    *Value = P.minor;
    break;
  case hipDeviceAttributeL2CacheSize:
    *Value = P.l2CacheSize;
    break;
  case hipDeviceAttributeMaxRegistersPerBlock:
    *Value = P.regsPerBlock;
    break;
  case hipDeviceAttributeMaxThreadsPerMultiProcessor:
    *Value = P.maxThreadsPerMultiProcessor;
    break;
  default:
    return R.fail(hipErrorNotSupported, "hipDeviceGetAttribute",
                  "attribute " + std::to_string(int(Attr)) +
                      " is not reported by the emulated runtime");
  }
  return hipSuccess;
}

hipError_t hipDriverGetVersion(int *Version) {
  HIPRT_ENTRY;
  if (!Version)
    return R.fail(hipErrorInvalidValue, "hipDriverGetVersion", "version is null");
  *Version = HIP_VERSION; // the API level it implements: the 5.2 headers it was built with
  return hipSuccess;
}
hipError_t hipRuntimeGetVersion(int *Version) {
  HIPRT_ENTRY;
  if (!Version)
    return R.fail(hipErrorInvalidValue, "hipRuntimeGetVersion", "version is null");
  *Version = HIP_VERSION;
  return hipSuccess;
}

hipError_t hipGetLastError() {
  HIPRT_ENTRY;
  return R.lastError(true);
}
hipError_t hipPeekAtLastError() {
  HIPRT_ENTRY;
  return R.lastError(false);
}

const char *hipGetErrorName(hipError_t E) {
  switch (int(E)) {
#define HIP_ERROR_NAME(Value, Name)                                                                \
  case Value:                                                                                      \
    return Name;
#include "ErrorNames.inc"
#undef HIP_ERROR_NAME
  }
  return "hipErrorUnknown";
}

const char *hipGetErrorString(hipError_t E) {
  switch (E) {
  case hipSuccess:
    return "no error";
  case hipErrorInvalidValue:
    return "invalid argument";
  case hipErrorOutOfMemory:
    return "out of memory";
  case hipErrorInvalidDevice:
    return "invalid device ordinal";
  case hipErrorInvalidImage:
    return "device kernel image is invalid";
  case hipErrorNoBinaryForGpu:
    return "no kernel image is available for execution on the device";
  case hipErrorNotFound:
    return "named symbol not found";
  case hipErrorIllegalAddress:
    return "an illegal memory access was encountered";
  case hipErrorLaunchFailure:
    return "unspecified launch failure";
  case hipErrorLaunchTimeOut:
    return "the launch timed out and was terminated";
  case hipErrorInvalidConfiguration:
    return "invalid configuration argument";
  case hipErrorNotSupported:
    return "operation not supported";
  default:
    return hipGetErrorName(E);
  }
}

const char *hiprtcGetErrorString(hiprtcResult E) {
  return E == HIPRTC_SUCCESS ? "HIPRTC_SUCCESS"
                             : "hiprtc is not supported by the emulated HIP runtime";
}

const char *hipApiName(uint32_t Id) { return "unknown (the emulated runtime has no API ids)"; }
const char *hipGetCmdName(uint32_t Id) { return "unknown (the emulated runtime has no commands)"; }
const char *amd_dbgapi_get_build_name() { return "libasmevo-hip"; }
const char *amd_dbgapi_get_git_hash() { return ""; }
size_t amd_dbgapi_get_build_id() { return 0; }
bool hipEnableActivityCallback(uint32_t Op, bool Enable) { return false; }
int hipGetStreamDeviceId(hipStream_t Stream) { return 0; }
void __hipGetPCH(const char **Pch, unsigned *Size) {
  if (Pch)
    *Pch = nullptr;
  if (Size)
    *Size = 0;
}

hipChannelFormatDesc hipCreateChannelDesc(int X, int Y, int Z, int W, hipChannelFormatKind F) {
  hipChannelFormatDesc D;
  D.x = X;
  D.y = Y;
  D.z = Z;
  D.w = W;
  D.f = F;
  return D;
}

} // extern "C"

namespace asmevo::hiprt {
int unsupportedEntry(const char *Name) { return unsupported(Name); }
} // namespace asmevo::hiprt
