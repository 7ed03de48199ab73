// asmevo-install: put a workflow run's verified K* where a runtime loads it (Triton's override
// directory, an AITer asm tree, a HIP code-object directory), with a manifest, backups and
// --uninstall.
#include "AsmevoInstall.h"

using namespace asmevo;

int main(int argc, char **argv) {
  Cli C("asmevo-install",
        "install a workflow run's K* where Triton, AITer or a HIP application loads it, or "
        "uninstall it",
        "RUN (--triton DUMP_DIR | --aiter ASM_ROOT | --hip [--from APP_DIR]) --to DIR | "
        "--uninstall DIR");
  C.addJsonOption();
  C.options().add_options("positional")("run", "", cxxopts::value<std::vector<std::string>>());
  C.options().add_options()(
      "triton",
      "Triton: the dump directory (TRITON_DUMP_DIR) of the original compile; K* replaces the "
      "hsaco stage as <DIR>/<hash>/<name>.hsaco, where the dump's .hsaco is K0 (the hash does "
      "not depend on the GPU: one override directory holds K* of one target only)",
      cxxopts::value<std::string>(), "DUMP_DIR")(
      "aiter",
      "AITer: the original asm root (aiter's hsa/); K* goes at the relative path where K0 is, "
      "the rest of the tree links to the originals (--to ASM_ROOT: in place)",
      cxxopts::value<std::string>(), "ASM_ROOT")(
      "hip", "A HIP application: a code-object directory of K* files and a note on loading them")(
      "from",
      "With --hip: the application's code objects; K* takes the relative path and name of each "
      "file that is K0 (--to APP_DIR: in place; default: K* is <kernel name>.hsaco)",
      cxxopts::value<std::string>(), "APP_DIR")(
      "to", "The target directory (created if needed; its manifest is asmevo-install.json)",
      cxxopts::value<std::string>(),
      "DIR")("all", "Install K* also where its speedup is at most 1 (never where K* is K0)")(
      "uninstall",
      "Restore DIR as it was before the installs its manifest records (refused where a file "
      "installed has changed since)",
      cxxopts::value<std::string>(), "DIR");
  C.options().parse_positional({"run"});
  if (int Code = C.parse(argc, argv); Code >= 0)
    return Code;
  const auto &R = C.result();
  std::vector<std::string> Runs;
  if (R.count("run"))
    Runs = R["run"].as<std::vector<std::string>>();
  InstallConfig Cfg;
  install::InstallOptions &O = Cfg.Options;
  int Layouts = int(R.count("triton") > 0) + int(R.count("aiter") > 0) + int(R.count("hip") > 0);
  if (R.count("uninstall")) {
    if (!Runs.empty() || Layouts || R.count("to") || R.count("from") || R.count("all"))
      return C.usageError("--uninstall DIR takes no run, layout, --to, --from or --all");
    Cfg.Uninstall = true;
    O.Target = R["uninstall"].as<std::string>();
    return runAsmevoInstall(C, Cfg);
  }
  if (Runs.size() != 1)
    return C.usageError(Runs.empty()
                            ? "give the workflow run directory (RUN)"
                            : "one run directory only (got " + std::to_string(Runs.size()) + ")");
  if (Layouts != 1)
    return C.usageError("give one of --triton DUMP_DIR, --aiter ASM_ROOT or --hip");
  if (!R.count("to"))
    return C.usageError("--to DIR is required");
  if (R.count("from") && !R.count("hip"))
    return C.usageError("--from goes with --hip (--triton and --aiter name their source)");
  O.RunDir = Runs[0];
  O.Target = R["to"].as<std::string>();
  O.All = R.count("all") > 0;
  if (R.count("triton")) {
    O.Kind = install::Layout::Triton;
    O.Source = R["triton"].as<std::string>();
  } else if (R.count("aiter")) {
    O.Kind = install::Layout::Aiter;
    O.Source = R["aiter"].as<std::string>();
  } else {
    O.Kind = install::Layout::Hip;
    if (R.count("from"))
      O.Source = R["from"].as<std::string>();
  }
  return runAsmevoInstall(C, Cfg);
}
