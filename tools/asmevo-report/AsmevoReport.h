// asmevo-report's work: a run directory -> report.html (written atomically), and the summary
// rendered as text or the report envelope.
#pragma once

#include "support/Cli.h"

#include <string>

namespace asmevo {

struct ReportConfig {
  std::string RunDir;
  std::string Output; // "-" is stdout
};

// Exit code per support/Outcome.h: ok or input_error.
int runAsmevoReport(const Cli &C, const ReportConfig &Config);

} // namespace asmevo
