#include "KernelTime.h"

namespace asmevo {

int runKernelTimeTool(const Cli &C, const timing::TimeOptions &O) {
  Report Rep = timing::runKernelTime(O);
  Rep.Tool = C.tool();
  if (Rep.Result == Outcome::InputError || Rep.Result == Outcome::RuntimeError ||
      Rep.Result == Outcome::Interrupted)
    return C.fail(Rep, Rep.Result, Rep.Message);
  return C.printAnswer(Rep);
}

} // namespace asmevo
