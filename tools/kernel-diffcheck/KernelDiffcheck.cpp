#include "KernelDiffcheck.h"

namespace asmevo {

namespace {

// Text: "<tool>: error: <message>" for an input error (Cli::errorExit), else "<tool>: <verdict
// line>" and the details (stdout; stderr for --infer, whose stdout may be the spec; with -q an
// --infer that succeeds says nothing, as its spec is its result). JSON: the envelope.
int finish(const Cli &C, Report R, bool InferMode) {
  // A kernel that faults or a check that was interrupted is the check's answer.
  if (int Exit = C.errorExit(R, {Outcome::RuntimeError, Outcome::Interrupted}); Exit >= 0)
    return Exit;
  if (InferMode && !C.common().Json && C.common().Quiet && R.Result == Outcome::Ok)
    return R.exitCode();
  return C.printAnswer(R, InferMode);
}

} // namespace

int runKernelDiffcheck(const Cli &C, const check::DiffOptions &O) {
  return finish(C, check::runDiffCheck(O), false);
}

int runKernelReplay(const Cli &C, const check::ReplayOptions &O) {
  return finish(C, check::runCaptureReplay(O), false);
}

int runInfer(const Cli &C, const std::string &K0, const std::string &Spec,
             const std::string &Kernel, const check::InferOptions &IO) {
  return finish(C, check::runInferOnly(K0, Spec, Kernel, C.common().Output, IO), true);
}

} // namespace asmevo
