// The dependency graph of a straight-line run of instructions (part of one basic block), and
// list scheduling under it: which orders of the run compute what the original order computes.
//
// An instruction j depends on an earlier i when:
//  - j reads a register i writes (latency: i's, from LLVM's scheduling model, asm/SchedInfo.h),
//    or j writes a register i reads or writes (registers by name, scc, vcc, exec and m0
//    included);
//  - both count in vmcnt, or both in lgkmcnt (the s_waitcnt after the run count them in issue
//    order), a load into LDS and a DS access, or a scalar load and a vector store (memory both
//    may touch);
//  - either is a fence: s_waitcnt, s_barrier, s_nop, s_sleep, s_setprio and any instruction with
//    no unit or of unknown effect, a branch, s_endpgm, s_getpc (its result is its own address)
//    and any instruction whose operands name a symbol (a PC-relative offset computed from where
//    s_getpc stood).
// Wait states between instructions (the ISA's hazards) are not edges: an order that breaks one is
// for the strict checks to refuse.
#pragma once

#include "asm/SchedInfo.h"

#include <string>
#include <vector>

namespace asmevo {

struct DepGraph {
  std::vector<std::vector<unsigned>> Preds; // per instruction, the earlier ones it depends on
  std::vector<std::vector<unsigned>> Succs;
  std::vector<std::vector<unsigned>> Delay; // per Preds entry: cycles after that one's issue
};

// Whether two register lists (InstCost::Reads / Writes) name a register in common.
bool intersects(const std::vector<std::string> &A, const std::vector<std::string> &B);

// Whether an instruction keeps its place relative to every other.
bool isSchedFence(const InstCost &C);

// A VMEM load into registers (not FLAT, not into LDS, no store or atomic side): two of them
// touch no memory the other writes; only their vmcnt issue order ties them.
bool isPlainVmemLoad(const InstCost &C);

// LoadOrderFree: no edge for that issue order between two plain VMEM loads (for a caller that
// places the waits after the run again for the new order; asm/WaitFlow.h).
DepGraph buildDepGraph(const std::vector<const InstCost *> &Run, bool LoadOrderFree = false);

enum class SchedGoal {
  CriticalPath, // the longest latency path to the run's end first
  LoadsEarly,   // memory loads as soon as their operands are ready, then the critical path
};

// An order of Run's instruction indices that respects G: top-down list scheduling, one issue a
// cycle, the ready instruction whose operands are ready earliest first, ties broken by Goal, then
// by the longest latency path to the run's end, then by the original order.
std::vector<unsigned> listSchedule(const DepGraph &G, const std::vector<const InstCost *> &Run,
                                   SchedGoal Goal);

// Whether Seq, executed in this order, has a soft clause (consecutive vector-memory, or scalar-
// memory, instructions) in which one writes a register one of them reads, or a store joins one
// that writes registers: an XNACK replay of the clause would read the new value (the strict
// checks' "xnack-soft-clause", emu/StrictCheck.h; EXEC left out as there).
bool softClauseHazard(const std::vector<const InstCost *> &Seq);

// Whether Order (a permutation of Run's indices) respects G.
bool respects(const DepGraph &G, const std::vector<unsigned> &Order);

} // namespace asmevo
