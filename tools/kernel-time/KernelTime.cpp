#include "KernelTime.h"

namespace asmevo {

int runKernelTimeTool(const Cli &C, const timing::TimeOptions &O) {
  Report Rep = timing::runKernelTime(O);
  if (int Exit = C.errorExit(Rep); Exit >= 0)
    return Exit;
  return C.printAnswer(Rep);
}

} // namespace asmevo
