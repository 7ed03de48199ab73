// kernel-diffcheck: differential equivalence of a candidate code object K1 against the original
// K0 on synthetic inputs (tier 1), or (--infer) launch inference alone.
#include "check/DiffCheck.h"
#include "support/Cli.h"
#include "support/Error.h"

#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <cstdlib>

using namespace asmevo;
using namespace asmevo::check;

static int finish(const DiffResult &R, bool Json, bool Quiet, bool InferMode) {
  const char *Tool = "kernel-diffcheck";
  if (R.Verdict == "error") {
    if (Json && !InferMode)
      llvm::outs() << R.Json.dump(2) << "\n";
    llvm::errs() << Tool << ": error: " << R.Line << "\n";
    return R.Exit;
  }
  if (Json) {
    llvm::outs() << R.Json.dump(2) << "\n";
    return R.Exit;
  }
  llvm::raw_ostream &OS = InferMode ? llvm::errs() : llvm::outs();
  OS << Tool << ": " << R.Line << "\n";
  if (!Quiet)
    for (const std::string &D : R.Details)
      OS << "  " << D << "\n";
  return R.Exit;
}

int main(int argc, char **argv) {
  Cli C("kernel-diffcheck",
        "check a candidate AMDGPU kernel K1 against the original K0 on synthetic inputs",
        "K0.hsaco K1.hsaco --spec SPEC.json | K0.hsaco --infer --spec PARTIAL.json -o FULL.json");
  C.addJsonOption();
  C.addOutputOption("With --infer: where to write the completed spec");
  C.options().add_options("positional")("input", "", cxxopts::value<std::vector<std::string>>());
  C.options().add_options()(
      "spec", "Launch spec (JSON): grid, block, dynamic LDS and every explicit argument",
      cxxopts::value<std::string>(),
      "FILE")("kernel", "Kernel symbol (overrides the spec's \"kernel\")",
              cxxopts::value<std::string>(), "NAME")(
      "seeds", "Input seeds, comma-separated (default 1,2,3)", cxxopts::value<std::string>(),
      "N[,N...]")("theta", "Minimum cosine similarity of float outputs (default 0.9999)",
                  cxxopts::value<double>(), "X")(
      "tau", "Maximum absolute difference of float outputs (default 1e-3)",
      cxxopts::value<double>(), "X")("backend", "Execution backend: emu, hip or auto (default emu)",
                                     cxxopts::value<std::string>(), "NAME")(
      "dump-inputs", "Write every seed's buffer contents (inputs, K0 and K1 results) under DIR",
      cxxopts::value<std::string>(),
      "DIR")("infer", "Only complete the spec by launch inference on K0 and write it (-o)")(
      "schedules",
      "Wave interleavings K1 runs under per seed (default 1): the default order, "
      "then seeded varied ones",
      cxxopts::value<unsigned>(), "N")(
      "no-strict", "Compare outputs only: no strict checks (pending loads, wait states, races)")(
      "threads", "Host threads of the emulator (default: all cores)", cxxopts::value<unsigned>(),
      "N")("max-instructions",
           "K1 may execute at most N wave-instructions per run (emu; default: 64 "
           "times what K0 executed on the same launch); past it K1 is a "
           "runtime_error",
           cxxopts::value<uint64_t>(), "N")(
      "timeout", "Stop any run of K0 or K1 after SECONDS of emulation (emu; default: none)",
      cxxopts::value<double>(), "SECONDS");
  C.options().parse_positional({"input"});
  if (int Code = C.parse(argc, argv); Code >= 0)
    return Code;
  const auto &R = C.result();
  std::vector<std::string> In;
  if (R.count("input"))
    In = R["input"].as<std::vector<std::string>>();
  if (!R.count("spec"))
    return C.usageError("--spec is required");
  InferOptions IO;
  if (R.count("threads"))
    IO.Threads = R["threads"].as<unsigned>();
  if (R.count("timeout")) {
    IO.TimeoutSeconds = R["timeout"].as<double>();
    if (!(IO.TimeoutSeconds > 0))
      return C.usageError("--timeout must be a positive number of seconds");
  }
  std::string Kernel = R.count("kernel") ? R["kernel"].as<std::string>() : "";
  bool Json = C.common().Json, Quiet = C.common().Quiet;
  if (R.count("infer")) {
    if (In.size() != 1)
      return C.usageError("--infer takes exactly one code object (K0)");
    DiffResult Res =
        runInferOnly(In[0], R["spec"].as<std::string>(), Kernel, C.common().Output, IO);
    if (Json && Res.Verdict == "ok" && C.common().Output != "-") {
      llvm::outs() << Res.Json.dump(2) << "\n";
      return Res.Exit;
    }
    return finish(Res, false, Quiet, true);
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
    O.Seeds.clear();
    std::string S = R["seeds"].as<std::string>();
    size_t Pos = 0;
    while (true) {
      size_t Comma = S.find(',', Pos);
      std::string Part =
          S.substr(Pos, Comma == std::string::npos ? std::string::npos : Comma - Pos);
      char *End = nullptr;
      errno = 0;
      unsigned long long V = std::strtoull(Part.c_str(), &End, 10);
      if (Part.empty() || !End || *End || errno || Part[0] == '-')
        return C.usageError("--seeds '" + S + "': expected comma-separated non-negative integers");
      O.Seeds.push_back(V);
      if (Comma == std::string::npos)
        break;
      Pos = Comma + 1;
    }
  }
  if (R.count("theta"))
    O.Theta = R["theta"].as<double>();
  if (R.count("tau"))
    O.Tau = R["tau"].as<double>();
  if (!(O.Theta >= -1 && O.Theta <= 1))
    return C.usageError("--theta must be between -1 and 1");
  if (!(O.Tau >= 0))
    return C.usageError("--tau must be a non-negative number");
  if (R.count("backend"))
    O.Backend = R["backend"].as<std::string>();
  if (R.count("schedules")) {
    O.Schedules = R["schedules"].as<unsigned>();
    if (O.Schedules < 1 || O.Schedules > 64)
      return C.usageError("--schedules must be between 1 and 64");
  }
  O.Strict = R.count("no-strict") == 0;
  if (R.count("max-instructions")) {
    O.MaxInstructions = R["max-instructions"].as<uint64_t>();
    if (O.MaxInstructions == 0)
      return C.usageError("--max-instructions must be at least 1");
  }
  O.TimeoutSeconds = IO.TimeoutSeconds;
  if (C.common().Verbose)
    O.Progress = [](const std::string &Line) {
      llvm::errs() << "kernel-diffcheck: " << Line << "\n";
    };
  if (R.count("dump-inputs"))
    O.DumpDir = R["dump-inputs"].as<std::string>();
  return finish(runDiffCheck(O), Json, Quiet, false);
}
