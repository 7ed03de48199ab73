// What each instruction of a code object costs, as LLVM's AMDGPU scheduling model
// (SISchedule.td, through MCSchedModel) says, plus the facts a timing model needs that are in
// the instruction itself: which unit issues it, which wait counters it increments, what an
// s_waitcnt waits for, how long an s_nop or s_sleep holds the wave.
//
// LLVM's SI/CDNA models count in "quads" (one wave64 VALU issue = 4 shader clocks); so do
// LatencyQuads and BusyQuads. One gap LLVM names itself is patched here: gfx950's f8f6f4 MFMAs
// take twice the passes when either operand is FP8/BF8 (cbsz or blgp 0 or 1), which the MC-level
// model cannot see (SISchedule.td: "TODO: This isn't reflected in MCA").
#pragma once

#include "codeobj/CodeObject.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace asmevo {

enum class InstUnit : uint8_t {
  Salu,     // scalar ALU (and s_mov, s_cmp, ...)
  Valu,     // vector ALU (VALU, DGEMM on the VALU, v_accvgpr moves)
  Mfma,     // the matrix core (LLVM's HWXDL resource)
  Vmem,     // vector memory: global_, buffer_, scratch_, flat_
  Lds,      // ds_
  Smem,     // s_load, s_buffer_load, s_store, s_memtime
  Branch,   // s_branch, s_cbranch_*, s_setpc, s_swappc, s_getpc
  Export,   // exp
  Internal, // s_nop, s_waitcnt, s_barrier, s_endpgm, s_sleep, s_setprio, ...: no unit
};
const char *instUnitName(InstUnit U); // "salu", "valu", ...

struct InstCost {
  std::string Mnemonic; // "v_mfma_f32_32x32x8_f16"
  std::string Text;     // as LLVM prints it
  unsigned Size = 4;
  InstUnit Unit = InstUnit::Internal;
  unsigned LatencyQuads = 1; // MCSchedModel::computeInstrLatency
  unsigned BusyQuads = 1;    // ReleaseAtCycle on its unit's resource (MFMA: passes); on the
                             // VALU at least the latency (quarter-rate ops hold it 4 quads)
  bool FromLlvm = false;     // the two above came from LLVM's model (false: the defaults)
  bool Fp8Patched = false;   // gfx950 f8f6f4 with an FP8/BF8 operand: passes doubled
  // Wait counters it increments (GFX9: vector memory loads and stores vmcnt; DS, SMEM and
  // s_sendmsg lgkmcnt; FLAT both; exp expcnt).
  bool Vm = false, Lgkm = false, Exp = false;
  bool Store = false; // writes memory (a store or an atomic without return)
  // s_waitcnt: the most operations left outstanding per counter (-1: does not wait on it).
  int WaitVm = -1, WaitLgkm = -1, WaitExp = -1;
  unsigned NopStates = 0; // s_nop N: N + 1 wait states
  unsigned SleepClk = 0;  // s_sleep N: 64 * N clocks
  bool Barrier = false, EndPgm = false;
  bool LdsDirect = false; // a vector memory load that writes LDS (buffer_load ... lds)
  bool Atomic = false;    // a vector memory atomic (buffer_/global_/flat_atomic_*)
  // The cache-policy bits of a vector memory instruction, as printed. gfx940 and later name
  // them sc0, sc1 and nt; gfx90a's glc, scc and slc are the same bits (LLVM's CPol: GLC = SC0,
  // SCC = SC1, SLC = NT), and are reported here under the newer names.
  bool Sc0 = false, Sc1 = false, Nt = false;
  // The 32-bit registers it reads and writes, by name ("v4", "s2", "a0", "vcc", "exec",
  // "scc", "m0"): its printed operands (the instruction's first NumDefs ones are written) and
  // the implicit ones LLVM's instruction description lists.
  std::vector<std::string> Reads, Writes;
  // Those of Reads read through a destination tied to a use (v_fmac's accumulator, a DPP move's
  // old value): printed once, as the destination.
  std::vector<std::string> TiedReads;
  std::optional<uint64_t> BranchTarget; // a direct branch's target address
};

// The costs of every instruction of Code's functions, by virtual address, decoded once. Code
// outside every function is decoded on request (cost()).
class SchedInfo {
public:
  static llvm::Expected<std::unique_ptr<SchedInfo>> create(const CodeObject &Code);
  ~SchedInfo();
  // The instruction at virtual address Addr of Code; an error names the address if no
  // instruction decodes there. Safe to call from several threads at once.
  llvm::Expected<const InstCost *> cost(uint64_t Addr);
  const std::string &processor() const { return Processor; }

private:
  SchedInfo() = default;
  struct Impl;
  std::unique_ptr<Impl> I;
  std::string Processor;
};

} // namespace asmevo
