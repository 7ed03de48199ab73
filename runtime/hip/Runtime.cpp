// The emulated HIP runtime's state: the device, modules, fat binaries and launches.
#include "Runtime.h"

#include "codeobj/Container.h"
#include "launch/LaunchGeometry.h"
#include "support/AddressRanges.h"
#include "support/Error.h"
#include "timing/Model.h"

#include <cstdio>
#include <cstdlib>
#include <set>

namespace asmevo::hiprt {

namespace {
unsigned envUnsigned(const char *Name, unsigned Default) {
  const char *V = std::getenv(Name);
  if (!V || !*V)
    return Default;
  char *End = nullptr;
  unsigned long N = std::strtoul(V, &End, 10);
  return *End ? Default : unsigned(N);
}
} // namespace

Runtime &Runtime::get() {
  // Never destroyed: programs call into the runtime from their own static destructors
  // (__hipUnregisterFatBinary runs from atexit).
  static Runtime *R = new Runtime();
  return *R;
}

Runtime::Runtime() {
  const char *A = std::getenv("ASMEVO_HIP_ARCH");
  Processor = A && *A ? A : "gfx942";
  const char *T = std::getenv("ASMEVO_HIP_EVENT_TIMES");
  std::string Times = T ? T : "";
  ModelTimes = Times == "model";
  if (!Times.empty() && Times != "model" && Times != "host")
    std::fprintf(stderr,
                 "asmevo-hip: ASMEVO_HIP_EVENT_TIMES is '%s', not host or model: host times\n",
                 Times.c_str());
}

device::Device &Runtime::dev() {
  if (!Dev)
    Dev = device::createEmuDevice(Processor);
  return *Dev;
}

hipError_t Runtime::fail(hipError_t E, const std::string &Call, const std::string &Message) {
  Last = E;
  std::fprintf(stderr, "asmevo-hip: %s: %s (%s)\n", Call.c_str(), Message.c_str(),
               hipGetErrorName(E));
  return E;
}

hipError_t Runtime::lastError(bool Reset) {
  hipError_t E = Last;
  if (Reset)
    Last = hipSuccess;
  return E;
}

hipError_t Runtime::pendingError() {
  hipError_t E = Pending;
  Pending = hipSuccess;
  return E;
}

bool Runtime::isDevice(uint64_t Addr, uint64_t Size) const {
  auto Mapped = Mappings.upper_bound(Addr);
  if (Mapped != Mappings.begin()) {
    --Mapped;
    const Mapping &M = Mapped->second;
    if (M.Accessible && Addr - Mapped->first < M.Size && Size <= M.Size - (Addr - Mapped->first))
      return true;
  }
  return withinOneRange(Allocations, Addr, Size) || withinOneRange(Globals, Addr, Size);
}

hipError_t Runtime::loadModule(const char *Image, uint64_t Size, const std::string &Origin,
                               std::unique_ptr<ihipModule_t> &Out, std::string &Message) {
  auto Found = findCodeObjects(llvm::StringRef(Image, Size), Origin);
  if (!Found) {
    Message = llvm::toString(Found.takeError());
    return hipErrorInvalidImage;
  }
  const EmbeddedCodeObject *Pick = nullptr;
  std::set<std::string> Have;
  for (const EmbeddedCodeObject &E : *Found) {
    Have.insert(E.Processor);
    if (E.Processor == Processor && !Pick)
      Pick = &E;
  }
  if (!Pick) {
    std::string List;
    for (const std::string &P : Have)
      List += (List.empty() ? "" : ", ") + P;
    Message = Origin + " has no code object for " + Processor + " (it has " +
              (List.empty() ? "no AMDGPU code object" : List) + "); the emulated device is " +
              Processor + " (ASMEVO_HIP_ARCH chooses it: gfx90a, gfx942 or gfx950)";
    return hipErrorNoBinaryForGpu;
  }
  auto M = std::make_unique<ihipModule_t>();
  M->Origin = Origin;
  M->Bytes.assign(Image + Pick->Offset, Image + Pick->Offset + Pick->Size);
  auto Code = CodeObject::read(llvm::StringRef(M->Bytes.data(), M->Bytes.size()), Origin);
  if (!Code) {
    Message = llvm::toString(Code.takeError());
    return hipErrorInvalidImage;
  }
  M->Code = std::make_unique<CodeObject>(std::move(*Code));
  auto L = dev().load(*M->Code);
  if (!L) {
    Message = llvm::toString(L.takeError());
    return hipErrorInvalidImage;
  }
  M->Loaded = std::move(*L);
  Out = std::move(M);
  return hipSuccess;
}

hipError_t Runtime::getFunction(ihipModule_t &M, const std::string &Name, hipFunction_t &Out,
                                std::string &Message) {
  auto It = M.Functions.find(Name);
  if (It != M.Functions.end()) {
    Out = It->second.get();
    return hipSuccess;
  }
  const KernelInfo *K = M.Code->kernel(Name);
  if (!K) {
    std::string Names;
    for (const KernelInfo &I : M.Code->Kernels)
      Names += (Names.empty() ? "" : ", ") + I.Name;
    Message = "no kernel '" + Name + "' in " + M.Origin +
              " (kernels: " + (Names.empty() ? "none" : Names) + ")";
    return hipErrorNotFound;
  }
  auto Sig = kernelSignature(*M.Code, *K);
  if (!Sig) {
    Message = llvm::toString(Sig.takeError());
    return hipErrorInvalidImage;
  }
  auto F = std::make_unique<ihipModuleSymbol_t>();
  F->Module = &M;
  F->Kernel = K;
  F->Signature = std::move(*Sig);
  Out = F.get();
  M.Functions[Name] = std::move(F);
  return hipSuccess;
}

hipError_t Runtime::loadFatBinary(FatBinary &B, std::string &Message) {
  if (B.Module)
    return hipSuccess;
  if (B.LoadError != hipSuccess) {
    Message = B.LoadMessage;
    return B.LoadError;
  }
  std::string Origin = "the fat binary at " + hexText(reinterpret_cast<uint64_t>(B.Image));
  auto Size = imageSizeInMemory(B.Image, Origin);
  if (!Size) {
    B.LoadError = hipErrorInvalidImage;
    B.LoadMessage = llvm::toString(Size.takeError());
  } else {
    B.LoadError = loadModule(B.Image, *Size, Origin, B.Module, B.LoadMessage);
  }
  Message = B.LoadMessage;
  return B.LoadError;
}

hipError_t Runtime::launch(const std::string &Call, hipFunction_t F, dim3 Grid, dim3 Block,
                           size_t SharedMem, std::vector<uint8_t> Kernarg) {
  auto Items = launch::launchGridItems({Grid.x, Grid.y, Grid.z}, true, {Block.x, Block.y, Block.z});
  if (!Items)
    return fail(hipErrorInvalidConfiguration, Call, llvm::toString(Items.takeError()));
  if (SharedMem > UINT32_MAX)
    return fail(hipErrorInvalidValue, Call, std::to_string(SharedMem) + " bytes of dynamic LDS");
  device::LaunchParams P;
  P.Kernel = F->Kernel->Name;
  P.GridItems = *Items;
  P.Block = {Block.x, Block.y, Block.z};
  P.DynamicLds = uint32_t(SharedMem);
  P.Kernarg = std::move(Kernarg);
  P.Threads = envUnsigned("ASMEVO_HIP_THREADS", 0);
  llvm::Error Err = llvm::Error::success();
  if (ModelTimes) {
    if (!Params) {
      auto TP = timing::loadTargetParams(Processor);
      if (!TP)
        return fail(hipErrorNotSupported, Call,
                    "ASMEVO_HIP_EVENT_TIMES=model: " + llvm::toString(TP.takeError()));
      Params = std::move(*TP);
    }
    timing::ModelOptions MO;
    MO.Threads = P.Threads;
    auto M = timing::modelLaunch(dev(), *F->Module->Loaded, P, *Params, MO);
    if (M)
      ModeledSeconds += M->Microseconds * 1e-6;
    else
      Err = M.takeError();
  } else {
    auto R = dev().launch(*F->Module->Loaded, P);
    if (!R)
      Err = R.takeError();
  }
  if (!Err)
    return hipSuccess;
  hipError_t E = hipErrorLaunchFailure;
  std::string Message;
  llvm::handleAllErrors(
      std::move(Err),
      [&](const MemoryFaultError &M) {
        E = hipErrorIllegalAddress;
        Message = M.Message;
      },
      [&](const LimitError &L) {
        E = hipErrorLaunchTimeOut;
        Message = L.Message;
      },
      [&](const ToolError &T) {
        E = T.Kind == ErrorKind::Input ? hipErrorInvalidConfiguration : hipErrorLaunchFailure;
        Message = T.Message;
      },
      [&](const llvm::ErrorInfoBase &B) { Message = B.message(); });
  Pending = E;
  return fail(E, Call, "kernel '" + F->Kernel->Name + "': " + Message);
}

std::vector<CallConfig> &callConfigs() {
  thread_local std::vector<CallConfig> Stack;
  return Stack;
}

hipError_t unsupported(const char *Name) {
  Runtime &R = Runtime::get();
  std::lock_guard<std::mutex> G(R.Lock);
  static std::set<std::string> Said;
  hipError_t E = hipErrorNotSupported;
  if (Said.insert(Name).second)
    return R.fail(E, Name, "not supported by the emulated HIP runtime (libasmevo-hip)");
  return R.setLast(E);
}

} // namespace asmevo::hiprt
