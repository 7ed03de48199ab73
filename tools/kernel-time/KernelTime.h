// kernel-time's work, once main has read the options: the run (timing/TimeRun.h), rendered as
// text or the report envelope.
#pragma once

#include "support/Cli.h"
#include "timing/TimeRun.h"

namespace asmevo {

// Exit code per support/Outcome.h: ok, input_error, runtime_error (a kernel that faults, a
// launch past its limits) or interrupted; the three that give no time are errors on stderr.
int runKernelTimeTool(const Cli &C, const timing::TimeOptions &O);

} // namespace asmevo
