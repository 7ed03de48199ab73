// asmevo-report: one self-contained report.html over a search run directory (asmevo-agent
// --run-dir) or a whole workflow run (Makefile.workflow's RUN/): the lineage tree, the speedup
// plots, the gate statistics, every commit's diff and evidence, and what is missing.
#include "AsmevoReport.h"

using namespace asmevo;

int main(int argc, char **argv) {
  Cli C("asmevo-report",
        "write one self-contained HTML report over a search or workflow run directory", "RUN_DIR");
  C.addOutputOption("Write the report to FILE (default: RUN_DIR/report.html); '-' is stdout",
                    /*DefaultStdout=*/false);
  C.addJsonOption();
  C.options().add_options("positional")("input", "", cxxopts::value<std::vector<std::string>>());
  C.options().parse_positional({"input"});
  if (int Code = C.parse(argc, argv); Code >= 0)
    return Code;
  const auto &R = C.result();
  std::vector<std::string> In;
  if (R.count("input"))
    In = R["input"].as<std::vector<std::string>>();
  if (In.size() != 1)
    return C.usageError("give one run directory");
  ReportConfig Cfg;
  Cfg.RunDir = In[0];
  Cfg.Output = R.count("output") ? R["output"].as<std::string>() : Cfg.RunDir + "/report.html";
  if (Cfg.Output == "-" && C.common().Json)
    return C.usageError("--json writes the report envelope on stdout; give -o FILE for the HTML");
  return runAsmevoReport(C, Cfg);
}
