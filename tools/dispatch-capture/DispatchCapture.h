// dispatch-capture: run an application with the capture interposer (libasmevo-capture.so,
// Interposer.cpp) preloaded and report the dispatch it recorded.
#pragma once

#include "support/Cli.h"

#include <cstdint>
#include <string>
#include <vector>

namespace asmevo {

struct CaptureConfig {
  std::string KernelRegex; // empty: any kernel
  uint64_t Nth = 0;
  uint64_t MaxBytes = 1ull << 30;
  std::string Output;
  std::vector<std::string> Command; // the application and its arguments
};

int runDispatchCapture(const Cli &C, const CaptureConfig &Cfg);

} // namespace asmevo
