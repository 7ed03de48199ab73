#include "emu/Emulator.h"
#include "emu/GprIndex.h"

#include "codeobj/TargetLimits.h"
#include "emu/Decoder.h"
#include "emu/Dispatch.h"
#include "emu/EmuError.h"
#include "emu/ExecVectorFast.h"
#include "emu/Refusal.h"
#include "emu/WorkerPool.h"
#include "support/Error.h"
#include "support/Interrupt.h"

#include "llvm/BinaryFormat/ELF.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <optional>
#include <thread>

namespace asmevo::emu {

namespace {

// Descriptor bit fields used by the launch (gfx9 meanings; see AMDGPUUsage "Kernel Descriptor").
struct KdBits {
  explicit KdBits(const KernelDescriptor &K) : K(K) {}
  const KernelDescriptor &K;
  bool rsrc2(unsigned Bit) const { return (K.ComputePgmRsrc2 >> Bit) & 1; }
  bool prop(unsigned Bit) const { return (K.KernelCodeProperties >> Bit) & 1; }
  bool privateSegment() const { return rsrc2(0); }
  bool wgId(unsigned d) const { return rsrc2(7 + d); }
  bool wgInfo() const { return rsrc2(10); }
  unsigned workItemIdDims() const { return ((K.ComputePgmRsrc2 >> 11) & 3) + 1; }
  bool sgprPrivateSegmentBuffer() const { return prop(0); }
  bool sgprDispatchPtr() const { return prop(1); }
  bool sgprQueuePtr() const { return prop(2); }
  bool sgprKernargPtr() const { return prop(3); }
  bool sgprDispatchId() const { return prop(4); }
  bool sgprFlatScratchInit() const { return prop(5); }
  bool sgprPrivateSegmentSize() const { return prop(6); }
  bool wave32() const { return prop(10); }
  bool dynamicStack() const { return prop(11); }
  // MODE register value the wave starts with: round and denormal modes (rsrc1 19:12 ->
  // MODE 7:0), DX10_CLAMP (rsrc1 21 -> MODE 8), IEEE (rsrc1 23 -> MODE 9), FP16_OVFL
  // (rsrc1 26 -> MODE 23).
  uint32_t mode() const {
    uint32_t r1 = K.ComputePgmRsrc1;
    return ((r1 >> 12) & 0xff) | (((r1 >> 21) & 1) << 8) | (((r1 >> 23) & 1) << 9) |
           (((r1 >> 26) & 1) << 23);
  }
};

// The AQL kernel dispatch packet (hsa_kernel_dispatch_packet_t), 64 bytes.
struct AqlPacket {
  uint16_t Header;
  uint16_t Setup;
  uint16_t WorkgroupSize[3];
  uint16_t Reserved0;
  uint32_t GridSize[3];
  uint32_t PrivateSegmentSize;
  uint32_t GroupSegmentSize;
  uint64_t KernelObject;
  uint64_t KernargAddress;
  uint64_t Reserved2;
  uint64_t CompletionSignal;
};
static_assert(sizeof(AqlPacket) == 64, "AQL packet layout");

void putLe(std::vector<uint8_t> &B, uint32_t Off, uint32_t Size, uint64_t V) {
  for (uint32_t I = 0; I < Size && Off + I < B.size(); ++I)
    B[Off + I] = uint8_t(V >> (8 * I));
}

} // namespace

// One dispatch as run() plans it (Emulator.h: the steps of run()).
struct Emulator::Dispatch {
  const KernelInfo *Kernel = nullptr;
  LaunchConfig L;
  uint64_t Entry = 0; // first pc of each wave
  uint64_t PacketAddr = 0, KernargAddr = 0, QueueAddr = 0;
  uint64_t ScratchBase = 0; // backing store of all scratch slots
  uint32_t PerLane = 0;     // private bytes per lane
  unsigned MaxWavesPerGroup = 0;
  uint32_t GroupSegment = 0; // LDS bytes per workgroup
  RegisterAllocation Alloc;  // registers the descriptor allocates
  std::array<uint32_t, 3> NumGroups{1, 1, 1};
  uint64_t TotalGroups = 0;
  std::vector<uint8_t> Kernarg; // the segment as the kernel sees it (hidden arguments filled)
  std::vector<uint64_t> Temp;   // device memory of the dispatch, unmapped after it
  KdBits bits() const { return KdBits(Kernel->Kd); }
};

// The dispatch-wide limits, shared by the host threads: instructions executed so far, and which
// limit stopped the run (1: instructions, 2: time).
struct Emulator::DispatchLimits {
  bool Limited = false;
  std::atomic<uint64_t> Executed{0};
  std::atomic<int> Hit{0};
  std::chrono::steady_clock::time_point Deadline;
};

llvm::Expected<std::unique_ptr<Emulator>> Emulator::load(const CodeObject &Code,
                                                         DeviceMemory &Mem) {
  Gfx G;
  if (!parseGfx(Code.Target.Processor.c_str(), G))
    return makeError("'" + Code.Path +
                     "': the emulator runs gfx90a, gfx940, gfx941, gfx942 and "
                     "gfx950 code objects, not " +
                     Code.Target.Processor);
  std::unique_ptr<Emulator> E(new Emulator(Code, Mem, G));
  if (llvm::Error Err = E->loadImage())
    return std::move(Err);
  return std::move(E);
}

llvm::Error Emulator::loadImage() {
  uint64_t End = 0;
  for (const ElfSection &S : Code.Sections)
    if (S.isAlloc())
      End = std::max(End, S.Addr + S.Size);
  if (End == 0)
    return makeError("'" + Code.Path + "': the code object has no allocated sections");
  Base = Mem.allocate((End + 0xfff) & ~0xfffull, 0x10000, "code object " + Code.Path);
  if (!Base)
    return makeError("'" + Code.Path +
                     "': no room for the code object in the device address space");
  for (const ElfSection &S : Code.Sections) {
    if (!S.isAlloc() || S.isNoBits() || S.Data.empty())
      continue;
    if (llvm::Error Err = Mem.write(Base + S.Addr, S.Data.data(), S.Data.size()))
      return Err;
  }
  // Dynamic relocations: R_AMDGPU_RELATIVE64 (base + addend) and R_AMDGPU_ABS64 (symbol).
  auto Syms = Code.exportedSymbols();
  for (const DynamicReloc &R : Code.DynRelocs) {
    uint64_t V;
    if (R.Type == llvm::ELF::R_AMDGPU_RELATIVE64) {
      V = Base + uint64_t(R.Addend);
    } else if (R.Type == llvm::ELF::R_AMDGPU_ABS64 || R.Type == llvm::ELF::R_AMDGPU_ABS32_LO) {
      auto It = Syms.find(R.Symbol);
      if (It == Syms.end() || It->second->SectionIndex == 0)
        return makeError("'" + Code.Path + "': relocation at " + hexText(R.Offset) +
                         " refers to undefined symbol '" + R.Symbol + "'");
      V = Base + It->second->Value + uint64_t(R.Addend);
    } else {
      return makeError("'" + Code.Path + "': dynamic relocation type " + std::to_string(R.Type) +
                       " at " + hexText(R.Offset) + " is not supported by the emulator's loader");
    }
    unsigned Size = R.Type == llvm::ELF::R_AMDGPU_ABS32_LO ? 4 : 8;
    if (llvm::Error Err = Mem.write(Base + R.Offset, &V, Size))
      return Err;
  }
  // Pre-decode every executable section by a linear sweep.
  uint64_t Lo = ~0ull, Hi = 0;
  for (const ElfSection &S : Code.Sections)
    if (S.isExec() && S.Size) {
      Lo = std::min(Lo, S.Addr);
      Hi = std::max(Hi, S.Addr + S.Size);
    }
  if (Hi == 0)
    return llvm::Error::success();
  TextBegin = Base + Lo;
  TextEnd = Base + Hi;
  size_t N = size_t((Hi - Lo) / 4);
  Slots.assign(N, Inst());
  SlotUses.assign(N, RegUses());
  SlotValid.assign(N, 0);
  const uint8_t *Img = Mem.translate(TextBegin, TextEnd - TextBegin);
  for (const ElfSection &S : Code.Sections) {
    if (!S.isExec())
      continue;
    uint64_t A = S.Addr - Lo;
    while (A + 4 <= S.Addr - Lo + S.Size) {
      Inst In;
      std::string Why;
      if (decodeInst(Img + A, size_t(S.Addr - Lo + S.Size - A), Target, In, &Why)) {
        markRefusal(In, Target);
        In.Fast = In.Refused ? 0 : uint8_t(fastVectorOp(In));
        Slots[A / 4] = In;
        SlotUses[A / 4] = regUses(In, Target);
        SlotValid[A / 4] = 1;
        const RegUses &U = SlotUses[A / 4];
        for (unsigned K = 0; K < U.NumReads + U.NumWrites; ++K) {
          const RegRange &R = K < U.NumReads ? U.Reads[K] : U.Writes[K - U.NumReads];
          CodeUsesVcc |= R.overlaps(RegRange{kVccLo, 2});
          CodeUsesFlatScratch |= R.overlaps(RegRange{kFlatScratchLo, 2});
        }
        A += In.Size;
      } else {
        A += 4;
      }
    }
  }
  return llvm::Error::success();
}

std::string Emulator::where(uint64_t Pc) const {
  if (Pc < Base)
    return "";
  const FunctionExtent *F = Code.functionAt(Pc - Base);
  if (!F)
    return "";
  char Buf[32];
  std::snprintf(Buf, sizeof Buf, "+0x%llx", (unsigned long long)(Pc - Base - F->Begin));
  return F->Name + Buf;
}

const Inst &Emulator::fetch(uint64_t Pc) {
  if (Pc >= TextBegin && Pc < TextEnd && (Pc & 3) == 0) {
    size_t I = size_t((Pc - TextBegin) >> 2);
    if (SlotValid[I])
      return Slots[I];
  }
  std::lock_guard<std::mutex> G(ExtraLock);
  auto It = Extra.find(Pc);
  if (It != Extra.end())
    return *It->second;
  if (Pc & 3)
    throw EmuError(EmuErrorKind::IllegalInst, "pc " + hexText(Pc) + " is not dword-aligned");
  const Allocation *A = Mem.find(Pc);
  if (!A)
    throw EmuError(EmuErrorKind::MemoryFault,
                   "instruction fetch at pc " + hexText(Pc) + " is outside every allocation");
  auto In = std::make_unique<Inst>();
  std::string Why;
  if (!decodeInst(A->Bytes.get() + (Pc - A->Base), size_t(A->Base + A->Size - Pc), Target, *In,
                  &Why)) {
    uint32_t W = 0;
    std::memcpy(&W, A->Bytes.get() + (Pc - A->Base), std::min<uint64_t>(4, A->Base + A->Size - Pc));
    char Buf[48];
    std::snprintf(Buf, sizeof(Buf), "0x%08x", W);
    throw EmuError(EmuErrorKind::IllegalInst, "illegal instruction " + std::string(Buf) +
                                                  " at pc " + hexText(Pc) + ": " + Why);
  }
  markRefusal(*In, Target);
  const Inst &R = *In;
  Extra.emplace(Pc, std::move(In));
  return R;
}

const Inst &Emulator::fetchSlow(uint64_t Pc, const RegUses *&Uses) {
  const Inst &In = fetch(Pc);
  std::lock_guard<std::mutex> G(ExtraLock);
  std::unique_ptr<RegUses> &U = ExtraUses[Pc];
  if (!U)
    U = std::make_unique<RegUses>(regUses(In, Target));
  Uses = U.get();
  return In;
}

namespace {

// VALU, vector memory and LDS: the instructions that run per lane (and that VSKIP skips).
inline bool isVectorEnc(Enc E) {
  return E != Enc::SOP1 && E != Enc::SOP2 && E != Enc::SOPK && E != Enc::SOPC && E != Enc::SOPP &&
         E != Enc::SMEM;
}

// Set bits of EXEC: the popcnt instruction where the emulator is built for it (x86-64-v2 and
// up, see ASMEVO_EMU_X86_LEVEL), else without a library call (baseline x86-64 has no popcnt).
inline unsigned activeLanes(uint64_t M) {
#ifdef __POPCNT__
  return unsigned(__builtin_popcountll(M));
#else
  if (M == ~0ull)
    return 64;
  M = M - ((M >> 1) & 0x5555555555555555ull);
  M = (M & 0x3333333333333333ull) + ((M >> 2) & 0x3333333333333333ull);
  M = (M + (M >> 4)) & 0x0f0f0f0f0f0f0f0full;
  return unsigned((M * 0x0101010101010101ull) >> 56);
#endif
}

// Run one wave for at most Quantum instructions, stopping at a barrier or s_endpgm. Strict and
// Traced (C.strict, C.trace set) are template arguments: the common case tests neither per
// instruction.
template <bool Strict, bool Traced>
inline void runWave(Emulator &E, ExecCtx &C, unsigned Quantum, uint64_t MaxInst,
                    uint64_t &LaneInsts) {
  WaveState &W = C.W;
  // The current instruction with VGPR indexing applied (GprIndex.h), built only in that mode:
  // constructed on every call, the two structs cost about 1% of the emulator's host
  // instructions (callgrind, emu_bench's three kernels).
  std::optional<Inst> Indexed;
  std::optional<RegUses> IndexedUses;
  const uint64_t Limits = packRegCounts(C.NumVgprs, C.NumAgprs, C.NumSgprs);
  for (unsigned K = 0; K < Quantum; ++K) {
    if (W.Done || W.AtBarrier)
      return;
    uint64_t Pc = W.Pc;
    const RegUses *U = nullptr;
    const Inst *InP = &E.fetch(Pc, U);
    C.InstPc = Pc;
    // MODE bits that change what an instruction does (one predictable branch when neither is
    // set): VSKIP skips vector instructions, GPR_IDX_EN indexes VALU VGPR operands by M0.
    if ((W.Mode & (kModeVskip | kModeGprIdxEn)) || W.MfmaScalePending) [[unlikely]] {
      if (W.MfmaScalePending && InP->Operation != Op::V_MFMA_F32_16X16X128_F8F6F4 &&
          InP->Operation != Op::V_MFMA_F32_32X32X64_F8F6F4)
        throw EmuError(EmuErrorKind::IllegalInst,
                       "v_mfma_ld_scale_b32 at pc " + hexText(W.MfmaScalePc) +
                           " is not followed by an F8F6F4 MFMA (the two form one scaled MFMA "
                           "instruction): " +
                           printInst(*InP, E.gfx(), Pc) + " at pc " + hexText(Pc),
                       Pc);
      if ((W.Mode & kModeVskip) && isVectorEnc(InP->Encoding)) {
        // Skipped, not executed: no register, memory or counter changes (CDNA3/CDNA4 ISA
        // guides, section 12.4); the hazard and wait-counter model sees no issue.
        W.Pc = Pc + InP->Size;
        if (++W.InstCount > MaxInst)
          throw EmuError(EmuErrorKind::Timeout,
                         "a wave executed more than " + std::to_string(MaxInst) +
                             " instructions (endless loop?) at pc " + hexText(Pc));
        continue;
      }
      if ((W.Mode & kModeGprIdxEn) && gprIndexApplies(*InP)) {
        std::string Why;
        Indexed.emplace();
        if (!applyGprIndex(*InP, W.S[kM0], *Indexed, Why))
          throw EmuError(EmuErrorKind::Unsupported,
                         "unsupported instruction " + printInst(*InP, E.gfx(), Pc) + " at pc " +
                             hexText(Pc) + " in VGPR indexing mode: " + Why,
                         Pc);
        IndexedUses = regUses(*Indexed, E.gfx());
        InP = &*Indexed;
        U = &*IndexedUses;
      }
    }
    const Inst &In = *InP;
    // The hardware gives a wave the registers its descriptor allocates, no more (one branch for
    // the three limits; the fault names the first one exceeded).
    if (regsExceed(*U, Limits)) [[unlikely]] {
      if (U->MaxVgpr >= C.NumVgprs)
        throwRegisterFault('v', unsigned(U->MaxVgpr), C.NumVgprs, Pc);
      if (U->MaxAgpr >= C.NumAgprs)
        throwRegisterFault('a', unsigned(U->MaxAgpr), C.NumAgprs, Pc);
      throwRegisterFault('s', unsigned(U->MaxSgpr), C.NumSgprs, Pc);
    }
    W.Pc = Pc + In.Size;
    if (++W.InstCount > MaxInst)
      throw EmuError(EmuErrorKind::Timeout, "a wave executed more than " + std::to_string(MaxInst) +
                                                " instructions (endless loop?) at pc " +
                                                hexText(Pc));
    if (isVectorEnc(In.Encoding))
      LaneInsts += activeLanes(W.exec());
    if (Strict)
      C.Strict->before(C, In, *U, Pc);
    uint32_t First = 0;
    if (Traced) {
      First = uint32_t(C.Trace->Accesses.size());
      C.Trace->Steps.push_back(TraceStep{int64_t(Pc - C.Trace->EntryPc), First, 0});
    }
    bool Ok = (In.Fast && execVectorFast(C, In, FastOp(In.Fast))) || executeInst(C, In);
    if (Traced)
      C.Trace->Steps.back().Count = uint32_t(C.Trace->Accesses.size()) - First;
    if (!Ok)
      throw EmuError(
          EmuErrorKind::Unsupported,
          "unsupported instruction " + printInst(In, E.gfx(), Pc) + " at pc " + hexText(Pc), Pc);
    if (Strict)
      C.Strict->after(C, In, *U, Pc);
  }
}

// One per host thread, each on its own cache line: the lane count is updated per instruction,
// and threads sharing a line would slow each other down.
struct alignas(64) ThreadStats {
  uint64_t Waves = 0, Insts = 0, LaneInsts = 0, Groups = 0;
};

} // namespace

// The launch checked against the kernel, the target and the hardware's limits, and the
// dispatch planned: workgroups, registers, LDS, kernarg segment, scratch.
llvm::Error Emulator::planDispatch(Dispatch &D) const {
  const LaunchConfig &LIn = D.L;
  const KernelInfo *K = Code.kernel(LIn.Kernel);
  if (!K) {
    std::string Names;
    for (const KernelInfo &KI : Code.Kernels)
      Names += (Names.empty() ? "" : ", ") + KI.Name;
    return makeError("'" + Code.Path + "': no kernel named '" + LIn.Kernel +
                     "' (kernels: " + Names + ")");
  }
  KdBits Bits(K->Kd);
  if (Bits.wave32())
    return makeError("'" + Code.Path + "': kernel '" + K->Name +
                     "' is wave32; the emulator runs wave64");
  D.Kernel = K;
  const LaunchConfig &L = D.L;
  uint64_t BlockItems = 1;
  for (unsigned I = 0; I < 3; ++I) {
    if (L.Block[I] == 0 || L.GridItems[I] == 0)
      return makeError("grid and workgroup sizes must be at least 1 in every dimension");
    if (L.Block[I] > 1024)
      return makeError("workgroup size " + std::to_string(L.Block[I]) + " exceeds 1024");
    BlockItems *= L.Block[I];
    D.NumGroups[I] = uint32_t((uint64_t(L.GridItems[I]) + L.Block[I] - 1) / L.Block[I]);
  }
  if (BlockItems > 1024)
    return makeError("workgroup of " + std::to_string(BlockItems) + " work-items exceeds 1024");
  if (auto Max = K->Meta ? Metadata::getUInt(*K->Meta, ".max_flat_workgroup_size") : std::nullopt)
    if (BlockItems > *Max)
      return makeError("workgroup of " + std::to_string(BlockItems) +
                       " work-items exceeds the "
                       "kernel's .max_flat_workgroup_size " +
                       std::to_string(*Max));
  D.MaxWavesPerGroup = unsigned((BlockItems + kWaveSize - 1) / kWaveSize);
  // What the hardware would refuse for this workgroup size: registers per wave with all the
  // workgroup's waves resident, LDS, scratch.
  for (const LimitViolation &V :
       checkLaunchLimits(K->Kd, Code.Target, unsigned(BlockItems), "this launch"))
    return makeError("'" + Code.Path + "': kernel '" + K->Name +
                     "' cannot be launched: " + V.Field + ": " + V.Detail);
  // gfx90a+: a unified file of (granule + 1) * 8 registers, AGPRs from accum_offset on; the
  // SGPRs less VCC, flat scratch and XNACK where the code uses them.
  D.Alloc = registerAllocation(K->Kd, Code.Target, CodeUsesVcc, CodeUsesFlatScratch);
  if (const FunctionExtent *F = Code.kernelCode(*K); F && D.Alloc.AccumOffset) {
    // Arch VGPRs past accum_offset are AGPR registers of the unified file; the emulator keeps
    // the two apart, so a kernel that uses both there cannot be run faithfully.
    int MaxV = -1, MaxA = -1;
    for (uint64_t A = F->Begin; A < F->End; A += 4) {
      uint64_t Pc = Base + A;
      if (Pc < TextBegin || Pc >= TextEnd || !SlotValid[(Pc - TextBegin) / 4])
        continue;
      const RegUses &U = SlotUses[(Pc - TextBegin) / 4];
      MaxV = std::max<int>(MaxV, U.MaxVgpr);
      MaxA = std::max<int>(MaxA, U.MaxAgpr);
    }
    if (MaxA >= 0 && MaxV >= int(D.Alloc.AccumOffset))
      return runtimeError("'" + Code.Path + "': kernel '" + K->Name + "' uses v" +
                          std::to_string(MaxV) + " and a0-a" + std::to_string(MaxA) +
                          ", which share registers of the unified VGPR file (accum_offset " +
                          std::to_string(D.Alloc.AccumOffset) +
                          "); the emulator keeps arch VGPRs and AGPRs apart and cannot run it");
  }
  D.GroupSegment = K->Kd.GroupSegmentFixedSize + L.DynamicLds;
  if (D.GroupSegment > targetLimits(Code.Target).LdsBytes)
    return makeError("the workgroup needs " + std::to_string(D.GroupSegment) +
                     " bytes of LDS, more than the target has");

  // Kernarg segment.
  auto Sig = kernelSignature(Code, *K);
  if (!Sig)
    return Sig.takeError();
  std::vector<uint8_t> &Kernarg = D.Kernarg;
  Kernarg = L.Kernarg;
  if (auto Conflict = kernargSizeConflict(*K))
    return makeError("'" + Code.Path + "': kernel '" + K->Name + "': the kernarg sizes disagree: " +
                     *Conflict + "; which one a runtime uses decides what the kernel reads");
  uint32_t SegSize = std::max<uint32_t>(Sig->KernargSize, K->Kd.KernargSize);
  if (SegSize > kMaxKernargBytes)
    return makeError("'" + Code.Path + "': kernel '" + K->Name +
                     "' declares a kernarg segment of " + std::to_string(SegSize) +
                     " bytes; the emulator takes at most " + std::to_string(kMaxKernargBytes));
  if (Kernarg.size() > SegSize && SegSize != 0)
    return makeError("the kernarg data is " + std::to_string(Kernarg.size()) + " bytes; kernel '" +
                     K->Name + "' takes " + std::to_string(SegSize));
  // The segment a runtime hands a kernel is 16-byte aligned and whole 16-byte granules (the
  // ABI's minimum kernarg alignment, LLVM's AMDGPUUsage); compilers widen kernarg loads to that
  // (clang reads a 28-byte segment's last 12 bytes with s_load_dwordx4 at 16): the emulated
  // segment is the declared size rounded up to 16, zero-filled.
  Kernarg.resize(std::max<size_t>((size_t(SegSize) + 15) & ~size_t(15), 16), 0);
  // Scratch.
  D.PerLane = (K->Kd.PrivateSegmentFixedSize + L.ExtraPrivatePerLane + 15) & ~15u;
  if (Bits.dynamicStack() && L.ExtraPrivatePerLane == 0)
    D.PerLane += 16384;
  if (D.PerLane >= (1u << 18))
    return makeError("a private segment of " + std::to_string(D.PerLane) +
                     " bytes per lane exceeds the 18-bit stride of the scratch descriptor");
  // Three 32-bit counts: their product can pass 2^64 (a grid of 2^32 - 1 work-items and
  // workgroups of one in every dimension), which would wrap to another number of workgroups.
  if (__builtin_mul_overflow(uint64_t(D.NumGroups[0]) * D.NumGroups[1], uint64_t(D.NumGroups[2]),
                             &D.TotalGroups))
    return makeError("a grid of " + std::to_string(D.NumGroups[0]) + " x " +
                     std::to_string(D.NumGroups[1]) + " x " + std::to_string(D.NumGroups[2]) +
                     " workgroups: more than 2^64 workgroups");
  return llvm::Error::success();
}

// The dispatch's objects in device memory (kernarg segment with the hidden arguments, AQL
// packet, queue, scratch for Threads host threads) and its entry point.
llvm::Error Emulator::placeDispatch(Dispatch &D, unsigned Threads) {
  const LaunchConfig &L = D.L;
  std::vector<uint8_t> &Kernarg = D.Kernarg;
  auto Sig = kernelSignature(Code, *D.Kernel);
  if (!Sig)
    return Sig.takeError();
  D.KernargAddr = Mem.allocate(Kernarg.size(), 256, "kernarg segment of " + D.Kernel->Name);
  D.PacketAddr = Mem.allocate(64, 64, "AQL dispatch packet");
  D.QueueAddr = Mem.allocate(256, 64, "queue (amd_queue_t, zero-filled)");
  D.Temp = {D.KernargAddr, D.PacketAddr, D.QueueAddr};
  if (D.PerLane) {
    uint64_t Bytes = uint64_t(D.PerLane) * kWaveSize * D.MaxWavesPerGroup * Threads;
    D.ScratchBase = Mem.allocate(Bytes, 0x10000, "scratch");
    D.Temp.push_back(D.ScratchBase);
  }
  if (!D.KernargAddr || !D.PacketAddr || !D.QueueAddr || (D.PerLane && !D.ScratchBase))
    return makeError("the device address space has no room for the dispatch");
  AqlPacket P{};
  P.Header = 2; // HSA_PACKET_TYPE_KERNEL_DISPATCH
  P.Setup = uint16_t(L.GridItems[2] > 1 ? 3 : L.GridItems[1] > 1 ? 2 : 1);
  for (unsigned I = 0; I < 3; ++I) {
    P.WorkgroupSize[I] = uint16_t(L.Block[I]);
    P.GridSize[I] = L.GridItems[I];
  }
  P.PrivateSegmentSize = D.PerLane;
  P.GroupSegmentSize = D.GroupSegment;
  P.KernelObject = Base + Code.Symbols[D.Kernel->DescSymbol].Value;
  P.KernargAddress = D.KernargAddr;
  if (L.FillHidden) {
    for (const KernelArg &A : Sig->Args) {
      const std::string &VK = A.ValueKind;
      uint64_t V = 0;
      bool Known = true;
      auto Dim = [&](const char *Prefix) -> int {
        if (VK.rfind(Prefix, 0) != 0)
          return -1;
        char C = VK.back();
        return C == 'x' ? 0 : C == 'y' ? 1 : 2;
      };
      int Dm;
      if ((Dm = Dim("hidden_block_count_")) >= 0)
        V = L.GridItems[Dm] / L.Block[Dm];
      else if ((Dm = Dim("hidden_group_size_")) >= 0)
        V = L.Block[Dm];
      else if ((Dm = Dim("hidden_remainder_")) >= 0)
        V = L.GridItems[Dm] % L.Block[Dm];
      else if ((Dm = Dim("hidden_global_offset_")) >= 0)
        V = 0;
      else if (VK == "hidden_grid_dims")
        V = P.Setup;
      else if (VK == "hidden_dynamic_lds_size")
        V = L.DynamicLds;
      else if (VK == "hidden_private_base")
        V = kPrivateApertureBase >> 32;
      else if (VK == "hidden_shared_base")
        V = kSharedApertureBase >> 32;
      else if (VK == "hidden_queue_ptr")
        V = D.QueueAddr;
      else
        Known = false; // hostcall, printf, multigrid, heap, default queue, completion action:
                       // no such runtime objects here; the slot stays as given (zero).
      if (Known)
        putLe(Kernarg, A.Offset, A.Size, V);
    }
  }
  if (llvm::Error Err = Mem.write(D.KernargAddr, Kernarg.data(), Kernarg.size()))
    return Err;
  if (llvm::Error Err = Mem.write(D.PacketAddr, &P, sizeof(P)))
    return Err;
  D.Entry = Base + D.Kernel->EntryAddr;
  bool Preload = D.Kernel->Kd.kernargPreloadLength() > 0;
  if (Preload)
    D.Entry += 256; // firmware that preloads kernargs starts past the compatibility prologue
  return llvm::Error::success();
}

// One wave's registers at dispatch: zeroed allocation, EXEC for its lanes, user and system
// SGPRs in the documented order, flat scratch, work-item ids in v0. Throws a RegisterFault when
// the dispatch needs more SGPRs than the descriptor allocates.
void Emulator::initWave(const Dispatch &D, WaveState &W, unsigned Wv, unsigned T,
                        const uint32_t Id[3], const uint32_t Size[3], uint32_t Items) const {
  const KernelInfo *K = D.Kernel;
  const std::vector<uint8_t> &Kernarg = D.Kernarg;
  KdBits Bits = D.bits();
  std::memset(W.S, 0, sizeof(W.S));
  // Vector registers start at zero, or at LaunchConfig::RegisterFill (hardware leaves them
  // undefined). Only the registers the descriptor allocates are set: code that touches others
  // is invalid (hsaco-rebuild refuses it) and setting all 512 rows would dominate short kernels.
  if (uint32_t Fill = D.L.RegisterFill) {
    std::fill_n(W.V, size_t(kWaveSize) * D.Alloc.ArchVgprs, Fill);
    if (D.Alloc.Agprs)
      std::fill_n(W.vrow(256), size_t(kWaveSize) * D.Alloc.Agprs, Fill);
  } else {
    std::memset(W.V, 0, sizeof(uint32_t) * kWaveSize * D.Alloc.ArchVgprs);
    if (D.Alloc.Agprs)
      std::memset(W.vrow(256), 0, sizeof(uint32_t) * kWaveSize * D.Alloc.Agprs);
  }
  W.Scc = false;
  W.Done = W.AtBarrier = false;
  W.InstCount = 0;
  W.MfmaScalePending = false;
  W.PendingLds.clear();
  W.VmemIssued = 0;
  W.Trapsts = 0;
  W.Priority = 0;
  W.WaveInGroup = Wv;
  W.Mode = Bits.mode();
  W.Pc = D.Entry;
  unsigned Lanes = std::min<unsigned>(kWaveSize, Items - Wv * kWaveSize);
  W.setExec(Lanes == 64 ? ~0ull : ((1ull << Lanes) - 1));
  uint64_t WaveScratch =
      D.ScratchBase + (uint64_t(T) * D.MaxWavesPerGroup + Wv) * kWaveSize * D.PerLane;
  // User SGPRs, in the documented order.
  unsigned S = 0;
  if (Bits.sgprPrivateSegmentBuffer()) {
    // V#: base, stride = private bytes per lane, add_tid_enable, no swizzle: lane L's
    // private byte A is at base + soffset + L * stride + A (see MemoryAccess.cpp).
    W.S[S++] = uint32_t(D.ScratchBase);
    // With ADD_TID_ENABLE (word 3 bit 23), DATA_FORMAT (word 3 bits 18:15) holds stride
    // bits 17:14, so it must carry the stride's high bits and nothing else.
    W.S[S++] = (uint32_t(D.ScratchBase >> 32) & 0xffff) | ((D.PerLane & 0x3fff) << 16);
    W.S[S++] = 0xffffffffu;
    W.S[S++] = (1u << 23) | (((D.PerLane >> 14) & 0xf) << 15);
  }
  if (Bits.sgprDispatchPtr()) {
    W.S[S++] = uint32_t(D.PacketAddr);
    W.S[S++] = uint32_t(D.PacketAddr >> 32);
  }
  if (Bits.sgprQueuePtr()) {
    W.S[S++] = uint32_t(D.QueueAddr);
    W.S[S++] = uint32_t(D.QueueAddr >> 32);
  }
  if (Bits.sgprKernargPtr()) {
    W.S[S++] = uint32_t(D.KernargAddr);
    W.S[S++] = uint32_t(D.KernargAddr >> 32);
  }
  if (Bits.sgprDispatchId()) {
    W.S[S++] = 1;
    W.S[S++] = 0;
  }
  if (Bits.sgprFlatScratchInit()) {
    W.S[S++] = uint32_t(D.ScratchBase);
    W.S[S++] = uint32_t(D.ScratchBase >> 32);
  }
  if (Bits.sgprPrivateSegmentSize())
    W.S[S++] = D.PerLane;
  unsigned PreN = K->Kd.kernargPreloadLength(), PreOff = K->Kd.kernargPreloadOffset();
  for (unsigned I = 0; I < PreN; ++I) {
    uint32_t V = 0;
    if ((PreOff + I) * 4 + 4 <= Kernarg.size())
      std::memcpy(&V, &Kernarg[(PreOff + I) * 4], 4);
    W.S[S++] = V;
  }
  // System SGPRs start after the descriptor's user SGPR count.
  S = std::max(S, K->Kd.userSgprCount());
  for (unsigned Dm = 0; Dm < 3; ++Dm)
    if (Bits.wgId(Dm))
      W.S[S++] = Id[Dm];
  if (Bits.wgInfo())
    W.S[S++] = 0;
  bool Architected = isGfx94Plus(Target);
  if (Bits.privateSegment() && !Architected)
    W.S[S++] = uint32_t(WaveScratch - D.ScratchBase);
  if (S > D.Alloc.NumberedSgprs)
    throw EmuError(EmuErrorKind::RegisterFault,
                   "the dispatch sets s0-s" + std::to_string(S - 1) +
                       " (user and system SGPRs); the kernel's descriptor allocates s0-s" +
                       std::to_string(int(D.Alloc.NumberedSgprs) - 1));
  if (Architected && D.PerLane) {
    W.S[kFlatScratchLo] = uint32_t(WaveScratch);
    W.S[kFlatScratchHi] = uint32_t(WaveScratch >> 32);
  }
  // Work-item ids: packed into v0 (x 9:0, y 19:10, z 29:20) on gfx90a and later.
  uint32_t *V0 = W.vrow(0);
  unsigned Dims = Bits.workItemIdDims();
  if (Size[1] == 1 && Size[2] == 1) { // one-dimensional workgroup: Y = Z = 0
    for (unsigned Ln = 0; Ln < Lanes; ++Ln)
      V0[Ln] = Wv * kWaveSize + Ln;
    return;
  }
  for (unsigned Ln = 0; Ln < Lanes; ++Ln) {
    uint32_t Flat = Wv * kWaveSize + Ln;
    uint32_t X = Flat % Size[0], Y = (Flat / Size[0]) % Size[1], Z = Flat / (Size[0] * Size[1]);
    V0[Ln] = X | (Dims > 1 ? Y << 10 : 0) | (Dims > 2 ? Z << 20 : 0);
  }
}

// How many instructions a wave of a multi-wave workgroup runs before the next one takes its turn
// (the default schedule). The waves of a workgroup issue in parallel on a CU's SIMDs and leave a
// barrier together, so on hardware they drift apart by a few instructions, not hundreds. With
// 256, the value before, one wave ran past the other waves' LDS reads in two of AITer's kernels
// that re-write an LDS buffer after every wave has read it with no barrier between (a race by
// the ISA's rules, which the strict checks report as lds-race, and which hardware's parallel
// issue wins): the FP8 block-scale MoE computed outputs up to 54% of a row's max off its
// reference, the 112x256 int8 GEMM 35% of its outputs from the wrong position. 32 fixed the
// first, 16 both (test/corpus/aiter/*.md). 16 costs 0.6-2.3% more host instructions than 256
// (callgrind, emu_bench's three kernels).
constexpr unsigned kWaveTurn = 16;

// One workgroup's waves run to their end: rounds over the waves in a seeded order, barriers
// released when every wave that has not ended waits at one; the dispatch-wide limits checked
// after every quantum. Throws EmuError (a deadlock, a limit, or what an instruction raised).
void Emulator::scheduleGroup(const LaunchConfig &L, uint64_t G,
                             std::vector<std::unique_ptr<WaveState>> &Waves,
                             std::vector<ExecCtx> &Ctx, unsigned NW, DispatchLimits &Lim,
                             uint64_t &LaneInsts) {
  // splitmix64 seeded by (seed, workgroup): the order depends on nothing else.
  uint64_t RngState = L.Seed * 0x9e3779b97f4a7c15ull + G;
  auto Next = [&RngState] {
    uint64_t Z = (RngState += 0x9e3779b97f4a7c15ull);
    Z = (Z ^ (Z >> 30)) * 0xbf58476d1ce4e5b9ull;
    Z = (Z ^ (Z >> 27)) * 0x94d049bb133111ebull;
    return Z ^ (Z >> 31);
  };
  unsigned Order[16];
  for (unsigned I = 0; I < NW; ++I)
    Order[I] = I;
  for (;;) {
    for (unsigned I = NW; I > 1; --I) // Fisher-Yates
      std::swap(Order[I - 1], Order[Next() % I]);
    bool AnyRan = false;
    for (unsigned OI = 0; OI < NW; ++OI) {
      unsigned I = Order[OI];
      WaveState &W = *Waves[I];
      if (W.Done || W.AtBarrier)
        continue;
      uint64_t Before = W.InstCount;
      // One wave alone still returns here now and then: limits and Ctrl-C are checked.
      unsigned Quantum = NW == 1          ? 1u << 14
                         : L.VarySchedule ? 1 + unsigned(Next() % 96)
                                          : kWaveTurn;
      if (L.Strict && Ctx[I].Trace)
        runWave<true, true>(*this, Ctx[I], Quantum, L.MaxWaveInstructions, LaneInsts);
      else if (L.Strict)
        runWave<true, false>(*this, Ctx[I], Quantum, L.MaxWaveInstructions, LaneInsts);
      else if (Ctx[I].Trace)
        runWave<false, true>(*this, Ctx[I], Quantum, L.MaxWaveInstructions, LaneInsts);
      else
        runWave<false, false>(*this, Ctx[I], Quantum, L.MaxWaveInstructions, LaneInsts);
      AnyRan |= W.InstCount != Before;
      if (Lim.Limited) {
        uint64_t Total = Lim.Executed.fetch_add(W.InstCount - Before) + (W.InstCount - Before);
        if (L.MaxInstructions && Total > L.MaxInstructions) {
          Lim.Hit = 1;
          throw EmuError(EmuErrorKind::Timeout, "instruction limit");
        }
        if (L.TimeoutSeconds > 0 && std::chrono::steady_clock::now() > Lim.Deadline) {
          Lim.Hit = 2;
          throw EmuError(EmuErrorKind::Timeout, "timeout");
        }
      }
      if (interrupted()) {
        Lim.Hit = 3;
        throw EmuError(EmuErrorKind::Timeout, "interrupted");
      }
    }
    unsigned Done = 0, AtBarrier = 0;
    for (unsigned I = 0; I < NW; ++I) {
      Done += Waves[I]->Done;
      AtBarrier += Waves[I]->AtBarrier;
    }
    if (Done == NW)
      break;
    if (Done + AtBarrier == NW) {
      for (unsigned I = 0; I < NW; ++I)
        Waves[I]->AtBarrier = false;
    } else if (!AnyRan) {
      throw EmuError(EmuErrorKind::Deadlock, "the workgroup's waves stopped making progress");
    }
  }
}

llvm::Expected<RunStats> Emulator::run(const LaunchConfig &LIn) {
  Dispatch D;
  D.L = LIn;
  if (llvm::Error E = planDispatch(D))
    return std::move(E);
  const LaunchConfig &L = D.L;
  const KernelInfo *K = D.Kernel;
  unsigned Threads = L.Threads ? L.Threads : std::max(1u, std::thread::hardware_concurrency());
  // The workgroups to run: all, or L.Only's, enumerated by an index (Slot) that groupAt maps to
  // a linear id (past the grid's end: skipped).
  const bool Subset = !L.Only.all();
  if (Subset && (L.Only.Stride == 0 || L.Only.Count == 0))
    return makeError("a subset of workgroups with stride or count 0");
  if (Subset && L.Only.Count > ~0ull / L.Only.First.size())
    return makeError("a subset of more than 2^64 workgroups");
  const uint64_t Slots = Subset ? L.Only.First.size() * L.Only.Count : D.TotalGroups;
  uint64_t TotalGroups = D.TotalGroups; // those that run
  if (Subset) {
    TotalGroups = 0;
    for (uint64_t F : L.Only.First)
      if (F < D.TotalGroups)
        TotalGroups += std::min(L.Only.Count, (D.TotalGroups - F - 1) / L.Only.Stride + 1);
  }
  auto GroupAt = [&](uint64_t Slot) -> uint64_t {
    if (!Subset)
      return Slot;
    uint64_t Round = Slot / L.Only.First.size(), F = L.Only.First[Slot % L.Only.First.size()];
    if (Round > (~0ull - F) / L.Only.Stride)
      return ~0ull;
    return F + Round * L.Only.Stride;
  };
  Threads =
      unsigned(std::min<uint64_t>({Threads, std::max<uint64_t>(1, TotalGroups), kMaxWorkers}));

  auto Cleanup = [&] {
    for (uint64_t A : D.Temp)
      llvm::consumeError(Mem.unmap(A));
  };
  if (llvm::Error E = placeDispatch(D, Threads)) {
    Cleanup();
    return std::move(E);
  }

  // Threads take workgroups in runs of up to 16 consecutive ones (short enough that each thread
  // gets some 16 runs, for balance): neighbouring workgroups mostly touch neighbouring memory,
  // and taken one at a time the threads interleave their writes at workgroup granularity.
  // emu_bench's vector add at 2 threads: median 8.6e8 -> 9.5e8 lane-inst/s/core.
  const uint64_t Chunk = std::clamp<uint64_t>(Slots / (uint64_t(Threads) * 16), 1, 16);
  std::atomic<uint64_t> NextGroup{0};
  std::atomic<bool> Abort{false};
  std::atomic<uint64_t> GroupsDone{0};
  DispatchLimits Lim;
  Lim.Limited = L.MaxInstructions > 0 || L.TimeoutSeconds > 0;
  Lim.Deadline = std::chrono::steady_clock::now() +
                 std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                     std::chrono::duration<double>(L.TimeoutSeconds));
  std::mutex ErrLock;
  std::optional<std::pair<uint64_t, EmuError>> FirstError;
  std::vector<ThreadStats> TS(Threads);
  auto Start = std::chrono::steady_clock::now();

  StrictReport Report;
  // XNACK replay is possible unless the code object is built for xnack off (or has no xnack).
  const bool XnackReplay =
      Code.Target.Xnack == TargetFeature::On || Code.Target.Xnack == TargetFeature::Any;
  auto Worker = [&](unsigned T) {
    ThreadStats &St = TS[T];
    Workgroup WG;
    std::vector<std::unique_ptr<WaveState>> Waves;
    StrictGroup SG;
    std::vector<std::unique_ptr<StrictWave>> SW;
    size_t StepHint = 0, AccessHint = 0; // the largest traced wave's steps and accesses
    uint64_t Slot = 0, ChunkEnd = 0;
    for (;; ++Slot) {
      if (Abort.load(std::memory_order_relaxed))
        return;
      if (Slot >= ChunkEnd) {
        Slot = NextGroup.fetch_add(Chunk);
        ChunkEnd = std::min(Slot + Chunk, Slots);
      }
      if (Slot >= Slots)
        return;
      const uint64_t G = GroupAt(Slot);
      if (G >= D.TotalGroups)
        continue;
      try {
        uint32_t Id[3] = {uint32_t(G % D.NumGroups[0]),
                          uint32_t((G / D.NumGroups[0]) % D.NumGroups[1]),
                          uint32_t(G / (uint64_t(D.NumGroups[0]) * D.NumGroups[1]))};
        uint32_t Size[3];
        for (unsigned I = 0; I < 3; ++I)
          Size[I] = std::min(L.Block[I], L.GridItems[I] - Id[I] * L.Block[I]);
        uint32_t Items = Size[0] * Size[1] * Size[2];
        unsigned NW = (Items + kWaveSize - 1) / kWaveSize;
        std::memcpy(WG.Id, Id, sizeof(Id));
        WG.Lds.assign(D.GroupSegment, 0);
        WG.NumWaves = NW;
        while (Waves.size() < NW)
          Waves.push_back(std::make_unique<WaveState>());
        std::vector<ExecCtx> Ctx;
        Ctx.reserve(NW);
        const bool Traced = L.TraceWanted && L.TraceWanted(G);
        WorkgroupTrace Trace;
        if (Traced) {
          Trace.Group = G;
          Trace.Id = {Id[0], Id[1], Id[2]};
          Trace.Waves.resize(NW);
          for (unsigned Wv = 0; Wv < NW; ++Wv) {
            Trace.Waves[Wv].Wave = Wv;
            Trace.Waves[Wv].EntryPc = Base + K->EntryAddr;
            // The thread's last traced wave's sizes: a kernel's waves trace about alike, and
            // growing a large trace by doubling copied and touched it twice over.
            Trace.Waves[Wv].Steps.reserve(StepHint);
            Trace.Waves[Wv].Accesses.reserve(AccessHint);
          }
        }
        if (L.Strict) {
          SG.reset(NW, WG.Lds.size());
          SW.clear();
          for (unsigned Wv = 0; Wv < NW; ++Wv)
            SW.push_back(std::make_unique<StrictWave>(SG, Wv, Target, XnackReplay, Report));
        }
        for (unsigned Wv = 0; Wv < NW; ++Wv) {
          WaveState &W = *Waves[Wv];
          initWave(D, W, Wv, T, Id, Size, Items);
          uint64_t WaveScratch =
              D.ScratchBase + (uint64_t(T) * D.MaxWavesPerGroup + Wv) * kWaveSize * D.PerLane;
          Ctx.push_back(ExecCtx{W, WG, Mem, Target, 0, WaveScratch, D.PerLane, nullptr,
                                Mem.tracking(), L.Strict ? SW[Wv].get() : nullptr,
                                uint16_t(D.Alloc.NumberedSgprs), uint16_t(D.Alloc.ArchVgprs),
                                uint16_t(D.Alloc.Agprs), Traced ? &Trace.Waves[Wv] : nullptr});
        }
        scheduleGroup(L, G, Waves, Ctx, NW, Lim, St.LaneInsts);
        for (unsigned I = 0; I < NW; ++I)
          St.Insts += Waves[I]->InstCount;
        if (L.Strict)
          for (auto &S : SW)
            S->finish();
        St.Waves += NW;
        ++St.Groups;
        if (Traced) {
          for (const WaveTrace &WT : Trace.Waves) {
            StepHint = std::max(StepHint, WT.Steps.size());
            AccessHint = std::max(AccessHint, WT.Accesses.size());
          }
          L.TraceDone(std::move(Trace));
        }
        if (L.OnWorkgroupDone)
          L.OnWorkgroupDone(GroupsDone.fetch_add(1) + 1, TotalGroups);
      } catch (const EmuError &Err) {
        std::lock_guard<std::mutex> Lk(ErrLock);
        if (!FirstError || G < FirstError->first)
          FirstError.emplace(G, Err);
        Abort = true;
        return;
      }
    }
  };
  runOnWorkers(Threads, Worker);
  RunStats R;
  R.Seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
  R.Threads = Threads;
  for (const ThreadStats &St : TS) {
    R.Workgroups += St.Groups;
    R.Waves += St.Waves;
    R.WaveInstructions += St.Insts;
    R.LaneInstructions += St.LaneInsts;
  }
  R.EntryPc = Base + K->EntryAddr;
  if (L.Strict) {
    R.Findings = Report.findings();
    R.FindingsTotal = Report.total();
    R.Waits = Report.waits();
  }
  Cleanup();
  if (int Hit = Lim.Hit.load()) {
    if (Hit == 3)
      return interruptedError("the dispatch of kernel " + K->Name + " was stopped after " +
                              std::to_string(GroupsDone.load()) + " of " +
                              std::to_string(TotalGroups) + " workgroups");
    if (Hit == 1)
      return llvm::make_error<LimitError>(
          LimitError::Instructions, double(L.MaxInstructions), double(Lim.Executed.load()),
          "the dispatch stopped after " + std::to_string(Lim.Executed.load()) +
              " wave-instructions, past its limit of " + std::to_string(L.MaxInstructions));
    return llvm::make_error<LimitError>(
        LimitError::Seconds, L.TimeoutSeconds, R.Seconds,
        "the dispatch stopped after " + secondsText(L.TimeoutSeconds) +
            " s of emulation (its time limit), " + std::to_string(Lim.Executed.load()) +
            " wave-instructions executed");
  }
  if (FirstError) {
    uint64_t G = FirstError->first;
    std::string Group = "workgroup " + std::to_string(G % D.NumGroups[0]) + "," +
                        std::to_string((G / D.NumGroups[0]) % D.NumGroups[1]) + "," +
                        std::to_string(G / (uint64_t(D.NumGroups[0]) * D.NumGroups[1]));
    // "... at pc 0x... (k+0x4, workgroup 0,0,0)" where the pc is known, else the kernel's name.
    std::string Func = FirstError->second.Pc ? where(FirstError->second.Pc) : "";
    std::string Msg = std::string(FirstError->second.what()) + " (" +
                      (Func.empty() ? "kernel " + K->Name : Func) + ", " + Group + ")";
    if (FirstError->second.Kind == EmuErrorKind::MemoryFault)
      return llvm::make_error<MemoryFaultError>(Msg, FirstError->second.FaultAddr,
                                                FirstError->second.FaultInstruction);
    return runtimeError(Msg);
  }
  return R;
}

} // namespace asmevo::emu
