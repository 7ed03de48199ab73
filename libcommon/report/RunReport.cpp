#include "report/RunReport.h"

#include "report/Html.h"
#include "report/SearchSection.h"
#include "report/WorkflowRun.h"

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
      Speedup = num(K.Row.value("speedup", 0.0), 4) + "\xc3\x97" +
                kindLabel(str(K.Row, "kind"), str(K.Row, "backend"));
      Cands = str(K.Row, "candidates");
      Commits = str(K.Row, "commits");
      Stop = escape(str(K.Row, "stopped_by"));
      KStar = escape(str(K.Row, "kstar"));
    } else if (Best) {
      Speedup = num(Best->Speedup, 4) + "\xc3\x97" + kindLabel(Best->Kind, Best->Backend) +
                " <span class=\"note\">(so far)</span>";
      Cands = std::to_string(R->Nodes.size() - (Root ? 1 : 0));
      Commits = std::to_string(R->commits());
    }
    if (K.Baseline.is_object()) {
      nlohmann::json B = K.Baseline.value("body", nlohmann::json::object());
      nlohmann::json Ks = B.value("kernels", nlohmann::json::array());
      if (Ks.is_array() && !Ks.empty() && Ks[0].is_object())
        K0 = num(Ks[0].value("microseconds", 0.0), 3) + " &micro;s" +
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

} // namespace

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
