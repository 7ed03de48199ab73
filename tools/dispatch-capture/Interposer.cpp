// libasmevo-capture.so: dispatch-capture's interposer, loaded into the application with
// LD_PRELOAD over whichever HIP runtime it uses (ROCm's libamdhip64, or libasmevo-hip). It
// wraps the runtime's allocation, module and launch entry points, and dlsym, so that a program
// that dlopens the runtime and looks its functions up (Triton) is seen too. It records the
// selected dispatch into a capture bundle (launch/CaptureDispatch.h) and reports what happened
// in a JSON status file for the dispatch-capture tool. Its configuration comes from the
// environment the tool sets:
//   ASMEVO_CAPTURE_OUT      the bundle to write
//   ASMEVO_CAPTURE_STATUS   the status file (JSON, written atomically)
//   ASMEVO_CAPTURE_KERNEL   a regular expression a kernel name must match (default: any)
//   ASMEVO_CAPTURE_NTH      capture the Nth matching dispatch, from 0
//   ASMEVO_CAPTURE_MAX_BYTES
//   ASMEVO_CAPTURE_PID      the application's process id: a process it starts inherits
//                           LD_PRELOAD but captures nothing and writes no status
// The wrappers call the runtime's own functions; nothing about the application's behaviour
// changes except that the captured dispatch is synchronized before and after.
#include "codeobj/Container.h"
#include "device/HipApi.h"
#include "launch/CaptureDispatch.h"
#include "support/Error.h"
#include "support/FileIO.h"

#include "llvm/Support/Regex.h"

#include <nlohmann/json.hpp>

#include <dlfcn.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

using namespace asmevo;
using hipError_t = int;
using device::hip::kPropArchOffsetR0000;
using device::hip::kPropArchOffsetR0600;
using device::hip::kPropBufferSize;
using device::hip::kPropStringSize;

namespace {

// dim3 (hip_runtime_api.h): three unsigned, passed by value.
struct Dim3 {
  uint32_t X, Y, Z;
};

struct Module {
  std::vector<uint8_t> Bytes; // the code object the kernel will come from
  std::string Origin;
};
struct Function {
  const void *Module = nullptr;
  std::string Name;
};
struct HostFunction {
  const void *FatBinary = nullptr;
  std::string Name;
};

struct State {
  std::recursive_mutex Lock;
  bool Configured = false;
  bool Active = false;           // the application's own process
  void *RuntimeHandle = nullptr; // what the application's dlsym looked HIP functions up in
  std::string Out, StatusPath, Pattern;
  llvm::Regex Kernel{".*"};
  uint64_t Nth = 0, MaxBytes = 0, Matched = 0;
  bool Done = false; // captured, or failed trying
  std::map<uint64_t, uint64_t> Allocations;
  std::map<const void *, Module> Modules;           // hipModule_t -> code object
  std::map<const void *, Function> Functions;       // hipFunction_t -> module, name
  std::map<const void *, const char *> FatBinaries; // __hipRegisterFatBinary handle -> image
  std::map<const void *, HostFunction> HostFunctions;
  // __hipRegisterVar: (fat binary handle, device name) -> the host shadow variable.
  std::map<std::pair<const void *, std::string>, const void *> HostVars;
  std::map<std::string, uint64_t> Seen; // dispatches seen, by kernel name
  std::map<std::string, void *> Real;   // the runtime's functions, as dlsym found them
};

State &state() {
  static State *S = new State(); // never destroyed: the application may launch from atexit
  return *S;
}

uint64_t envNumber(const char *Name, uint64_t Default) {
  const char *V = std::getenv(Name);
  return V && *V ? std::strtoull(V, nullptr, 0) : Default;
}

void configure(State &S) {
  if (S.Configured)
    return;
  S.Configured = true;
  S.Active = envNumber("ASMEVO_CAPTURE_PID", 0) == uint64_t(getpid());
  if (const char *V = std::getenv("ASMEVO_CAPTURE_OUT"))
    S.Out = V;
  if (const char *V = std::getenv("ASMEVO_CAPTURE_STATUS"))
    S.StatusPath = V;
  if (const char *V = std::getenv("ASMEVO_CAPTURE_KERNEL"); V && *V) {
    S.Pattern = V;
    S.Kernel = llvm::Regex(V);
  }
  S.Nth = envNumber("ASMEVO_CAPTURE_NTH", 0);
  S.MaxBytes = envNumber("ASMEVO_CAPTURE_MAX_BYTES", 1ull << 30);
}

void writeStatus(State &S, const nlohmann::json &J) {
  if (S.StatusPath.empty())
    return;
  llvm::consumeError(writeFileAtomic(S.StatusPath, J.dump(2) + "\n", 0600));
}

nlohmann::json seenJson(const State &S) {
  nlohmann::json J = nlohmann::json::object();
  for (const auto &[Name, N] : S.Seen)
    J[Name] = N;
  return J;
}

// At exit without a capture: say what was seen, so that the tool can tell "no dispatch
// matched" from "the application died first" (no status file at all).
struct ExitReport {
  ~ExitReport() {
    State &S = state();
    std::lock_guard<std::recursive_mutex> G(S.Lock);
    configure(S);
    if (S.Active && !S.Done)
      writeStatus(S, {{"state", "none"}, {"dispatches", seenJson(S)}});
  }
} TheExitReport;

using DlsymFn = void *(*)(void *, const char *);
DlsymFn realDlsym() {
  static DlsymFn F = [] {
    void *P = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
    if (!P)
      P = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
    return reinterpret_cast<DlsymFn>(P);
  }();
  return F;
}

void *wrapperFor(const char *Name);

// The runtime's Name: the one the application's dlsym found, else one from the library it
// looked HIP functions up in (loaded RTLD_LOCAL, as Triton does), else the next definition after
// this library (a program linked against the runtime). Null if there is none.
void *lookup(const char *Name) {
  State &S = state();
  std::lock_guard<std::recursive_mutex> G(S.Lock);
  auto It = S.Real.find(Name);
  if (It != S.Real.end())
    return It->second;
  void *P = S.RuntimeHandle ? realDlsym()(S.RuntimeHandle, Name) : nullptr;
  return P ? P : realDlsym()(RTLD_NEXT, Name);
}

void *real(const char *Name) {
  void *P = lookup(Name);
  if (!P) {
    std::fprintf(stderr, "asmevo-capture: no HIP runtime function %s\n", Name);
    std::abort();
  }
  return P;
}

template <typename F> F realFn(const char *Name) { return reinterpret_cast<F>(real(Name)); }

// "hipErrorIllegalAddress (700)", from the runtime's own names.
std::string errorName(hipError_t E) {
  auto Name = reinterpret_cast<const char *(*)(hipError_t)>(lookup("hipGetErrorName"));
  const char *N = Name ? Name(E) : nullptr;
  return (N ? std::string(N) + " " : std::string()) + "(" + std::to_string(E) + ")";
}

llvm::Error readDevice(uint64_t Base, uint64_t Size, std::vector<uint8_t> &Out) {
  Out.resize(Size);
  auto Memcpy = realFn<hipError_t (*)(void *, const void *, size_t, int)>("hipMemcpy");
  if (hipError_t E = Memcpy(Out.data(), reinterpret_cast<const void *>(Base), Size,
                            device::hip::hipMemcpyDeviceToHost))
    return runtimeError("hipMemcpy of " + std::to_string(Size) + " bytes from device address " +
                        std::to_string(Base) + " failed with " + errorName(E));
  return llvm::Error::success();
}

using GlobalAt = std::optional<std::pair<uint64_t, uint64_t>>;

// A module's global variable, through hipModuleGetGlobal.
GlobalAt moduleGlobal(const void *Module, const std::string &Name) {
  using Fn = hipError_t (*)(void **, size_t *, const void *, const char *);
  auto Get = reinterpret_cast<Fn>(lookup("hipModuleGetGlobal"));
  void *P = nullptr;
  size_t N = 0;
  if (!Get || Get(&P, &N, Module, Name.c_str()) || !P)
    return std::nullopt;
  return std::make_pair(reinterpret_cast<uint64_t>(P), uint64_t(N));
}

// A fat binary's global variable, through its registered host shadow variable.
GlobalAt fatBinaryGlobal(const void *FatBinary, const std::string &Name) {
  State &S = state();
  auto It = S.HostVars.find({FatBinary, Name});
  if (It == S.HostVars.end())
    return std::nullopt;
  auto Addr =
      reinterpret_cast<hipError_t (*)(void **, const void *)>(lookup("hipGetSymbolAddress"));
  auto Size = reinterpret_cast<hipError_t (*)(size_t *, const void *)>(lookup("hipGetSymbolSize"));
  void *P = nullptr;
  size_t N = 0;
  if (!Addr || !Size || Addr(&P, It->second) || Size(&N, It->second) || !P)
    return std::nullopt;
  return std::make_pair(reinterpret_cast<uint64_t>(P), uint64_t(N));
}

hipError_t synchronize() { return realFn<hipError_t (*)()>("hipDeviceSynchronize")(); }

// "AMD Instinct MI300X" and "gfx942:sramecc+:xnack-", from whichever properties layout the
// runtime has (device/HipApi.h).
std::pair<std::string, std::string> deviceNames() {
  std::vector<char> P(kPropBufferSize, 0);
  bool R0600 = lookup("hipGetDevicePropertiesR0600") != nullptr;
  auto Get = realFn<hipError_t (*)(void *, int)>(R0600 ? "hipGetDevicePropertiesR0600"
                                                       : "hipGetDeviceProperties");
  if (Get(P.data(), 0))
    return {"", ""};
  size_t Arch = R0600 ? kPropArchOffsetR0600 : kPropArchOffsetR0000;
  return {std::string(P.data(), strnlen(P.data(), kPropStringSize)),
          std::string(P.data() + Arch, strnlen(P.data() + Arch, kPropStringSize))};
}

std::string runtimeName() {
  Dl_info I{};
  std::string Name = dladdr(real("hipModuleLaunchKernel"), &I) && I.dli_fname ? I.dli_fname : "?";
  int V = 0;
  if (!realFn<hipError_t (*)(int *)>("hipRuntimeGetVersion")(&V))
    Name += " " + std::to_string(V);
  return Name;
}

// The launch the wrappers are about to make, and whether this is the one to capture. The
// caller holds the lock.
bool selected(State &S, const std::string &Kernel) {
  configure(S);
  if (!S.Active)
    return false;
  ++S.Seen[Kernel];
  if (S.Done || !S.Kernel.match(Kernel))
    return false;
  return S.Matched++ == S.Nth;
}

// Record the dispatch around Launch (which makes the runtime call).
template <typename LaunchFn> hipError_t capture(State &S, launch::DispatchCall D, LaunchFn Launch) {
  S.Done = true;
  // The status says which kind of error it was: an input error (a region over --max-bytes, a
  // kernel whose arguments do not pack) or a runtime one (a failing call or launch).
  auto Fail = [&](llvm::Error E) {
    std::string Kind = "input", Message;
    llvm::handleAllErrors(
        std::move(E),
        [&](const ToolError &T) {
          Kind = T.Kind == ErrorKind::Runtime ? "runtime" : "input";
          Message = formatError(T);
        },
        [&](const llvm::ErrorInfoBase &B) { Message = B.message(); });
    writeStatus(S,
                {{"state", "error"}, {"kind", Kind}, {"kernel", D.Kernel}, {"message", Message}});
  };
  if (hipError_t E = synchronize()) {
    Fail(runtimeError("hipDeviceSynchronize before the dispatch failed with " + errorName(E)));
    return Launch();
  }
  std::vector<launch::DeviceAllocation> Allocs;
  for (const auto &[Base, Size] : S.Allocations)
    Allocs.push_back({Base, Size});
  auto B = launch::capturePreState(D, Allocs, readDevice, S.MaxBytes);
  if (!B) {
    Fail(B.takeError());
    return Launch();
  }
  hipError_t R = Launch();
  hipError_t Sync = R ? R : synchronize();
  if (Sync) {
    Fail(runtimeError("the dispatch itself failed with " + errorName(Sync)));
    return R;
  }
  if (llvm::Error E = launch::capturePostState(*B, D, readDevice)) {
    Fail(std::move(E));
    return R;
  }
  B->Nth = S.Seen[D.Kernel] - 1;
  B->Runtime = runtimeName();
  auto [Name, Arch] = deviceNames();
  B->Device = Name + " " + Arch;
  if (llvm::Error E = launch::writeCaptureBundle(*B, S.Out)) {
    Fail(std::move(E));
    return R;
  }
  uint64_t Bytes = 0;
  for (const launch::CapturedRegion &G : B->Regions)
    Bytes += G.size();
  for (const launch::CapturedGlobal &G : B->Globals)
    Bytes += G.Pre.size();
  writeStatus(S, {{"state", "captured"},
                  {"kernel", D.Kernel},
                  {"nth", B->Nth},
                  {"regions", B->Regions.size()},
                  {"globals", B->Globals.size()},
                  {"bytes", Bytes},
                  {"runtime", B->Runtime},
                  {"device", B->Device},
                  {"dispatches", seenJson(S)}});
  return R;
}

// The selected dispatch cannot be recorded: say why, and launch it as the application asked.
template <typename LaunchFn>
hipError_t notCaptured(State &S, const std::string &Kernel, const std::string &Why,
                       LaunchFn Launch) {
  S.Done = true;
  writeStatus(S, {{"state", "error"}, {"kind", "input"}, {"kernel", Kernel}, {"message", Why}});
  return Launch();
}

// The launch a wrapper saw, but for its arguments and globals (the caller's to add).
launch::DispatchCall dispatchOf(const std::string &Kernel, const std::vector<uint8_t> &Code,
                                const std::string &Origin, std::array<uint32_t, 3> Grid,
                                std::array<uint32_t, 3> Block, uint64_t Lds, const void *Stream) {
  launch::DispatchCall D;
  D.CodeObject = llvm::StringRef(reinterpret_cast<const char *>(Code.data()), Code.size());
  D.Origin = Origin;
  D.Kernel = Kernel;
  D.GridWorkgroups = Grid;
  D.Block = Block;
  D.DynamicLds = uint32_t(Lds);
  D.Stream = reinterpret_cast<uint64_t>(Stream);
  return D;
}

// The code object for the device's processor in an image in memory: a plain code object, or a
// fat binary (an offload bundle).
bool fatBinaryCode(const char *Image, std::vector<uint8_t> &Out, std::string &Origin) {
  char Addr[32];
  std::snprintf(Addr, sizeof Addr, "%p", static_cast<const void *>(Image));
  Origin = std::string("the image at ") + Addr;
  auto Size = imageSizeInMemory(Image, Origin);
  if (!Size) {
    llvm::consumeError(Size.takeError());
    return false;
  }
  auto Found = findCodeObjects(llvm::StringRef(Image, *Size), Origin);
  if (!Found || Found->empty()) {
    if (!Found)
      llvm::consumeError(Found.takeError());
    return false;
  }
  std::string Arch = deviceNames().second;
  Arch = Arch.substr(0, Arch.find(':'));
  const EmbeddedCodeObject *Pick = Found->size() == 1 ? &Found->front() : nullptr;
  for (const EmbeddedCodeObject &E : *Found)
    if (E.Processor == Arch)
      Pick = &E;
  if (!Pick)
    return false;
  Out.assign(Image + Pick->Offset, Image + Pick->Offset + Pick->Size);
  return true;
}

// The code object in memory that a module was loaded from (an ELF or an offload bundle).
void recordImage(const void *Module, const char *Image, const std::string &Origin) {
  State &S = state();
  std::lock_guard<std::recursive_mutex> G(S.Lock);
  std::vector<uint8_t> Code;
  std::string Where;
  if (fatBinaryCode(Image, Code, Where))
    S.Modules[Module] = {std::move(Code), Origin};
}

} // namespace

extern "C" {

hipError_t hipMalloc(void **Ptr, size_t Size) {
  hipError_t E = realFn<hipError_t (*)(void **, size_t)>("hipMalloc")(Ptr, Size);
  if (!E && Ptr && *Ptr && Size) {
    State &S = state();
    std::lock_guard<std::recursive_mutex> G(S.Lock);
    S.Allocations[reinterpret_cast<uint64_t>(*Ptr)] = Size;
  }
  return E;
}

hipError_t hipFree(void *Ptr) {
  {
    State &S = state();
    std::lock_guard<std::recursive_mutex> G(S.Lock);
    S.Allocations.erase(reinterpret_cast<uint64_t>(Ptr));
  }
  return realFn<hipError_t (*)(void *)>("hipFree")(Ptr);
}

// Memory the virtual memory calls map is device memory too, from hipMemMap to hipMemUnmap.
hipError_t hipMemMap(void *Ptr, size_t Size, size_t Offset, void *Handle,
                     unsigned long long Flags) {
  hipError_t E = realFn<hipError_t (*)(void *, size_t, size_t, void *, unsigned long long)>(
      "hipMemMap")(Ptr, Size, Offset, Handle, Flags);
  if (!E && Ptr && Size) {
    State &S = state();
    std::lock_guard<std::recursive_mutex> G(S.Lock);
    S.Allocations[reinterpret_cast<uint64_t>(Ptr)] = Size;
  }
  return E;
}

hipError_t hipMemUnmap(void *Ptr, size_t Size) {
  {
    State &S = state();
    std::lock_guard<std::recursive_mutex> G(S.Lock);
    S.Allocations.erase(reinterpret_cast<uint64_t>(Ptr));
  }
  return realFn<hipError_t (*)(void *, size_t)>("hipMemUnmap")(Ptr, Size);
}

hipError_t hipExtMallocWithFlags(void **Ptr, size_t Size, unsigned Flags) {
  hipError_t E =
      realFn<hipError_t (*)(void **, size_t, unsigned)>("hipExtMallocWithFlags")(Ptr, Size, Flags);
  if (!E && Ptr && *Ptr && Size) {
    State &S = state();
    std::lock_guard<std::recursive_mutex> G(S.Lock);
    S.Allocations[reinterpret_cast<uint64_t>(*Ptr)] = Size;
  }
  return E;
}

hipError_t hipModuleLoadData(void **Module, const void *Image) {
  hipError_t E = realFn<hipError_t (*)(void **, const void *)>("hipModuleLoadData")(Module, Image);
  if (!E && Module)
    recordImage(*Module, static_cast<const char *>(Image), "the hipModuleLoadData image");
  return E;
}

hipError_t hipModuleLoadDataEx(void **Module, const void *Image, unsigned N, void *Opts,
                               void **Vals) {
  using Fn = hipError_t (*)(void **, const void *, unsigned, void *, void **);
  hipError_t E = realFn<Fn>("hipModuleLoadDataEx")(Module, Image, N, Opts, Vals);
  if (!E && Module)
    recordImage(*Module, static_cast<const char *>(Image), "the hipModuleLoadDataEx image");
  return E;
}

hipError_t hipModuleLoad(void **Module, const char *Path) {
  hipError_t E = realFn<hipError_t (*)(void **, const char *)>("hipModuleLoad")(Module, Path);
  if (E || !Module || !Path)
    return E;
  auto Bytes = readFile(Path);
  if (!Bytes) {
    llvm::consumeError(Bytes.takeError());
    return E;
  }
  auto Found = findCodeObjects((*Bytes)->getBuffer(), Path);
  State &S = state();
  std::lock_guard<std::recursive_mutex> G(S.Lock);
  if (Found && !Found->empty()) {
    std::string Arch = deviceNames().second;
    Arch = Arch.substr(0, Arch.find(':'));
    const EmbeddedCodeObject *Pick = &Found->front();
    for (const EmbeddedCodeObject &C : *Found)
      if (C.Processor == Arch)
        Pick = &C;
    const char *P = (*Bytes)->getBufferStart() + Pick->Offset;
    S.Modules[*Module] = {std::vector<uint8_t>(P, P + Pick->Size), Path};
  } else if (!Found) {
    llvm::consumeError(Found.takeError());
  }
  return E;
}

hipError_t hipModuleGetFunction(void **Function, void *Module, const char *Name) {
  hipError_t E = realFn<hipError_t (*)(void **, void *, const char *)>("hipModuleGetFunction")(
      Function, Module, Name);
  if (!E && Function && Name) {
    State &S = state();
    std::lock_guard<std::recursive_mutex> G(S.Lock);
    S.Functions[*Function] = {Module, Name};
  }
  return E;
}

hipError_t hipModuleLaunchKernel(void *F, unsigned Gx, unsigned Gy, unsigned Gz, unsigned Bx,
                                 unsigned By, unsigned Bz, unsigned Lds, void *Stream,
                                 void **Params, void **Extra) {
  using Fn = hipError_t (*)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                            unsigned, void *, void **, void **);
  Fn Real = realFn<Fn>("hipModuleLaunchKernel");
  auto Launch = [&] { return Real(F, Gx, Gy, Gz, Bx, By, Bz, Lds, Stream, Params, Extra); };
  State &S = state();
  std::lock_guard<std::recursive_mutex> G(S.Lock);
  auto Fi = S.Functions.find(F);
  std::string Name = Fi == S.Functions.end() ? "(unknown function)" : Fi->second.Name;
  if (!selected(S, Name))
    return Launch();
  auto Mi = Fi == S.Functions.end() ? S.Modules.end() : S.Modules.find(Fi->second.Module);
  if (Mi == S.Modules.end())
    return notCaptured(
        S, Name, "the code object of '" + Name + "' was not loaded through a call the capture sees",
        Launch);
  launch::DispatchCall D = dispatchOf(Name, Mi->second.Bytes, Mi->second.Origin, {Gx, Gy, Gz},
                                      {Bx, By, Bz}, Lds, Stream);
  D.KernelParams = Params;
  D.Extra = Extra;
  const void *Module = Fi->second.Module;
  D.FindGlobal = [Module](const std::string &N) { return moduleGlobal(Module, N); };
  return capture(S, D, Launch);
}

void **__hipRegisterFatBinary(const void *Data) {
  void **H = realFn<void **(*)(const void *)>("__hipRegisterFatBinary")(Data);
  struct Wrapper {
    uint32_t Magic, Version;
    const char *Binary;
    const void *Unused;
  };
  const auto *W = static_cast<const Wrapper *>(Data);
  if (W && W->Magic == 0x48495046) { // "HIPF", the clang wrapper
    State &S = state();
    std::lock_guard<std::recursive_mutex> G(S.Lock);
    S.FatBinaries[H] = W->Binary;
  }
  return H;
}

void __hipRegisterFunction(void **Modules, const void *HostFunction, char *DeviceFunction,
                           const char *DeviceName, unsigned ThreadLimit, void *Tid, void *Bid,
                           void *BlockDim, void *GridDim, int *WarpSize) {
  using Fn = void (*)(void **, const void *, char *, const char *, unsigned, void *, void *, void *,
                      void *, int *);
  realFn<Fn>("__hipRegisterFunction")(Modules, HostFunction, DeviceFunction, DeviceName,
                                      ThreadLimit, Tid, Bid, BlockDim, GridDim, WarpSize);
  State &S = state();
  std::lock_guard<std::recursive_mutex> G(S.Lock);
  S.HostFunctions[HostFunction] = {Modules, DeviceName ? DeviceName : ""};
}

void __hipRegisterVar(void **Modules, void *Var, char *HostVar, char *DeviceVar, int Ext,
                      size_t Size, int Constant, int Global) {
  using Fn = void (*)(void **, void *, char *, char *, int, size_t, int, int);
  realFn<Fn>("__hipRegisterVar")(Modules, Var, HostVar, DeviceVar, Ext, Size, Constant, Global);
  if (!DeviceVar)
    return;
  State &S = state();
  std::lock_guard<std::recursive_mutex> G(S.Lock);
  S.HostVars[{Modules, DeviceVar}] = Var;
}

hipError_t hipLaunchKernel(const void *Function, Dim3 Grid, Dim3 Block, void **Args, size_t Lds,
                           void *Stream) {
  using Fn = hipError_t (*)(const void *, Dim3, Dim3, void **, size_t, void *);
  Fn Real = realFn<Fn>("hipLaunchKernel");
  auto Launch = [&] { return Real(Function, Grid, Block, Args, Lds, Stream); };
  State &S = state();
  std::lock_guard<std::recursive_mutex> G(S.Lock);
  auto Hi = S.HostFunctions.find(Function);
  std::string Name = Hi == S.HostFunctions.end() ? "(unknown function)" : Hi->second.Name;
  if (!selected(S, Name))
    return Launch();
  std::vector<uint8_t> Code;
  std::string Origin;
  auto Fb =
      Hi == S.HostFunctions.end() ? S.FatBinaries.end() : S.FatBinaries.find(Hi->second.FatBinary);
  if (Fb == S.FatBinaries.end() || !fatBinaryCode(Fb->second, Code, Origin))
    return notCaptured(S, Name, "no code object for the device in the fat binary of '" + Name + "'",
                       Launch);
  launch::DispatchCall D = dispatchOf(Name, Code, Origin, {Grid.X, Grid.Y, Grid.Z},
                                      {Block.X, Block.Y, Block.Z}, Lds, Stream);
  D.KernelParams = Args;
  const void *FatBinary = Hi->second.FatBinary;
  D.FindGlobal = [FatBinary](const std::string &N) { return fatBinaryGlobal(FatBinary, N); };
  return capture(S, D, Launch);
}

// A program that dlopens the runtime and looks its functions up gets these wrappers, which
// then call what its lookup found.
void *dlsym(void *Handle, const char *Name) {
  void *P = realDlsym()(Handle, Name);
  if (!P || !Name)
    return P;
  void *W = wrapperFor(Name);
  if (!W || W == P)
    return P;
  State &S = state();
  std::lock_guard<std::recursive_mutex> G(S.Lock);
  S.Real.emplace(Name, P);
  if (Handle != RTLD_DEFAULT && Handle != RTLD_NEXT)
    S.RuntimeHandle = Handle;
  return W;
}

} // extern "C"

namespace {
void *wrapperFor(const char *Name) {
  static const std::map<std::string, void *> Wrappers = {
      {"hipMalloc", reinterpret_cast<void *>(&hipMalloc)},
      {"hipFree", reinterpret_cast<void *>(&hipFree)},
      {"hipMemMap", reinterpret_cast<void *>(&hipMemMap)},
      {"hipMemUnmap", reinterpret_cast<void *>(&hipMemUnmap)},
      {"hipExtMallocWithFlags", reinterpret_cast<void *>(&hipExtMallocWithFlags)},
      {"hipModuleLoad", reinterpret_cast<void *>(&hipModuleLoad)},
      {"hipModuleLoadData", reinterpret_cast<void *>(&hipModuleLoadData)},
      {"hipModuleLoadDataEx", reinterpret_cast<void *>(&hipModuleLoadDataEx)},
      {"hipModuleGetFunction", reinterpret_cast<void *>(&hipModuleGetFunction)},
      {"hipModuleLaunchKernel", reinterpret_cast<void *>(&hipModuleLaunchKernel)},
      {"hipLaunchKernel", reinterpret_cast<void *>(&hipLaunchKernel)},
      {"__hipRegisterFatBinary", reinterpret_cast<void *>(&__hipRegisterFatBinary)},
      {"__hipRegisterFunction", reinterpret_cast<void *>(&__hipRegisterFunction)},
      {"__hipRegisterVar", reinterpret_cast<void *>(&__hipRegisterVar)},
  };
  auto It = Wrappers.find(Name);
  return It == Wrappers.end() ? nullptr : It->second;
}
} // namespace
