// kernel-run: run one kernel of a code object (on the emulator, or on an AMD GPU through the
// HIP runtime) with given arguments and buffers, and write the buffers it changed to files.
#include "device/KernelRun.h"
#include "support/Cli.h"
#include "support/Error.h"

using namespace asmevo;
using namespace asmevo::device;

int main(int argc, char **argv) {
  Cli C("kernel-run",
        "run one kernel of an AMDGPU code object on the CPU emulator (or an AMD "
        "GPU) with given arguments and buffers",
        "K.hsaco --block X[,Y,Z] --grid X[,Y,Z] --arg [NAME=]VALUE... [--out NAME=FILE]...");
  C.addJsonOption();
  C.options().add_options("positional")("input", "", cxxopts::value<std::vector<std::string>>());
  C.options().add_options()("kernel", "Kernel symbol (needed when the object has several)",
                            cxxopts::value<std::string>(), "NAME")(
      "grid", "Grid size in workgroups", cxxopts::value<std::string>(), "X[,Y[,Z]]")(
      "grid-items",
      "Grid size in work-items (on emu the last workgroup may be partial; hip "
      "needs a multiple of --block)",
      cxxopts::value<std::string>(), "X[,Y[,Z]]")("block", "Workgroup size in work-items",
                                                  cxxopts::value<std::string>(), "X[,Y[,Z]]")(
      "arg",
      "Kernel argument: @FILE, zeros:BYTES, null, addr:ADDRESS for pointers; [TYPE:]NUMBER "
      "or hex:BYTES by value; NAME is the metadata name or #N; without NAME= the next "
      "argument in order",
      cxxopts::value<std::vector<std::string>>(),
      "[NAME=]VALUE")("out", "Write the final contents of buffer argument NAME to FILE",
                      cxxopts::value<std::vector<std::string>>(), "NAME=FILE")(
      "dynamic-lds", "Bytes of dynamic LDS per workgroup", cxxopts::value<uint32_t>(), "BYTES")(
      "seed", "Seed of the wave interleaving order (default 1)", cxxopts::value<uint64_t>(), "N")(
      "strict", "Strict checks (emu): loads pending until s_waitcnt, wait-state hazards, races "
                "between the waves of a workgroup; findings are printed and the run exits 1")(
      "vary-schedule", "Interleave the waves of a workgroup in a seeded, varied order (emu)")(
      "sync-profile",
      "With the strict checks, write for each s_waitcnt the most operations "
      "outstanding when it executed to FILE (JSON)",
      cxxopts::value<std::string>(),
      "FILE")("threads", "Host threads (default: all cores)", cxxopts::value<unsigned>(), "N")(
      "max-instructions",
      "Stop the dispatch after N wave-instructions (emu; default: no limit "
      "but 2^31 per wave); exit 3",
      cxxopts::value<uint64_t>(),
      "N")("timeout", "Stop the dispatch after SECONDS of emulation (emu; default: none); exit 3",
           cxxopts::value<double>(), "SECONDS")(
      "coverage", "Only report: which instructions the code objects use and which the emulator "
                  "implements (exit 1 if any is missing)")(
      "backend",
      "Execution backend: emu (the CPU emulator; the default), hip (an AMD GPU "
      "through the HIP runtime, loaded at run time: the time printed is GPU time, "
      "and --grid-items must be a multiple of --block) or auto (hip when an AMD GPU "
      "of the code object's processor is usable, else emu)",
      cxxopts::value<std::string>(), "NAME");
  C.options().parse_positional({"input"});
  if (int Code = C.parse(argc, argv); Code >= 0)
    return Code;
  const auto &R = C.result();
  RunRequest Req;
  if (R.count("coverage")) {
    if (!R.count("input"))
      return C.usageError("--coverage needs code objects");
    return runCoverageReport(R["input"].as<std::vector<std::string>>(), C.common().Json,
                             C.common().Quiet);
  }
  if (!R.count("input") || R["input"].as<std::vector<std::string>>().size() != 1)
    return C.usageError("give exactly one code object");
  Req.CodeObject = R["input"].as<std::vector<std::string>>()[0];
  Req.Json = C.common().Json;
  Req.Quiet = C.common().Quiet;
  if (R.count("kernel"))
    Req.Kernel = R["kernel"].as<std::string>();
  auto dimsOf = [&](const char *Opt, std::array<uint32_t, 3> &Out) -> int {
    if (!R.count(Opt))
      return -1;
    auto D = parseDims(R[Opt].as<std::string>(), (std::string("--") + Opt).c_str());
    if (!D)
      return reportError("kernel-run", D.takeError());
    Out = *D;
    return -1;
  };
  for (auto [Opt, Dst] : {std::pair{"grid", &Req.Grid}, std::pair{"grid-items", &Req.GridItems},
                          std::pair{"block", &Req.Block}})
    if (int Code = dimsOf(Opt, *Dst); Code >= 0)
      return Code;
  if (R.count("grid") && R.count("grid-items"))
    return C.usageError("give --grid or --grid-items, not both");
  if (R.count("arg"))
    for (const std::string &S : R["arg"].as<std::vector<std::string>>()) {
      auto A = parseArgSpec(S);
      if (!A)
        return reportError("kernel-run", A.takeError());
      Req.Args.push_back(*A);
    }
  if (R.count("out"))
    for (const std::string &S : R["out"].as<std::vector<std::string>>()) {
      auto Eq = S.find('=');
      if (Eq == std::string::npos || Eq == 0 || Eq + 1 == S.size())
        return C.usageError("--out '" + S + "': expected NAME=FILE");
      Req.Outputs.push_back({S.substr(0, Eq), S.substr(Eq + 1)});
    }
  if (R.count("dynamic-lds"))
    Req.DynamicLds = R["dynamic-lds"].as<uint32_t>();
  if (R.count("seed"))
    Req.Seed = R["seed"].as<uint64_t>();
  Req.Strict = R.count("strict") > 0;
  Req.VarySchedule = R.count("vary-schedule") > 0;
  if (R.count("sync-profile")) {
    Req.SyncProfile = R["sync-profile"].as<std::string>();
    Req.Strict = true;
  }
  if (R.count("threads"))
    Req.Threads = R["threads"].as<unsigned>();
  if (R.count("max-instructions")) {
    Req.MaxInstructions = R["max-instructions"].as<uint64_t>();
    if (Req.MaxInstructions == 0)
      return C.usageError("--max-instructions must be at least 1");
  }
  if (R.count("timeout")) {
    Req.TimeoutSeconds = R["timeout"].as<double>();
    if (!(Req.TimeoutSeconds > 0))
      return C.usageError("--timeout must be a positive number of seconds");
  }
  if (R.count("backend"))
    Req.Backend = R["backend"].as<std::string>();
  return runKernelRun(Req);
}
