// hsaco-patch's work: replace a window of one function's instructions in place (or print it as
// a snippet), rendered as text or the report envelope.
#pragma once

#include "asm/Patch.h"
#include "support/Cli.h"

#include <string>

namespace asmevo {

struct PatchConfig {
  std::string Input;
  PatchWindow Window;
  std::string WindowSpec; // as given, for messages
  std::string With;       // the snippet file; empty with Extract
  std::string Output = "-";
  bool InPlace = false, Extract = false;
};

// Exit code per support/Outcome.h: ok, refused, input_error.
int runHsacoPatch(const Cli &C, const PatchConfig &Config);

} // namespace asmevo
