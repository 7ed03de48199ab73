// kernel-diffcheck as a library: differential equivalence of a candidate K1 against the
// original K0 on synthetic inputs (tier 1): static ABI check, launch inference, then per seed
// fresh inputs, K0 and K1 on identical launches in separate guarded allocations, and Eq. 1 of
// DESIGN.md on every output buffer; then the same on the spec's edge shapes (tails, one
// workgroup).
#pragma once

#include "check/DiffResult.h"
#include "check/LaunchInference.h"
#include "support/Report.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace asmevo::check {

// K0's runs kept across differential checks of many candidates against one K0 (a search checks
// hundreds): each (K0, spec, seed, edge shape, strictness) is run once per cache and its
// outputs, footprint, findings and instruction count reused (check/K0RunCache.h). Thread-safe;
// in memory, and in Dir's files when Dir is given (written unless ReadOnly).
class K0RunCache;
std::shared_ptr<K0RunCache> makeK0RunCache(const std::string &Dir = "", bool ReadOnly = false);
// The K0 runs a cache answered, and the ones it had to make.
std::pair<uint64_t, uint64_t> k0RunCacheCounts(const K0RunCache &C);

struct DiffOptions {
  std::string K0, K1, Spec, Kernel;
  std::vector<uint64_t> Seeds{1, 2, 3};
  double Theta = 0.9999, Tau = 1e-3;
  std::string Backend = "emu";
  std::string DumpDir; // --dump-inputs
  unsigned Threads = 0;
  // The strict checks (emu): K1 code that is correct only by luck of hardware timing (a load
  // read before its s_waitcnt, a missing s_nop, a race between waves) is `unsafe`.
  bool Strict = true;
  // Wave interleavings K1 runs under per seed: the first is the emulator's default order, the
  // others seeded, varied orders.
  unsigned Schedules = 1;
  // The edge shapes (launch/EdgeShape.h: the spec with every integer size 1, 2 and 3 smaller,
  // and on one workgroup), each on the last seed, after the spec's own launch.
  bool EdgeShapes = true;
  InferOptions Infer;
  // Runaway candidates: K1 may execute at most InstructionFactor times the wave-instructions K0
  // executed on the same launch (emu), or MaxInstructions when given; past it K1 is a
  // runtime_error. TimeoutSeconds bounds every run, K0's included (0: none).
  unsigned InstructionFactor = 64;
  uint64_t MaxInstructions = 0;
  double TimeoutSeconds = 0;
  // Progress lines (-v): one per seed and run. The library never prints.
  std::function<void(const std::string &)> Progress;
  std::shared_ptr<K0RunCache> K0Cache; // null: K0 runs on every seed of every check
};

// The check's report (support/Report.h; the caller names the tool): outcome ok, abi_invalid,
// divergent, unsafe, input_error or runtime_error; Message the verdict line ("divergent:
// buffer 'out' ..."); Notes the details; Body the buffers, findings and inferred spec, and
// "failed": "K0" when K0 itself failed (a search's infrastructure failure, not the candidate's).
Report runDiffCheck(const DiffOptions &O);
// The same, with its verdict as fields (DiffResult.h): what a search's gate reads.
DiffResult diffCheck(const DiffOptions &O);

// The static checks of a candidate: K1's frozen ABI against K0's, then what K1's descriptors
// allocate against the hardware's limits (where K0 has the same finding it is a note, not a
// refusal). False, with R's outcome abi_invalid (or an error) and its message, when K1 is
// refused.
bool checkCandidateAbi(const CodeObject &K0, const CodeObject &K1, Report &R);

// The static wait-state check of a candidate, on any backend (device/StaticHazards.h): a hazard
// of K1's code, on a straight-line path whether or not a launch takes it, of a kind K0's code
// does not have (its rule and the two instructions' mnemonics: K0 doing it says the hardware
// takes it). False, with R's outcome unsafe, its message and body "unsafe" entries ("at":
// "static scan"), when K1 has one; K0's own are a note; R's body gets "static_hazards" (k0,
// k1_new). A processor without known rules is not scanned (a note).
bool checkCandidateWaitStates(const CodeObject &K0, const CodeObject &K1, Report &R);

// --infer: complete the spec for K0 and write it to Out ("-": stdout) atomically.
Report runInferOnly(const std::string &K0, const std::string &Spec, const std::string &Kernel,
                    const std::string &Out, const InferOptions &IO);

} // namespace asmevo::check
