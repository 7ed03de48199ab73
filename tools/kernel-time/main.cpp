// kernel-time: the time of a kernel, or of a pair K0/K1 and their ratio, launched from a launch
// spec: modeled on the CPU emulator's timing model (emu: "modeled, not measured"), or measured
// with HIP events on an AMD GPU (hip). The two kinds of figure never mix.
#include "KernelTime.h"
#include "timing/Ensemble.h"

using namespace asmevo;

int main(int argc, char **argv) {
  Cli C("kernel-time",
        "time an AMDGPU kernel (or K0 against K1): modeled on the emulator, or measured on a GPU",
        "K0.hsaco [K1.hsaco] --spec SPEC.json | BUNDLE [K1.hsaco] --capture BUNDLE");
  C.addJsonOption();
  C.options().add_options("positional")("input", "", cxxopts::value<std::vector<std::string>>());
  C.options().add_options()(
      "spec",
      "Launch spec (JSON, as kernel-diffcheck reads it; every buffer's size and role "
      "given)",
      cxxopts::value<std::string>(),
      "FILE")("capture",
              "Time on a dispatch recorded by dispatch-capture instead of a spec (K0 is the "
              "recorded code object; the bundle itself will do); on hip every launch starts from "
              "the recorded state",
              cxxopts::value<std::string>(),
              "BUNDLE")("seed", "Seed of the inputs (default 1; on hip the first of the rotation)",
                        cxxopts::value<uint64_t>(), "N")(
      "params", "emu: the model's parameter file (default: share/asmevo/timing/<processor>.json)",
      cxxopts::value<std::string>(),
      "FILE")("ensemble",
              "emu: model each kernel under N parameter sets drawn from the parameter file's "
              "ranges (the first: its nominal figures; the same sets for K0 and K1), emulating "
              "it once, and give the times' and the speedup's interval (default 1; at most 1024)",
              cxxopts::value<unsigned>(),
              "N")("ensemble-seed", "emu: seed of the parameter sets --ensemble draws (default 1)",
                   cxxopts::value<uint64_t>(), "S")(
      "profile", "emu: per-instruction modeled cycles and the ranked hot windows")(
      "annotate",
      "emu: write K0's recovered assembly to FILE with each instruction's modeled figures as a "
      "comment (it reassembles to the same code)",
      cxxopts::value<std::string>(),
      "FILE")("att",
              "Import K0's hot windows from a rocprofv3 thread trace (the stats_*.csv under DIR, "
              "recorded on a GPU with rocprofv3 --att); runs nothing, needs no spec",
              cxxopts::value<std::string>(),
              "DIR")("windows", "emu: hot windows listed with --profile (default 10)",
                     cxxopts::value<unsigned>(), "N")(
      "max-groups",
      "emu: simulate (and emulate) at most N workgroups (default 256): beyond, a sample of the "
      "CUs, and the rest of the grid is not run",
      cxxopts::value<uint64_t>(),
      "N")("max-workgroups", "emu: refuse a launch of more than N workgroups (default 4294967296)",
           cxxopts::value<uint64_t>(),
           "N")("warmup", "hip: untimed launches of each kernel first (default 10)",
                cxxopts::value<unsigned>(), "N")(
      "reps", "hip: timed launches of each kernel (default 100)", cxxopts::value<unsigned>(), "N")(
      "rotate", "hip: input sets used in turn, per kernel (default 4)", cxxopts::value<unsigned>(),
      "N")("flush-cache",
           "hip: write BYTES (default 512 MiB: more than MI300X's L2 and Infinity Cache) to a "
           "buffer of the device before every timed launch",
           cxxopts::value<uint64_t>()->implicit_value("536870912"), "BYTES");
  C.addLaunchOptions(/*Geometry=*/false);
  C.addDeviceOptions("emu (the timing model on the CPU emulator: modeled, not measured; the "
                     "default), hip (an AMD GPU through the HIP runtime: measured) or auto (hip "
                     "when an AMD GPU of K0's processor is usable, else emu)",
                     "Stop an emulated launch after SECONDS (emu; default: none)");
  C.options().parse_positional({"input"});
  if (int Code = C.parse(argc, argv); Code >= 0)
    return Code;
  const auto &R = C.result();
  std::vector<std::string> In;
  if (R.count("input"))
    In = R["input"].as<std::vector<std::string>>();
  if (In.empty() || In.size() > 2)
    return C.usageError("give one code object (K0) or two (K0 and K1)");
  if (R.count("att")) {
    if (In.size() != 1)
      return C.usageError("--att profiles one code object (K0)");
    // An import runs nothing: an option of a run would be silently ignored.
    for (const char *Opt : {"spec", "capture", "params", "profile", "annotate", "max-groups",
                            "max-workgroups", "seed", "warmup", "reps", "rotate", "flush-cache",
                            "backend", "threads", "timeout", "ensemble", "ensemble-seed"})
      if (R.count(Opt))
        return C.usageError(std::string("--") + Opt +
                            " does not apply to --att (an import runs nothing)");
  } else if (R.count("capture")) {
    if (R.count("spec"))
      return C.usageError("--capture replaces --spec");
    if (R.count("rotate") || R.count("seed"))
      return C.usageError("--rotate and --seed do not apply to --capture (one recorded state)");
  } else if (!R.count("spec")) {
    return C.usageError("--spec is required (or --capture)");
  }
  DeviceOptions Dev;
  if (int Code = C.deviceOptions(Dev); Code >= 0)
    return Code;
  LaunchOptions Launch;
  if (int Code = C.launchOptions(Launch); Code >= 0)
    return Code;
  timing::TimeOptions O;
  O.K0 = In[0];
  if (In.size() == 2)
    O.K1 = In[1];
  if (R.count("spec"))
    O.Spec = R["spec"].as<std::string>();
  if (R.count("att"))
    O.AttDir = R["att"].as<std::string>();
  if (R.count("capture"))
    O.Capture = R["capture"].as<std::string>();
  if (R.count("annotate")) {
    O.AnnotatePath = R["annotate"].as<std::string>();
    std::vector<std::string> Reads = In;
    if (!O.Spec.empty())
      Reads.push_back(O.Spec);
    if (!O.Capture.empty())
      Reads.push_back(O.Capture);
    if (R.count("params"))
      Reads.push_back(R["params"].as<std::string>());
    if (int Code = C.checkOutput(O.AnnotatePath, Reads); Code >= 0)
      return Code;
  }
  O.Kernel = Launch.Kernel;
  O.Backend = Dev.Backend;
  O.Threads = Dev.Threads;
  O.TimeoutSeconds = Dev.TimeoutSeconds;
  if (R.count("seed"))
    O.Seed = R["seed"].as<uint64_t>();
  if (R.count("params"))
    O.ParamsFile = R["params"].as<std::string>();
  O.Profile = R.count("profile") > 0;
  if (R.count("windows"))
    O.MaxWindows = R["windows"].as<unsigned>();
  if (R.count("max-groups")) {
    O.MaxSimulatedGroups = R["max-groups"].as<uint64_t>();
    if (O.MaxSimulatedGroups == 0)
      return C.usageError("--max-groups must be at least 1");
  }
  if (R.count("max-workgroups")) {
    O.MaxWorkgroups = R["max-workgroups"].as<uint64_t>();
    if (O.MaxWorkgroups == 0)
      return C.usageError("--max-workgroups must be at least 1");
  }
  if (R.count("ensemble")) {
    O.Ensemble = R["ensemble"].as<unsigned>();
    if (O.Ensemble == 0 || O.Ensemble > timing::kMaxEnsemble)
      return C.usageError("--ensemble must be from 1 to " + std::to_string(timing::kMaxEnsemble) +
                          " (parameter sets), not " + std::to_string(O.Ensemble));
  }
  if (R.count("ensemble-seed"))
    O.EnsembleSeed = R["ensemble-seed"].as<uint64_t>();
  if (Dev.Backend == "hip" && (R.count("ensemble") || R.count("ensemble-seed")))
    return C.usageError("--ensemble and --ensemble-seed are the model's (emu): measured times "
                        "have no parameter sets");
  if (R.count("warmup"))
    O.Warmup = R["warmup"].as<unsigned>();
  if (R.count("reps")) {
    O.Reps = R["reps"].as<unsigned>();
    if (O.Reps == 0)
      return C.usageError("--reps must be at least 1");
  }
  if (R.count("rotate")) {
    O.Rotate = R["rotate"].as<unsigned>();
    if (O.Rotate == 0)
      return C.usageError("--rotate must be at least 1");
  }
  if (R.count("flush-cache"))
    O.FlushBytes = R["flush-cache"].as<uint64_t>();
  O.Progress = C.progress();

  return runKernelTimeTool(C, O);
}
