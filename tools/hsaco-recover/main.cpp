// hsaco-recover: AMDGPU code object -> reassemblable assembly, with the round-trip gate.
#include "HsacoRecover.h"

#include "codeobj/TargetId.h"

using namespace asmevo;

int main(int argc, char **argv) {
  Cli C("hsaco-recover",
        "recover reassemblable assembly from an AMDGPU code object, or check that it round-trips",
        "INPUT...");
  C.addOutputOption("Write the assembly (or the report) to FILE; '-' is stdout");
  C.addJsonOption();
  C.options().add_options("positional")("inputs", "Code objects, containers or file:// URIs",
                                        cxxopts::value<std::vector<std::string>>());
  C.options().add_options()("check", "Run the round-trip gate: reassemble and relink in-process "
                                     "and compare with the input; exit 1 if any kernel differs")(
      "list", "Print the URI of every code object inside the inputs, one per line, each read "
              "and validated as recovery would")(
      "arch", "Only code objects for this processor (e.g. gfx90a); an input with none is an error",
      cxxopts::value<std::string>(), "GFX")(
      "keep-going", "With --check or --list: report unreadable inputs and go on with the others")(
      "against",
      "With --check: compare INPUT with FILE, an object already rebuilt (e.g. by the "
      "stock llvm-mc and ld.lld), instead of rebuilding it in-process",
      cxxopts::value<std::string>(), "FILE");
  C.options().parse_positional({"inputs"});
  if (int Code = C.parse(argc, argv); Code >= 0)
    return Code;
  const auto &R = C.result();
  RecoverConfig Cfg;
  if (R.count("inputs"))
    Cfg.Inputs = R["inputs"].as<std::vector<std::string>>();
  if (Cfg.Inputs.empty())
    return C.usageError("no input file");
  Cfg.Output = C.common().Output;
  Cfg.Check = R.count("check") > 0;
  Cfg.List = R.count("list") > 0;
  Cfg.KeepGoing = R.count("keep-going") > 0;
  if (R.count("arch")) {
    Cfg.Arch = R["arch"].as<std::string>();
    if (auto E = checkProcessorName(Cfg.Arch, "--arch"))
      return C.usageError(llvm::toString(std::move(E)));
  }
  if (R.count("against"))
    Cfg.Against = R["against"].as<std::string>();
  if (!Cfg.Against.empty() && !Cfg.Check)
    return C.usageError("--against needs --check");
  if (Cfg.Check && Cfg.List)
    return C.usageError("--check and --list cannot be combined");
  if ((Cfg.Check || Cfg.List) && C.common().Json && Cfg.Output != "-")
    return C.usageError("--json writes the report on stdout; -o is for the text report");
  if (!Cfg.Check && !Cfg.List && C.common().Json && Cfg.Output == "-")
    return C.usageError("--json with recovery needs -o FILE for the assembly (the report goes "
                        "to stdout)");
  if (Cfg.KeepGoing && !Cfg.Check && !Cfg.List)
    return C.usageError("--keep-going needs --check or --list");
  std::vector<std::string> Reads = Cfg.Inputs;
  if (!Cfg.Against.empty())
    Reads.push_back(Cfg.Against);
  if (int Code = C.checkOutput(Cfg.Output, Reads); Code >= 0)
    return Code;
  return runHsacoRecover(C, Cfg);
}
