// hsaco-rebuild's work: assembly -> code object with the original's declared resources and ABI
// checks; --check-abi K0 K1; --resources. Rendered as text or the report envelope.
#pragma once

#include "support/Cli.h"

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
};

// Exit code per support/Outcome.h: ok, abi_invalid, input_error.
int runHsacoRebuild(const Cli &C, const RebuildConfig &Config);

} // namespace asmevo
