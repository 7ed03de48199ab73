// kernel-run's work: one launch of one kernel on a device backend, its buffers written to files,
// rendered as text or the report envelope; and --coverage.
#pragma once

#include "support/Cli.h"

#include <string>
#include <utility>
#include <vector>

namespace asmevo {

struct KernelRunConfig {
  std::string CodeObject;                                   // path or URI
  LaunchOptions Launch;                                     // --kernel and the geometry
  DeviceOptions Device;                                     // --backend, --threads, --timeout
  std::vector<std::string> Args;                            // --arg texts
  std::vector<std::pair<std::string, std::string>> Outputs; // --out argument -> file
  uint64_t Seed = 1;
  uint64_t MaxInstructions = 0; // the whole dispatch, in wave-instructions (0: no limit)
  bool Strict = false;          // the strict checks; findings make the run fail (unsafe)
  bool VarySchedule = false;    // seeded, varied wave interleaving
  std::string SyncProfile;      // write what each s_waitcnt saw here (implies Strict)
};

// Exit code per support/Outcome.h: ok, unsafe (strict findings), input_error, runtime_error.
int runKernelRun(const Cli &C, const KernelRunConfig &Cfg);
// --coverage: ok when every instance is implemented, not_covered otherwise.
int runCoverage(const Cli &C, const std::vector<std::string> &Inputs);

} // namespace asmevo
