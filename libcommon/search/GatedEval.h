// GatedEval (the paper's Algorithm 1) on one candidate text: rebuild with K0's ABI
// (asm/Rebuild.h: asm_invalid, abi_invalid), the strict differential check against K0
// (check/DiffCheck.h: divergent, unsafe, runtime_error), then the time of the candidate against
// K0 (timing/TimeRun.h: modeled on emu, measured on hip). Correctness strictly precedes timing:
// a candidate is timed only after kernel-diffcheck called it ok. The gate reads the steps'
// verdicts and figures as fields (check::DiffResult, timing::TimeResult: outcome, whose failure,
// times per parameter set); the step reports it keeps are the ones the tools write (the same
// envelope whether a Makefile ran the tool or this ran the library).
#pragma once

#include "check/DiffCheck.h"
#include "codeobj/CodeObject.h"
#include "support/Outcome.h"
#include "timing/Ensemble.h"
#include "timing/TimeRun.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace asmevo::search {

struct EvalOptions {
  std::string K0, Spec, Kernel; // K0's path and its complete launch spec ("": captures only)
  // Dispatches recorded by dispatch-capture (launch/CaptureBundle.h), each a launch the
  // candidate must pass (check/CaptureReplay.h: byte-exact, Eq. 1 on the spans Types types) and
  // together the timing launch: the candidate's time is the sum of its modeled (or measured)
  // times on them, K0's likewise, each weighted by CaptureWeights (empty: all 1; e.g. how
  // often each dispatch runs in the application). Without captures the spec's launch is timed.
  std::vector<std::string> Captures;
  std::vector<double> CaptureWeights;
  std::string Types; // kernel-diffcheck --types, for every capture (one kernel, one signature)
  // A complete spec of a representative launch to time on instead of Spec's (no captures): a
  // candidate faster than K0 there must also pass the differential check on it (the first seed)
  // before it can be committed.
  std::string TimeSpec;
  std::string Backend = "emu";
  std::vector<uint64_t> Seeds{1, 2, 3};
  unsigned Schedules = 1;
  // The spec's edge shapes checked after its seeds (kernel-diffcheck's; launch/EdgeShape.h).
  bool EdgeShapes = true;
  unsigned Threads = 1;      // host threads per emulated launch
  double TimeoutSeconds = 0; // per emulated launch (0: none)
  uint64_t MaxSimulatedGroups = 256;
  // emu: the model's parameter sets per timing (kernel-time --ensemble; Ensemble.h) and their
  // seed; the commit gate needs the candidate faster under every one (search/Gate.h).
  unsigned Ensemble = timing::kDefaultEnsemble;
  uint64_t EnsembleSeed = 1;
  // emu: K0's modeled figures under those sets (timing::modeledReference), so that each
  // candidate's timing models only the candidate (null: K0 is modeled with every candidate);
  // with captures an array, one per capture.
  nlohmann::json K0Reference;
  unsigned Warmup = 10, Reps = 100, Rotate = 4; // hip
  // K0's s_nop wait states (nopWaitStates of its recovered text): a candidate with fewer is
  // refused as unsafe before it is built. The emulator's hazard table (emu/Hazards.cpp) does not
  // cover every rule of LLVM's hazard recognizer (seen: an s_nop 0 LLVM puts after a gfx942
  // v_pk_add_f32 whose result the next VALU reads), so padding the compiler put in cannot be
  // shown unneeded here; moving it is allowed, removing it is not.
  unsigned K0NopStates = 0;
  // K0's runs of the differential check, once per seed and launch for the whole run (in this
  // process: workers in other processes run K0 themselves). Null: K0 runs with every candidate.
  std::shared_ptr<check::K0RunCache> K0Runs;
};

struct EvalResult {
  Outcome Result = Outcome::Ok;
  std::string Stage;     // where it stopped: "rebuild", "diffcheck", "time" ("" : passed all);
                         // "io": the candidate's files could not be written (a full disk)
  std::string Signature; // a short failure signature for the run's memory ("" when ok)
  std::string Message;
  std::string ObjectSha256;
  double K0Us = 0, Us = 0, Speedup = 0, Cv = 0;
  std::vector<double> Speedups; // modeled: per parameter set of the ensemble (member 0: Speedup)
  std::string Kind, Backend;    // "modeled"/"measured", "emu"/"hip"
  nlohmann::json Rebuild, DiffCheck, Time; // the step reports (null when not reached)
  bool Infrastructure = false;             // the failure is not the candidate's (K0 failed, I/O)
};

// Both as JSON, for a worker in another process (search/Worker.h): what it was told, what it
// found. The parse functions throw nlohmann::json::exception on a malformed value.
nlohmann::json evalOptionsJson(const EvalOptions &O);
EvalOptions parseEvalOptions(const nlohmann::json &J);
nlohmann::json evalResultJson(const EvalResult &R);
EvalResult parseEvalResult(const nlohmann::json &J);

// Evaluate Text; write Dir/cand.s and Dir/cand.hsaco (the object, when it builds).
EvalResult gatedEval(const std::string &Text, const std::string &Dir, const CodeObject &K0,
                     const EvalOptions &O);

// kernel-time's options for K0 (and K1 when given) under O: the same seed, threads, limits and
// protocol for the root's time, every candidate's and every node's profile. With captures, the
// Capture-th of them is the launch (and the spec is not).
timing::TimeOptions timeOptions(const EvalOptions &O, const std::string &K1 = "",
                                size_t Capture = 0);

// The timing launches of O: its captures, or the one launch of its timing spec (else its spec).
size_t timingLaunches(const EvalOptions &O);
// The gate's differential check of K0 against itself on the spec's launches (every seed and
// edge shape), through O.K0Runs: it leaves K0's runs in the cache.
check::DiffResult checkK0Itself(const EvalOptions &O);
// The weight of timing launch I in the candidate's time (1 unless --capture-weights).
double timingWeight(const EvalOptions &O, size_t I);
// How a candidate's time is made of the timing launches, for reports: "the captured dispatch",
// "the sum of the times on the captured dispatches", "the weighted sum (weights 3, 1) of ...".
std::string timingBasis(const EvalOptions &O);

// The wait states of every s_nop in an assembly text (s_nop N: N + 1).
unsigned nopWaitStates(const std::string &Text);

// A failure signature: the outcome and the message with numbers and quoted names generalised
// ("divergent: buffer '#' element #: ..."), so that repeats of one failure count together.
std::string failureSignature(Outcome R, const std::string &Message);
// The message part of it: numbers as '#', quoted names as '#', at most ~120 characters.
std::string generalisedMessage(const std::string &Message);

} // namespace asmevo::search
