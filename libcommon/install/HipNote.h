// The short text note a HIP install writes next to its code objects (asmevo-install.txt): which
// file is the K* of which K0, and how an application loads it.
#pragma once

#include "install/Plan.h"
#include "install/Run.h"

#include <string>

namespace asmevo::install {

constexpr const char *kHipNoteFile = "asmevo-install.txt";

// The note's text (deterministic: a second install writes the same bytes).
std::string hipNote(const Run &R, const Plan &P);

} // namespace asmevo::install
