// The modeled backend (Model.h). The method, in the order of modelLaunch:
//  1. Occupancy from the descriptor (registers), the launch (LDS, workgroup size) and the
//     target's figures: workgroups resident per CU.
//  2. Sampling: workgroups are dealt to CUs round-robin (group g to CU g mod CUs, so CU c feeds
//     from L2 instance c mod l2_instances, as MI300X deals workgroups to XCDs). All workgroups
//     are simulated when there are at most MaxSimulatedGroups; else the workgroups of a sample of
//     CUs spread over the device, each CU's whole share (or, if one CU's share alone is too
//     many, its first MaxSimulatedGroups, and its time is scaled by share / simulated). The
//     device-wide bandwidths (L2 per instance, Infinity Cache, HBM) are scaled to the sampled
//     CUs' share of the CUs in use.
//  3. The launch runs on the device (all workgroups, computing what it computes, or with
//     RunSampleOnly only the sampled ones) and the sampled workgroups are traced
//     (device/Trace.h). Steps 1-3 are traceLaunch; they use only exact figures, so step 4
//     (simulateLaunch) can run on the same traces under any number of parameter sets.
//  4. The traces are replayed in one clock-by-clock simulation of the sampled CUs (idle stretches
//     skipped): each clock one SIMD of each CU may issue, at most one instruction per wave and one
//     per type (VALU incl. MFMA, SALU/SMEM, VMEM, LDS, branch); units stay busy for their
//     instruction's cycles (VALU and MFMA from LLVM's model, vector memory by bytes moved through
//     L1, LDS by bank-conflict passes); memory completion times come from the caches the real
//     addresses go through; s_waitcnt waits for them; s_nop, s_sleep, s_barrier and taken
//     branches hold the wave. CDNA has no register interlocks for VALU/MFMA results (the code's
//     own s_nops are the wait states), so none are modeled. A load into LDS writes the LDS port
//     when its data returns (Model.h).
//  5. The clock: the device's MFMA load from the simulation gives the engine clock the cycles
//     are converted at (Model.h); the kernel's fixed GPU-side time and the launch overhead are
//     added in microseconds.
#include "timing/Model.h"

#include "asm/SchedInfo.h"
#include "codeobj/TargetLimits.h"
#include "device/Trace.h"
#include "support/Error.h"
#include "support/Format.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <mutex>
#include <queue>
#include <unordered_map>

namespace asmevo::timing {

namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();

// A set-associative cache of line addresses with LRU replacement. Sets are allocated when first
// touched: a launch touches few of the Infinity Cache's millions of lines, and allocating them
// all per modeled launch cost more than the model itself.
class Cache {
public:
  Cache() = default;
  Cache(uint64_t Bytes, uint64_t LineBytes, unsigned Ways)
      : Line(LineBytes), Ways(std::max(1u, Ways)), Enabled(true) {
    Sets = std::max<uint64_t>(1, Bytes / LineBytes / this->Ways);
  }
  bool enabled() const { return Enabled; }
  // Look the line holding Addr up; on a miss, fill it. True on a hit.
  bool access(uint64_t Addr) {
    uint64_t L = Addr / Line, S = L % Sets;
    auto [Slot, New] = SetSlot.try_emplace(S, Tags.size());
    if (New) {
      Tags.resize(Tags.size() + Ways, ~0ull);
      Stamp.resize(Stamp.size() + Ways, 0);
    }
    uint64_t *T = &Tags[Slot->second];
    uint64_t *St = &Stamp[Slot->second];
    ++Clock;
    unsigned Victim = 0;
    for (unsigned W = 0; W < Ways; ++W) {
      if (T[W] == L) {
        St[W] = Clock;
        return true;
      }
      if (St[W] < St[Victim])
        Victim = W;
    }
    T[Victim] = L;
    St[Victim] = Clock;
    return false;
  }

private:
  uint64_t Line = 64, Sets = 1;
  unsigned Ways = 1;
  bool Enabled = false;
  uint64_t Clock = 0;
  std::unordered_map<uint64_t, size_t> SetSlot; // set -> its first way in Tags/Stamp
  std::vector<uint64_t> Tags, Stamp;
};

// A bandwidth: requests are served in arrival order at Rate bytes per clock.
struct Server {
  double Rate = 1, Free = 0;
  // When a request of Bytes arriving at T starts being served.
  double start(double T, double Bytes) {
    double S = std::max(T, Free);
    Free = S + Bytes / Rate;
    return S;
  }
};

enum class Reason : uint8_t {
  Issue,
  Dependency,
  UnitBusy,
  WaitVm,
  WaitLgkm,
  WaitExp,
  Barrier,
  Arbitration
};

void add(Breakdown &B, Reason R, double C) {
  switch (R) {
  case Reason::Issue:
    B.Issue += C;
    break;
  case Reason::Dependency:
    B.Dependency += C;
    break;
  case Reason::UnitBusy:
    B.UnitBusy += C;
    break;
  case Reason::WaitVm:
    B.WaitVm += C;
    break;
  case Reason::WaitLgkm:
    B.WaitLgkm += C;
    break;
  case Reason::WaitExp:
    B.WaitExp += C;
    break;
  case Reason::Barrier:
    B.Barrier += C;
    break;
  case Reason::Arbitration:
    B.Arbitration += C;
    break;
  }
}

// The issue categories: one instruction of each per SIMD per issue cycle.
enum Category : unsigned {
  CatValu = 1,
  CatScalar = 2,
  CatVmem = 4,
  CatLds = 8,
  CatBranch = 16,
  CatNone = 0
};
unsigned category(InstUnit U) {
  switch (U) {
  case InstUnit::Valu:
  case InstUnit::Mfma:
    return CatValu;
  case InstUnit::Salu:
  case InstUnit::Smem:
    return CatScalar;
  case InstUnit::Vmem:
  case InstUnit::Export:
    return CatVmem;
  case InstUnit::Lds:
    return CatLds;
  case InstUnit::Branch:
    return CatBranch;
  case InstUnit::Internal:
    return CatNone;
  }
  return CatNone;
}

struct Group;

// The LDS port clocks of one DS step: its dwords in lane order (a lane's in address order),
// served PerChunk a clock, each clock costing the most distinct dwords any one bank holds in it
// (at least 1). Returns {clocks, chunks} (clocks - chunks are bank-conflict clocks); {1, 1}
// for a step with no LDS access. Dw, Chunk and PerBank are working storage.
struct LdsScratch {
  std::vector<std::pair<unsigned, uint64_t>> Dw; // (lane, dword address)
  std::vector<uint64_t> Chunk;
  std::vector<uint32_t> PerBank;
};

std::pair<uint32_t, uint32_t> ldsStepClocks(const device::WaveTrace &WT, const device::TraceStep &S,
                                            unsigned Banks, size_t PerChunk, LdsScratch &X) {
  Banks = std::max(1u, Banks);
  PerChunk = std::max<size_t>(1, PerChunk);
  std::vector<std::pair<unsigned, uint64_t>> &Dw = X.Dw;
  Dw.clear();
  for (uint32_t K = S.First; K < S.First + S.Count; ++K) {
    const device::TraceAccess &A = WT.Accesses[K];
    if (A.Space != device::TraceSpace::Lds)
      continue;
    for (uint64_t D = A.Addr / 4; D <= (A.Addr + std::max<uint16_t>(A.Size, 1) - 1) / 4; ++D)
      Dw.push_back({A.Lane, D});
  }
  if (Dw.empty())
    return {1, 1};
  auto ByLane = [](const auto &A, const auto &B) { return A.first < B.first; };
  if (!std::is_sorted(Dw.begin(), Dw.end(), ByLane)) // the emulator records lanes in order
    std::stable_sort(Dw.begin(), Dw.end(), ByLane);
  X.PerBank.assign(Banks, 0);
  uint32_t Clocks = 0, Chunks = 0;
  for (size_t B = 0; B < Dw.size(); B += PerChunk) {
    size_t E = std::min(Dw.size(), B + PerChunk);
    X.Chunk.clear();
    for (size_t K = B; K < E; ++K)
      X.Chunk.push_back(Dw[K].second);
    std::sort(X.Chunk.begin(), X.Chunk.end());
    X.Chunk.erase(std::unique(X.Chunk.begin(), X.Chunk.end()), X.Chunk.end());
    uint32_t Worst = 1;
    for (uint64_t D : X.Chunk)
      Worst = std::max(Worst, ++X.PerBank[D % Banks]);
    for (uint64_t D : X.Chunk)
      X.PerBank[D % Banks] = 0;
    Clocks += Worst;
    ++Chunks;
  }
  return {Clocks, Chunks};
}

// The LDS figures ldsStepClocks depends on, from a parameter set.
std::pair<unsigned, size_t> ldsKey(const TargetParams &P) {
  double PortBytes = std::max(4.0, P["lds_bytes_per_clk"] / 2);
  return {std::max(1u, unsigned(P["lds_banks"])), std::max<size_t>(1, size_t(PortBytes / 4))};
}

// A traced workgroup and every step's ldsStepClocks under the traced LDS figures, by wave and
// step (the trace's shape).
struct TracedGroup {
  device::WorkgroupTrace Trace;
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> LdsClocks;
};

struct SimWave {
  const device::WaveTrace *T = nullptr;
  const std::pair<uint32_t, uint32_t> *LdsClocks = nullptr; // by step, where precomputed
  Group *G = nullptr;
  unsigned Simd = 0;
  size_t Step = 0;
  const InstCost *Cur = nullptr;
  double ReadyAt = 0;                // s_nop, s_sleep, taken branch, barrier release, dispatch
  double LastAcc = 0;                // cycles before this are accounted
  Reason Last = Reason::Arbitration; // why it did not issue when last examined
  Reason Hold = Reason::Dependency;  // what ReadyAt waits for (barrier release or the rest)
  bool AtBarrier = false, Ended = false;
  std::deque<double> Vm, Exp; // completion times, in order
  std::vector<double> Lgkm;   // completion times (SMEM returns out of order)
  double LastLds = 0;         // LDS returns in order
  double LastDone = 0;        // the latest completion of anything it issued
};

struct Group {
  unsigned Alive = 0, Arrived = 0;
  std::vector<SimWave *> Waves;
};

// Writes of loads into LDS waiting for their SIMD pair's LDS port: (when the data arrives, its
// port cycles), earliest first.
using DmaWrites = std::priority_queue<std::pair<double, double>,
                                      std::vector<std::pair<double, double>>, std::greater<>>;

struct Cu {
  unsigned L2 = 0;
  std::vector<uint64_t> Queue; // groups still to dispatch, in order
  size_t NextGroup = 0;
  uint64_t Share = 0; // its groups in the whole grid (Queue may hold only the first ones)
  unsigned Resident = 0;
  std::vector<std::vector<SimWave *>> Simd; // resident waves per SIMD, oldest first
  std::vector<double> ValuFree, XdlFree, SaluFree, BranchFree, LdsFree;
  std::vector<DmaWrites> LdsDma; // per LDS port, as LdsFree
  double TaFree = 0, SmemFree = 0;
  Cache L1, Scalar;
  double Done = 0;    // when its last wave ended and its last access completed
  double XdlBusy = 0; // clocks its SIMDs' matrix cores were busy, summed over the SIMDs
};

class Sink : public device::TraceSink {
public:
  std::function<bool(uint64_t)> Want;
  std::mutex Lock;
  // Each step's LDS clocks under LdsKey are computed here, on the backend's threads: the
  // ensemble's parameter sets share the LDS figures (they are exact on gfx90a and gfx942), so
  // simulateLaunch reads them instead of recomputing them per set.
  std::pair<unsigned, size_t> LdsKey{1, 1};
  std::map<uint64_t, TracedGroup> Groups;
  bool wants(uint64_t G) const override { return Want(G); }
  void take(device::WorkgroupTrace &&T) override {
    TracedGroup TG;
    TG.LdsClocks.resize(T.Waves.size());
    LdsScratch X;
    for (size_t W = 0; W < T.Waves.size(); ++W) {
      const device::WaveTrace &WT = T.Waves[W];
      TG.LdsClocks[W].reserve(WT.Steps.size());
      for (const device::TraceStep &S : WT.Steps)
        TG.LdsClocks[W].push_back(ldsStepClocks(WT, S, LdsKey.first, LdsKey.second, X));
    }
    uint64_t G = T.Group;
    TG.Trace = std::move(T);
    std::lock_guard<std::mutex> L(Lock);
    Groups.emplace(G, std::move(TG));
  }
};

class Simulation {
public:
  Simulation(const TargetParams &P, SchedInfo &Sched, uint64_t EntryAddr, bool Profile)
      : P(P), Sched(Sched), EntryAddr(EntryAddr), Profile(Profile),
        Gfx90aPolicy(P.Target == "gfx90a") {}

  const TargetParams &P;
  SchedInfo &Sched;
  uint64_t EntryAddr;
  bool Profile;
  bool Gfx90aPolicy; // glc, not sc1 or nt, is what bypasses the L1

  unsigned Simds = 4, GroupsPerCu = 1;
  std::vector<Cu> Cus;
  std::vector<Cache> L2;
  std::vector<Server> L2Bw;
  Cache Mall;
  Server MallBw, HbmBw;
  const std::map<uint64_t, TracedGroup> *Traces = nullptr;
  std::vector<std::unique_ptr<Group>> GroupStore;
  std::vector<std::unique_ptr<SimWave>> WaveStore;
  std::unordered_map<int64_t, const InstCost *> Costs;
  std::unordered_map<int64_t, InstProfile> Prof;
  Breakdown Total;
  double MinWake = kNever;
  std::string Error;
  std::vector<SimWave *> Scratch;
  // This set's LDS figures; whether the traces' LDS clocks were computed under them (else
  // ldsCycles computes them in Lds).
  std::pair<unsigned, size_t> LdsKey{1, 1};
  bool TracedLdsClocks = false;
  LdsScratch Lds;

  const InstCost *costAt(int64_t Off) {
    auto It = Costs.find(Off);
    if (It != Costs.end())
      return It->second;
    auto C = Sched.cost(uint64_t(int64_t(EntryAddr) + Off));
    const InstCost *R = nullptr;
    if (C)
      R = *C;
    else if (Error.empty())
      Error = llvm::toString(C.takeError());
    else
      llvm::consumeError(C.takeError());
    Costs.emplace(Off, R);
    return R;
  }

  void account(SimWave &W, double T, Reason R) {
    double C = T - W.LastAcc;
    if (C <= 0)
      return;
    add(Total, R, C);
    if (Profile && W.Cur)
      add(Prof[W.T->Steps[W.Step].Offset].Cycles, R, C);
    W.LastAcc = T;
  }

  void dispatch(Cu &C, double T) {
    while (C.Resident < GroupsPerCu && C.NextGroup < C.Queue.size()) {
      uint64_t Id = C.Queue[C.NextGroup++];
      auto It = Traces->find(Id);
      if (It == Traces->end())
        continue; // the emulator ran it but did not hand it over: nothing to replay
      auto G = std::make_unique<Group>();
      const TracedGroup &TG = It->second;
      for (size_t WI = 0; WI < TG.Trace.Waves.size(); ++WI) {
        const device::WaveTrace &WT = TG.Trace.Waves[WI];
        auto W = std::make_unique<SimWave>();
        W->T = &WT;
        if (TracedLdsClocks)
          W->LdsClocks = TG.LdsClocks[WI].data();
        W->G = G.get();
        // The SIMD with the fewest resident waves takes the next wave.
        unsigned Best = 0;
        for (unsigned S = 1; S < Simds; ++S)
          if (C.Simd[S].size() < C.Simd[Best].size())
            Best = S;
        W->Simd = Best;
        W->ReadyAt = T;
        W->LastAcc = T;
        W->Cur = WT.Steps.empty() ? nullptr : costAt(WT.Steps[0].Offset);
        if (!W->Cur) {
          W->Ended = true;
          continue;
        }
        C.Simd[Best].push_back(W.get());
        G->Waves.push_back(W.get());
        ++G->Alive;
        WaveStore.push_back(std::move(W));
      }
      if (G->Alive == 0)
        continue;
      ++C.Resident;
      GroupStore.push_back(std::move(G));
    }
  }

  // When all of Q's completions but N have happened (Q in order); 0 if already so.
  static double waitInOrder(std::deque<double> &Q, int N, double T) {
    while (!Q.empty() && Q.front() <= T)
      Q.pop_front();
    if (int(Q.size()) <= N)
      return 0;
    return Q[Q.size() - N - 1];
  }
  static double waitAnyOrder(std::vector<double> &Q, int N, double T) {
    Q.erase(std::remove_if(Q.begin(), Q.end(), [T](double X) { return X <= T; }), Q.end());
    if (int(Q.size()) <= N)
      return 0;
    std::vector<double> S = Q;
    std::nth_element(S.begin(), S.begin() + (S.size() - N - 1), S.end());
    return S[S.size() - N - 1];
  }

  // Why W cannot issue its instruction at T, and until when (kNever: until another wave acts);
  // Reason::Issue when it can.
  Reason blocked(Cu &C, SimWave &W, double T, double &Until) {
    const InstCost &I = *W.Cur;
    Until = kNever;
    if (W.AtBarrier)
      return Reason::Barrier;
    if (W.ReadyAt > T) {
      Until = W.ReadyAt;
      return W.Hold;
    }
    if (I.WaitVm >= 0)
      if (double U = waitInOrder(W.Vm, I.WaitVm, T); U > T) {
        Until = U;
        return Reason::WaitVm;
      }
    if (I.WaitLgkm >= 0)
      if (double U = waitAnyOrder(W.Lgkm, I.WaitLgkm, T); U > T) {
        Until = U;
        return Reason::WaitLgkm;
      }
    if (I.WaitExp >= 0)
      if (double U = waitInOrder(W.Exp, I.WaitExp, T); U > T) {
        Until = U;
        return Reason::WaitExp;
      }
    double Free = 0;
    switch (I.Unit) {
    case InstUnit::Valu:
      Free = C.ValuFree[W.Simd];
      break;
    case InstUnit::Mfma:
      Free = C.XdlFree[W.Simd];
      break;
    case InstUnit::Salu:
      Free = C.SaluFree[W.Simd];
      break;
    case InstUnit::Branch:
      Free = C.BranchFree[W.Simd];
      break;
    case InstUnit::Vmem:
    case InstUnit::Export:
      Free = C.TaFree;
      break;
    case InstUnit::Lds:
      settleDma(C, W.Simd / 2, T);
      Free = C.LdsFree[W.Simd / 2];
      break;
    case InstUnit::Smem:
      Free = C.SmemFree;
      break;
    case InstUnit::Internal:
      break;
    }
    if (Free > T) {
      Until = Free;
      return Reason::UnitBusy;
    }
    return Reason::Issue;
  }

  // The distinct lines of the step's accesses in Space.
  static void lines(const device::WaveTrace &WT, const device::TraceStep &S,
                    device::TraceSpace Space, uint64_t Line, std::vector<uint64_t> &Out) {
    Out.clear();
    for (uint32_t K = S.First; K < S.First + S.Count; ++K) {
      const device::TraceAccess &A = WT.Accesses[K];
      if (A.Space != Space)
        continue;
      for (uint64_t L = A.Addr / Line; L <= (A.Addr + std::max<uint16_t>(A.Size, 1) - 1) / Line;
           ++L)
        Out.push_back(L * Line);
    }
    std::sort(Out.begin(), Out.end());
    Out.erase(std::unique(Out.begin(), Out.end()), Out.end());
  }

  // Whether a load skips the per-CU L1 (no lookup, no fill), by its cache-policy bits (LLVM's
  // memory model, SIMemoryLegalizer: gfx940 agent scope sets sc1, system scope sc0 sc1, both
  // "bypass the L1"; gfx90a agent and system scope set glc, "L1 cache policy MISS_EVICT"; RMW
  // atomics "implicitly bypass the L1 cache"). nt: measured on an MI300X at the latency of an
  // L2 hit for a line the L1 held (MrRoy09/AMD-CDNA3-CacheBenchmarking, cache_latency_test:
  // L1 hit 112 clk, nt 224, sc1 224); taken to hold on gfx950 too. sc0 alone (workgroup scope)
  // and gfx90a's slc and scc leave the L1 as it is.
  bool bypassesL1(const InstCost &I) const {
    if (I.Atomic)
      return true;
    return Gfx90aPolicy ? I.Sc0 : I.Sc1 || I.Nt;
  }

  // Completion time of a vector memory access of one line issued to the L1 at T.
  double vectorLine(Cu &C, uint64_t Addr, double T, bool Store, bool BypassL1) {
    double LineBytes = P["l1_line_bytes"];
    if (!Store && !BypassL1 && C.L1.access(Addr))
      return T + P["l1_latency_clk"];
    unsigned Inst = C.L2;
    double S = L2Bw[Inst].start(T, LineBytes);
    bool L2Hit = L2[Inst].access(Addr);
    if (Store) {
      if (!L2Hit) // written back to memory eventually: it takes HBM bandwidth
        HbmBw.start(T, LineBytes);
      return S + P["l2_latency_clk"];
    }
    if (L2Hit)
      return S + P["l2_latency_clk"];
    if (Mall.enabled()) {
      double M = MallBw.start(S, LineBytes);
      if (Mall.access(Addr))
        return M + P["mall_latency_clk"];
    }
    return HbmBw.start(S, LineBytes) + P["hbm_latency_clk"];
  }

  // LDS cycles of one DS instruction: its lanes in chunks of a port's bytes per clock, each
  // chunk taking as many clocks as the most distinct dwords any bank holds (same dword:
  // broadcast); ldsStepClocks, read from traceLaunch's table when this set's LDS figures are
  // the traced ones.
  double ldsCycles(const SimWave &W, const device::TraceStep &S, double &Conflict) {
    std::pair<uint32_t, uint32_t> C =
        W.LdsClocks ? W.LdsClocks[W.Step]
                    : ldsStepClocks(*W.T, S, LdsKey.first, LdsKey.second, Lds);
    Conflict = double(C.first) - double(C.second);
    return double(C.first);
  }

  // Writes of loads into LDS that arrived at Port by T take it, in arrival order, before a DS
  // instruction that wants it at T (one arriving later waits for that instruction).
  void settleDma(Cu &C, unsigned Port, double T) {
    DmaWrites &Q = C.LdsDma[Port];
    while (!Q.empty() && Q.top().first <= T) {
      C.LdsFree[Port] = std::max(C.LdsFree[Port], Q.top().first) + Q.top().second;
      Q.pop();
    }
  }

  void issue(Cu &C, SimWave &W, double T) {
    const device::TraceStep &S = W.T->Steps[W.Step];
    const InstCost &I = *W.Cur;
    // The time since its last examination is the reason it then had; the issue slot itself
    // (one per wave every Simds clocks) is Issue.
    account(W, T, W.Last);
    W.LastAcc = T;
    account(W, T + Simds, Reason::Issue);
    if (Profile)
      ++Prof[S.Offset].Executions;
    double Quad = 4;
    double Next = T + 1;
    std::vector<uint64_t> Ls;
    switch (I.Unit) {
    case InstUnit::Valu:
      C.ValuFree[W.Simd] = T + Quad * I.BusyQuads;
      break;
    case InstUnit::Mfma:
      C.XdlFree[W.Simd] = T + Quad * I.BusyQuads;
      C.ValuFree[W.Simd] = std::max(C.ValuFree[W.Simd], T + Quad);
      C.XdlBusy += Quad * I.BusyQuads;
      break;
    case InstUnit::Salu:
      C.SaluFree[W.Simd] = T + Quad * I.BusyQuads;
      break;
    case InstUnit::Branch:
      C.BranchFree[W.Simd] = T + Quad;
      break;
    case InstUnit::Vmem:
    case InstUnit::Export: {
      double LineBytes = P["l1_line_bytes"];
      lines(*W.T, S, device::TraceSpace::Vector, uint64_t(LineBytes), Ls);
      double PerLine = LineBytes / P["l1_bytes_per_clk"];
      // The texture addresser takes vmem_issue_clk for the instruction's addresses, or longer
      // when its lines take longer to pass the L1.
      C.TaFree = T + std::max(P["vmem_issue_clk"], double(Ls.size()) * PerLine);
      double Done = T + Quad;
      bool Bypass = bypassesL1(I);
      for (size_t K = 0; K < Ls.size(); ++K)
        Done = std::max(Done, vectorLine(C, Ls[K], T + double(K) * PerLine, I.Store, Bypass));
      if (I.LdsDirect) {
        // The data is written into LDS when it returns (Model.h): the port is taken for the
        // write's cycles then, not while the load is in flight; vmcnt counts the load complete
        // once the write is done. Contention for the port at the return is not added to that
        // completion (the write queues behind DS instructions only for them).
        double Conflict = 0;
        double Cyc = ldsCycles(W, S, Conflict);
        C.LdsDma[W.Simd / 2].push({Done, Cyc});
        Total.LdsConflict += Conflict;
        if (Profile)
          Prof[S.Offset].Cycles.LdsConflict += Conflict;
        Done += Cyc;
      }
      if (I.Vm) {
        Done = std::max(Done, W.Vm.empty() ? 0 : W.Vm.back());
        W.Vm.push_back(Done);
      }
      if (I.Exp)
        W.Exp.push_back(std::max(Done, W.Exp.empty() ? 0 : W.Exp.back()));
      if (I.Lgkm) // FLAT counts on both
        W.Lgkm.push_back(Done);
      W.LastDone = std::max(W.LastDone, Done);
      break;
    }
    case InstUnit::Lds: {
      double Conflict = 0;
      double Cyc = ldsCycles(W, S, Conflict);
      settleDma(C, W.Simd / 2, T);
      double Start = std::max(T, C.LdsFree[W.Simd / 2]);
      C.LdsFree[W.Simd / 2] = Start + Cyc;
      Total.LdsConflict += Conflict;
      if (Profile)
        Prof[S.Offset].Cycles.LdsConflict += Conflict;
      double Done = std::max(Start + Cyc + P["lds_latency_clk"], W.LastLds);
      W.LastLds = Done;
      W.Lgkm.push_back(Done);
      W.LastDone = std::max(W.LastDone, Done);
      break;
    }
    case InstUnit::Smem: {
      C.SmemFree = T + Quad;
      double LineBytes = P["scalar_cache_line_bytes"];
      lines(*W.T, S, device::TraceSpace::Scalar, uint64_t(LineBytes), Ls);
      double Done = T + P["scalar_cache_latency_clk"];
      for (uint64_t L : Ls)
        if (I.Store || !C.Scalar.access(L))
          Done = std::max(Done, T + P["scalar_miss_latency_clk"]);
      if (I.Lgkm)
        W.Lgkm.push_back(Done);
      W.LastDone = std::max(W.LastDone, Done);
      break;
    }
    case InstUnit::Internal:
      if (I.NopStates)
        Next = T + Quad * I.NopStates;
      if (I.SleepClk)
        Next = T + double(I.SleepClk);
      break;
    }
    // Where the wave goes next: a taken branch restarts the fetch.
    size_t NextStep = W.Step + 1;
    if (I.Unit == InstUnit::Branch && NextStep < W.T->Steps.size() &&
        W.T->Steps[NextStep].Offset != S.Offset + int64_t(I.Size))
      Next = std::max(Next, T + P["branch_taken_clk"]);
    W.ReadyAt = Next;
    W.Hold = Reason::Dependency;
    if (I.Barrier) {
      W.AtBarrier = true;
      ++W.G->Arrived;
      release(*W.G, T);
    }
    W.Step = NextStep;
    if (I.EndPgm || W.Step >= W.T->Steps.size()) {
      end(C, W, T);
      return;
    }
    W.Cur = costAt(W.T->Steps[W.Step].Offset);
    if (!W.Cur)
      end(C, W, T);
  }

  void release(Group &G, double T) {
    if (G.Arrived < G.Alive || G.Arrived == 0)
      return;
    double R = T + P["barrier_latency_clk"];
    for (SimWave *W : G.Waves)
      if (!W->Ended && W->AtBarrier) {
        W->AtBarrier = false;
        W->ReadyAt = std::max(W->ReadyAt, R);
        W->Hold = Reason::Barrier;
      }
    G.Arrived = 0;
  }

  void end(Cu &C, SimWave &W, double T) {
    W.Ended = true;
    // It ends with its last issue slot, or when its last access completes.
    C.Done = std::max({C.Done, T + Simds, W.LastDone});
    auto &Q = C.Simd[W.Simd];
    Q.erase(std::find(Q.begin(), Q.end(), &W));
    Group &G = *W.G;
    if (--G.Alive == 0) {
      --C.Resident;
      dispatch(C, T + 1);
    } else {
      release(G, T);
    }
  }

  // One issue cycle of CU C at T; whether anything issued.
  bool cycle(Cu &C, double T, unsigned SimdIx) {
    auto &Q = C.Simd[SimdIx];
    unsigned Used = 0;
    bool Any = false;
    // A copy: issuing may end a wave and change the queue.
    Scratch.assign(Q.begin(), Q.end());
    for (SimWave *W : Scratch) {
      if (W->Ended)
        continue;
      double Until = kNever;
      Reason R = blocked(C, *W, T, Until);
      if (R == Reason::Issue) {
        unsigned Cat = category(W->Cur->Unit);
        if (Cat && (Used & Cat)) {
          account(*W, T, Reason::Arbitration);
          W->Last = Reason::Arbitration;
          MinWake = std::min(MinWake, T + 1);
          continue;
        }
        Used |= Cat;
        issue(C, *W, T);
        Any = true;
      } else {
        account(*W, T, R);
        W->Last = R;
        MinWake = std::min(MinWake, Until);
      }
    }
    return Any;
  }

  // Run every CU to its end; the last CU's end (scaled where a CU's share was truncated).
  double run() {
    for (Cu &C : Cus)
      dispatch(C, 0);
    double T = 0;
    unsigned Idle = 0;
    for (;;) {
      bool Alive = false, Any = false;
      unsigned SimdIx = unsigned(uint64_t(T) % Simds);
      for (Cu &C : Cus) {
        if (C.Resident == 0)
          continue;
        Alive = true;
        Any |= cycle(C, T, SimdIx);
      }
      if (!Alive || !Error.empty())
        break;
      if (Any) {
        Idle = 0;
        MinWake = kNever;
        T += 1;
        continue;
      }
      if (++Idle < Simds) {
        T += 1;
        continue;
      }
      // A whole round of SIMDs with nothing issued: skip to the first wave that can move.
      Idle = 0;
      double W = MinWake;
      MinWake = kNever;
      if (W == kNever) {
        Error = "the model's waves stopped making progress (a barrier no wave can release)";
        break;
      }
      T = std::max(T + 1, std::floor(W));
    }
    // Writes still queued for HBM drain before the launch ends.
    double End = HbmBw.Free;
    for (Cu &C : Cus) {
      double D = C.Done;
      if (C.Queue.size() < C.Share && !C.Queue.empty())
        D *= double(C.Share) / double(C.Queue.size());
      End = std::max(End, D);
    }
    return End;
  }
};

} // namespace

double engineClock(const TargetParams &TP, double MfmaLoad) {
  double Boost = TP.clockMHz();
  if (MfmaLoad <= 0)
    return Boost;
  double F =
      TP["mfma_clock_mhz"] * std::pow(std::min(1.0, MfmaLoad), -1.0 / TP["clock_power_exponent"]);
  return std::min(Boost, F);
}

// What traceLaunch keeps for simulateLaunch: the traces, the sampling plan and the figures the
// plan was made with.
struct TracedLaunch::Data {
  const CodeObject *Code = nullptr;
  uint64_t EntryAddr = 0;
  std::unique_ptr<SchedInfo> Sched;
  std::map<uint64_t, TracedGroup> Traces; // with their LDS clocks under LdsKey's figures
  std::pair<unsigned, size_t> LdsKey{1, 1};
  std::vector<unsigned> Sampled; // the sampled CUs
  uint64_t Groups = 0, NumCus = 0, Used = 0, Take = 0, PerCu = 1;
  unsigned Simds = 4;
  std::string Target;
  std::map<std::string, double> Exact; // the exact figures the plan depends on
};

TracedLaunch::TracedLaunch() = default;
TracedLaunch::~TracedLaunch() = default;
TracedLaunch::TracedLaunch(TracedLaunch &&) noexcept = default;
TracedLaunch &TracedLaunch::operator=(TracedLaunch &&) noexcept = default;

llvm::Expected<TracedLaunch> traceLaunch(device::Device &Dev, device::Module &M,
                                         const device::LaunchParams &PIn, const TargetParams &TP,
                                         const ModelOptions &O) {
  if (!Dev.info().Traces)
    return makeError("the " + Dev.info().Backend +
                     " backend cannot trace a launch (the timing model runs on the emu backend)");
  const CodeObject &Code = M.codeObject();
  const KernelInfo *K = Code.kernel(PIn.Kernel);
  if (!K)
    return makeError("'" + Code.Path + "': no kernel named '" + PIn.Kernel + "'");
  if (Code.Target.Processor != TP.Target)
    return makeError("'" + Code.Path + "' is for " + Code.Target.Processor +
                     ", the timing parameters '" + TP.Path + "' are for " + TP.Target);

  TracedLaunch TL;
  TL.D = std::make_unique<TracedLaunch::Data>();
  TracedLaunch::Data &D = *TL.D;
  ModelResult &R = TL.Shape;
  R.Target = TP.Target;
  R.Device = TP.Device;
  D.Code = &Code;
  D.EntryAddr = K->EntryAddr;
  D.Target = TP.Target;
  for (const FigureDef &F : kFigures)
    if (mustBeExact(F))
      D.Exact[F.Name] = TP[F.Name];

  // 1. Occupancy with the target's figures.
  TargetLimits L = targetLimits(Code.Target);
  L.SimdsPerCu = unsigned(TP["simds_per_cu"]);
  L.MaxWavesPerSimd = unsigned(TP["wave_slots_per_simd"]);
  L.VgprsPerSimdLane = unsigned(TP["vgprs_per_simd_lane"]);
  L.VgprAllocGranule = unsigned(TP["vgpr_granule"]);
  L.LdsBytes = uint32_t(TP["lds_bytes_per_cu"]);
  RegisterAllocation A = registerAllocation(K->Kd, Code.Target, true, true);
  uint64_t Lds = uint64_t(K->Kd.GroupSegmentFixedSize) + PIn.DynamicLds;
  unsigned Items = PIn.Block[0] * PIn.Block[1] * PIn.Block[2];
  Occupancy Occ = occupancy(L, A.UnifiedVgprs, A.Sgprs, Lds, Items);
  unsigned WavesPerGroup = std::max(1u, (Items + 63) / 64);
  uint64_t ByWaves = uint64_t(Occ.WavesPerSimd) * L.SimdsPerCu / WavesPerGroup;
  uint64_t ByLds = Lds ? L.LdsBytes / std::max<uint64_t>(Lds, 1) : ~0ull;
  uint64_t PerCu =
      std::max<uint64_t>(1, std::min({ByWaves, ByLds, uint64_t(L.MaxWorkgroupsPerCu)}));
  R.WavesPerGroup = WavesPerGroup;
  R.GroupsPerCu = unsigned(PerCu);
  R.WavesPerSimd = Occ.WavesPerSimd;
  R.OccupancyLimit = Occ.Limiter;
  unsigned Granule = std::max(1u, L.VgprAllocGranule);
  R.Vgprs = (std::max(1u, A.UnifiedVgprs) + Granule - 1) / Granule * Granule;
  if (Occ.WavesPerSimd) {
    unsigned Fit = std::min(L.VgprsPerSimdLane / Occ.WavesPerSimd, 512u) / Granule * Granule;
    R.VgprHeadroom = Fit > R.Vgprs ? Fit - R.Vgprs : 0;
  }
  D.PerCu = PerCu;
  D.Simds = L.SimdsPerCu;

  // 2. Sampling.
  uint64_t Groups = 1;
  for (unsigned Dim = 0; Dim < 3; ++Dim) {
    uint64_t N = (uint64_t(PIn.GridItems[Dim]) + PIn.Block[Dim] - 1) / std::max(1u, PIn.Block[Dim]);
    if (N && Groups > ~0ull / N)
      return makeError("a grid of more than 2^64 workgroups");
    Groups *= N;
  }
  R.Groups = Groups;
  uint64_t NumCus = uint64_t(TP.computeUnits());
  uint64_t Used = std::min(NumCus, Groups);
  uint64_t Share = (Groups + NumCus - 1) / NumCus; // most groups any CU gets
  uint64_t Max = std::max<uint64_t>(1, O.MaxSimulatedGroups);
  std::vector<unsigned> Sampled;
  uint64_t Take = Share; // groups simulated per sampled CU
  if (Groups <= Max) {
    for (uint64_t C = 0; C < Used; ++C)
      Sampled.push_back(unsigned(C));
  } else {
    uint64_t S = std::max<uint64_t>(1, Max / Share);
    S = std::min(S, Used);
    for (uint64_t I = 0; I < S; ++I)
      Sampled.push_back(unsigned(I * Used / S));
    if (Share > Max)
      Take = Max;
  }
  std::vector<int> SampleIndex(NumCus, -1);
  for (size_t I = 0; I < Sampled.size(); ++I)
    SampleIndex[Sampled[I]] = int(I);
  Sink Traces;
  Traces.Want = [&](uint64_t G) { return SampleIndex[G % NumCus] >= 0 && G / NumCus < Take; };
  Traces.LdsKey = ldsKey(TP);
  D.Groups = Groups;
  D.NumCus = NumCus;
  D.Used = Used;
  D.Take = Take;

  // 3. The launch.
  device::LaunchParams P = PIn;
  P.Trace = &Traces;
  if (O.RunSampleOnly && Groups > Max) {
    P.Only.Stride = NumCus;
    P.Only.Count = Take;
    P.Only.First.assign(Sampled.begin(), Sampled.end());
  }
  if (O.Threads)
    P.Threads = O.Threads;
  auto LR = Dev.launch(M, P);
  if (!LR)
    return LR.takeError();
  R.Launch = *LR;
  R.EmulatedGroups = LR->Workgroups;
  D.Traces = std::move(Traces.Groups);
  D.LdsKey = Traces.LdsKey;
  D.Sampled = std::move(Sampled);

  auto Sched = SchedInfo::create(Code);
  if (!Sched)
    return Sched.takeError();
  D.Sched = std::move(*Sched);
  return TL;
}

llvm::Expected<ModelResult> simulateLaunch(const TracedLaunch &TL, const TargetParams &TP,
                                           bool Profile) {
  if (!TL.D)
    return makeError("timing model: no traced launch to simulate");
  const TracedLaunch::Data &D = *TL.D;
  // The plan holds only for the figures it was made with.
  if (TP.Target != D.Target)
    return makeError("the timing parameters '" + TP.Path + "' are for " + TP.Target +
                     ", the launch was traced for " + D.Target);
  for (const auto &[Name, V] : D.Exact)
    if (TP[Name] != V)
      return makeError("the timing parameters '" + TP.Path + "' give " + Name + " " +
                       fixed(TP[Name], 0) + ", the launch was traced with " + fixed(V, 0) +
                       " (an exact figure: a parameter set may vary only the others)");
  ModelResult R = TL.Shape;
  R.Target = TP.Target;
  R.Device = TP.Device;
  const std::vector<unsigned> &Sampled = D.Sampled;
  uint64_t Groups = D.Groups, NumCus = D.NumCus, Used = D.Used, Take = D.Take;

  // 4. The simulation.
  Simulation Sim(TP, *D.Sched, D.EntryAddr, Profile);
  Sim.Traces = &D.Traces;
  Sim.LdsKey = ldsKey(TP);
  Sim.TracedLdsClocks = Sim.LdsKey == D.LdsKey;
  Sim.Simds = D.Simds;
  Sim.GroupsPerCu = unsigned(D.PerCu);
  unsigned L2N = std::max(1u, unsigned(TP["l2_instances"]));
  std::vector<unsigned> SimPerL2(L2N, 0), UsedPerL2(L2N, 0);
  for (uint64_t C = 0; C < Used; ++C)
    ++UsedPerL2[C % L2N];
  for (unsigned C : Sampled)
    ++SimPerL2[C % L2N];
  for (unsigned I = 0; I < L2N; ++I) {
    Sim.L2.emplace_back(uint64_t(TP["l2_bytes"]), uint64_t(TP["l2_line_bytes"]),
                        unsigned(TP["l2_ways"]));
    Server S;
    S.Rate = TP["l2_bytes_per_clk"] * (UsedPerL2[I] ? double(SimPerL2[I]) / UsedPerL2[I] : 1.0);
    S.Rate = std::max(S.Rate, 1e-9);
    Sim.L2Bw.push_back(S);
  }
  double Frac = double(Sampled.size()) / double(std::max<uint64_t>(1, Used));
  if (TP["mall_bytes"] > 0) {
    Sim.Mall = Cache(uint64_t(TP["mall_bytes"]), uint64_t(TP["l2_line_bytes"]), 16);
    Sim.MallBw.Rate = TP["mall_bytes_per_clk"] * Frac;
  }
  Sim.HbmBw.Rate = TP["hbm_bytes_per_clk"] * TP["hbm_efficiency"] * Frac;
  for (unsigned CI : Sampled) {
    Cu C;
    C.L2 = CI % L2N;
    // Its share of a round-robin dispatch: CI, CI + NumCus, ... (CI < Used <= Groups).
    C.Share = (Groups - CI - 1) / NumCus + 1;
    for (uint64_t N = 0; N < std::min(C.Share, Take); ++N)
      C.Queue.push_back(CI + N * NumCus);
    C.Simd.resize(Sim.Simds);
    C.ValuFree.assign(Sim.Simds, 0);
    C.XdlFree.assign(Sim.Simds, 0);
    C.SaluFree.assign(Sim.Simds, 0);
    C.BranchFree.assign(Sim.Simds, 0);
    C.LdsFree.assign((Sim.Simds + 1) / 2, 0);
    C.LdsDma.resize(C.LdsFree.size());
    C.L1 = Cache(uint64_t(TP["l1_bytes"]), uint64_t(TP["l1_line_bytes"]), unsigned(TP["l1_ways"]));
    C.Scalar =
        Cache(uint64_t(TP["scalar_cache_bytes"]), uint64_t(TP["scalar_cache_line_bytes"]), 4);
    Sim.Cus.push_back(std::move(C));
  }
  double End = Sim.run();
  if (!Sim.Error.empty())
    return runtimeError("timing model: " + Sim.Error);
  R.SimulatedCus = unsigned(Sampled.size());
  R.UsedCus = unsigned(Used);
  for (const Cu &C : Sim.Cus)
    R.SimulatedGroups += C.Queue.size();
  // 5. The clock (Model.h): the device's MFMA load, from the sampled CUs' matrix cores (a CU
  // whose share was cut simulated its first workgroups: its busy time scales as its time).
  double Xdl = 0;
  for (const Cu &C : Sim.Cus)
    Xdl += C.XdlBusy * (C.Queue.size() < C.Share && !C.Queue.empty()
                            ? double(C.Share) / double(C.Queue.size())
                            : 1.0);
  double SimdClocks = End * Sim.Simds * double(std::max<size_t>(1, Sim.Cus.size()));
  double Busy = SimdClocks > 0 ? std::min(1.0, Xdl / SimdClocks) : 0;
  R.MfmaLoad = Busy * double(Used) / double(NumCus);
  R.ClockMHz = engineClock(TP, R.MfmaLoad);
  R.Cycles = End;
  R.KernelFixedMicroseconds = TP["kernel_fixed_us"];
  R.KernelMicroseconds = End / R.ClockMHz + R.KernelFixedMicroseconds;
  R.LaunchOverheadMicroseconds = TP["launch_overhead_us"];
  R.Microseconds = R.KernelMicroseconds + R.LaunchOverheadMicroseconds;
  R.Total = Sim.Total;
  if (Profile) {
    for (auto &[Off, IP] : Sim.Prof) {
      IP.Offset = Off;
      auto It = Sim.Costs.find(Off);
      if (It != Sim.Costs.end() && It->second) {
        IP.Text = It->second->Text;
        IP.Size = It->second->Size;
        IP.Reads = It->second->Reads;
        IP.Writes = It->second->Writes;
        if (It->second->BranchTarget)
          IP.Target = int64_t(*It->second->BranchTarget - D.EntryAddr);
      }
      R.Insts.push_back(IP);
    }
    std::sort(R.Insts.begin(), R.Insts.end(),
              [](const InstProfile &A, const InstProfile &B) { return A.Offset < B.Offset; });
  }
  return R;
}

llvm::Expected<ModelResult> modelLaunch(device::Device &Dev, device::Module &M,
                                        const device::LaunchParams &P, const TargetParams &TP,
                                        const ModelOptions &O) {
  auto TL = traceLaunch(Dev, M, P, TP, O);
  if (!TL)
    return TL.takeError();
  return simulateLaunch(*TL, TP, O.Profile);
}

} // namespace asmevo::timing
