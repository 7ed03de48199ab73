// The wait-state hazards of a code object found without running it (emu/StaticHazards.h), for
// the layers above the device, which include no emu header. The rules are the hardware's, so
// they hold whichever backend runs the code: the differential check applies them on hip too.
#pragma once

#include "emu/StaticHazards.h"

namespace asmevo::device {

using emu::StaticHazard;
using emu::staticHazards;

} // namespace asmevo::device
