// hsaco-rebuild: edited AMDGPU assembly -> an ABI-preserving drop-in code object.
#include "HsacoRebuild.h"

using namespace asmevo;

int main(int argc, char **argv) {
  Cli C("hsaco-rebuild",
        "assemble and link edited AMDGPU assembly into a code object, keeping the original's "
        "declared resources and ABI",
        "K.s -o K1.hsaco [--abi-of K0.hsaco] | --check-abi K0.hsaco K1.hsaco | --resources "
        "K.hsaco...");
  C.addOutputOption("Write the code object to FILE (required for a rebuild; '-' is stdout)",
                    /*DefaultStdout=*/false);
  C.addJsonOption();
  C.options().add_options("positional")("inputs", "", cxxopts::value<std::vector<std::string>>());
  C.options().add_options()(
      "abi-of", "Check the result against K0: symbols, kernarg layout, launch semantics, target",
      cxxopts::value<std::string>(),
      "K0")("check-abi", "Only check: compare code object K1 with K0 (no assembly)")(
      "resources", "Only scan: print each kernel's register use (scanned/declared) and "
                   "occupancy; exit 1 if any kernel uses registers its descriptor does not "
                   "allocate")("shrink-resources",
                               "Lower register counts to what the code uses (never where registers "
                               "are indexed indirectly or calls are indirect)");
  C.options().parse_positional({"inputs"});
  if (int Code = C.parse(argc, argv); Code >= 0)
    return Code;
  const auto &R = C.result();
  std::vector<std::string> In;
  if (R.count("inputs"))
    In = R["inputs"].as<std::vector<std::string>>();
  RebuildConfig Cfg;
  Cfg.CheckAbi = R.count("check-abi") > 0;
  Cfg.ShrinkResources = R.count("shrink-resources") > 0;
  if (R.count("abi-of"))
    Cfg.AbiOf = R["abi-of"].as<std::string>();
  if (R.count("resources")) {
    if (In.empty())
      return C.usageError("--resources needs code objects");
    if (R.count("output"))
      return C.usageError("-o is for a rebuild, not --resources");
    Cfg.ResourcesOf = In;
    return runHsacoRebuild(C, Cfg);
  }
  if (Cfg.CheckAbi) {
    if (In.size() != 2)
      return C.usageError("--check-abi takes two code objects: K0 and K1");
    if (R.count("output"))
      return C.usageError("-o is for a rebuild, not --check-abi");
    Cfg.AbiOf = In[0];
    Cfg.Input = In[1];
  } else {
    if (In.size() != 1)
      return C.usageError(In.empty() ? "no input file" : "a rebuild takes one assembly file");
    if (!R.count("output"))
      return C.usageError("no output file (-o)");
    Cfg.Input = In[0];
    Cfg.Output = C.common().Output;
    if (C.common().Json && Cfg.Output == "-")
      return C.usageError("--json needs -o FILE for the code object (the report goes to stdout)");
    std::vector<std::string> Reads{Cfg.Input};
    if (!Cfg.AbiOf.empty())
      Reads.push_back(Cfg.AbiOf);
    if (int Code = C.checkOutput(Cfg.Output, Reads); Code >= 0)
      return Code;
  }
  return runHsacoRebuild(C, Cfg);
}
