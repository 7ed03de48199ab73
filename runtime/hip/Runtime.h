// libasmevo-hip: the state of the emulated HIP runtime, one per process. The C entry points
// (Api*.cpp) are thin: each takes the runtime's lock, checks its arguments, calls into here and
// turns the result into a hipError_t. Device memory, code objects and launches are libcommon's
// `emu` device (device/Device.h); kernarg packing is launch/KernargPack.h.
//
// Every launch runs to completion inside the call that enqueues it, so every stream is an
// in-order queue that is always drained; events record host time, or with
// $ASMEVO_HIP_EVENT_TIMES=model the device time kernel-time's model gives each launch (see
// ApiStream.cpp).
#pragma once

#include <hip/hip_runtime_api.h>

#include "codeobj/CodeObject.h"
#include "codeobj/KernelArgs.h"
#include "device/Device.h"
#include "timing/TargetParams.h"

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

// The opaque handle types of hip_runtime_api.h, defined here.
struct ihipModuleSymbol_t;
struct ihipModule_t {
  std::vector<char> Bytes; // the code object, owned (CodeObject points into it)
  std::unique_ptr<asmevo::CodeObject> Code;
  std::unique_ptr<asmevo::device::Module> Loaded;
  std::map<std::string, std::unique_ptr<ihipModuleSymbol_t>> Functions;
  std::string Origin; // "file.hsaco", "hipModuleLoadData image", "fat binary 0x..."
};
struct ihipModuleSymbol_t {
  ihipModule_t *Module = nullptr;
  const asmevo::KernelInfo *Kernel = nullptr;
  asmevo::KernelSignature Signature;
};
struct ihipStream_t {
  unsigned Flags = 0;
};
struct ihipEvent_t {
  unsigned Flags = 0;
  bool Recorded = false;
  double HostSeconds = 0;    // steady-clock time at which the stream reached the event
  double ModeledSeconds = 0; // the modeled device clock then (ASMEVO_HIP_EVENT_TIMES=model)
};

namespace asmevo::hiprt {

// A fat binary registered by a clang-compiled program's constructor (__hipRegisterFatBinary):
// loaded on first use, so that registering code for another processor fails only if launched.
struct FatBinary {
  const char *Image = nullptr; // the clang offload bundle in the program's .hip_fatbin
  std::unique_ptr<ihipModule_t> Module;
  hipError_t LoadError = hipSuccess;
  std::string LoadMessage;
};

struct RegisteredFunction {
  FatBinary *Binary = nullptr;
  std::string Name; // the device symbol
};

struct RegisteredVar {
  FatBinary *Binary = nullptr;
  std::string Name;
  size_t Size = 0;
};

struct CallConfig {
  dim3 Grid, Block;
  size_t SharedMem = 0;
  hipStream_t Stream = nullptr;
};

class Runtime {
public:
  static Runtime &get();
  std::mutex Lock; // every entry point holds it

  // The emulated device (created on first use) and its processor ($ASMEVO_HIP_ARCH, default
  // gfx942).
  const std::string &processor() const { return Processor; }
  device::Device &dev();

  // Failure: remember E as the last error, print "asmevo-hip: Call: Message" on stderr and
  // return E. Success: return hipSuccess (the last error is left as it is, as HIP does).
  hipError_t fail(hipError_t E, const std::string &Call, const std::string &Message);
  hipError_t setLast(hipError_t E) { return Last = E; }
  hipError_t lastError(bool Reset);
  // A launch failure, also reported once by the next synchronizing call.
  hipError_t pendingError();

  // Device memory made by hipMalloc and friends, base -> size.
  std::map<uint64_t, uint64_t> Allocations;
  // Global variables handed out (hipModuleGetGlobal, symbols): also device memory.
  std::map<uint64_t, uint64_t> Globals;
  // Virtual memory management (ApiVirtualMemory.cpp): reserved address ranges (base -> size),
  // physical allocations (hipMemCreate's handles, by their size), and the mappings of the one
  // into the other (base -> {size, handle, accessible}). A mapping becomes device memory, at
  // its address, once hipMemSetAccess makes it accessible.
  struct Mapping {
    uint64_t Size = 0;
    const void *Handle = nullptr;
    bool Accessible = false;
  };
  std::map<uint64_t, uint64_t> Reserved;
  std::map<const void *, uint64_t> PhysicalAllocations;
  std::map<uint64_t, Mapping> Mappings;
  uint64_t NextReservation = 0x00007e0000000000ull; // below the emulator's heap (0x7f00...)
  // The device range holding [Addr, Addr+Size), if any: {base, size}.
  bool isDevice(uint64_t Addr, uint64_t Size) const;

  // Load a code object image (plain ELF or offload bundle) of Size bytes. On failure returns
  // the error and the message.
  hipError_t loadModule(const char *Image, uint64_t Size, const std::string &Origin,
                        std::unique_ptr<ihipModule_t> &Out, std::string &Message);
  hipError_t getFunction(ihipModule_t &M, const std::string &Name, hipFunction_t &Out,
                         std::string &Message);
  hipError_t loadFatBinary(FatBinary &B, std::string &Message);

  // Run F with the packed explicit kernargs; the grid is in workgroups.
  hipError_t launch(const std::string &Call, hipFunction_t F, dim3 Grid, dim3 Block,
                    size_t SharedMem, std::vector<uint8_t> Kernarg);

  // Event times. Host (the default): the host's clock. Model ($ASMEVO_HIP_EVENT_TIMES=model):
  // every launch runs under kernel-time's model (timing/Model.h) of the processor's reference
  // part, and a modeled device clock advances by each launch's modeled time (copies, sets and
  // everything else take none); events read that clock.
  bool ModelTimes = false;
  double ModeledSeconds = 0;
  std::optional<timing::TargetParams> Params; // loaded at the first modeled launch

  std::vector<std::unique_ptr<FatBinary>> FatBinaries;
  std::map<const void *, RegisteredFunction> HostFunctions;
  std::map<const void *, RegisteredVar> HostVars;
  std::vector<std::unique_ptr<ihipStream_t>> Streams;
  std::vector<std::unique_ptr<ihipEvent_t>> Events;
  std::vector<std::unique_ptr<ihipModule_t>> Modules;

private:
  Runtime();
  std::string Processor;
  std::unique_ptr<device::Device> Dev;
  hipError_t Last = hipSuccess, Pending = hipSuccess;
};

// The launch configuration stack of `<<<...>>>` (__hipPushCallConfiguration), per thread.
std::vector<CallConfig> &callConfigs();

// The properties of the emulated device, as hipGetDeviceProperties reports them.
void fillProperties(const std::string &Processor, hipDeviceProp_t &P);

// An unimplemented entry point: prints "asmevo-hip: NAME is not supported by the emulated HIP
// runtime" once per name and returns hipErrorNotSupported (also as the last error).
hipError_t unsupported(const char *Name);

} // namespace asmevo::hiprt
