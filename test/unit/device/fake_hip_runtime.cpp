// A FAKE HIP runtime for the tests of the `hip` device backend (hip_device_test.cpp): a shared
// library with the entry points HipDevice.cpp resolves, loaded through ASMEVO_HIP_LIBRARY. It
// reports one device, "Fake MI300X" with gcnArchName "gfx942:sramecc+:xnack-" and a 2100 MHz
// clockRate, fakes device memory with host malloc, checks what it is given the way ROCm's
// runtime does (the `extra` layout, memcpy kinds, an ELF image), records every call with its
// arguments (and every launch's kernarg buffer), returns a chosen sequence of elapsed times, and
// fails a chosen call with a chosen hipError_t on request (from its Nth call on, if asked).
// Control functions (fakehip_*) are found by the tests with dlsym. Nothing here runs a kernel.
//
// Built twice: libfakehip.so exports hipGetDevicePropertiesR0600 and fills the ROCm 6 layout
// (clockRate at 348, gcnArchName at 1160); with FAKE_HIP_R0000, libfakehip5.so exports only
// hipGetDeviceProperties and fills the ROCm 5 layout (clockRate at 308, gcnArchName at 396).
#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#define FAKE_API extern "C" __attribute__((visibility("default")))

namespace {

using hipError_t = int;

struct FakeModule {
  std::vector<uint8_t> Image;
};
struct FakeFunction {
  std::string Name;
};
struct FakeEvent {
  int Id;
};

// An injected failure: the call succeeds Skip more times, then returns Err.
struct Injected {
  int Err = 0;
  int Skip = 0;
};

struct State {
  std::vector<std::string> Calls;
  std::map<std::string, Injected> Fail; // call -> the error it returns
  int DeviceCount = 1;
  int CountError = 0;
  std::string Name = "Fake MI300X";
  std::string Arch = "gfx942:sramecc+:xnack-";
  int ClockRateKHz = 2100000;
  float ElapsedMs = 1.25f;
  std::vector<float> ElapsedSeq; // returned by successive hipEventElapsedTime, then ElapsedMs
  size_t ElapsedNext = 0;
  int Current = -1;
  int Sticky = 0; // what hipGetLastError returns next
  std::map<uintptr_t, size_t> Allocs;
  std::set<FakeModule *> Modules;
  std::set<FakeFunction *> Functions;
  int Events = 0, LiveEvents = 0;
  // The last module image and launch.
  const void *ImagePtr = nullptr;
  std::vector<uint8_t> Image;
  std::vector<uint8_t> Kernarg;
  size_t KernargSize = 0;
  std::vector<std::vector<uint8_t>> Kernargs; // every launch's, in order
  // Virtual memory management: reservations (host address space, PROT_NONE until an access is
  // set), handles, mappings (base -> size), and whether hipMemAddressReserve ignores its hint.
  std::map<uintptr_t, size_t> Reserved, Mapped, Accessible;
  std::set<int *> Handles;
  bool IgnoreHint = false;
};

State &st() {
  static State S;
  return S;
}

void log(const std::string &S) { st().Calls.push_back(S); }

// The injected failure of a call, if any (also the sticky error hipGetLastError reports).
int failure(const char *Call) {
  auto It = st().Fail.find(Call);
  if (It == st().Fail.end() || It->second.Err == 0)
    return 0;
  if (It->second.Skip > 0) {
    --It->second.Skip;
    return 0;
  }
  st().Sticky = It->second.Err;
  return It->second.Err;
}

std::string hex(const void *P) {
  char B[32];
  std::snprintf(B, sizeof B, "%p", P);
  return B;
}

bool isAlloc(const void *P, size_t Size) {
  uintptr_t A = reinterpret_cast<uintptr_t>(P);
  for (const auto *M : {&st().Allocs, &st().Accessible}) {
    auto It = M->upper_bound(A);
    if (It == M->begin())
      continue;
    --It;
    if (A - It->first < It->second && Size <= It->second - (A - It->first))
      return true;
  }
  return false;
}

template <typename T> T rd(const uint8_t *P) {
  T V;
  std::memcpy(&V, P, sizeof V);
  return V;
}

} // namespace

// ---- control -------------------------------------------------------------------------------

FAKE_API void fakehip_reset() {
  State &S = st();
  for (auto &[A, Size] : S.Allocs)
    std::free(reinterpret_cast<void *>(A));
  for (FakeModule *M : S.Modules)
    delete M;
  for (FakeFunction *F : S.Functions)
    delete F;
  for (auto &[A, Size] : S.Reserved)
    munmap(reinterpret_cast<void *>(A), Size);
  for (int *H : S.Handles)
    delete H;
  S = State();
}
// Make every later call of `Call` ("hipMalloc", ...) return Err (0: succeed again).
FAKE_API void fakehip_fail(const char *Call, int Err) { st().Fail[Call] = {Err, 0}; }
// The same from the call's (Skip+1)th call on: the next Skip calls still succeed.
FAKE_API void fakehip_fail_after(const char *Call, int Err, int Skip) {
  st().Fail[Call] = {Err, Skip};
}
FAKE_API void fakehip_set_devices(int Count, int CountError) {
  st().DeviceCount = Count;
  st().CountError = CountError;
}
FAKE_API void fakehip_set_arch(const char *Arch) { st().Arch = Arch; }
FAKE_API void fakehip_set_elapsed_ms(float Ms) { st().ElapsedMs = Ms; }
// Successive hipEventElapsedTime calls return Ms[0], Ms[1], ..., then the set_elapsed_ms value.
FAKE_API void fakehip_set_elapsed_sequence(const float *Ms, int Count) {
  st().ElapsedSeq.assign(Ms, Ms + Count);
  st().ElapsedNext = 0;
}
// hipDeviceProp_t::clockRate, in kHz.
FAKE_API void fakehip_set_clock_rate(int KHz) { st().ClockRateKHz = KHz; }
// Every call so far, one a line: "hipSetDevice(0)", "hipModuleLaunchKernel(...)", ...
FAKE_API const char *fakehip_calls() {
  static std::string Out;
  Out.clear();
  for (const std::string &C : st().Calls)
    Out += C + "\n";
  return Out.c_str();
}
FAKE_API int fakehip_live_allocations() { return int(st().Allocs.size()); }
// hipMemAddressReserve reserves elsewhere than the address asked for (as a runtime may).
FAKE_API void fakehip_ignore_address_hint(int On) { st().IgnoreHint = On != 0; }
// Reservations, handles and mappings not yet given back.
FAKE_API int fakehip_live_virtual_memory() {
  return int(st().Reserved.size() + st().Handles.size() + st().Mapped.size());
}
FAKE_API int fakehip_live_modules() { return int(st().Modules.size()); }
FAKE_API int fakehip_live_events() { return st().LiveEvents; }
// The last image hipModuleLoadData got: its pointer, and its bytes (the ELF's extent from its
// header) copied to Dst (up to Cap); returns the byte count.
FAKE_API size_t fakehip_last_image(const void **Ptr, void *Dst, size_t Cap) {
  *Ptr = st().ImagePtr;
  std::memcpy(Dst, st().Image.data(), std::min(Cap, st().Image.size()));
  return st().Image.size();
}
// The last launch's kernarg buffer (from `extra`) copied to Dst; returns the size `extra` gave.
FAKE_API size_t fakehip_last_kernarg(void *Dst, size_t Cap) {
  std::memcpy(Dst, st().Kernarg.data(), std::min(Cap, st().Kernarg.size()));
  return st().KernargSize;
}
// Every launch's kernarg buffer: how many launches passed one, and launch I's copied to Dst.
FAKE_API int fakehip_kernarg_count() { return int(st().Kernargs.size()); }
FAKE_API size_t fakehip_kernarg(int I, void *Dst, size_t Cap) {
  const std::vector<uint8_t> &K = st().Kernargs.at(size_t(I));
  std::memcpy(Dst, K.data(), std::min(Cap, K.size()));
  return K.size();
}

// ---- the HIP runtime API -------------------------------------------------------------------

FAKE_API const char *hipGetErrorString(hipError_t E) {
  // ROCm 6's texts for the codes the tests use.
  switch (E) {
  case 0:
    return "no error";
  case 1:
    return "invalid argument";
  case 2:
    return "out of memory";
  case 3:
    return "initialization error";
  case 98:
    return "invalid device function";
  case 100:
    return "no ROCm-capable device is detected";
  case 101:
    return "invalid device ordinal";
  case 200:
    return "invalid device image";
  case 500:
    return "named symbol not found";
  case 700:
    return "an illegal memory access was encountered";
  case 719:
    return "unspecified launch failure";
  default:
    return "unknown error";
  }
}

FAKE_API hipError_t hipGetLastError() {
  log("hipGetLastError()");
  if (int E = failure("hipGetLastError"))
    return E;
  int E = st().Sticky;
  st().Sticky = 0;
  return E;
}

FAKE_API hipError_t hipGetDeviceCount(int *Count) {
  log("hipGetDeviceCount()");
  if (int E = failure("hipGetDeviceCount"))
    return E;
  if (st().CountError) {
    *Count = 0;
    return st().Sticky = st().CountError;
  }
  *Count = st().DeviceCount;
  return 0;
}

FAKE_API hipError_t hipSetDevice(int D) {
  log("hipSetDevice(" + std::to_string(D) + ")");
  if (int E = failure("hipSetDevice"))
    return E;
  if (D < 0 || D >= st().DeviceCount)
    return st().Sticky = 101;
  st().Current = D;
  return 0;
}

static hipError_t fillProps(const char *Call, void *Prop, int D, size_t ArchOffset,
                            size_t ClockOffset, size_t Size) {
  log(std::string(Call) + "(" + std::to_string(D) + ")");
  if (int E = failure(Call))
    return E;
  if (D < 0 || D >= st().DeviceCount)
    return st().Sticky = 101;
  // Fill the whole struct of this layout with junk first (a real runtime fills every field).
  std::memset(Prop, 0x5a, Size);
  char *P = static_cast<char *>(Prop);
  std::memset(P, 0, 256);
  std::strncpy(P, st().Name.c_str(), 255);
  std::memset(P + ArchOffset, 0, 256);
  std::strncpy(P + ArchOffset, st().Arch.c_str(), 255);
  std::memcpy(P + ClockOffset, &st().ClockRateKHz, sizeof(int));
  return 0;
}

#ifdef FAKE_HIP_R0000
FAKE_API hipError_t hipGetDeviceProperties(void *Prop, int D) {
  return fillProps("hipGetDeviceProperties", Prop, D, 396, 308, 792);
}
#else
FAKE_API hipError_t hipGetDevicePropertiesR0600(void *Prop, int D) {
  return fillProps("hipGetDevicePropertiesR0600", Prop, D, 1160, 348, 1472);
}
#endif

// ---- virtual memory management: the host's own address space, reserved with mmap ----------

// hipMemAllocationProp for pinned memory on device 0, in this build's layout (HipApi.h).
static bool propOk(const void *Prop) {
  const uint8_t *P = static_cast<const uint8_t *>(Prop);
#ifdef FAKE_HIP_R0000
  return rd<int>(P + 4) == 1 && rd<int>(P + 8) == 0 && rd<int>(P + 12) == 0 && rd<int>(P + 16) == 1;
#else
  return rd<int>(P) == 1 && rd<int>(P + 4) == 0 && rd<int>(P + 8) == 1 && rd<int>(P + 12) == 0;
#endif
}

FAKE_API hipError_t hipMemGetAllocationGranularity(size_t *G, const void *Prop, int Option) {
  log("hipMemGetAllocationGranularity(option " + std::to_string(Option) + ")");
  if (int E = failure("hipMemGetAllocationGranularity"))
    return E;
  if (!G || !propOk(Prop))
    return 1;
  *G = 4096;
  return 0;
}

FAKE_API hipError_t hipMemAddressReserve(void **Ptr, size_t Size, size_t Align, void *Addr,
                                         unsigned long long Flags) {
  log("hipMemAddressReserve(" + std::to_string(Size) + ", " + std::to_string(Align) + ", " +
      hex(Addr) + ", " + std::to_string(Flags) + ")");
  if (int E = failure("hipMemAddressReserve"))
    return E;
  if (!Ptr || Size % 4096 || Flags)
    return 1;
  void *P = MAP_FAILED;
  if (Addr && !st().IgnoreHint)
    P = mmap(Addr, Size, PROT_NONE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
  if (P == MAP_FAILED)
    P = mmap(nullptr, Size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (P == MAP_FAILED)
    return 2;
  st().Reserved[reinterpret_cast<uintptr_t>(P)] = Size;
  *Ptr = P;
  return 0;
}

FAKE_API hipError_t hipMemAddressFree(void *Ptr, size_t Size) {
  log("hipMemAddressFree(" + hex(Ptr) + ", " + std::to_string(Size) + ")");
  auto It = st().Reserved.find(reinterpret_cast<uintptr_t>(Ptr));
  if (It == st().Reserved.end() || It->second != Size)
    return 1;
  munmap(Ptr, Size);
  st().Reserved.erase(It);
  return 0;
}

FAKE_API hipError_t hipMemCreate(int **Handle, size_t Size, const void *Prop,
                                 unsigned long long Flags) {
  log("hipMemCreate(" + std::to_string(Size) + ")");
  if (int E = failure("hipMemCreate"))
    return E;
  if (!Handle || !propOk(Prop) || Size % 4096 || Flags)
    return 1;
  *Handle = new int(int(Size / 4096));
  st().Handles.insert(*Handle);
  return 0;
}

FAKE_API hipError_t hipMemRelease(int *Handle) {
  log("hipMemRelease");
  if (!st().Handles.erase(Handle))
    return 1;
  delete Handle;
  return 0;
}

FAKE_API hipError_t hipMemMap(void *Ptr, size_t Size, size_t Offset, int *Handle,
                              unsigned long long Flags) {
  log("hipMemMap(" + hex(Ptr) + ", " + std::to_string(Size) + ")");
  if (int E = failure("hipMemMap"))
    return E;
  if (!st().Handles.count(Handle) || size_t(*Handle) * 4096 != Size || Offset || Flags)
    return 1;
  st().Mapped[reinterpret_cast<uintptr_t>(Ptr)] = Size;
  return 0;
}

FAKE_API hipError_t hipMemSetAccess(void *Ptr, size_t Size, const int *Desc, size_t Count) {
  log("hipMemSetAccess(" + hex(Ptr) + ", " + std::to_string(Size) + ", {" +
      std::to_string(Desc[0]) + ", " + std::to_string(Desc[1]) + ", " + std::to_string(Desc[2]) +
      "}, " + std::to_string(Count) + ")");
  if (int E = failure("hipMemSetAccess"))
    return E;
  if (!st().Mapped.count(reinterpret_cast<uintptr_t>(Ptr)))
    return 1;
  mprotect(Ptr, Size, PROT_READ | PROT_WRITE);
  st().Accessible[reinterpret_cast<uintptr_t>(Ptr)] = Size;
  return 0;
}

FAKE_API hipError_t hipMemUnmap(void *Ptr, size_t Size) {
  log("hipMemUnmap(" + hex(Ptr) + ", " + std::to_string(Size) + ")");
  if (!st().Mapped.erase(reinterpret_cast<uintptr_t>(Ptr)))
    return 1;
  st().Accessible.erase(reinterpret_cast<uintptr_t>(Ptr));
  mprotect(Ptr, Size, PROT_NONE);
  return 0;
}

FAKE_API hipError_t hipMalloc(void **Ptr, size_t Size) {
  log("hipMalloc(" + std::to_string(Size) + ")");
  if (int E = failure("hipMalloc"))
    return E;
  void *P = std::malloc(Size ? Size : 1);
  std::memset(P, 0xa5, Size ? Size : 1); // uninitialized, as hipMalloc's memory is
  st().Allocs[reinterpret_cast<uintptr_t>(P)] = Size;
  *Ptr = P;
  return 0;
}

FAKE_API hipError_t hipFree(void *Ptr) {
  log("hipFree(" + hex(Ptr) + ")");
  if (int E = failure("hipFree"))
    return E;
  auto It = st().Allocs.find(reinterpret_cast<uintptr_t>(Ptr));
  if (It == st().Allocs.end())
    return st().Sticky = 17; // hipErrorInvalidDevicePointer
  std::free(Ptr);
  st().Allocs.erase(It);
  return 0;
}

FAKE_API hipError_t hipMemcpy(void *Dst, const void *Src, size_t Size, int Kind) {
  log("hipMemcpy(" + hex(Dst) + ", " + hex(Src) + ", " + std::to_string(Size) + ", kind " +
      std::to_string(Kind) + ")");
  if (int E = failure("hipMemcpy"))
    return E;
  // hipMemcpyHostToDevice = 1, hipMemcpyDeviceToHost = 2: the device side must be ours.
  if ((Kind == 1 && !isAlloc(Dst, Size)) || (Kind == 2 && !isAlloc(Src, Size)) ||
      (Kind != 1 && Kind != 2))
    return st().Sticky = 1;
  std::memcpy(Dst, Src, Size);
  return 0;
}

FAKE_API hipError_t hipMemset(void *Dst, int Value, size_t Size) {
  log("hipMemset(" + hex(Dst) + ", " + std::to_string(Value) + ", " + std::to_string(Size) + ")");
  if (int E = failure("hipMemset"))
    return E;
  if (!isAlloc(Dst, Size))
    return st().Sticky = 1;
  std::memset(Dst, Value, Size);
  return 0;
}

FAKE_API hipError_t hipModuleLoadData(void **Module, const void *Image) {
  log("hipModuleLoadData(" + hex(Image) + ")");
  st().ImagePtr = Image;
  st().Image.clear();
  if (int E = failure("hipModuleLoadData"))
    return E;
  const uint8_t *B = static_cast<const uint8_t *>(Image);
  if (!B ||
      std::memcmp(B,
                  "\x7f"
                  "ELF",
                  4) != 0 ||
      B[4] != 2)
    return st().Sticky = 200;
  // The extent of an ELF64 image: its section headers end it (as the runtime computes it).
  uint64_t ShOff = rd<uint64_t>(B + 0x28);
  uint16_t ShEntSize = rd<uint16_t>(B + 0x3a), ShNum = rd<uint16_t>(B + 0x3c);
  size_t Size = size_t(ShOff + uint64_t(ShEntSize) * ShNum);
  st().Image.assign(B, B + Size);
  auto *M = new FakeModule{st().Image};
  st().Modules.insert(M);
  *Module = M;
  return 0;
}

FAKE_API hipError_t hipModuleUnload(void *Module) {
  log("hipModuleUnload(" + hex(Module) + ")");
  if (int E = failure("hipModuleUnload"))
    return E;
  auto *M = static_cast<FakeModule *>(Module);
  if (!st().Modules.erase(M))
    return st().Sticky = 400;
  delete M;
  return 0;
}

FAKE_API hipError_t hipModuleGetFunction(void **Function, void *Module, const char *Name) {
  log(std::string("hipModuleGetFunction(") + Name + ")");
  if (int E = failure("hipModuleGetFunction"))
    return E;
  auto *M = static_cast<FakeModule *>(Module);
  if (!st().Modules.count(M))
    return st().Sticky = 400;
  // Crude but enough: the symbol's name must appear in the image (in .strtab/.dynstr).
  std::string N(Name);
  N.push_back('\0');
  auto It = std::search(M->Image.begin(), M->Image.end(), N.begin(), N.end());
  if (It == M->Image.end())
    return st().Sticky = 500;
  auto *F = new FakeFunction{Name};
  st().Functions.insert(F);
  *Function = F;
  return 0;
}

FAKE_API hipError_t hipModuleLaunchKernel(void *Function, unsigned GX, unsigned GY, unsigned GZ,
                                          unsigned BX, unsigned BY, unsigned BZ, unsigned Shared,
                                          void *Stream, void **KernelParams, void **Extra) {
  auto *F = static_cast<FakeFunction *>(Function);
  std::string L = "hipModuleLaunchKernel(" + (st().Functions.count(F) ? F->Name : "?") + ", grid " +
                  std::to_string(GX) + "," + std::to_string(GY) + "," + std::to_string(GZ) +
                  ", block " + std::to_string(BX) + "," + std::to_string(BY) + "," +
                  std::to_string(BZ) + ", shared " + std::to_string(Shared) + ", stream " +
                  hex(Stream) + ", params " + hex(KernelParams);
  st().Kernarg.clear();
  st().KernargSize = 0;
  if (Extra) {
    L += ", extra {" + hex(Extra[0]) + ", buf, " + hex(Extra[2]) + ", &" +
         std::to_string(*static_cast<size_t *>(Extra[3])) + ", " + hex(Extra[4]) + "}";
    // ROCclr's check of the layout (HIP_LAUNCH_PARAM_BUFFER_POINTER 1, _SIZE 2, _END 3).
    if (Extra[0] != reinterpret_cast<void *>(1) || Extra[2] != reinterpret_cast<void *>(2) ||
        Extra[4] != reinterpret_cast<void *>(3)) {
      log(L + ")");
      return st().Sticky = 1;
    }
    st().KernargSize = *static_cast<size_t *>(Extra[3]);
    const uint8_t *B = static_cast<const uint8_t *>(Extra[1]);
    st().Kernarg.assign(B, B + st().KernargSize);
    st().Kernargs.push_back(st().Kernarg);
  }
  log(L + ")");
  if (int E = failure("hipModuleLaunchKernel"))
    return E;
  if (!st().Functions.count(F) || (KernelParams && Extra))
    return st().Sticky = 1;
  if (!GX || !GY || !GZ)
    return st().Sticky = 1;
  if (!BX || !BY || !BZ)
    return st().Sticky = 9;
  return 0;
}

FAKE_API hipError_t hipEventCreate(void **Event) {
  log("hipEventCreate()");
  if (int E = failure("hipEventCreate"))
    return E;
  *Event = new FakeEvent{++st().Events};
  ++st().LiveEvents;
  return 0;
}

FAKE_API hipError_t hipEventRecord(void *Event, void *Stream) {
  log("hipEventRecord(event " + std::to_string(static_cast<FakeEvent *>(Event)->Id) + ", stream " +
      hex(Stream) + ")");
  if (int E = failure("hipEventRecord"))
    return E;
  return 0;
}

FAKE_API hipError_t hipEventSynchronize(void *Event) {
  log("hipEventSynchronize(event " + std::to_string(static_cast<FakeEvent *>(Event)->Id) + ")");
  if (int E = failure("hipEventSynchronize"))
    return E;
  return 0;
}

FAKE_API hipError_t hipEventElapsedTime(float *Ms, void *Start, void *Stop) {
  log("hipEventElapsedTime(event " + std::to_string(static_cast<FakeEvent *>(Start)->Id) +
      ", event " + std::to_string(static_cast<FakeEvent *>(Stop)->Id) + ")");
  if (int E = failure("hipEventElapsedTime"))
    return E;
  State &S = st();
  *Ms = S.ElapsedNext < S.ElapsedSeq.size() ? S.ElapsedSeq[S.ElapsedNext++] : S.ElapsedMs;
  return 0;
}

FAKE_API hipError_t hipEventDestroy(void *Event) {
  log("hipEventDestroy(event " + std::to_string(static_cast<FakeEvent *>(Event)->Id) + ")");
  if (int E = failure("hipEventDestroy"))
    return E;
  delete static_cast<FakeEvent *>(Event);
  --st().LiveEvents;
  return 0;
}

FAKE_API hipError_t hipDeviceSynchronize() {
  log("hipDeviceSynchronize()");
  if (int E = failure("hipDeviceSynchronize"))
    return E;
  return 0;
}
