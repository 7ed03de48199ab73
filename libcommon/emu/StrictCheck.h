// The strict checks: an oracle stricter than hardware. With them on, a dispatch reports code
// that is only correct by luck of timing on a GPU:
//
//  - Wait counters. Every memory instruction stays pending in the counter the ISA assigns it
//    (VMEM: vmcnt, in order; LDS: lgkmcnt, in order; SMEM: lgkmcnt, out of order; FLAT: vmcnt,
//    and lgkmcnt out of order when it reached LDS) until an s_waitcnt brings that counter low
//    enough to prove it complete (or s_endpgm). Reading a register a pending load will write
//    ("pending-read"), or writing it before the load returns ("pending-overwrite"), is unsafe.
//    When more operations are outstanding than a counter can hold, the oldest complete (the
//    hardware stalls issue until it does).
//    A load into LDS (buffer_load_* lds, global_load_lds_*) is pending in vmcnt the same way; a
//    DS access of this wave to the LDS bytes it writes before then is "pending-read" or
//    "pending-overwrite".
//  - Memory ordering between the waves of a workgroup. An access is ordered after another
//    wave's access only when that access completed and then both waves passed an s_barrier.
//    Conflicting unordered accesses are unsafe: to LDS ("lds-race": read of bytes another wave
//    wrote, two writes, a write over bytes another wave read; atomics against atomics are
//    fine; a write that leaves a byte's value unchanged is no write), and to global memory
//    ("global-race": a load or store of bytes another wave of the workgroup stored). Stores are
//    thereby visible to other waves only once complete.
//  - Wait states (Hazards.h): the ISA's required independent instructions / s_nop; the rule's
//    name is the finding's rule.
//  - Soft clauses under XNACK ("xnack-soft-clause"): consecutive memory instructions of one
//    kind (SMEM, or vector memory) form a clause the hardware may replay after a page fault;
//    with XNACK on (the code object's xnack is "on" or "any"), no instruction of a clause of two
//    or more may write a register that one of the clause reads (itself included), and a store
//    may not join a clause that writes registers.
//
// Findings do not stop the dispatch: it runs to the end (the original kernel may itself rely on
// hardware behaviour the model treats conservatively, and its outputs are still compared).
// The first finding of each rule at each pc is kept (at most kMaxFindings per rule), with the
// total count.
#pragma once

#include "emu/Exec.h"
#include "emu/Hazards.h"
#include "emu/Inst.h"
#include "emu/RegUse.h"

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace asmevo::emu {

// What one s_waitcnt saw over a dispatch (kernel-run --sync-profile).
struct WaitProfile {
  uint64_t Executions = 0;
  unsigned MaxVm = 0, MaxLgkm = 0; // most operations outstanding when it executed
};

// Code that is correct only by luck of hardware timing. Rule and Instructions are its structured
// kind (the same kind at other pcs, in other waves, on other bytes or registers is the same
// kind); Message is for people.
struct UnsafeFinding {
  std::string Rule; // "pending-read", "lds-race", a hazard rule name, ...
  uint64_t Pc = 0;
  // Mnemonics of the instructions involved: the one at Pc, then the earlier one it conflicts
  // with (the load, the producer, the other wave's access), when there is one.
  std::vector<std::string> Instructions;
  std::string Message; // complete sentence naming pcs, registers, bytes
};

// Findings and wait profiles of one dispatch, shared by its host threads.
class StrictReport {
public:
  static constexpr size_t kMaxFindings = 64;
  void add(const std::string &Rule, uint64_t Pc, std::vector<std::string> Instructions,
           std::string Message);
  void addRepeats(uint64_t N);
  void mergeWaits(const std::map<uint64_t, WaitProfile> &W);
  std::vector<UnsafeFinding> findings() const;
  uint64_t total() const;
  std::map<uint64_t, WaitProfile> waits() const;

private:
  mutable std::mutex Lock;
  std::vector<UnsafeFinding> Findings;
  uint64_t Total = 0;
  std::map<uint64_t, WaitProfile> Waits;
};

class StrictGroup;

// One wave's strict-check state. Lives with its ExecCtx.
class StrictWave {
public:
  StrictWave(StrictGroup &G, unsigned Wave, Gfx Target, bool XnackReplay, StrictReport &R);
  // Before In executes: register checks against pending loads, wait-state hazards.
  void before(ExecCtx &C, const Inst &In, const RegUses &U, uint64_t Pc);
  // After In executed: pending operations, s_waitcnt retirement, barrier epochs.
  void after(ExecCtx &C, const Inst &In, const RegUses &U, uint64_t Pc);
  // Memory hooks, called by the access helpers while the current instruction runs.
  void ldsTouch(ExecCtx &C, uint64_t Addr, unsigned Size);
  void globalTouch(ExecCtx &C, uint64_t Addr, unsigned Size);
  // LDS bytes a load into LDS writes (in vmcnt): a write for the other waves, and pending for
  // this one until an s_waitcnt vmcnt retires the load.
  void ldsDmaWrite(ExecCtx &C, uint64_t Addr, unsigned Size, const uint8_t *Data);
  // The dispatch's end for this wave: merge the wait profile.
  void finish();

private:
  friend class StrictGroup;
  struct Pending {
    uint32_t Seq;
    bool InVm, InLgkm, OutOfOrder;
    RegRange Dst;
    uint64_t Pc;
    Op Opc;
  };
  const Pending *pendingIn(const RegRange &Rg, uint16_t &Code) const;
  void clauseCheck(const Inst &In, const RegUses &U, uint64_t Pc);
  void ldsCheck(uint64_t Addr, unsigned Size, bool Write);
  void ldsFinishWrites(ExecCtx &C);
  void retire(size_t Index);
  void retireForWait(unsigned Vm, unsigned Lgkm);
  void limitOutstanding();
  // True the first time this wave meets Rule at Pc (later ones are only counted).
  bool fresh(const char *Rule, uint64_t Pc);
  // A finding of Rule at Pc, by the instruction being executed, against Other (the earlier
  // instruction it conflicts with; Op::Count when none).
  void report(const char *Rule, uint64_t Pc, Op Other, std::string Message);
  std::string describe(Op O, uint64_t Pc) const;

  StrictGroup &G;
  unsigned Wave;
  StrictReport &R;
  HazardTracker Hazards;
  std::vector<Pending> Outstanding;   // in issue order
  uint32_t RegOwner[kAgprBase + 256]; // 1 + index into Outstanding's Seq space; 0: none
  uint32_t NextSeq = 0;
  uint32_t CurSeq = 0; // Seq of the memory instruction executing now
  uint8_t CurMem = kMemNone;
  bool CurTouchedLds = false;
  uint64_t CurPc = 0;
  Op CurOp = Op::Count;
  std::map<uint64_t, WaitProfile> Waits;
  std::vector<std::pair<const char *, uint64_t>> Seen;
  // The current soft clause (XNACK replay): its members' uses, pcs and ops.
  bool XnackReplay;
  struct ClauseMember {
    const RegUses *U;
    uint64_t Pc;
    Op Opc;
  };
  std::vector<ClauseMember> Clause;
  bool ClauseSmem = false;
  // LDS bytes the current instruction writes, with their contents before it.
  struct LdsWrite {
    uint32_t Addr, Size, Old;
  };
  std::vector<LdsWrite> LdsWrites;
  // LDS byte ranges that loads into LDS of this wave write and no s_waitcnt vmcnt has proven
  // written yet (Seq: the load's).
  struct DmaRange {
    uint32_t Seq, Lo, Hi;
  };
  std::vector<DmaRange> DmaPending;
  std::vector<uint8_t> LdsOld;
  uint64_t Repeats = 0;
};

// The state the waves of one workgroup share: completion epochs of every memory operation,
// the LDS shadow (last writer and last reader of every byte) and the log of global stores.
class StrictGroup {
public:
  // A new workgroup of NumWaves waves with LdsBytes of LDS.
  void reset(unsigned NumWaves, size_t LdsBytes);
  static constexpr uint32_t kPendingEpoch = 0xffffffffu;

private:
  friend class StrictWave;
  struct OpRecord {
    uint64_t Pc;
    Op Opc;
    uint32_t DoneEpoch; // the wave's barrier epoch when it completed; kPendingEpoch before
  };
  struct Access { // packed: Seq | (Wave + 1) << 32 | atomic << 40; 0: none
    uint64_t Bits = 0;
  };
  struct Store {
    unsigned Wave;
    uint32_t Seq;
    bool Atomic;
    uint64_t Lo, Hi;                                  // bounding range of its bytes
    std::vector<std::pair<uint64_t, uint32_t>> Bytes; // (address, size) per lane
  };
  void pruneStores();

  unsigned NumWaves = 0;
  std::vector<std::vector<OpRecord>> Ops;   // per wave, by Seq
  std::vector<uint32_t> Epoch;              // per wave: barriers passed
  std::vector<Access> LdsWriter, LdsReader; // per LDS byte
  std::vector<Store> Stores;
  uint64_t StoresLo = ~0ull, StoresHi = 0;
};

} // namespace asmevo::emu
