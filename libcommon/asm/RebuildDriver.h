// What `hsaco-rebuild` does, as a library function: rebuild edited assembly into a code object
// (optionally checked against K0), or check two code objects' ABI.
#pragma once

#include <string>
#include <vector>

namespace asmevo {

struct RebuildConfig {
  std::string Input;                    // K.s (rebuild) or K1 (check)
  std::string Output = "";              // required for a rebuild
  std::string AbiOf;                    // K0
  bool CheckAbi = false;                // --check-abi K0 K1
  bool ShrinkResources = false;         // --shrink-resources
  std::vector<std::string> ResourcesOf; // --resources K...: scan vs declared, per kernel
  bool Json = false, Verbose = false, Quiet = false;
};

// Returns the exit code (0 ok, 1 abi_invalid, 2 bad input).
int runHsacoRebuild(const RebuildConfig &Config);

} // namespace asmevo
