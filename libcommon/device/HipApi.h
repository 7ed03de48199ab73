// The slice of the HIP runtime API the `hip` backend uses, declared here so that the build
// needs no ROCm headers (hip_runtime_api.h drags in hip's compiler requirements) and the runtime
// is never linked: HipDevice.cpp loads libamdhip64 with dlopen and resolves these functions with
// dlsym. Internal to libcommon/device (and the fake runtime of the tests, which implements it).
//
// Every value below was checked against the HIP headers, ROCm 5.2 (Debian's libamdhip64-dev,
// /usr/include/hip) and ROCm 6 (ROCm/HIP include/hip/hip_runtime_api.h):
//   hip_runtime_api.h:  #define HIP_LAUNCH_PARAM_BUFFER_POINTER ((void*)0x01)
//                       #define HIP_LAUNCH_PARAM_BUFFER_SIZE ((void*)0x02)
//                       #define HIP_LAUNCH_PARAM_END ((void*)0x03)
//                       typedef struct ihipModule_t* hipModule_t;  (and ihipModuleSymbol_t*
//                       hipFunction_t, ihipEvent_t* hipEvent_t, ihipStream_t* hipStream_t)
//                       typedef enum hipError_t {hipSuccess = 0, ...}  (an int-sized enum)
//   driver_types.h:     hipMemcpyHostToDevice = 1, hipMemcpyDeviceToHost = 2
//
//   hip_runtime_api.h:  hipError_t hipMemset(void* dst, int value, size_t sizeBytes);
//                       (5.2; ROCm/HIP at rocm-6.0.0 and rocm-6.2.0: the same declaration)
//
// hipDeviceProp_t differs between ROCm versions; the backend reads only `name`, `clockRate` and
// `gcnArchName` from a zeroed buffer larger than either layout:
//   ROCm 5 (hipGetDeviceProperties, the R0000 layout): char name[256] at 0, size_t
//     totalGlobalMem, size_t sharedMemPerBlock, int regsPerBlock, warpSize, maxThreadsPerBlock,
//     maxThreadsDim[3], maxGridSize[3]; int clockRate (kHz); ...; int gcnArch;
//     char gcnArchName[256] -- offsetof(hipDeviceProp_t, clockRate) == 308,
//     offsetof(hipDeviceProp_t, gcnArchName) == 396, sizeof == 792 (measured by compiling
//     offsetof against /usr/include/hip/hip_runtime_api.h 5.2.21153).
//   ROCm 6 (hipGetDevicePropertiesR0600; in ROCm >= 6 `hipGetDeviceProperties` is a macro for
//     it, while the unversioned symbol keeps the R0000 layout): char name[256]; hipUUID uuid;
//     char luid[8]; unsigned luidDeviceNodeMask; size_t totalGlobalMem, sharedMemPerBlock;
//     int regsPerBlock, warpSize; size_t memPitch; int maxThreadsPerBlock, maxThreadsDim[3],
//     maxGridSize[3]; int clockRate (kHz); ... int reserved[63]; int hipReserved[32];
//     char gcnArchName[256] -- clockRate at 348, gcnArchName at 1160, sizeof 1472 (the struct
//     of ROCm/HIP's include/hip/hip_runtime_api.h at tags rocm-6.0.0, rocm-6.1.0 and
//     rocm-6.2.x, compiled with offsetof on x86-64 Linux: the same three figures in each).
//   clockRate is the peak shader clock ("Max clock frequency of the multiProcessors in khz");
//   the backend reports it in MHz, and 0 when it reads as non-positive or above 10 GHz (a
//   layout it does not know). hipDeviceGetAttribute(hipDeviceAttributeClockRate) would do too
//   (the enum value is 5 in 5.2 and in rocm-6.0.0..6.2.x), but the properties are read anyway.
//
// Virtual memory management (hipMemAddressReserve and its kin, used to place a captured
// dispatch's regions at their recorded addresses), declared the same in 5.2 and ROCm 6:
//   hipError_t hipMemAddressReserve(void** ptr, size_t size, size_t alignment, void* addr,
//                                   unsigned long long flags);   ("addr": a requested start)
//   hipError_t hipMemAddressFree(void* devPtr, size_t size);
//   hipError_t hipMemCreate(hipMemGenericAllocationHandle_t* handle, size_t size,
//                           const hipMemAllocationProp* prop, unsigned long long flags);
//   hipError_t hipMemRelease(hipMemGenericAllocationHandle_t handle);
//   hipError_t hipMemMap(void* ptr, size_t size, size_t offset,
//                        hipMemGenericAllocationHandle_t handle, unsigned long long flags);
//   hipError_t hipMemUnmap(void* ptr, size_t size);
//   hipError_t hipMemSetAccess(void* ptr, size_t size, const hipMemAccessDesc* desc,
//                              size_t count);
//   hipError_t hipMemGetAllocationGranularity(size_t* granularity,
//                                             const hipMemAllocationProp* prop,
//                                             hipMemAllocationGranularity_flags option);
//   enums: hipMemLocationTypeDevice = 1, hipMemAllocationTypePinned = 0x1,
//          hipMemHandleTypeNone = 0, hipMemAccessFlagsProtReadWrite = 3,
//          hipMemAllocationGranularityMinimum = 0, hipErrorNotSupported = 801;
//   struct hipMemLocation { hipMemLocationType type; int id; };            (8 bytes)
//   struct hipMemAccessDesc { hipMemLocation location; hipMemAccessFlags flags; };  (12 bytes)
// hipMemAllocationProp (32 bytes in both) changed its layout between them:
//   5.2 (Debian's /usr/include/hip/hip_runtime_api.h): unsigned char compressionType at 0,
//     hipMemLocation location at 4, requestedHandleType at 12, hipMemAllocationType type at
//     16, unsigned short usage at 20, void* win32HandleMetaData at 24.
//   ROCm 6 (ROCm/HIP include/hip/hip_runtime_api.h, the CUDA order): type at 0,
//     requestedHandleType at 4, location at 8, win32HandleMetaData at 16, allocFlags
//     {compressionType, gpuDirectRDMACapable, usage} at 24.
// The backend fills the layout of the runtime it loaded: ROCm 6 when it exports
// hipGetDevicePropertiesR0600 (PropsR0600), else 5.2.
#pragma once

#include <cstddef>
#include <cstdint>

namespace asmevo::device::hip {

using hipError_t = int;
using hipModule_t = struct ihipModule_t *;
using hipFunction_t = struct ihipModuleSymbol_t *;
using hipEvent_t = struct ihipEvent_t *;
using hipStream_t = struct ihipStream_t *;

// hipError_t values the backend names (hip_runtime_api.h; the same in ROCm 5 and 6).
constexpr hipError_t hipSuccess = 0;
constexpr hipError_t hipErrorInvalidValue = 1;
constexpr hipError_t hipErrorOutOfMemory = 2;
constexpr hipError_t hipErrorNotInitialized = 3;
constexpr hipError_t hipErrorInvalidConfiguration = 9;
constexpr hipError_t hipErrorInvalidDevicePointer = 17;
constexpr hipError_t hipErrorInvalidDeviceFunction = 98;
constexpr hipError_t hipErrorNoDevice = 100;
constexpr hipError_t hipErrorInvalidDevice = 101;
constexpr hipError_t hipErrorInvalidImage = 200;
constexpr hipError_t hipErrorNoBinaryForGpu = 209;
constexpr hipError_t hipErrorInvalidHandle = 400;
constexpr hipError_t hipErrorNotFound = 500;
constexpr hipError_t hipErrorIllegalAddress = 700;
constexpr hipError_t hipErrorLaunchOutOfResources = 701;
constexpr hipError_t hipErrorLaunchFailure = 719;
constexpr hipError_t hipErrorNotSupported = 801;

// The name of a hipError_t value ("hipErrorInvalidImage"), or nullptr when not one of the above.
const char *hipErrorName(hipError_t E);

// hipMemcpyKind (driver_types.h).
constexpr int hipMemcpyHostToDevice = 1;
constexpr int hipMemcpyDeviceToHost = 2;

// hipModuleLaunchKernel's `extra` keys (hip_runtime_api.h, AMD platform).
inline void *const HIP_LAUNCH_PARAM_BUFFER_POINTER = reinterpret_cast<void *>(1);
inline void *const HIP_LAUNCH_PARAM_BUFFER_SIZE = reinterpret_cast<void *>(2);
inline void *const HIP_LAUNCH_PARAM_END = reinterpret_cast<void *>(3);

// Virtual memory management (see the top).
using hipMemGenericAllocationHandle_t = struct ihipMemGenericAllocationHandle *;
constexpr int hipMemLocationTypeDevice = 1;
constexpr int hipMemAllocationTypePinned = 1;
constexpr int hipMemAccessFlagsProtReadWrite = 3;
constexpr int hipMemAllocationGranularityMinimum = 0;
constexpr size_t kMemAllocationPropSize = 32;
struct MemAccessDesc {
  int LocationType, LocationId, Flags;
};
static_assert(sizeof(MemAccessDesc) == 12, "hipMemAccessDesc is 12 bytes");
// A hipMemAllocationProp for pinned memory on device Device, in either layout.
inline void fillMemAllocationProp(unsigned char (&Prop)[kMemAllocationPropSize], int Device,
                                  bool R0600) {
  auto put = [&](size_t Off, int V) {
    for (size_t I = 0; I < 4; ++I)
      Prop[Off + I] = (unsigned char)(unsigned(V) >> (8 * I));
  };
  for (unsigned char &B : Prop)
    B = 0;
  if (R0600) {
    put(0, hipMemAllocationTypePinned); // type
    put(8, hipMemLocationTypeDevice);   // location.type
    put(12, Device);                    // location.id
  } else {
    put(4, hipMemLocationTypeDevice);    // location.type
    put(8, Device);                      // location.id
    put(16, hipMemAllocationTypePinned); // type
  }
}

// hipDeviceProp_t: where the fields the backend reads lie (see above).
constexpr size_t kPropNameOffset = 0;
constexpr size_t kPropArchOffsetR0000 = 396;
constexpr size_t kPropArchOffsetR0600 = 1160;
constexpr size_t kPropClockRateOffsetR0000 = 308; // int, kHz
constexpr size_t kPropClockRateOffsetR0600 = 348;
constexpr size_t kPropStringSize = 256;   // name and gcnArchName are char[256]
constexpr size_t kPropBufferSize = 16384; // > sizeof in every layout (792, 1472)

// The entry points, as resolved from the loaded library.
struct HipApi {
  hipError_t (*GetDeviceCount)(int *Count);
  hipError_t (*SetDevice)(int Device);
  hipError_t (*GetDeviceProperties)(void *Prop, int Device); // R0600 or R0000, see PropsR0600
  hipError_t (*Malloc)(void **Ptr, size_t Size);
  hipError_t (*Free)(void *Ptr);
  hipError_t (*Memcpy)(void *Dst, const void *Src, size_t Size, int Kind);
  hipError_t (*Memset)(void *Dst, int Value, size_t Size);
  hipError_t (*ModuleLoadData)(hipModule_t *Module, const void *Image);
  hipError_t (*ModuleUnload)(hipModule_t Module);
  hipError_t (*ModuleGetFunction)(hipFunction_t *Function, hipModule_t Module, const char *Name);
  hipError_t (*ModuleLaunchKernel)(hipFunction_t F, unsigned GridX, unsigned GridY, unsigned GridZ,
                                   unsigned BlockX, unsigned BlockY, unsigned BlockZ,
                                   unsigned SharedMemBytes, hipStream_t Stream, void **KernelParams,
                                   void **Extra);
  hipError_t (*EventCreate)(hipEvent_t *Event);
  hipError_t (*EventRecord)(hipEvent_t Event, hipStream_t Stream);
  hipError_t (*EventSynchronize)(hipEvent_t Event);
  hipError_t (*EventElapsedTime)(float *Ms, hipEvent_t Start, hipEvent_t Stop);
  hipError_t (*EventDestroy)(hipEvent_t Event);
  hipError_t (*DeviceSynchronize)();
  const char *(*GetErrorString)(hipError_t E);
  hipError_t (*GetLastError)();

  // Optional (null when the library lacks it): hipModuleGetGlobal(hipDeviceptr_t *Ptr,
  // size_t *Bytes, hipModule_t, const char *Name), the same in ROCm 5.2 and 6.
  hipError_t (*ModuleGetGlobal)(void **Ptr, size_t *Bytes, hipModule_t Module, const char *Name);

  // Optional, the virtual memory management calls (see the top); all or none are used.
  hipError_t (*MemAddressReserve)(void **Ptr, size_t Size, size_t Alignment, void *Addr,
                                  unsigned long long Flags);
  hipError_t (*MemAddressFree)(void *Ptr, size_t Size);
  hipError_t (*MemCreate)(hipMemGenericAllocationHandle_t *Handle, size_t Size, const void *Prop,
                          unsigned long long Flags);
  hipError_t (*MemRelease)(hipMemGenericAllocationHandle_t Handle);
  hipError_t (*MemMap)(void *Ptr, size_t Size, size_t Offset,
                       hipMemGenericAllocationHandle_t Handle, unsigned long long Flags);
  hipError_t (*MemUnmap)(void *Ptr, size_t Size);
  hipError_t (*MemSetAccess)(void *Ptr, size_t Size, const MemAccessDesc *Desc, size_t Count);
  hipError_t (*MemGetAllocationGranularity)(size_t *Granularity, const void *Prop, int Option);
  bool hasVirtualMemory() const {
    return MemAddressReserve && MemAddressFree && MemCreate && MemRelease && MemMap && MemUnmap &&
           MemSetAccess && MemGetAllocationGranularity;
  }

  bool PropsR0600 = false;
  // The library is AsmEvo's emulated runtime (libasmevo-hip.so, which exports
  // asmevoHipEmulatedRuntime): its device is the CPU emulator, never hardware.
  bool Emulated = false;    // GetDeviceProperties is hipGetDevicePropertiesR0600
  const char *Library = ""; // the name it was loaded by
};

} // namespace asmevo::device::hip
