#include "AsmevoReport.h"

#include "report/RunReport.h"
#include "report/SearchRun.h"
#include "support/FileIO.h"
#include "support/Plural.h"

#include "llvm/Support/raw_ostream.h"

namespace asmevo {

int runAsmevoReport(const Cli &C, const ReportConfig &Cfg) {
  Report Rep = C.report();
  // The run directory first: a path that is not one is the error, not the output beside it.
  // Then the output, before the run is read: never one of the run's own files.
  if (llvm::Error E = report::checkRunDirectory(Cfg.RunDir))
    return C.fail(Rep, std::move(E));
  if (llvm::Error E = report::checkReportOutput(Cfg.Output, Cfg.RunDir))
    return C.fail(Rep, std::move(E));
  if (int Code = C.checkOutput(Cfg.Output, {}); Code >= 0)
    return Code;
  auto R = report::buildRunReport(Cfg.RunDir);
  if (!R)
    return C.fail(Rep, R.takeError());
  if (llvm::Error E = writeFileAtomic(Cfg.Output, R->Html))
    return C.fail(Rep, std::move(E));
  std::string What = R->Kind == "workflow" ? "workflow run, " + countOf(R->Kernels, "kernel") + ", "
                                           : "search run, ";
  Rep.Message =
      "wrote " + Cfg.Output + ": " + What + countOf(R->Nodes, "node") + ", " +
      countOf(R->Commits, "commit") + ", " +
      (R->Missing.empty() ? "nothing missing" : countOf(R->Missing.size(), "missing part"));
  for (const std::string &M : R->Missing)
    Rep.Notes.push_back("missing: " + M);
  Rep.Body = {{"output", Cfg.Output},  {"run_dir", Cfg.RunDir}, {"kind", R->Kind},
              {"kernels", R->Kernels}, {"nodes", R->Nodes},     {"commits", R->Commits},
              {"missing", R->Missing}};
  if (C.common().Json)
    return C.printJson(Rep);
  if (!C.common().Quiet) {
    // With the page on stdout, the summary goes to stderr.
    llvm::raw_ostream &OS = Cfg.Output == "-" ? llvm::errs() : llvm::outs();
    OS << C.tool() << ": " << Rep.Message << "\n";
    for (const std::string &N : Rep.Notes)
      OS << "  " << N << "\n";
  }
  return Rep.exitCode();
}

} // namespace asmevo
