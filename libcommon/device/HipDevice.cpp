// The `hip` backend of the device interface: the HIP runtime (libamdhip64), loaded at run time
// with dlopen and never linked, so that every tool builds and runs without ROCm.
//
// UNTESTED ON A GPU. No AMD GPU was available where this was written: the backend has been
// exercised only against a fake runtime (test/unit/device/fake_hip_runtime.cpp, which checks every
// call and argument it receives) and against Debian's libamdhip64 5.2 on a machine without a GPU
// (which must fail cleanly with "no AMD GPU found"). Nothing here has launched a kernel on
// hardware.
//
// Decisions (see HipApi.h for the ABI details and how they were determined):
//   - Library: $ASMEVO_HIP_LIBRARY if set (only that), else libamdhip64.so, .so.6, .so.5. The
//     library is never dlclose'd (the runtime keeps threads and atexit handlers).
//   - Properties: hipGetDevicePropertiesR0600 when the library exports it (ROCm >= 6), else
//     hipGetDeviceProperties (ROCm 5, R0000 layout); only `name`, `clockRate` and `gcnArchName`
//     are read, from a zeroed buffer larger than either layout, at the offsets of the chosen
//     layout. DeviceInfo::Arch is gcnArchName's processor, ClockMHz clockRate / 1000.
//   - Device: the first device whose gcnArchName's processor (before ':') equals the code
//     object's processor; otherwise an input error naming both.
//   - Launch: hipModuleLaunchKernel with the grid in workgroups (GridItems / Block; HIP's module
//     launch cannot express a partial last workgroup, so GridItems must be a multiple of Block)
//     and the kernarg segment passed raw through `extra` = {HIP_LAUNCH_PARAM_BUFFER_POINTER, buf,
//     HIP_LAUNCH_PARAM_BUFFER_SIZE, &size, HIP_LAUNCH_PARAM_END}.
//   - Hidden kernel arguments (code object v5 hidden_block_count_*, hidden_group_size_*,
//     hidden_dynamic_lds_size, ...): the runtime fills them. ROCclr's ihipLaunchKernelCommand
//     (ROCm/clr hipamd/src/hip_module.cpp) reads from the `extra` buffer only the kernel's
//     explicit parameters, each at its metadata offset (kernel->signature().numParameters()),
//     then builds the whole kernarg segment itself, writing the hidden arguments (read in the
//     ROCm/clr sources, not observed on hardware). So the buffer
//     is LaunchParams::Kernarg as given (callers such as kernel-run pass the full segment with
//     zeroed hidden arguments; any bytes there are ignored by the runtime), zero-padded to the
//     kernel's kernarg segment size when shorter so the runtime never reads past it, and its
//     size is that length. A Kernarg longer than the segment is an input error (as on emu).
//   - Memory: hipMalloc, then zero-filled with hipMemcpy from a zeroed host buffer (the
//     emulator's allocations are zero and kernel-run's zeros:BYTES relies on it). read/write
//     are checked against the backend's allocations first, with the emulator's messages.
//   - Timing: hipEventRecord around the launch on the null stream, hipEventSynchronize on the
//     stop event, hipEventElapsedTime: LaunchResult::Seconds is GPU time. Then
//     hipDeviceSynchronize and hipGetLastError catch faults of the kernel.
//   - Cache flush (flushCaches, before kernel-time's timed launches): hipMemset over a device
//     buffer of the asked size, then hipDeviceSynchronize. The buffer is allocated on the first
//     flush (again, larger, when a later one asks for more), kept for the device's life and
//     freed with it; it is none of the caller's allocations (read/write/free refuse it). Each
//     flush writes another byte value, so no flush finds the previous one's data in place.
//   - Errors: every failing call is reported as "<call> failed: <hipGetErrorString text>
//     (<hipError name>, <code>)" -- a runtime error (exit 3), except a launch that cannot be
//     made: hipModuleGetFunction failing, or hipModuleLaunchKernel refusing the launch
//     (invalid value/configuration/device function/image, not found, out of resources, launch
//     failure) -- an input error (exit 2). Faults of the kernel surface at the waits (exit 3).
//     ROCm 5's hipGetErrorString returns the name itself; then the name is not repeated.
#include "device/Device.h"
#include "device/HipApi.h"

#include "codeobj/KernelArgs.h"
#include "support/AddressRanges.h"
#include "support/Error.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

namespace asmevo::device {

namespace hip {

const char *hipErrorName(hipError_t E) {
  switch (E) {
  case hipSuccess:
    return "hipSuccess";
  case hipErrorInvalidValue:
    return "hipErrorInvalidValue";
  case hipErrorOutOfMemory:
    return "hipErrorOutOfMemory";
  case hipErrorNotInitialized:
    return "hipErrorNotInitialized";
  case hipErrorInvalidConfiguration:
    return "hipErrorInvalidConfiguration";
  case hipErrorInvalidDevicePointer:
    return "hipErrorInvalidDevicePointer";
  case hipErrorInvalidDeviceFunction:
    return "hipErrorInvalidDeviceFunction";
  case hipErrorNoDevice:
    return "hipErrorNoDevice";
  case hipErrorInvalidDevice:
    return "hipErrorInvalidDevice";
  case hipErrorInvalidImage:
    return "hipErrorInvalidImage";
  case hipErrorNoBinaryForGpu:
    return "hipErrorNoBinaryForGpu";
  case hipErrorInvalidHandle:
    return "hipErrorInvalidHandle";
  case hipErrorNotFound:
    return "hipErrorNotFound";
  case hipErrorIllegalAddress:
    return "hipErrorIllegalAddress";
  case hipErrorLaunchOutOfResources:
    return "hipErrorLaunchOutOfResources";
  case hipErrorLaunchFailure:
    return "hipErrorLaunchFailure";
  case hipErrorNotSupported:
    return "hipErrorNotSupported";
  default:
    return nullptr;
  }
}

} // namespace hip

namespace {

using namespace hip;

// "invalid device image (hipErrorInvalidImage, 200)". ROCm 5's hipGetErrorString returns the
// name itself ("hipErrorInvalidImage"); then the name is not repeated: "hipErrorInvalidImage
// (200)".
std::string describe(const HipApi &Api, hipError_t E) {
  const char *Text = Api.GetErrorString ? Api.GetErrorString(E) : nullptr;
  std::string T = Text && *Text ? Text : "unknown error";
  const char *Name = hipErrorName(E);
  if (Name && T != Name)
    return T + " (" + Name + ", " + std::to_string(E) + ")";
  return T + " (" + std::to_string(E) + ")";
}

// "<call> failed[<context>]: <description>".
llvm::Error callError(const HipApi &Api, const std::string &Call, hipError_t E,
                      const std::string &Context = "", ErrorKind Kind = ErrorKind::Runtime) {
  std::string M = Call + " failed" + Context + ": " + describe(Api, E);
  return Kind == ErrorKind::Runtime ? runtimeError(M) : makeError(M);
}

// Load the runtime and resolve the entry points. Failing to find a library is an input error
// (the caller asked for hardware this machine does not offer); so is a library that lacks an
// entry point (not a usable HIP runtime).
llvm::Expected<std::shared_ptr<HipApi>> loadRuntime() {
  std::vector<std::string> Names;
  if (const char *E = std::getenv("ASMEVO_HIP_LIBRARY"); E && *E)
    Names.push_back(E);
  else
    Names = {"libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5"};
  void *H = nullptr;
  std::string Tried, Name;
  for (const std::string &N : Names) {
    dlerror();
    H = dlopen(N.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (H) {
      Name = N;
      break;
    }
    const char *Why = dlerror();
    Tried += (Tried.empty() ? "" : "; ") + (Why ? std::string(Why) : N + ": cannot be loaded");
  }
  if (!H)
    return makeError("no ROCm runtime found: " + Tried);
  auto Api = std::make_shared<HipApi>();
  // The name stays valid: each successfully loaded name is kept for the process's lifetime.
  static std::set<std::string> LoadedNames;
  static std::mutex NamesLock;
  {
    std::lock_guard<std::mutex> G(NamesLock);
    Api->Library = LoadedNames.insert(Name).first->c_str();
  }
  std::string Missing;
  auto get = [&](auto &Fn, const char *Sym) {
    dlerror();
    void *P = dlsym(H, Sym);
    if (!P)
      Missing += (Missing.empty() ? "" : ", ") + std::string(Sym);
    Fn = reinterpret_cast<std::remove_reference_t<decltype(Fn)>>(P);
  };
  get(Api->GetDeviceCount, "hipGetDeviceCount");
  get(Api->SetDevice, "hipSetDevice");
  if (dlsym(H, "hipGetDevicePropertiesR0600")) {
    get(Api->GetDeviceProperties, "hipGetDevicePropertiesR0600");
    Api->PropsR0600 = true;
  } else {
    get(Api->GetDeviceProperties, "hipGetDeviceProperties");
  }
  get(Api->Malloc, "hipMalloc");
  get(Api->Free, "hipFree");
  get(Api->Memcpy, "hipMemcpy");
  get(Api->Memset, "hipMemset");
  get(Api->ModuleLoadData, "hipModuleLoadData");
  get(Api->ModuleUnload, "hipModuleUnload");
  get(Api->ModuleGetFunction, "hipModuleGetFunction");
  get(Api->ModuleLaunchKernel, "hipModuleLaunchKernel");
  get(Api->EventCreate, "hipEventCreate");
  get(Api->EventRecord, "hipEventRecord");
  get(Api->EventSynchronize, "hipEventSynchronize");
  get(Api->EventElapsedTime, "hipEventElapsedTime");
  get(Api->EventDestroy, "hipEventDestroy");
  get(Api->DeviceSynchronize, "hipDeviceSynchronize");
  get(Api->GetErrorString, "hipGetErrorString");
  get(Api->GetLastError, "hipGetLastError");
  if (!Missing.empty())
    return makeError("no ROCm runtime found: " + Name + " lacks " + Missing);
  Api->ModuleGetGlobal =
      reinterpret_cast<decltype(Api->ModuleGetGlobal)>(dlsym(H, "hipModuleGetGlobal"));
  Api->Emulated = dlsym(H, "asmevoHipEmulatedRuntime") != nullptr;
  auto optional = [&](auto &Fn, const char *Sym) {
    Fn = reinterpret_cast<std::remove_reference_t<decltype(Fn)>>(dlsym(H, Sym));
  };
  optional(Api->MemAddressReserve, "hipMemAddressReserve");
  optional(Api->MemAddressFree, "hipMemAddressFree");
  optional(Api->MemCreate, "hipMemCreate");
  optional(Api->MemRelease, "hipMemRelease");
  optional(Api->MemMap, "hipMemMap");
  optional(Api->MemUnmap, "hipMemUnmap");
  optional(Api->MemSetAccess, "hipMemSetAccess");
  optional(Api->MemGetAllocationGranularity, "hipMemGetAllocationGranularity");
  return Api;
}

// The processor of a gcnArchName: "gfx942:sramecc+:xnack-" -> "gfx942".
std::string processorOf(const std::string &Arch) { return Arch.substr(0, Arch.find(':')); }

class HipModule : public Module {
public:
  // Known: the device's map of the memory it may copy to and from (base -> size), which gets
  // the global variables handed out while the module is loaded.
  HipModule(std::shared_ptr<HipApi> Api, const CodeObject &Code, hipModule_t M,
            std::map<uint64_t, uint64_t> &Known)
      : Api(std::move(Api)), Code(Code), M(M), Known(Known) {}
  ~HipModule() override {
    for (uint64_t A : Handed)
      Known.erase(A);
    Api->ModuleUnload(M);
  }
  const CodeObject &codeObject() const override { return Code; }
  hipModule_t handle() const { return M; }
  llvm::Expected<GlobalSymbol> global(llvm::StringRef Name) override {
    if (!Api->ModuleGetGlobal)
      return makeError(std::string(Api->Library) + " has no hipModuleGetGlobal");
    void *P = nullptr;
    size_t Bytes = 0;
    if (hipError_t E = Api->ModuleGetGlobal(&P, &Bytes, M, Name.str().c_str()))
      return callError(*Api, "hipModuleGetGlobal", E, " for '" + Name.str() + "'");
    uint64_t A = reinterpret_cast<uint64_t>(P);
    if (Bytes && Known.emplace(A, Bytes).second)
      Handed.push_back(A);
    return GlobalSymbol{A, Bytes};
  }

private:
  std::shared_ptr<HipApi> Api;
  const CodeObject &Code;
  hipModule_t M;
  std::map<uint64_t, uint64_t> &Known;
  std::vector<uint64_t> Handed;
};

// Two events, destroyed on every path.
struct EventPair {
  const HipApi &Api;
  hipEvent_t Start = nullptr, Stop = nullptr;
  explicit EventPair(const HipApi &Api) : Api(Api) {}
  ~EventPair() {
    if (Start)
      Api.EventDestroy(Start);
    if (Stop)
      Api.EventDestroy(Stop);
  }
};

class HipDevice : public Device {
public:
  HipDevice(std::shared_ptr<HipApi> Api, int Ordinal, const std::string &Name,
            const std::string &Arch, double ClockMHz)
      : Api(std::move(Api)), Ordinal(Ordinal) {
    Info.Backend = "hip";
    // On AsmEvo's emulated runtime the "GPU" is the CPU emulator: its times are host times.
    Info.Name =
        Name + " (" + Arch + ")" + (this->Api->Emulated ? ", emulated by libasmevo-hip" : "");
    Info.Hardware = !this->Api->Emulated;
    Info.Arch = processorOf(Arch);
    Info.ClockMHz = ClockMHz;
  }
  ~HipDevice() override {
    for (const auto &[Addr, Size] : Allocs)
      if (!Placed.count(Addr))
        Api->Free(reinterpret_cast<void *>(Addr));
    for (const Reservation &V : Reservations)
      release(V);
    if (FlushBuf)
      Api->Free(FlushBuf);
  }
  const DeviceInfo &info() const override { return Info; }

  llvm::Expected<uint64_t> alloc(uint64_t Size, const std::string &Name) override {
    void *P = nullptr;
    if (hipError_t E = Api->Malloc(&P, Size ? Size : 1))
      return callError(*Api, "hipMalloc", E,
                       " for device allocation '" + Name + "' of " + std::to_string(Size) +
                           " bytes");
    if (!P)
      return runtimeError("hipMalloc returned a null pointer for device allocation '" + Name +
                          "' of " + std::to_string(Size) + " bytes");
    uint64_t A = reinterpret_cast<uint64_t>(P);
    // hipMalloc'd memory is uninitialized; the emulator's is zero, and callers rely on that
    // (kernel-run's zeros:BYTES buffers). Zero it with copies from a zeroed host buffer.
    uint64_t Bytes = Size ? Size : 1;
    std::vector<uint8_t> Zeros(size_t(std::min<uint64_t>(Bytes, 16u << 20)), 0);
    for (uint64_t Off = 0; Off < Bytes; Off += Zeros.size()) {
      uint64_t N = std::min<uint64_t>(Zeros.size(), Bytes - Off);
      if (hipError_t E = Api->Memcpy(reinterpret_cast<void *>(A + Off), Zeros.data(), N,
                                     hipMemcpyHostToDevice)) {
        Api->Free(P);
        return callError(*Api, "hipMemcpy", E,
                         " zeroing device allocation '" + Name + "' of " + std::to_string(Size) +
                             " bytes");
      }
    }
    Allocs[A] = Bytes;
    return A;
  }
  llvm::Error allocAt(uint64_t Addr, uint64_t Size, const std::string &Name) override {
    return makeError("the hip backend cannot place an allocation at a chosen address (" +
                     hexText(Addr) + ")");
  }
  // Each span of granularity pages that the placements touch is reserved with its recorded
  // start as the hint (hipMemAddressReserve), backed (hipMemCreate), mapped (hipMemMap) and
  // made read-write for this device (hipMemSetAccess). The runtime may reserve elsewhere: then
  // every placement in that span moves by the same amount, and Got says where.
  llvm::Error place(std::vector<Placement> &Ps) override {
    if (Ps.empty())
      return llvm::Error::success();
    if (!Api->hasVirtualMemory())
      return makeError(std::string(Api->Library) +
                       " lacks hipMemAddressReserve, hipMemCreate, hipMemMap or hipMemSetAccess: "
                       "the hip backend cannot place memory at recorded addresses");
    unsigned char Prop[kMemAllocationPropSize];
    fillMemAllocationProp(Prop, Ordinal, Api->PropsR0600);
    size_t G = 0;
    if (hipError_t E =
            Api->MemGetAllocationGranularity(&G, Prop, hipMemAllocationGranularityMinimum))
      return callError(*Api, "hipMemGetAllocationGranularity", E);
    if (G == 0 || (G & (G - 1)))
      return runtimeError("hipMemGetAllocationGranularity returned " + std::to_string(G) +
                          ", not a power of two");
    std::vector<size_t> Order(Ps.size());
    for (size_t I = 0; I < Ps.size(); ++I)
      Order[I] = I;
    std::sort(Order.begin(), Order.end(),
              [&](size_t A, size_t B) { return Ps[A].Want < Ps[B].Want; });
    for (size_t I = 0; I < Order.size();) {
      uint64_t Lo = Ps[Order[I]].Want & ~uint64_t(G - 1);
      uint64_t Hi = Lo;
      size_t J = I;
      for (; J < Order.size(); ++J) {
        const Placement &P = Ps[Order[J]];
        if (P.Size == 0 || P.Want + P.Size < P.Want)
          return makeError("cannot place " + std::to_string(P.Size) + " bytes at " +
                           hexText(P.Want));
        if (J > I && P.Want >= Hi)
          break;
        Hi = std::max<uint64_t>(Hi, (P.Want + P.Size + G - 1) & ~uint64_t(G - 1));
      }
      auto Got = reserve(Lo, Hi - Lo, G, Prop, Ps[Order[I]].Name);
      if (!Got)
        return Got.takeError();
      for (size_t K = I; K < J; ++K) {
        Placement &P = Ps[Order[K]];
        P.Got = *Got + (P.Want - Lo);
        Allocs[P.Got] = P.Size;
        Placed.insert(P.Got);
      }
      I = J;
    }
    return llvm::Error::success();
  }
  llvm::Error free(uint64_t Addr) override {
    if (Placed.count(Addr))
      return makeError("the placed region at " + hexText(Addr) +
                       " is released with the device, not freed");
    auto It = Allocs.find(Addr);
    if (It == Allocs.end())
      return makeError("no device allocation starts at " + hexText(Addr));
    Allocs.erase(It);
    if (hipError_t E = Api->Free(reinterpret_cast<void *>(Addr)))
      return callError(*Api, "hipFree", E);
    return llvm::Error::success();
  }
  llvm::Error write(uint64_t Addr, const void *Src, uint64_t Size) override {
    if (!inside(Addr, Size))
      return makeError("device write of " + std::to_string(Size) + " bytes at " + hexText(Addr) +
                       " is outside every allocation");
    if (hipError_t E =
            Api->Memcpy(reinterpret_cast<void *>(Addr), Src, Size, hipMemcpyHostToDevice))
      return callError(*Api, "hipMemcpy", E,
                       " copying " + std::to_string(Size) + " bytes host to device at " +
                           hexText(Addr));
    return llvm::Error::success();
  }
  llvm::Error read(uint64_t Addr, void *Dst, uint64_t Size) override {
    if (!inside(Addr, Size))
      return makeError("device read of " + std::to_string(Size) + " bytes at " + hexText(Addr) +
                       " is outside every allocation");
    if (hipError_t E =
            Api->Memcpy(Dst, reinterpret_cast<const void *>(Addr), Size, hipMemcpyDeviceToHost))
      return callError(*Api, "hipMemcpy", E,
                       " copying " + std::to_string(Size) + " bytes device to host from " +
                           hexText(Addr));
    return llvm::Error::success();
  }

  llvm::Error flushCaches(uint64_t Bytes) override {
    if (Bytes == 0)
      return llvm::Error::success();
    const std::string Size = std::to_string(Bytes) + " bytes";
    if (Bytes > FlushSize) {
      if (FlushBuf) {
        void *Old = FlushBuf;
        FlushBuf = nullptr;
        FlushSize = 0;
        if (hipError_t E = Api->Free(Old))
          return callError(*Api, "hipFree", E, " releasing the cache-flush buffer");
      }
      void *P = nullptr;
      if (hipError_t E = Api->Malloc(&P, Bytes))
        return callError(*Api, "hipMalloc", E, " for the cache-flush buffer of " + Size);
      if (!P)
        return runtimeError("hipMalloc returned a null pointer for the cache-flush buffer of " +
                            Size);
      FlushBuf = P;
      FlushSize = Bytes;
    }
    int Value = int(++Flushes & 0xff);
    if (hipError_t E = Api->Memset(FlushBuf, Value, Bytes))
      return callError(*Api, "hipMemset", E, " flushing the caches (" + Size + ")");
    if (hipError_t E = Api->DeviceSynchronize())
      return callError(*Api, "hipDeviceSynchronize", E, " after flushing the caches");
    return llvm::Error::success();
  }

  llvm::Expected<std::unique_ptr<Module>> load(const CodeObject &Code) override {
    hipModule_t M = nullptr;
    // hipModuleLoadData takes the image without a size: the runtime reads the ELF's extent
    // from its headers. Code.Bytes is the whole code object.
    if (hipError_t E = Api->ModuleLoadData(&M, Code.Bytes.data()))
      return withFile(callError(*Api, "hipModuleLoadData", E), Code.Path);
    return std::make_unique<HipModule>(Api, Code, M, Globals);
  }

  llvm::Expected<LaunchResult> launch(Module &Mod, const LaunchParams &P) override {
    if (P.TrackFootprint)
      return makeError("the hip backend cannot record which bytes a kernel touches (launch "
                       "inference runs on the emu backend)");
    if (P.Trace || !P.Only.all())
      return makeError("the hip backend cannot trace a launch instruction by instruction (the "
                       "timing model runs on the emu backend)");
    auto &M = static_cast<HipModule &>(Mod);
    const CodeObject &Code = M.codeObject();
    const KernelInfo *K = Code.kernel(P.Kernel);
    if (!K) {
      std::string Names;
      for (const KernelInfo &KI : Code.Kernels)
        Names += (Names.empty() ? "" : ", ") + KI.Name;
      return makeError("'" + Code.Path + "': no kernel named '" + P.Kernel +
                       "' (kernels: " + Names + ")");
    }
    // Geometry: whole workgroups only.
    std::array<uint32_t, 3> Groups{};
    uint64_t BlockItems = 1;
    for (unsigned I = 0; I < 3; ++I) {
      if (P.Block[I] == 0 || P.GridItems[I] == 0)
        return makeError("grid and workgroup sizes must be at least 1 in every dimension");
      if (P.GridItems[I] % P.Block[I])
        return makeError("the hip backend launches whole workgroups only: grid size " +
                         std::to_string(P.GridItems[I]) + " work-items in dimension " + "xyz"[I] +
                         " is not a multiple of the workgroup size " + std::to_string(P.Block[I]) +
                         " (HIP cannot launch a partial workgroup)");
      Groups[I] = P.GridItems[I] / P.Block[I];
      BlockItems *= P.Block[I];
    }
    if (BlockItems > 1024)
      return makeError("workgroup of " + std::to_string(BlockItems) + " work-items exceeds 1024");

    // Kernarg segment: as given, zero-padded to the kernel's segment size (see the top).
    auto Sig = kernelSignature(Code, *K);
    if (!Sig)
      return Sig.takeError();
    size_t SegSize = std::max<size_t>(Sig->KernargSize, K->Kd.KernargSize);
    if (P.Kernarg.size() > SegSize && SegSize != 0)
      return makeError("the kernarg data is " + std::to_string(P.Kernarg.size()) +
                       " bytes; kernel '" + K->Name + "' takes " + std::to_string(SegSize));
    std::vector<uint8_t> Buf = P.Kernarg;
    if (Buf.size() < SegSize)
      Buf.resize(SegSize, 0);
    if (Buf.empty())
      Buf.resize(16, 0); // never a null buffer pointer
    size_t BufSize = Buf.size();

    Api->GetLastError(); // clear an error an earlier call left, so it is not blamed on this one
    hipFunction_t F = nullptr;
    if (hipError_t E = Api->ModuleGetFunction(&F, M.handle(), K->Name.c_str()))
      return callError(*Api, "hipModuleGetFunction", E, " for kernel '" + K->Name + "'",
                       ErrorKind::Input);
    EventPair Ev(*Api);
    if (hipError_t E = Api->EventCreate(&Ev.Start))
      return callError(*Api, "hipEventCreate", E);
    if (hipError_t E = Api->EventCreate(&Ev.Stop))
      return callError(*Api, "hipEventCreate", E);
    void *Extra[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, Buf.data(), HIP_LAUNCH_PARAM_BUFFER_SIZE,
                     &BufSize, HIP_LAUNCH_PARAM_END};
    if (hipError_t E = Api->EventRecord(Ev.Start, nullptr))
      return callError(*Api, "hipEventRecord", E);
    if (hipError_t E =
            Api->ModuleLaunchKernel(F, Groups[0], Groups[1], Groups[2], P.Block[0], P.Block[1],
                                    P.Block[2], P.DynamicLds, nullptr, nullptr, Extra)) {
      Api->GetLastError(); // clear the sticky error the refused launch left
      // The runtime refused the launch (bad geometry, LDS, arguments): an input error; a
      // failure of the runtime itself (out of memory, ...) a runtime one.
      bool Refused = E == hipErrorInvalidValue || E == hipErrorInvalidConfiguration ||
                     E == hipErrorInvalidDeviceFunction || E == hipErrorLaunchOutOfResources ||
                     E == hipErrorLaunchFailure || E == hipErrorInvalidImage ||
                     E == hipErrorNotFound;
      return callError(*Api, "hipModuleLaunchKernel", E, " for kernel '" + K->Name + "'",
                       Refused ? ErrorKind::Input : ErrorKind::Runtime);
    }
    const std::string After = " after launching kernel '" + K->Name + "'";
    if (hipError_t E = Api->EventRecord(Ev.Stop, nullptr))
      return callError(*Api, "hipEventRecord", E);
    if (hipError_t E = Api->EventSynchronize(Ev.Stop))
      return callError(*Api, "hipEventSynchronize", E, After);
    float Ms = 0;
    if (hipError_t E = Api->EventElapsedTime(&Ms, Ev.Start, Ev.Stop))
      return callError(*Api, "hipEventElapsedTime", E, After);
    if (hipError_t E = Api->DeviceSynchronize())
      return callError(*Api, "hipDeviceSynchronize", E, After);
    if (hipError_t E = Api->GetLastError())
      return callError(*Api, "hipGetLastError", E, After);

    LaunchResult R;
    R.Seconds = double(Ms) / 1000.0;
    R.Workgroups = uint64_t(Groups[0]) * Groups[1] * Groups[2];
    unsigned WaveSize = (K->Kd.KernelCodeProperties >> 10) & 1 ? 32 : 64;
    R.Waves = R.Workgroups * ((BlockItems + WaveSize - 1) / WaveSize);
    R.HostThreads = 0;
    return R;
  }

private:
  // One reserved, backed and mapped span of the virtual address space (place).
  struct Reservation {
    uint64_t Base = 0, Size = 0;
    hipMemGenericAllocationHandle_t Handle = nullptr;
    bool Mapped = false;
  };
  void release(const Reservation &V) {
    void *P = reinterpret_cast<void *>(V.Base);
    if (V.Mapped)
      Api->MemUnmap(P, V.Size);
    if (V.Handle)
      Api->MemRelease(V.Handle);
    Api->MemAddressFree(P, V.Size);
  }
  // Reserve Size bytes (a multiple of G) with Hint as the requested start; returns the start
  // granted. Every step's failure undoes the ones before.
  llvm::Expected<uint64_t> reserve(uint64_t Hint, uint64_t Size, size_t G,
                                   const unsigned char *Prop, const std::string &Name) {
    const std::string For =
        " for " + std::to_string(Size) + " bytes at " + hexText(Hint) + " (" + Name + ")";
    void *P = nullptr;
    if (hipError_t E = Api->MemAddressReserve(&P, Size, G, reinterpret_cast<void *>(Hint), 0))
      return callError(*Api, "hipMemAddressReserve", E, For);
    Reservation V;
    V.Base = reinterpret_cast<uint64_t>(P);
    V.Size = Size;
    if (!P || V.Base % G)
      return Api->MemAddressFree(P, Size),
             runtimeError("hipMemAddressReserve returned " + hexText(V.Base) + For);
    if (hipError_t E = Api->MemCreate(&V.Handle, Size, Prop, 0)) {
      V.Handle = nullptr;
      release(V);
      return callError(*Api, "hipMemCreate", E, For);
    }
    if (hipError_t E = Api->MemMap(P, Size, 0, V.Handle, 0)) {
      release(V);
      return callError(*Api, "hipMemMap", E, For);
    }
    V.Mapped = true;
    MemAccessDesc Access{hipMemLocationTypeDevice, Ordinal, hipMemAccessFlagsProtReadWrite};
    if (hipError_t E = Api->MemSetAccess(P, Size, &Access, 1)) {
      release(V);
      return callError(*Api, "hipMemSetAccess", E, For);
    }
    Reservations.push_back(V);
    return V.Base;
  }
  bool inside(uint64_t Addr, uint64_t Size) const {
    return withinOneRange(Allocs, Addr, Size) || withinOneRange(Globals, Addr, Size);
  }
  std::shared_ptr<HipApi> Api;
  int Ordinal = 0;
  DeviceInfo Info;
  std::map<uint64_t, uint64_t> Allocs;  // base -> size, hipMalloc'd and placed
  std::set<uint64_t> Placed;            // the bases in Allocs that place() made
  std::map<uint64_t, uint64_t> Globals; // global variables of loaded modules, base -> size
  std::vector<Reservation> Reservations;
  void *FlushBuf = nullptr; // the cache-flush buffer (flushCaches), FlushSize bytes
  uint64_t FlushSize = 0;
  uint64_t Flushes = 0;
};

} // namespace

llvm::Expected<std::unique_ptr<Device>> openHipDevice(const std::string &Processor) {
  auto ApiOr = loadRuntime();
  if (!ApiOr)
    return ApiOr.takeError();
  std::shared_ptr<HipApi> Api = *ApiOr;
  int Count = 0;
  hipError_t E = Api->GetDeviceCount(&Count);
  if (E != hipSuccess)
    return makeError("no AMD GPU found: hipGetDeviceCount returned " + describe(*Api, E));
  if (Count <= 0)
    return makeError("no AMD GPU found: hipGetDeviceCount returned 0 devices");
  std::vector<std::string> Archs;
  for (int D = 0; D < Count; ++D) {
    std::unique_ptr<char[]> Prop(new char[kPropBufferSize]());
    if (hipError_t E2 = Api->GetDeviceProperties(Prop.get(), D))
      return callError(
          *Api, Api->PropsR0600 ? "hipGetDevicePropertiesR0600" : "hipGetDeviceProperties", E2);
    auto field = [&](size_t Off) {
      return std::string(Prop.get() + Off, strnlen(Prop.get() + Off, kPropStringSize));
    };
    std::string Name = field(kPropNameOffset);
    std::string Arch = field(Api->PropsR0600 ? kPropArchOffsetR0600 : kPropArchOffsetR0000);
    int32_t ClockKHz = 0;
    std::memcpy(&ClockKHz,
                Prop.get() +
                    (Api->PropsR0600 ? kPropClockRateOffsetR0600 : kPropClockRateOffsetR0000),
                sizeof ClockKHz);
    // Above 10 GHz is no GPU's clock: a layout this backend does not know. Unknown, then.
    double ClockMHz = ClockKHz > 0 && ClockKHz < 10000000 ? ClockKHz / 1000.0 : 0;
    if (Arch.rfind("gfx", 0) != 0)
      return runtimeError(
          std::string("cannot read the architecture of GPU ") + std::to_string(D) + " from " +
          (Api->PropsR0600 ? "hipGetDevicePropertiesR0600" : "hipGetDeviceProperties") + " of " +
          Api->Library + " (gcnArchName is '" + Arch + "'): an unexpected hipDeviceProp_t layout");
    if (processorOf(Arch) == Processor) {
      if (hipError_t E2 = Api->SetDevice(D))
        return callError(*Api, "hipSetDevice", E2);
      return std::make_unique<HipDevice>(Api, D, Name, Arch, ClockMHz);
    }
    if (std::find(Archs.begin(), Archs.end(), processorOf(Arch)) == Archs.end())
      Archs.push_back(processorOf(Arch));
  }
  std::string List;
  for (const std::string &A : Archs)
    List += (List.empty() ? "" : ", ") + A;
  return makeError(std::string(Archs.size() == 1 ? "the GPU is " : "the GPUs are ") + List +
                   ", the code object is for " + Processor);
}

} // namespace asmevo::device
