// The strict checks (see StrictCheck.h): wait counters, memory ordering between the waves of a
// workgroup, and the per-dispatch report.
#include "emu/StrictCheck.h"

#include "emu/EmuError.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace asmevo::emu {

namespace {

constexpr unsigned kMaxVmcnt = 63, kMaxLgkmcnt = 15; // gfx9 counter widths
constexpr size_t kMaxStoreLog = 1 << 14;

uint64_t packAccess(unsigned Wave, uint32_t Seq, bool Atomic) {
  return uint64_t(Seq) | (uint64_t(Wave + 1) << 32) | (uint64_t(Atomic) << 40);
}
unsigned accessWave(uint64_t B) { return unsigned((B >> 32) & 0xff) - 1; }
uint32_t accessSeq(uint64_t B) { return uint32_t(B); }
bool accessAtomic(uint64_t B) { return (B >> 40) & 1; }

std::string hexRange(uint64_t Lo, uint64_t Size) {
  char Buf[64];
  std::snprintf(Buf, sizeof(Buf), "0x%llx..0x%llx", (unsigned long long)Lo,
                (unsigned long long)(Lo + Size - 1));
  return Buf;
}

} // namespace

// ---- StrictReport ---------------------------------------------------------------------------

void StrictReport::add(const std::string &Rule, uint64_t Pc, std::vector<std::string> Instructions,
                       std::string Message) {
  std::lock_guard<std::mutex> G(Lock);
  ++Total;
  size_t SameRule = 0;
  for (const UnsafeFinding &F : Findings) {
    if (F.Rule != Rule)
      continue;
    if (F.Pc == Pc)
      return;
    ++SameRule;
  }
  // Kept per rule: a flood of one kind (wait states) must not hide another (a race).
  if (SameRule < kMaxFindings)
    Findings.push_back(UnsafeFinding{Rule, Pc, std::move(Instructions), std::move(Message)});
}

void StrictReport::mergeWaits(const std::map<uint64_t, WaitProfile> &W) {
  std::lock_guard<std::mutex> G(Lock);
  for (const auto &[Pc, P] : W) {
    WaitProfile &D = Waits[Pc];
    D.Executions += P.Executions;
    D.MaxVm = std::max(D.MaxVm, P.MaxVm);
    D.MaxLgkm = std::max(D.MaxLgkm, P.MaxLgkm);
  }
}

void StrictReport::addRepeats(uint64_t N) {
  std::lock_guard<std::mutex> G(Lock);
  Total += N;
}

std::vector<UnsafeFinding> StrictReport::findings() const {
  std::lock_guard<std::mutex> G(Lock);
  std::vector<UnsafeFinding> F = Findings;
  std::sort(F.begin(), F.end(),
            [](const UnsafeFinding &A, const UnsafeFinding &B) { return A.Pc < B.Pc; });
  return F;
}

uint64_t StrictReport::total() const {
  std::lock_guard<std::mutex> G(Lock);
  return Total;
}

std::map<uint64_t, WaitProfile> StrictReport::waits() const {
  std::lock_guard<std::mutex> G(Lock);
  return Waits;
}

// ---- StrictGroup ----------------------------------------------------------------------------

void StrictGroup::reset(unsigned N, size_t LdsBytes) {
  NumWaves = N;
  Ops.resize(N);
  for (auto &O : Ops)
    O.clear();
  Epoch.assign(N, 0);
  if (N > 1) {
    LdsWriter.assign(LdsBytes, Access{});
    LdsReader.assign(LdsBytes, Access{});
  } else {
    LdsWriter.clear();
    LdsReader.clear();
  }
  Stores.clear();
  StoresLo = ~0ull;
  StoresHi = 0;
}

// Stores every live wave is ordered after can no longer race with anything.
void StrictGroup::pruneStores() {
  uint32_t MinEpoch = *std::min_element(Epoch.begin(), Epoch.end());
  auto Dead = [&](const Store &S) { return Ops[S.Wave][S.Seq].DoneEpoch < MinEpoch; };
  Stores.erase(std::remove_if(Stores.begin(), Stores.end(), Dead), Stores.end());
  StoresLo = ~0ull;
  StoresHi = 0;
  for (const Store &S : Stores) {
    StoresLo = std::min(StoresLo, S.Lo);
    StoresHi = std::max(StoresHi, S.Hi);
  }
}

// ---- StrictWave -----------------------------------------------------------------------------

StrictWave::StrictWave(StrictGroup &G, unsigned Wave, Gfx Target, bool XnackReplay, StrictReport &R)
    : G(G), Wave(Wave), R(R), Hazards(Target), XnackReplay(XnackReplay) {
  std::memset(RegOwner, 0, sizeof(RegOwner));
}

std::string StrictWave::describe(Op O, uint64_t Pc) const {
  return std::string(opNameLower(O)) + " at pc " + hexText(Pc);
}

bool StrictWave::fresh(const char *Rule, uint64_t Pc) {
  for (const auto &[Rl, P] : Seen)
    if (Rl == Rule && P == Pc) {
      ++Repeats;
      return false;
    }
  Seen.emplace_back(Rule, Pc);
  return true;
}

void StrictWave::report(const char *Rule, uint64_t Pc, Op Other, std::string Message) {
  std::vector<std::string> Insts{opNameLower(CurOp)};
  if (Other != Op::Count)
    Insts.push_back(opNameLower(Other));
  R.add(Rule, Pc, std::move(Insts), std::string(Rule) + ": " + Message);
}

void StrictWave::before(ExecCtx &C, const Inst &In, const RegUses &U, uint64_t Pc) {
  (void)C;
  CurPc = Pc;
  CurOp = In.Operation;
  CurMem = U.Mem;
  CurTouchedLds = false;
  bool IsMem = U.Cls == IssueClass::Smem || U.Cls == IssueClass::Ds || U.Cls == IssueClass::Vmem ||
               U.Cls == IssueClass::Flat;
  if (IsMem) {
    CurSeq = NextSeq++;
    G.Ops[Wave].push_back(StrictGroup::OpRecord{Pc, In.Operation, StrictGroup::kPendingEpoch});
  }
  if (XnackReplay)
    clauseCheck(In, U, Pc);
  std::string Why, Producer;
  const char *Rule = nullptr;
  if (!Hazards.check(In, U, Pc, Why, &Rule, &Producer) && fresh(Rule, Pc))
    R.add(Rule, Pc, {opNameLower(In.Operation), Producer},
          Why); // the rule's name is the finding's rule
  if (Outstanding.empty())
    return;
  for (unsigned I = 0; I < U.NumReads; ++I) {
    uint16_t Code;
    const Pending *P = pendingIn(U.Reads[I], Code);
    if (!P)
      continue;
    if (!fresh("pending-read", Pc))
      return;
    // How far the counter must drop for the load to be complete (in-order counters).
    unsigned Younger = 0;
    for (const Pending &Q : Outstanding)
      if (Q.Seq > P->Seq && (P->InVm ? Q.InVm : Q.InLgkm))
        ++Younger;
    std::string Need = P->OutOfOrder ? std::string("lgkmcnt(0)")
                                     : std::string(P->InVm ? "vmcnt" : "lgkmcnt") + "(" +
                                           std::to_string(Younger) + ")";
    report("pending-read", Pc, P->Opc,
           describe(In.Operation, Pc) + " reads " + regName(RegRange{Code, 1}) + " before " +
               describe(P->Opc, P->Pc) + " has returned it (needs s_waitcnt " + Need + " first)");
    return;
  }
  for (unsigned I = 0; I < U.NumWrites; ++I) {
    uint16_t Code;
    const Pending *P = pendingIn(U.Writes[I], Code);
    if (!P)
      continue;
    // A later load of the same in-order queue returns after the earlier one: no hazard.
    bool InOrderAfter = !P->OutOfOrder && ((P->InVm && U.Cls == IssueClass::Vmem) ||
                                           (!P->InVm && U.Cls == IssueClass::Ds));
    if (InOrderAfter || !fresh("pending-overwrite", Pc))
      continue;
    report("pending-overwrite", Pc, P->Opc,
           describe(In.Operation, Pc) + " writes " + regName(RegRange{Code, 1}) + " while " +
               describe(P->Opc, P->Pc) + " has not yet returned into it");
    return;
  }
}

// Soft clauses (see StrictCheck.h). EXEC reads are left out: no memory instruction writes EXEC.
void StrictWave::clauseCheck(const Inst &In, const RegUses &U, uint64_t Pc) {
  bool Smem = U.Cls == IssueClass::Smem;
  bool VecMem = U.Cls == IssueClass::Vmem || U.Cls == IssueClass::Flat;
  if (!Smem && !VecMem) {
    Clause.clear();
    return;
  }
  if (!Clause.empty() && ClauseSmem != Smem)
    Clause.clear();
  ClauseSmem = Smem;
  Clause.push_back(ClauseMember{&U, Pc, In.Operation});
  if (Clause.size() < 2)
    return;
  auto Overlaps = [](const RegRange &W, const RegUses &Other) {
    for (unsigned I = 0; I < Other.NumReads; ++I)
      if (Other.Reads[I].Code != kExecLo && W.overlaps(Other.Reads[I]))
        return true;
    return false;
  };
  bool AnyDefs = false;
  for (const ClauseMember &M : Clause)
    AnyDefs |= M.U->NumWrites > 0;
  const ClauseMember *Writer = nullptr, *Reader = nullptr;
  RegRange Reg;
  for (const ClauseMember &W : Clause)
    for (unsigned I = 0; I < W.U->NumWrites && !Writer; ++I)
      for (const ClauseMember &Rd : Clause)
        if (Overlaps(W.U->Writes[I], *Rd.U)) {
          Writer = &W;
          Reader = &Rd;
          Reg = W.U->Writes[I];
          break;
        }
  bool StoreJoins = (U.Mem & kMemWrite) && !(U.Mem & kMemAtomic) && AnyDefs;
  if ((Writer || StoreJoins) && fresh("xnack-soft-clause", Pc)) {
    std::string What =
        Writer ? describe(Writer->Opc, Writer->Pc) + " writes " + regName(Reg) + " that " +
                     (Reader == Writer ? std::string("it reads itself")
                                       : describe(Reader->Opc, Reader->Pc) + " reads")
               : std::string("a store joins a clause that writes registers");
    report("xnack-soft-clause", Pc, Writer ? Writer->Opc : Op::Count,
           describe(In.Operation, Pc) + " joins a soft clause of " + std::to_string(Clause.size()) +
               " memory instructions in which " + What +
               ": an XNACK replay would use the new value (break the clause, e.g. s_nop 0)");
  }
  if (Writer || StoreJoins) // the report keeps the first; a new clause starts here
    Clause.erase(Clause.begin(), Clause.end() - 1);
}

// The pending load that will write a register of Rg (its first such register in Code).
const StrictWave::Pending *StrictWave::pendingIn(const RegRange &Rg, uint16_t &Code) const {
  for (unsigned K = 0; K < Rg.Count; ++K) {
    Code = uint16_t(Rg.Code + K);
    if (Code >= kAgprBase + 256 || !RegOwner[Code])
      continue;
    for (const Pending &P : Outstanding)
      if (P.Seq + 1 == RegOwner[Code])
        return &P;
  }
  return nullptr;
}

void StrictWave::retire(size_t Index) {
  Pending P = Outstanding[Index];
  Outstanding.erase(Outstanding.begin() + long(Index));
  if (!DmaPending.empty())
    DmaPending.erase(std::remove_if(DmaPending.begin(), DmaPending.end(),
                                    [&](const DmaRange &D) { return D.Seq == P.Seq; }),
                     DmaPending.end());
  G.Ops[Wave][P.Seq].DoneEpoch = G.Epoch[Wave];
  for (unsigned K = 0; K < P.Dst.Count; ++K) {
    uint16_t Code = uint16_t(P.Dst.Code + K);
    if (Code < kAgprBase + 256 && RegOwner[Code] == P.Seq + 1)
      RegOwner[Code] = 0;
  }
}

// s_waitcnt vmcnt(Vm) lgkmcnt(Lgkm): retire what the counters prove complete. vmcnt counts in
// issue order. lgkmcnt counts LDS in order but SMEM (and FLAT) out of order: with K of those
// outstanding, a count of N proves only the oldest (T - N - K) in-order ones complete, and
// the out-of-order ones only at 0.
void StrictWave::retireForWait(unsigned Vm, unsigned Lgkm) {
  unsigned VmOut = 0, LgkmOut = 0, Ooo = 0;
  for (const Pending &P : Outstanding) {
    VmOut += P.InVm;
    LgkmOut += P.InLgkm;
    Ooo += P.InLgkm && P.OutOfOrder;
  }
  for (size_t I = 0; I < Outstanding.size() && VmOut > Vm; ++I)
    if (Outstanding[I].InVm) {
      Outstanding[I].InVm = false;
      --VmOut;
    }
  if (LgkmOut > Lgkm) {
    if (Lgkm == 0) {
      for (Pending &P : Outstanding)
        P.InLgkm = false;
    } else {
      int Proven = int(LgkmOut) - int(Lgkm) - int(Ooo);
      for (size_t I = 0; I < Outstanding.size() && Proven > 0; ++I)
        if (Outstanding[I].InLgkm && !Outstanding[I].OutOfOrder) {
          Outstanding[I].InLgkm = false;
          --Proven;
        }
    }
  }
  for (size_t I = Outstanding.size(); I-- > 0;)
    if (!Outstanding[I].InVm && !Outstanding[I].InLgkm)
      retire(I);
}

// More outstanding than a counter holds: the hardware stalls issue until the oldest completes.
void StrictWave::limitOutstanding() {
  unsigned VmOut = 0, LgkmOut = 0;
  for (const Pending &P : Outstanding) {
    VmOut += P.InVm;
    LgkmOut += P.InLgkm;
  }
  if (VmOut > kMaxVmcnt)
    retireForWait(kMaxVmcnt, kMaxLgkmcnt + 1);
  if (LgkmOut > kMaxLgkmcnt) {
    for (Pending &P : Outstanding)
      if (P.InLgkm) {
        P.InLgkm = false;
        break;
      }
    retireForWait(kMaxVmcnt + 1, kMaxLgkmcnt + 1);
  }
}

void StrictWave::after(ExecCtx &C, const Inst &In, const RegUses &U, uint64_t Pc) {
  Hazards.issued(In, U, Pc);
  if (!LdsWrites.empty())
    ldsFinishWrites(C);
  switch (U.Cls) {
  case IssueClass::Smem:
  case IssueClass::Ds:
  case IssueClass::Vmem:
  case IssueClass::Flat: {
    Pending P;
    P.Seq = CurSeq;
    P.InVm = U.Cls == IssueClass::Vmem || U.Cls == IssueClass::Flat;
    P.InLgkm = U.Cls == IssueClass::Smem || U.Cls == IssueClass::Ds ||
               (U.Cls == IssueClass::Flat && CurTouchedLds);
    P.OutOfOrder = U.Cls == IssueClass::Smem || U.Cls == IssueClass::Flat;
    P.Dst = U.ReturnsData && U.NumWrites ? U.Writes[0] : RegRange{};
    P.Pc = Pc;
    P.Opc = In.Operation;
    Outstanding.push_back(P);
    for (unsigned K = 0; K < P.Dst.Count; ++K) {
      uint16_t Code = uint16_t(P.Dst.Code + K);
      if (Code < kAgprBase + 256)
        RegOwner[Code] = P.Seq + 1;
    }
    limitOutstanding();
    break;
  }
  case IssueClass::Sopp:
    if (In.Operation == Op::S_WAITCNT) {
      uint32_t S = uint16_t(In.Simm16);
      unsigned Vm = (S & 0xf) | (((S >> 14) & 3) << 4), Lgkm = (S >> 8) & 0xf;
      WaitProfile &Wp = Waits[Pc];
      ++Wp.Executions;
      unsigned VmOut = 0, LgkmOut = 0;
      for (const Pending &P : Outstanding) {
        VmOut += P.InVm;
        LgkmOut += P.InLgkm;
      }
      Wp.MaxVm = std::max(Wp.MaxVm, VmOut);
      Wp.MaxLgkm = std::max(Wp.MaxLgkm, LgkmOut);
      retireForWait(Vm, Lgkm);
    } else if (In.Operation == Op::S_BARRIER) {
      ++G.Epoch[Wave];
      if (G.Stores.size() > 256)
        G.pruneStores();
    } else if (In.Operation == Op::S_ENDPGM || In.Operation == Op::S_ENDPGM_SAVED) {
      retireForWait(0, 0);
    }
    break;
  default:
    break;
  }
}

// LDS accesses. Reads are checked as they happen; writes after the instruction, when their new
// bytes are known: a write that leaves a byte as it was (several waves storing the same value,
// as compiled code does for replicated data) cannot be ordered wrongly and is not an access.
void StrictWave::ldsTouch(ExecCtx &C, uint64_t Addr, unsigned Size) {
  CurTouchedLds = true;
  for (const DmaRange &D : DmaPending) {
    if (Addr + Size <= D.Lo || Addr >= D.Hi)
      continue;
    const bool Writes = CurMem & kMemWrite;
    const char *Rule = Writes ? "pending-overwrite" : "pending-read";
    if (fresh(Rule, CurPc)) {
      const StrictGroup::OpRecord &O = G.Ops[Wave][D.Seq];
      report(Rule, CurPc, O.Opc,
             describe(CurOp, CurPc) + (Writes ? " writes" : " reads") + " LDS bytes " +
                 hexRange(Addr, Size) + " that " + describe(O.Opc, O.Pc) +
                 " is still loading into LDS (no s_waitcnt vmcnt proves it complete)");
    }
    break;
  }
  if (G.NumWaves <= 1 || Addr + Size > G.LdsWriter.size())
    return;
  if (CurMem & kMemWrite) {
    LdsWrites.push_back({uint32_t(Addr), Size, uint32_t(LdsOld.size())});
    LdsOld.insert(LdsOld.end(), C.Wg.Lds.begin() + long(Addr),
                  C.Wg.Lds.begin() + long(Addr + Size));
  }
  if (CurMem & kMemRead)
    ldsCheck(Addr, Size, false);
}

// Check bytes [Addr, Addr+Size) accessed by the current instruction against the other waves'
// last unordered accesses, and record them.
void StrictWave::ldsCheck(uint64_t Addr, unsigned Size, bool Write) {
  bool Atomic = CurMem & kMemAtomic;
  uint32_t MyEpoch = G.Epoch[Wave];
  auto Unordered = [&](uint64_t Bits) {
    if (!Bits)
      return false;
    unsigned W = accessWave(Bits);
    if (W == Wave || W >= G.NumWaves)
      return false;
    if (Atomic && accessAtomic(Bits))
      return false;
    return G.Ops[W][accessSeq(Bits)].DoneEpoch >= MyEpoch;
  };
  uint64_t Mine = packAccess(Wave, CurSeq, Atomic);
  for (uint64_t B = Addr; B < Addr + Size; ++B) {
    uint64_t Wr = G.LdsWriter[B].Bits;
    uint64_t Rd = Write ? G.LdsReader[B].Bits : 0;
    const char *Kind = nullptr;
    uint64_t Other = 0;
    if (Unordered(Wr)) {
      Kind = Write ? "overwrites" : "reads";
      Other = Wr;
    } else if (Unordered(Rd)) {
      Kind = "overwrites";
      Other = Rd;
    }
    if (Write)
      G.LdsWriter[B].Bits = Mine;
    else
      G.LdsReader[B].Bits = Mine;
    if (Kind && fresh("lds-race", CurPc)) {
      const StrictGroup::OpRecord &O = G.Ops[accessWave(Other)][accessSeq(Other)];
      bool OtherWrote = Other == Wr;
      report("lds-race", CurPc, O.Opc,
             describe(CurOp, CurPc) + " in wave " + std::to_string(Wave) + " " + Kind +
                 " LDS byte " + hexRange(B, 1).substr(0, hexRange(B, 1).find('.')) + " that " +
                 describe(O.Opc, O.Pc) + " in wave " + std::to_string(accessWave(Other)) +
                 (OtherWrote ? " wrote" : " read") + ", with no s_barrier after that " +
                 (OtherWrote ? "write" : "read") + " completed");
    }
  }
}

void StrictWave::ldsFinishWrites(ExecCtx &C) {
  for (const LdsWrite &W : LdsWrites) {
    // Only the bytes the instruction changed are writes.
    uint64_t RunStart = 0;
    unsigned RunLen = 0;
    for (unsigned I = 0; I <= W.Size; ++I) {
      bool Changed = I < W.Size && C.Wg.Lds[W.Addr + I] != LdsOld[W.Old + I];
      if (Changed) {
        if (!RunLen)
          RunStart = W.Addr + I;
        ++RunLen;
      } else if (RunLen) {
        ldsCheck(RunStart, RunLen, true);
        RunLen = 0;
      }
    }
  }
  LdsWrites.clear();
  LdsOld.clear();
}

void StrictWave::globalTouch(ExecCtx &C, uint64_t Addr, unsigned Size) {
  (void)C;
  if (G.NumWaves <= 1)
    return;
  bool Writes = CurMem & kMemWrite, Atomic = CurMem & kMemAtomic;
  uint64_t End = Addr + Size;
  if (End > G.StoresLo && Addr < G.StoresHi) {
    uint32_t MyEpoch = G.Epoch[Wave];
    for (const StrictGroup::Store &S : G.Stores) {
      if (S.Wave == Wave || End <= S.Lo || Addr >= S.Hi || (Atomic && S.Atomic))
        continue;
      const StrictGroup::OpRecord &O = G.Ops[S.Wave][S.Seq];
      if (O.DoneEpoch < MyEpoch)
        continue;
      for (const auto &[A, N] : S.Bytes) {
        if (End <= A || Addr >= A + N)
          continue;
        if (fresh("global-race", CurPc))
          report("global-race", CurPc, O.Opc,
                 describe(CurOp, CurPc) + " in wave " + std::to_string(Wave) +
                     (Writes ? " writes" : " reads") + " global bytes " + hexRange(Addr, Size) +
                     " that " + describe(O.Opc, O.Pc) + " in wave " + std::to_string(S.Wave) +
                     " stored, with no s_barrier after that store completed");
        goto Record;
      }
    }
  }
Record:
  if (!Writes)
    return;
  if (G.Stores.empty() || G.Stores.back().Wave != Wave || G.Stores.back().Seq != CurSeq) {
    if (G.Stores.size() >= kMaxStoreLog) {
      G.Stores.erase(G.Stores.begin());
    }
    G.Stores.push_back(StrictGroup::Store{Wave, CurSeq, Atomic, Addr, End, {}});
  }
  StrictGroup::Store &S = G.Stores.back();
  S.Lo = std::min(S.Lo, Addr);
  S.Hi = std::max(S.Hi, End);
  S.Bytes.emplace_back(Addr, Size);
  G.StoresLo = std::min(G.StoresLo, Addr);
  G.StoresHi = std::max(G.StoresHi, End);
}

void StrictWave::ldsDmaWrite(ExecCtx &C, uint64_t Addr, unsigned Size, const uint8_t *Data) {
  // Counted in vmcnt only (not lgkmcnt, unlike a FLAT access that reaches LDS). The bytes land
  // later (ExecVmem.cpp); for the other waves the write is the issuing load's from now on, a
  // write only where the bytes change (as for DS writes).
  const uint32_t Lo = uint32_t(Addr), Hi = uint32_t(Addr + Size);
  if (!DmaPending.empty() && DmaPending.back().Seq == CurSeq && DmaPending.back().Hi == Lo)
    DmaPending.back().Hi = Hi; // the next lane's slot, contiguous
  else
    DmaPending.push_back(DmaRange{CurSeq, Lo, Hi});
  if (G.NumWaves <= 1 || Addr + Size > G.LdsWriter.size())
    return;
  uint64_t RunStart = 0;
  unsigned RunLen = 0;
  for (unsigned I = 0; I <= Size; ++I) {
    const bool Changed = I < Size && C.Wg.Lds[Addr + I] != Data[I];
    if (Changed) {
      if (!RunLen)
        RunStart = Addr + I;
      ++RunLen;
    } else if (RunLen) {
      ldsCheck(RunStart, RunLen, true);
      RunLen = 0;
    }
  }
}

void StrictWave::finish() {
  if (!Waits.empty())
    R.mergeWaits(Waits);
  Waits.clear();
  if (Repeats)
    R.addRepeats(Repeats);
  Repeats = 0;
}

void strictLdsTouch(ExecCtx &C, uint64_t Addr, unsigned Size) { C.Strict->ldsTouch(C, Addr, Size); }
void strictLdsDmaWrite(ExecCtx &C, uint64_t Addr, unsigned Size, const uint8_t *Data) {
  C.Strict->ldsDmaWrite(C, Addr, Size, Data);
}
void strictGlobalTouch(ExecCtx &C, uint64_t Addr, unsigned Size) {
  C.Strict->globalTouch(C, Addr, Size);
}

} // namespace asmevo::emu
