#include "KernelTime.h"

#include "llvm/Support/raw_ostream.h"

namespace asmevo {

int runKernelTimeTool(const Cli &C, const timing::TimeOptions &O) {
  Report Rep = timing::runKernelTime(O);
  Rep.Tool = C.tool();
  if (Rep.Result == Outcome::InputError || Rep.Result == Outcome::RuntimeError ||
      Rep.Result == Outcome::Interrupted)
    return C.fail(Rep, Rep.Result, Rep.Message);
  if (C.common().Json)
    return C.printJson(Rep);
  llvm::outs() << C.tool() << ": " << Rep.Message << "\n";
  if (!C.common().Quiet)
    for (const std::string &N : Rep.Notes)
      llvm::outs() << "  " << N << "\n";
  return Rep.exitCode();
}

} // namespace asmevo
