// kernel-time's run as a library call: time K0 (and K1) launched from a launch spec, on the
// timing model (backend emu: "modeled, not measured") or on a GPU (backend hip: event-timed,
// "measured"), and return the report (support/Report.h) as a value. The two kinds of figure
// never mix: a report is one or the other, and says which in its body ("kind").
#pragma once

#include "support/Report.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace asmevo::timing {

struct TimeOptions {
  std::string K0, K1; // K1 empty: time K0 alone
  std::string Spec, Kernel;
  std::string Capture; // a dispatch-capture bundle instead of Spec (emu): K0 is its code object
  std::string Backend = "emu"; // emu (the model), hip (a GPU) or auto
  std::string ParamsFile;      // the model's parameter file ("": the target's shipped one)
  uint64_t Seed = 1;           // the inputs' seed (the first of the rotation on hip)
  unsigned Threads = 0;        // emu: host threads
  double TimeoutSeconds = 0;   // emu: host seconds per emulated launch (0: none)
  // The model.
  uint64_t MaxSimulatedGroups = 256; // emulated too: the rest of the grid is not
  // The most workgroups a modeled launch may have (its time comes from the sample above; a grid
  // beyond this is more likely a mistake in the spec than a launch to time).
  uint64_t MaxWorkgroups = uint64_t(1) << 32;
  // The model's uncertainty (Ensemble.h): each kernel is emulated once and simulated under
  // this many parameter sets drawn from the parameter file's ranges (the first: its nominal
  // figures), the same sets for K0 and K1, so the ratio comes with its interval.
  unsigned Ensemble = 1;
  uint64_t EnsembleSeed = 1;
  bool Profile = false;     // per-instruction figures and hot windows (the nominal set's)
  std::string AnnotatePath; // write K0's recovered .s with modeled figures per line here
  unsigned MaxWindows = 10; // hot windows listed
  // Measured (hip).
  unsigned Warmup = 10, Reps = 100, Rotate = 4;
  uint64_t FlushBytes = 0; // 0: no cache flush between timed launches
  // Import mode: K0's hot windows from a rocprofv3 thread trace under this directory
  // (AttImport.h); nothing runs and no spec is needed.
  std::string AttDir;
  // K0's modeled figures from an earlier run (modeledReference of its report), so that K0 timed
  // against many candidates is modeled once: used only when that run had the same K0, spec,
  // parameter file, seed, sample size and parameter sets (or the same capture bundle), no
  // --profile or --annotate here; else K0 is modeled as always. Every kernel of a spec is
  // modeled on a device of its own, so K1's figures do not depend on whether K0 ran before it.
  nlohmann::json K0Reference;
  std::function<void(const std::string &)> Progress;
};

// The figures of a run, as fields (what the search's gate reads), beside the report the tool
// renders: kind, each kernel's time, the ratio and, modeled, the speedup per parameter set.
struct KernelTime {
  std::string Role;                // "K0", "K1"
  double Us = 0;                   // modeled: at the nominal figures; measured: the median
  double Cv = 0;                   // measured: of the samples (0 modeled)
  std::vector<double> UsPerMember; // modeled: per parameter set (member 0 the nominal one)
};
struct TimeResult {
  Outcome Result = Outcome::Ok;
  std::string Message;
  std::string Kind, Backend; // "modeled" or "measured"; "emu" or "hip"
  std::vector<KernelTime> Kernels;
  double Ratio = 0;                     // t(K1)/t(K0) (0: no K1)
  std::vector<double> SpeedupPerMember; // modeled, with K1: t(K0)/t(K1) per parameter set
  Report Rep;                           // the report kernel-time writes
};

// Outcome ok with the times; input_error (a spec that does not fit the kernel or whose buffers
// are too small for what K0 touches, a missing or bad parameter file, a grid of more than
// MaxWorkgroups on the model, --backend hip with no GPU, ...); runtime_error (an emulated launch
// that stops: an unsupported instruction, named with kernel+offset).
TimeResult timeKernels(const TimeOptions &O);
// The report alone (timeKernels(O).Rep).
Report runKernelTime(const TimeOptions &O);

// What a later run may reuse of a modeled report of K0 (TimeOptions::K0Reference): K0's entry
// of "kernels" with its figures per parameter set, its notes and the options they depend on;
// null for a report that is not an ok modeled one.
nlohmann::json modeledReference(const Report &R);

} // namespace asmevo::timing
