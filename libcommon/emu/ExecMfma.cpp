// Stub: to be implemented.
#include "emu/Exec.h"

namespace asmevo::emu {

bool execMfma(ExecCtx &c, const Inst &in) { return false; }

} // namespace asmevo::emu
