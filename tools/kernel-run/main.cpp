// kernel-run: run one kernel of a code object (on the emulator, or on an AMD GPU through the
// HIP runtime) with given arguments and buffers, and write the buffers it changed to files.
#include "KernelRun.h"

#include "launch/ArgText.h"
#include "support/OutputPath.h"

using namespace asmevo;

int main(int argc, char **argv) {
  Cli C("kernel-run",
        "run one kernel of an AMDGPU code object on the CPU emulator (or an AMD "
        "GPU) with given arguments and buffers",
        "K.hsaco --block X[,Y,Z] --grid X[,Y,Z] --arg [NAME=]VALUE... [--out NAME=FILE]... | "
        "--coverage K.hsaco...");
  C.addJsonOption();
  C.options().add_options("positional")("input", "", cxxopts::value<std::vector<std::string>>());
  C.addLaunchOptions(/*Geometry=*/true);
  C.options().add_options()(
      "arg",
      "Kernel argument: @FILE, zeros:BYTES, null, addr:ADDRESS or table:BUF+BUF... (a "
      "pointer table, each BUF @FILE or zeros:BYTES) for pointers; [TYPE:]NUMBER or hex:BYTES "
      "by value; NAME is the metadata name or #N; without NAME= the next argument in order",
      cxxopts::value<std::vector<std::string>>(), "[NAME=]VALUE")(
      "out",
      "Write the final contents of buffer argument NAME (NAME[I]: entry I of its table) to FILE",
      cxxopts::value<std::vector<std::string>>(), "NAME=FILE")(
      "seed", "Seed of the wave interleaving order (default 1)", cxxopts::value<uint64_t>(), "N")(
      "strict", "Strict checks (emu): loads pending until s_waitcnt, wait-state hazards, races "
                "between the waves of a workgroup; findings are printed and the run exits 1")(
      "vary-schedule", "Interleave the waves of a workgroup in a seeded, varied order (emu)")(
      "sync-profile",
      "With the strict checks, write for each s_waitcnt the most operations "
      "outstanding when it executed to FILE (JSON)",
      cxxopts::value<std::string>(),
      "FILE")("max-instructions",
              "Stop the dispatch after N wave-instructions (emu; default: no limit "
              "but 2^31 per wave); exit 3",
              cxxopts::value<uint64_t>(), "N")(
      "coverage", "Only report: which instructions the code objects use and which the emulator "
                  "implements (exit 1 if any is missing)");
  C.addDeviceOptions("emu (the CPU emulator; the default), hip (an AMD GPU "
                     "through the HIP runtime, loaded at run time: the time printed is GPU time, "
                     "and --grid-items must be a multiple of --block) or auto (hip when an AMD "
                     "GPU of the code object's processor is usable, else emu)",
                     "Stop the dispatch after SECONDS of emulation (emu; default: none); exit 3");
  C.options().parse_positional({"input"});
  if (int Code = C.parse(argc, argv); Code >= 0)
    return Code;
  const auto &R = C.result();
  if (R.count("coverage")) {
    if (!R.count("input"))
      return C.usageError("--coverage needs code objects");
    return runCoverage(C, R["input"].as<std::vector<std::string>>());
  }
  if (!R.count("input") || R["input"].as<std::vector<std::string>>().size() != 1)
    return C.usageError("give exactly one code object");
  KernelRunConfig Cfg;
  Cfg.CodeObject = R["input"].as<std::vector<std::string>>()[0];
  if (int Code = C.launchOptions(Cfg.Launch); Code >= 0)
    return Code;
  if (int Code = C.deviceOptions(Cfg.Device); Code >= 0)
    return Code;
  if (R.count("arg"))
    Cfg.Args = R["arg"].as<std::vector<std::string>>();
  if (R.count("out"))
    for (const std::string &S : R["out"].as<std::vector<std::string>>()) {
      auto Eq = S.find('=');
      if (Eq == std::string::npos || Eq == 0 || Eq + 1 == S.size())
        return C.usageError("--out '" + S + "': expected NAME=FILE");
      Cfg.Outputs.push_back({S.substr(0, Eq), S.substr(Eq + 1)});
    }
  if (R.count("seed"))
    Cfg.Seed = R["seed"].as<uint64_t>();
  Cfg.Strict = R.count("strict") > 0;
  Cfg.VarySchedule = R.count("vary-schedule") > 0;
  if (R.count("sync-profile")) {
    Cfg.SyncProfile = R["sync-profile"].as<std::string>();
    Cfg.Strict = true;
  }
  if (R.count("max-instructions")) {
    Cfg.MaxInstructions = R["max-instructions"].as<uint64_t>();
    if (Cfg.MaxInstructions == 0)
      return C.usageError("--max-instructions must be at least 1");
  }
  // Outputs: no two the same file, none an input (the code object, an @FILE argument).
  std::vector<std::string> Reads{Cfg.CodeObject};
  for (const std::string &A : Cfg.Args) {
    auto T = launch::parseArgText(A);
    if (!T)
      llvm::consumeError(T.takeError()); // reported, with its argument, by the run
    else if (llvm::StringRef(T->Value).starts_with("@"))
      Reads.push_back(T->Value.substr(1));
  }
  std::vector<std::pair<std::string, std::string>> Writes;
  for (const auto &[Name, File] : Cfg.Outputs)
    Writes.push_back({"--out '" + Name + "=" + File + "'", File});
  if (!Cfg.SyncProfile.empty())
    Writes.push_back({"--sync-profile '" + Cfg.SyncProfile + "'", Cfg.SyncProfile});
  if (llvm::Error E = checkDistinctOutputs(Writes))
    return C.usageError(llvm::toString(std::move(E)));
  for (const auto &W : Writes)
    if (int Code = C.checkOutput(W.second, Reads); Code >= 0)
      return Code;
  return runKernelRun(C, Cfg);
}
