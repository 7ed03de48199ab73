// The report over a run directory as one HTML page (report/RunReport.h).
#include "report/RunReport.h"

#include "report/CommitEvidence.h"
#include "report/Html.h"
#include "report/RunFiles.h"
#include "report/SearchSection.h"
#include "report/WorkflowRun.h"

#include "support/Error.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cctype>

namespace asmevo::report {

namespace {

// An element id from a kernel's name.
std::string anchorOf(const std::string &Name) {
  std::string A = "k-";
  for (char C : Name)
    A += std::isalnum(static_cast<unsigned char>(C)) || C == '-' || C == '_' ? C : '_';
  return A + "-";
}

std::string str(const nlohmann::json &J, const char *Key) {
  auto It = J.is_object() ? J.find(Key) : J.end();
  if (!J.is_object() || It == J.end())
    return "";
  return It->is_string() ? It->get<std::string>() : It->dump();
}

std::string overview(const WorkflowRun &W) {
  std::string S = "<section id=\"kernels\">\n<h2>Kernels</h2>\n<table><tr><th>kernel</th>"
                  "<th>speedup over K0</th><th>K0 time</th><th>candidates</th><th>commits</th>"
                  "<th>stopped by</th><th>K*</th></tr>\n";
  for (const KernelRun &K : W.Kernels) {
    const SearchRun *R = K.Search ? &*K.Search : nullptr;
    const NodeRecord *Best = R ? bestNode(*R) : nullptr;
    const NodeRecord *Root = R ? R->node("n000000") : nullptr;
    std::string Speedup = "-", K0 = "-", Cands = "-", Commits = "-", Stop = "", KStar = "";
    if (K.Row.is_object()) {
      Speedup = num(numberOf(K.Row, "speedup"), 4) + "\xc3\x97" +
                (Best ? nodeInterval(*Best) : "") +
                kindLabel(str(K.Row, "kind"), str(K.Row, "backend"));
      Cands = str(K.Row, "candidates");
      Commits = str(K.Row, "commits");
      Stop = escape(str(K.Row, "stopped_by"));
      KStar = escape(str(K.Row, "kstar"));
    } else if (Best) {
      Speedup = num(Best->Speedup, 4) + "\xc3\x97" + nodeInterval(*Best) +
                kindLabel(Best->Kind, Best->Backend) + " <span class=\"note\">(so far)</span>";
      Cands = std::to_string(R->Nodes.size() - (Root ? 1 : 0));
      Commits = std::to_string(R->commits());
    }
    if (K.Baseline.is_object()) {
      const nlohmann::json &B = member(K.Baseline, "body");
      const nlohmann::json &Ks = member(B, "kernels");
      if (Ks.is_array() && !Ks.empty() && Ks[0].is_object())
        K0 = num(numberOf(Ks[0], "microseconds"), 3) + " &micro;s" +
             kindLabel(str(B, "kind"), str(K.Baseline, "backend"));
    } else if (Root) {
      K0 = num(Root->Us, 3) + " &micro;s" + kindLabel(Root->Kind, Root->Backend);
    }
    S += "<tr class=\"kernel\"><td><a href=\"#" + anchorOf(K.Name) + "overview\">" +
         escape(K.Name) + "</a></td><td class=\"n\">" + Speedup + "</td><td class=\"n\">" + K0 +
         "</td><td class=\"n\">" + Cands + "</td><td class=\"n\">" + Commits + "</td><td>" + Stop +
         "</td><td>" + KStar + "</td></tr>\n";
  }
  return S + "</table>\n</section>\n";
}

RunReport searchReport(SearchRun R) {
  RunReport Out;
  Out.Kind = "search";
  Out.Kernels = 1;
  Out.Nodes = R.Nodes.size();
  Out.Commits = R.commits();
  Out.Missing = R.Missing;
  std::string Kernel = R.Run.is_object() ? str(R.Run, "kernel") : "";
  std::string Title = "AsmEvo search: " + (Kernel.empty() ? R.Dir : Kernel + " (" + R.Dir + ")");
  Out.Html = page(Title, missingSection(R.Missing, "") + searchSection(R, ""));
  return Out;
}

namespace fs = llvm::sys::fs;

std::string realPath(const llvm::Twine &Path) {
  llvm::SmallString<256> Real;
  return fs::real_path(Path, Real) ? "" : std::string(Real);
}

} // namespace

llvm::Error checkReportOutput(const std::string &Output, const std::string &Dir) {
  std::string Run = realPath(Dir);
  if (Output == "-" || Run.empty())
    return llvm::Error::success(); // stdout; or no run directory, which is the error to give
  auto Inside = [&](llvm::StringRef P) {
    return P.size() > Run.size() && P.starts_with(Run) && P[Run.size()] == '/';
  };
  auto Allowed = [&](llvm::StringRef P) {
    return llvm::sys::path::parent_path(P) == Run && P.ends_with(".html");
  };
  // Where the atomic write will put the file: in the output's directory (symbolic links in it
  // resolved), under the output's name.
  llvm::SmallString<256> Parent(Output);
  llvm::sys::path::remove_filename(Parent);
  std::string ParentReal = realPath(Parent.empty() ? llvm::Twine(".") : llvm::Twine(Parent));
  if (ParentReal.empty())
    return llvm::Error::success(); // no such directory: checkOutputPath says so
  std::string Placed = ParentReal + "/" + llvm::sys::path::filename(Output).str();
  if (Inside(Placed) && !Allowed(Placed))
    return llvm::make_error<ToolError>(
        "is inside the run directory '" + Dir +
            "', whose files the report reads; the report goes there only as an .html file "
            "directly in it (by default '" +
            Dir + "/report.html'): choose another output",
        Output);
  // The file the output names now: through a symbolic link at its end, or a hard link.
  auto Same = [&](const std::string &RunFile) {
    return llvm::make_error<ToolError>("is the same file as '" + Dir + RunFile.substr(Run.size()) +
                                           "' of the run directory; writing it would destroy "
                                           "the run's file: choose another output",
                                       Output);
  };
  fs::file_status St;
  if (fs::status(Output, St) || !fs::is_regular_file(St))
    return llvm::Error::success();
  std::string Real = realPath(Output);
  if (Inside(Real) && !Allowed(Real))
    return Same(Real);
  if (St.getLinkCount() < 2)
    return llvm::Error::success();
  std::error_code EC;
  for (fs::recursive_directory_iterator It(Run, EC, /*follow_symlinks=*/false), E; It != E && !EC;
       It.increment(EC)) {
    fs::file_status F;
    if (!fs::status(It->path(), F, /*follow=*/false) && fs::is_regular_file(F) &&
        F.getUniqueID() == St.getUniqueID() && !Allowed(It->path()))
      return Same(It->path());
  }
  return llvm::Error::success();
}

llvm::Expected<RunReport> buildRunReport(const std::string &Dir) {
  if (!isWorkflowRun(Dir)) { // (readSearchRun refuses what is not a directory)
    auto R = readSearchRun(Dir);
    if (!R)
      return R.takeError();
    return searchReport(std::move(*R));
  }
  auto W = readWorkflowRun(Dir);
  if (!W)
    return W.takeError();
  RunReport Out;
  Out.Kind = "workflow";
  Out.Kernels = W->Kernels.size();
  Out.Missing = W->Missing;
  std::string Body = overview(*W) + missingSection(W->Missing, "");
  for (const KernelRun &K : W->Kernels) {
    std::string A = anchorOf(K.Name);
    Body += "<hr>\n<h2 class=\"kernel-title\" id=\"" + A + "title\">Kernel " + escape(K.Name) +
            " <a class=\"note\" href=\"#kernels\">(back to the kernels)</a></h2>\n";
    if (!K.Search) {
      Body += "<section id=\"" + A + "overview\"><p>No search run directory (" + escape(K.Name) +
              "/search/).</p></section>\n";
      continue;
    }
    Out.Nodes += K.Search->Nodes.size();
    Out.Commits += K.Search->commits();
    Body += searchSection(*K.Search, A);
  }
  Out.Html = page("AsmEvo workflow run: " + Dir, Body);
  return Out;
}

} // namespace asmevo::report
