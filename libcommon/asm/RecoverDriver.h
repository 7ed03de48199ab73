// What `hsaco-recover` does, as a library function: recover, check (the round-trip gate) or
// list, over the named inputs.
#pragma once

#include <string>
#include <vector>

namespace asmevo {

struct RecoverConfig {
  std::vector<std::string> Inputs;
  std::string Output = "-";
  std::string Arch;
  bool Check = false, List = false, Json = false, Verbose = false, Quiet = false;
  bool KeepGoing = false; // --check: an unreadable input is reported, the others still checked
  std::string Against;    // --check: compare with this already rebuilt object instead
};

// Returns the exit code (0 ok, 1 a round trip failed, 2 bad input).
int runHsacoRecover(const RecoverConfig &Config);

} // namespace asmevo
