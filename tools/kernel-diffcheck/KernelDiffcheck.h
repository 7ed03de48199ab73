// kernel-diffcheck's work: the differential check (or --infer) through the check library,
// rendered as text or the report envelope.
#pragma once

#include "check/CaptureReplay.h"
#include "check/DiffCheck.h"
#include "support/Cli.h"

#include <string>

namespace asmevo {

// Exit code per support/Outcome.h: ok, abi_invalid, divergent, unsafe, input_error,
// runtime_error.
int runKernelDiffcheck(const Cli &C, const check::DiffOptions &O);
// --capture: the replay of a captured dispatch (check/CaptureReplay.h).
int runKernelReplay(const Cli &C, const check::ReplayOptions &O);
// --infer: the completed spec to -o; ok, input_error or runtime_error.
int runInfer(const Cli &C, const std::string &K0, const std::string &Spec,
             const std::string &Kernel, const check::InferOptions &IO);

} // namespace asmevo
