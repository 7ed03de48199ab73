// Wait counters over a kernel's whole control-flow graph: which s_waitcnt each instruction needs,
// by a dataflow analysis over every path (loops included), and the weakest waits that give it.
//
// The state at a program point is, per counter (vmcnt, lgkmcnt), the memory operations that may
// still be outstanding, keyed by what they will write: a register (a load's destination) or a
// token for a memory effect ("store": VMEM stores, atomics and cache operations; "lds-direct":
// loads into LDS; "ds": LDS accesses; "scalar": scalar stores and messages). Each key holds the
// least and the most younger operations of its counter's in-order queue since such an operation
// was issued (GFX9: VMEM and FLAT in vmcnt, in order; DS in lgkmcnt, in order; SMEM, FLAT in
// lgkmcnt and s_sendmsg out of order, complete only at lgkmcnt(0)). s_waitcnt vmcnt(N) completes
// every operation with N or more younger ones; an operation with 63 (vmcnt) or 15 (lgkmcnt)
// younger ones is complete, since the counter cannot hold more (the strict checks' rule,
// emu/StrictCheck.h). Paths join by taking the least and the most of each.
//
// What an instruction needs:
//  - a register it reads or writes that a pending load will write: the load complete (the
//    strict checks' "pending-read" and "pending-overwrite"; a later load of the same in-order
//    queue may overwrite without waiting);
//  - at a drain point (s_barrier, atomics, stores with scope bits, cache and message
//    operations, calls, indirect jumps, M0-relative register moves and any instruction the
//    analysis does not know), and for
//    the "lds-direct" token at every DS access: nothing outstanding that the original kernel had
//    completed there. Memory ordering is the original's business: the analysis cannot see which
//    bytes another wave or another workgroup touches, so it keeps, at every point where memory
//    order can matter, at least what the original guaranteed.
// The same rule applies to a register the original itself left pending at an instruction (a
// path the analysis cannot tell is infeasible): the candidate may leave it no more pending.
// One exception, when the caller asks for it (WaitFlowOptions): at a plain s_barrier, VMEM loads
// into registers (not FLAT, not into LDS) may stay outstanding. LLVM's AMDGPU memory model for
// GFX90A/GFX942 (AMDGPUUsage, "Memory Model GFX90A/GFX942") places the waves of a work-group on
// one CU sharing its vector L1, so a work-group-scope release needs no vmcnt wait unless the
// kernel runs in threadgroup-split mode (the descriptor's tg_split bit); and LLVM itself leaves
// such loads in flight across s_barrier (Triton's K loops: two buffer loads pending at the
// loop's first barrier). Stores, atomics, loads into LDS and every lgkmcnt operation keep the
// rule.
//
// expcnt is never analysed or changed.
#pragma once

#include "asm/SchedInfo.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace asmevo {

// The fields of an s_waitcnt this analysis places (-1: does not wait on that counter).
struct WaitFields {
  int Vm = -1, Lgkm = -1;
  bool any() const { return Vm >= 0 || Lgkm >= 0; }
  bool operator==(const WaitFields &O) const { return Vm == O.Vm && Lgkm == O.Lgkm; }
  bool operator!=(const WaitFields &O) const { return !(*this == O); }
};

// One instruction of the analysed function: its cost and its offset from the function's entry.
struct FlowInst {
  const InstCost *C = nullptr;
  uint64_t Offset = 0;
};

// A placement of waits over the function's instructions: Own[i], the vmcnt/lgkmcnt fields of
// instruction i when it is an s_waitcnt (its expcnt is kept as it is); Pre[i], an s_waitcnt
// inserted right before instruction i (after any label on it, so every path into i waits).
struct WaitPlan {
  std::vector<WaitFields> Own, Pre;
  bool operator==(const WaitPlan &O) const { return Own == O.Own && Pre == O.Pre; }
};

// An instruction that needs a stronger wait before it than the plan gives it.
struct WaitDeficit {
  size_t Index = 0;
  WaitFields Need;
};

struct WaitFlowOptions {
  // VMEM loads into registers may stay outstanding at s_barrier (the waves of a work-group share
  // one CU: not in threadgroup-split mode). Off: the original's rule there too.
  bool LoadsCrossBarriers = false;
  // Judge needs against what the code's own waits leave pending (the rule above). Off: no
  // reference: every operation pending where it is needed is a deficit, drain points drain
  // everything (but LoadsCrossBarriers), so the code's own waits may have deficits; for code that
  // is not known to be correct as it is (instructions reordered).
  bool OwnReference = true;
};

// Whether a kernel may take WaitFlowOptions::LoadsCrossBarriers: a gfx90a-or-later target (the
// memory model cited above; earlier targets are not claimed) not in threadgroup-split mode
// (compute_pgm_rsrc3 bit 16, tg_split).
bool loadsMayCrossBarriers(uint32_t ComputePgmRsrc3, bool Gfx90aInsts);

class WaitFlow {
public:
  // The analysis of one function: Code in address order, Entry the function's address (branch
  // targets are addresses). Errors: a line without a decoded instruction (raw words) at its
  // offset, a direct branch to an offset that is not one of Code's instructions, a branch
  // without a known target, s_set_gpr_idx_on (which registers are read is then not in the text).
  static llvm::Expected<std::unique_ptr<WaitFlow>>
  create(std::vector<FlowInst> Code, uint64_t Entry, WaitFlowOptions Options = {});
  ~WaitFlow();

  size_t size() const;
  const FlowInst &inst(size_t I) const;
  // The function's own waits: Own from its s_waitcnt instructions, no Pre.
  const WaitPlan &original() const;
  // Every instruction whose needs P does not meet, in address order (none for original()).
  std::vector<WaitDeficit> deficits(const WaitPlan &P) const;
  // P with the waits of instructions [First, Last] taken out (their vmcnt/lgkmcnt fields, and
  // Pre there) and, instead, right before each instruction that then needs one, the weakest wait
  // it needs. Waits outside [First, Last] stay; a need that appears outside the range (an
  // operation left pending past it) is met where it appears. A wait placed right after an
  // s_waitcnt of the same block joins it.
  WaitPlan place(const WaitPlan &P, size_t First, size_t Last) const;
  // The weakest fields wait W of P can have with P still meeting every need (each field no
  // stronger than it was).
  WaitFields relax(const WaitPlan &P, size_t W) const;

private:
  WaitFlow();
  struct Impl;
  std::unique_ptr<Impl> I;
};

// "\ts_waitcnt vmcnt(1) lgkmcnt(0)" (Exp -1: no expcnt field); "" when no field is set.
std::string waitcntText(const WaitFields &F, int Exp = -1);

} // namespace asmevo
