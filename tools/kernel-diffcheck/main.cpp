// kernel-diffcheck: differential equivalence of a candidate code object K1 against the original
// K0 on synthetic inputs (tier 1), or (--infer) launch inference alone.
#include "KernelDiffcheck.h"

using namespace asmevo;
using namespace asmevo::check;

int main(int argc, char **argv) {
  Cli C("kernel-diffcheck",
        "check a candidate AMDGPU kernel K1 against the original K0 on synthetic inputs",
        "K0.hsaco K1.hsaco --spec SPEC.json | K0.hsaco K1.hsaco --capture BUNDLE | K0.hsaco "
        "--infer --spec PARTIAL.json -o FULL.json");
  C.addJsonOption();
  C.addOutputOption("With --infer: where to write the completed spec (it may be the partial "
                    "spec itself)");
  C.options().add_options("positional")("input", "", cxxopts::value<std::vector<std::string>>());
  C.options().add_options()(
      "spec", "Launch spec (JSON): grid, block, dynamic LDS and every explicit argument",
      cxxopts::value<std::string>(), "FILE")(
      "capture",
      "Check on a dispatch recorded by dispatch-capture instead of synthetic inputs: K0 (the "
      "recorded code object) must reproduce the recording, K1 every byte of K0's result (emu, or "
      "hip at the recorded addresses)",
      cxxopts::value<std::string>(), "BUNDLE")(
      "types",
      "With --capture: element types of the memory pointer arguments reach, compared by "
      "Eq. 1 instead of byte for byte; ARG is a name or #N, ARG[] types the regions ARG's "
      "pointer table reaches",
      cxxopts::value<std::string>(), "ARG=TYPE[,...]")(
      "seeds", "Input seeds, comma-separated (default 1,2,3)", cxxopts::value<std::string>(),
      "N[,N...]")("theta", "Minimum cosine similarity of float outputs (default 0.9999)",
                  cxxopts::value<double>(),
                  "X")("tau", "Maximum absolute difference of float outputs (default 1e-3)",
                       cxxopts::value<double>(), "X")(
      "dump-inputs", "Write every seed's buffer contents (inputs, K0 and K1 results) under DIR",
      cxxopts::value<std::string>(),
      "DIR")("infer", "Only complete the spec by launch inference on K0 and write it (-o)")(
      "schedules",
      "Wave interleavings K1 runs under per seed (default 1): the default order, "
      "then seeded varied ones",
      cxxopts::value<unsigned>(), "N")(
      "no-strict", "Compare outputs only: no strict checks (pending loads, wait states, races)")(
      "no-edge-shapes",
      "Check the spec's launch only: not also its edge shapes (every integer argument >= 2 "
      "1, 2 and 3 smaller, and one workgroup; on the last seed)")(
      "max-instructions",
      "K1 may execute at most N wave-instructions per run (emu; default: 64 "
      "times what K0 executed on the same launch); past it K1 is a "
      "runtime_error",
      cxxopts::value<uint64_t>(), "N");
  C.addLaunchOptions(/*Geometry=*/false);
  C.addDeviceOptions("emu (the CPU emulator; the default), hip (an AMD GPU through the HIP "
                     "runtime) or auto (hip when an AMD GPU of K0's processor is usable, else "
                     "emu)",
                     "Stop any run of K0 or K1 after SECONDS of emulation (emu; default: none)");
  C.options().parse_positional({"input"});
  if (int Code = C.parse(argc, argv); Code >= 0)
    return Code;
  const auto &R = C.result();
  std::vector<std::string> In;
  if (R.count("input"))
    In = R["input"].as<std::vector<std::string>>();
  // --theta and --tau (Eq. 1): the synthetic check's, and a typed capture's. -1 when valid.
  auto thresholds = [&](double &Theta, double &Tau) {
    if (R.count("theta"))
      Theta = R["theta"].as<double>();
    if (R.count("tau"))
      Tau = R["tau"].as<double>();
    if (!(Theta >= -1 && Theta <= 1))
      return C.usageError("--theta must be between -1 and 1");
    if (!(Tau >= 0))
      return C.usageError("--tau must be a non-negative number");
    return -1;
  };
  if (R.count("capture")) {
    if (R.count("spec") || R.count("infer"))
      return C.usageError("--capture replaces --spec; it takes no --infer");
    for (const char *Opt : {"seeds", "dump-inputs", "schedules", "no-edge-shapes"})
      if (R.count(Opt))
        return C.usageError(std::string("--") + Opt +
                            " does not apply to --capture (one recorded state)");
    if (!R.count("types") && (R.count("theta") || R.count("tau")))
      return C.usageError("--theta and --tau apply to --capture only with --types (untyped "
                          "memory is compared byte for byte)");
    if (In.size() != 2)
      return C.usageError("give two code objects: K0 (the original) and K1 (the candidate)");
    DeviceOptions Dev;
    if (int Code = C.deviceOptions(Dev); Code >= 0)
      return Code;
    ReplayOptions O;
    O.K0 = In[0];
    O.K1 = In[1];
    O.Bundle = R["capture"].as<std::string>();
    O.Backend = Dev.Backend;
    O.Threads = Dev.Threads;
    O.TimeoutSeconds = Dev.TimeoutSeconds;
    O.Strict = R.count("no-strict") == 0;
    if (R.count("max-instructions"))
      O.MaxInstructions = R["max-instructions"].as<uint64_t>();
    if (R.count("types"))
      O.Types = R["types"].as<std::string>();
    if (int Code = thresholds(O.Theta, O.Tau); Code >= 0)
      return Code;
    O.Progress = C.progress();
    return runKernelReplay(C, O);
  }
  if (!R.count("spec"))
    return C.usageError("--spec is required (or --capture)");
  if (R.count("types"))
    return C.usageError("--types is for --capture (a spec types its arguments itself)");
  DeviceOptions Dev;
  if (int Code = C.deviceOptions(Dev); Code >= 0)
    return Code;
  LaunchOptions Launch;
  if (int Code = C.launchOptions(Launch); Code >= 0)
    return Code;
  InferOptions IO;
  IO.Threads = Dev.Threads;
  IO.TimeoutSeconds = Dev.TimeoutSeconds;
  const std::string &Kernel = Launch.Kernel;
  if (R.count("infer")) {
    if (In.size() != 1)
      return C.usageError("--infer takes exactly one code object (K0)");
    if (C.common().Json && C.common().Output == "-")
      return C.usageError("--infer --json needs -o FILE for the spec (the report goes to stdout)");
    // Over the partial spec is the documented idiom (-o SPEC completes it in place); over K0 not.
    if (int Code = C.checkOutput(C.common().Output, {In[0]}); Code >= 0)
      return Code;
    return runInfer(C, In[0], R["spec"].as<std::string>(), Kernel, IO);
  }
  if (In.size() != 2)
    return C.usageError("give two code objects: K0 (the original) and K1 (the candidate)");
  if (R.count("output"))
    return C.usageError("-o is only for --infer");
  DiffOptions O;
  O.K0 = In[0];
  O.K1 = In[1];
  O.Spec = R["spec"].as<std::string>();
  O.Kernel = Kernel;
  O.Infer = IO;
  O.Threads = IO.Threads;
  if (R.count("seeds")) {
    auto S = parseSeedList(R["seeds"].as<std::string>(), "--seeds");
    if (!S)
      return C.usageError(llvm::toString(S.takeError()));
    O.Seeds = *S;
  }
  if (int Code = thresholds(O.Theta, O.Tau); Code >= 0)
    return Code;
  O.Backend = Dev.Backend;
  if (R.count("schedules")) {
    O.Schedules = R["schedules"].as<unsigned>();
    if (O.Schedules < 1 || O.Schedules > 64)
      return C.usageError("--schedules must be between 1 and 64");
  }
  O.Strict = R.count("no-strict") == 0;
  O.EdgeShapes = R.count("no-edge-shapes") == 0;
  if (R.count("max-instructions")) {
    O.MaxInstructions = R["max-instructions"].as<uint64_t>();
    if (O.MaxInstructions == 0)
      return C.usageError("--max-instructions must be at least 1");
  }
  O.TimeoutSeconds = IO.TimeoutSeconds;
  O.Progress = C.progress();
  if (R.count("dump-inputs"))
    O.DumpDir = R["dump-inputs"].as<std::string>();
  return runKernelDiffcheck(C, O);
}
