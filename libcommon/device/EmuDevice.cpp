// The `emu` backend of the device interface: DeviceMemory + Emulator.
#include "device/Device.h"
#include "device/Trace.h"

#include "emu/Emulator.h"
#include "support/Error.h"

#include "llvm/BinaryFormat/ELF.h"

#include <algorithm>

namespace asmevo::device {

Module::~Module() = default;
Device::~Device() = default;

namespace {

class EmuModule : public Module {
public:
  explicit EmuModule(std::unique_ptr<emu::Emulator> E) : E(std::move(E)) {}
  const CodeObject &codeObject() const override { return E->codeObject(); }
  emu::Emulator &emulator() { return *E; }
  llvm::Expected<GlobalSymbol> global(llvm::StringRef Name) override {
    for (const ElfSymbol &S : E->codeObject().Symbols)
      if (S.Name == Name && S.Type == llvm::ELF::STT_OBJECT && S.SectionIndex)
        return GlobalSymbol{E->loadBase() + S.Value, S.Size};
    return makeError("no global variable '" + Name + "' in the code object");
  }

private:
  std::unique_ptr<emu::Emulator> E;
};

class EmuDevice : public Device {
public:
  explicit EmuDevice(const std::string &Processor) {
    Info.Backend = "emu";
    Info.Name = "CPU emulator (" + Processor + ", wave64)";
    Info.Hardware = false;
    Info.Emulator = true;
    Info.TracksFootprint = true;
    Info.Traces = true;
  }
  const DeviceInfo &info() const override { return Info; }

  llvm::Expected<uint64_t> alloc(uint64_t Size, const std::string &Name) override {
    uint64_t A = Mem.allocate(Size ? Size : 1, 256, Name);
    if (!A)
      return makeError("no room for device allocation '" + Name + "' of " + std::to_string(Size) +
                       " bytes");
    Allocated.push_back(A);
    return A;
  }
  llvm::Error allocAt(uint64_t Addr, uint64_t Size, const std::string &Name) override {
    return Mem.map(Addr, Size, Name);
  }
  llvm::Error free(uint64_t Addr) override {
    Allocated.erase(std::remove(Allocated.begin(), Allocated.end(), Addr), Allocated.end());
    return Mem.unmap(Addr);
  }
  llvm::Error write(uint64_t Addr, const void *Src, uint64_t Size) override {
    return Mem.write(Addr, Src, Size);
  }
  llvm::Error read(uint64_t Addr, void *Dst, uint64_t Size) override {
    return Mem.read(Addr, Dst, Size);
  }
  llvm::Expected<std::unique_ptr<Module>> load(const CodeObject &Code) override {
    auto E = emu::Emulator::load(Code, Mem);
    if (!E)
      return E.takeError();
    return std::make_unique<EmuModule>(std::move(*E));
  }
  llvm::Expected<LaunchResult> launch(Module &M, const LaunchParams &P) override {
    emu::LaunchConfig L;
    L.Kernel = P.Kernel;
    L.GridItems = P.GridItems;
    L.Block = P.Block;
    L.Kernarg = P.Kernarg;
    L.DynamicLds = P.DynamicLds;
    L.Seed = P.Seed;
    L.Threads = P.Threads;
    L.MaxWaveInstructions = P.MaxWaveInstructions;
    L.MaxInstructions = P.MaxInstructions;
    L.TimeoutSeconds = P.TimeoutSeconds;
    L.VarySchedule = P.VarySchedule;
    L.Strict = P.Strict;
    L.RegisterFill = P.RegisterFill;
    L.OnWorkgroupDone = P.OnWorkgroupDone;
    L.Only = P.Only;
    if (TraceSink *T = P.Trace) {
      L.TraceWanted = [T](uint64_t G) { return T->wants(G); };
      L.TraceDone = [T](emu::WorkgroupTrace &&W) { T->take(std::move(W)); };
    }
    if (P.TrackFootprint) {
      Mem.resetTouched();
      Mem.setTracking(true);
    }
    auto S = static_cast<EmuModule &>(M).emulator().run(L);
    Mem.setTracking(false);
    if (!S)
      return S.takeError();
    LaunchResult R;
    R.Seconds = S->Seconds;
    R.Workgroups = S->Workgroups;
    R.Waves = S->Waves;
    R.WaveInstructions = S->WaveInstructions;
    R.LaneInstructions = S->LaneInstructions;
    R.HostThreads = S->Threads;
    R.Checked = P.Strict;
    for (const emu::UnsafeFinding &F : S->Findings)
      R.Findings.push_back(UnsafeFinding{F.Rule, F.Pc - S->EntryPc, F.Instructions, F.Message});
    R.FindingsTotal = S->FindingsTotal;
    for (const auto &[Pc, W] : S->Waits)
      R.Waits.push_back(WaitStat{Pc - S->EntryPc, W.Executions, W.MaxVm, W.MaxLgkm});
    if (P.TrackFootprint)
      for (uint64_t A : Allocated)
        if (const emu::Allocation *Al = Mem.find(A)) {
          uint64_t Lo = Al->TouchLo, Hi = Al->TouchHi;
          R.Footprints.push_back(Footprint{A, Lo <= Hi, Lo <= Hi ? Lo : 0, Lo <= Hi ? Hi : 0});
        }
    return R;
  }

private:
  DeviceInfo Info;
  emu::DeviceMemory Mem;
  std::vector<uint64_t> Allocated; // by alloc, still live
};

} // namespace

std::unique_ptr<Device> createEmuDevice(const std::string &Processor) {
  return std::make_unique<EmuDevice>(Processor);
}

} // namespace asmevo::device
