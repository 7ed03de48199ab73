// Stub: to be implemented.
#include "emu/Exec.h"

namespace asmevo::emu {

bool execVector(ExecCtx &c, const Inst &in) { return false; }

} // namespace asmevo::emu
