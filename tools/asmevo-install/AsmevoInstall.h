// asmevo-install's work: install a workflow run's K* (or uninstall), rendered as text or the
// report envelope.
#pragma once

#include "install/Install.h"
#include "support/Cli.h"

#include <string>

namespace asmevo {

struct InstallConfig {
  bool Uninstall = false;
  install::InstallOptions Options; // with Uninstall: only Target
};

// Exit code per support/Outcome.h: ok, refused, input_error.
int runAsmevoInstall(const Cli &C, const InstallConfig &Config);

} // namespace asmevo
