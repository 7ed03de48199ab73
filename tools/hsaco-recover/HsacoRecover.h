// hsaco-recover's work: inputs -> recovered assembly, a round-trip verdict, or a listing,
// rendered as text or the report envelope.
#pragma once

#include "support/Cli.h"

#include <string>
#include <vector>

namespace asmevo {

struct RecoverConfig {
  std::vector<std::string> Inputs;
  std::string Output = "-";
  std::string Arch;
  bool Check = false, List = false;
  bool KeepGoing = false; // --check: an unreadable input is reported, the others still checked
  std::string Against;    // --check: compare with this already rebuilt object instead
};

// Exit code per support/Outcome.h: ok, roundtrip_differs, input_error.
int runHsacoRecover(const Cli &C, const RecoverConfig &Config);

} // namespace asmevo
