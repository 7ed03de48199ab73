// The HTML of one search run (report/SearchSection.h).
#include "report/SearchSection.h"

#include "report/CommitEvidence.h"
#include "report/Html.h"
#include "report/LineageSvg.h"
#include "report/Plot.h"
#include "report/RunFiles.h"
#include "support/Plural.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace asmevo::report {

namespace {

const char *Stages[] = {"rebuild", "diffcheck", "time", "gate"};

std::string str(const nlohmann::json &J, const char *Key) {
  auto It = J.is_object() ? J.find(Key) : J.end();
  if (!J.is_object() || It == J.end())
    return "";
  return It->is_string() ? It->get<std::string>() : It->dump();
}

// The outcome as the page shows it: node.json's, except for a verified node that was not
// committed, which is "slower" only when it was slower than the best at the time (node.json's
// best_before; K0 when unknown) and "not faster enough" when it was as fast or faster but short
// of the commit gate's margin (node.json says "slower" for both).
std::string shownOutcome(const SearchRun &R, const NodeRecord &N) {
  if (!N.Verified || N.Committed || N.Id == "n000000")
    return N.Outcome;
  const NodeRecord *Best = N.BestBefore.empty() ? nullptr : R.node(N.BestBefore);
  double Bar = Best ? Best->Speedup : 1.0;
  if (N.PointCommit && N.Interval)
    return "not faster under every parameter set";
  return N.Speedup >= Bar ? "not faster enough" : "slower";
}

std::string row(const std::string &Head, const std::string &Cell) {
  return "<tr><th>" + Head + "</th><td>" + Cell + "</td></tr>\n";
}

// The summary's model_agreement (ModelAgreement.h) as one cell: per GPU the geometric mean of
// modeled/published and the share within, and whether that meets the target.
std::string agreementText(const nlohmann::json &A) {
  const std::string Status = str(A, "status");
  if (Status == "other_params")
    return "none known for the parameter file the run used (not the one the published-kernel "
           "validation was measured with)";
  if (Status != "measured")
    return "none known for this GPU: the modeled figures have not been held to published "
           "measurements";
  std::string S;
  const nlohmann::json &Gpus = member(A, "gpus");
  for (const nlohmann::json &G : Gpus.is_array() ? Gpus : nlohmann::json::array()) {
    const nlohmann::json &Met = member(G, "target_met");
    S += (S.empty() ? "" : "; ") + escape(str(G, "gpu")) + ": modeled/published " +
         num(numberOf(G, "geomean"), 2) + " (geometric mean of " + escape(str(G, "rows")) +
         " published kernels), " + num(100 * numberOf(G, "share_within"), 0) + "% within &plusmn;" +
         num(100 * numberOf(A, "within"), 0) + "%" +
         (Met.is_boolean() && Met.get<bool>() ? ", target met"
                                              : ", <b>target not met</b>: weak evidence");
  }
  return S + " <span class=\"note\">(" + escape(str(A, "date")) + ")</span>";
}

// The backend and kind of the run's figures: the root's (K0 was timed first), else the options'.
std::pair<std::string, std::string> runKind(const SearchRun &R) {
  if (const NodeRecord *Root = R.node("n000000"))
    return {Root->Kind, Root->Backend};
  std::string B = str(member(R.Run, "options"), "backend");
  return {"", B};
}

std::string overview(const SearchRun &R, const std::string &Anchor) {
  std::string S = "<section id=\"" + Anchor + "overview\">\n<h2>Run</h2>\n<table>\n";
  S += row("run directory", escape(R.Dir));
  if (R.Run.is_object()) {
    S += row("K0", escape(str(R.Run, "k0")) + " <span class=\"note\">SHA-256 " +
                       escape(str(R.Run, "k0_sha256")) + "</span>");
    S += row("kernel", escape(str(R.Run, "kernel")) + " on " + escape(str(R.Run, "target")));
    const nlohmann::json &O = member(R.Run, "options");
    S += row("options", "driver " + escape(str(O, "driver")) + ", backend " +
                            escape(str(O, "backend")) + ", workers " + escape(str(O, "workers")) +
                            ", gate &epsilon; " + escape(str(O, "epsilon")) + ", k " +
                            escape(str(O, "k")) + ", s_floor " + escape(str(O, "s_floor")) +
                            (str(O, "ensemble").empty()
                                 ? std::string()
                                 : ", " + escape(str(O, "ensemble")) + " parameter sets (seed " +
                                       escape(str(O, "ensemble_seed")) +
                                       ": a commit clears the gate under every one)"));
  }
  const NodeRecord *B = bestNode(R);
  const NodeRecord *Root = R.node("n000000");
  if (B)
    S +=
        row("best", "<a href=\"#" + Anchor + (B->Id == "n000000" ? "overview" : "commit-" + B->Id) +
                        "\">" + B->Id + "</a>: " + num(B->Speedup, 4) + "\xc3\x97" +
                        nodeInterval(*B) + " over K0" + kindLabel(B->Kind, B->Backend));
  if (Root)
    S += row("K0 time", num(Root->Us, 3) + " &micro;s" + kindLabel(Root->Kind, Root->Backend));
  if (B && Root && B != Root)
    S += row("K* time", num(B->Us, 3) + " &micro;s" + kindLabel(B->Kind, B->Backend));
  S += row("candidates", std::to_string(R.Nodes.empty() ? 0 : R.Nodes.size() - (Root ? 1 : 0)) +
                             " evaluated, " + std::to_string(R.commits()) + " committed");
  S += row("journal", countOf(R.JournalEvents, "event"));
  if (R.Summary.is_object()) {
    const nlohmann::json &Body = member(R.Summary, "body");
    S += row("stopped by", escape(str(Body, "stopped_by")));
    S += row("search time", escape(num(numberOf(Body, "seconds"), 1)) + " s wall-clock");
    S += row("result", escape(str(R.Summary, "message")));
    if (const nlohmann::json &A = member(Body, "model_agreement"); A.is_object())
      S += row("model agreement", agreementText(A));
  }
  return S + "</table>\n</section>\n";
}

std::string legend() {
  std::string S = "<p class=\"legend\">";
  for (auto [Name, O, V, C] :
       {std::tuple{"committed", "ok", true, true},
        std::tuple{"verified, not faster enough (as fast as the best or faster, short of the "
                   "commit gate's margin)",
                   "not faster enough", true, false},
        std::tuple{"verified, slower than the best", "slower", true, false},
        std::tuple{"divergent", "divergent", false, false},
        std::tuple{"unsafe", "unsafe", false, false},
        std::tuple{"asm_invalid", "asm_invalid", false, false},
        std::tuple{"abi_invalid", "abi_invalid", false, false},
        std::tuple{"runtime_error", "runtime_error", false, false},
        std::tuple{"other", "other", false, false}})
    S += "<span class=\"sw\" style=\"background:" + outcomeColour(O, V, C) + "\"></span>" + Name;
  return S + "</p>\n";
}

std::string tree(const SearchRun &R, const std::string &Anchor) {
  std::vector<TreeItem> Items;
  for (const NodeRecord &N : R.Nodes)
    Items.push_back({N.Id, N.Parent, shownOutcome(R, N), N.Verified, N.Committed, N.Speedup});
  TreeLayout L = layoutLineage(Items);
  std::string S = "<section id=\"" + Anchor + "lineage\">\n<h2>Lineage</h2>\n";
  S += "<p class=\"note\">One node per candidate, from its parent (the verified node its edit "
       "applies to); committed nodes ringed and green, failed ones coloured by outcome.";
  if (L.FoldedFailed || L.FoldedVerified)
    S += " More than 150 nodes: each parent's " +
         std::string(L.FoldedFailed ? "failed leaves (" + countOf(L.FoldedFailed, "candidate") + ")"
                                    : "") +
         (L.FoldedFailed && L.FoldedVerified ? " and " : "") +
         (L.FoldedVerified
              ? "verified leaves not committed (" + countOf(L.FoldedVerified, "candidate") + ")"
              : "") +
         " are folded into one box with their counts (hover for the outcomes).";
  S += "</p>\n" + legend();
  if (R.Nodes.empty())
    return S + "<p>No nodes.</p>\n</section>\n";
  return S + "<div class=\"scroll\">" + lineageSvg(L) + "</div>\n</section>\n";
}

std::string plots(const SearchRun &R, const std::string &Anchor) {
  auto [Kind, Backend] = runKind(R);
  std::string K = figureKind(Kind, Backend) + (Backend.empty() ? "" : ", " + Backend);
  const NodeRecord *Root = R.node("n000000");
  // Wall-clock: the times the nodes were recorded (node.json's), when they rise with the ids;
  // else the evaluation times summed.
  bool Stamps = Root && Root->Recorded > 0;
  for (size_t I = 1; I < R.Nodes.size() && Stamps; ++I)
    Stamps = R.Nodes[I].Recorded >= R.Nodes[I - 1].Recorded;
  Series BestT{"best", "#2e7d32", {}, true}, BestC{"best", "#2e7d32", {}, true};
  Series VerT{"verified candidates", "#90a4ae", {}, false}, VerC = VerT;
  double Best = Root ? Root->Speedup : 1.0, Sum = 0;
  uint64_t Index = 0;
  for (const NodeRecord &N : R.Nodes) {
    bool IsRoot = N.Id == "n000000";
    Sum += N.Seconds;
    double T = Stamps ? N.Recorded - Root->Recorded : Sum;
    double C = IsRoot ? 0 : double(++Index);
    if (N.Committed)
      Best = IsRoot ? N.Speedup : std::max(Best, N.Speedup);
    if (N.Verified && !IsRoot) {
      VerT.Points.push_back({T, N.Speedup});
      VerC.Points.push_back({C, N.Speedup});
    }
    BestT.Points.push_back({T, Best});
    BestC.Points.push_back({C, Best});
  }
  std::string YT = "best speedup over K0 (" + K + ")";
  PlotSpec ByTime{"Best speedup over wall-clock time",
                  Stamps ? "wall-clock seconds since K0 was recorded"
                         : "seconds of evaluation, summed (no usable timestamps)",
                  YT,
                  {VerT, BestT}};
  PlotSpec ByCand{"Best speedup over candidates", "candidates evaluated", YT, {VerC, BestC}};
  return "<section id=\"" + Anchor + "plots\">\n<h2>Speedup</h2>\n<p class=\"note\">Every " +
         "speedup here is " + escape(K) + " (T(K0)/T(K) as kernel-time gave it).</p>\n" +
         "<div class=\"plots\">" + plotSvg(ByTime) + plotSvg(ByCand) + "</div>\n</section>\n";
}

std::string gateStats(const SearchRun &R, const std::string &Anchor) {
  // (stage, outcome shown, node.json's outcome) -> candidates
  std::map<std::tuple<std::string, std::string, std::string>, uint64_t> ByStage;
  std::map<std::string, uint64_t> Signatures, Reached;
  uint64_t Total = 0;
  for (const NodeRecord &N : R.Nodes) {
    if (N.Id == "n000000")
      continue;
    ++Total;
    ++ByStage[{N.Stage, shownOutcome(R, N), N.Outcome}];
    if (!N.Signature.empty())
      ++Signatures[N.Signature];
    // The funnel: every stage up to the one it stopped at (an unknown stage counts in none).
    auto At = std::find(std::begin(Stages), std::end(Stages), N.Stage);
    for (auto It = std::begin(Stages); At != std::end(Stages) && It <= At; ++It)
      ++Reached[*It];
  }
  std::string S = "<section id=\"" + Anchor + "gates\">\n<h2>Gate statistics</h2>\n";
  S += "<p class=\"note\">" + countOf(Total, "candidate") +
       "; each stops at the first stage that says no (rebuild &rarr; diffcheck "
       "&rarr; time &rarr; the commit gate).</p>\n";
  S += "<table class=\"funnel\"><tr><th>stage</th><th>reached</th><th>stopped there</th>"
       "<th>passed</th></tr>\n";
  for (size_t I = 0; I < 4; ++I) {
    uint64_t In = Reached[Stages[I]], Out = I + 1 < 4 ? Reached[Stages[I + 1]] : R.commits();
    S += "<tr><td>" + std::string(Stages[I] == std::string("gate") ? "commit gate" : Stages[I]) +
         "</td><td class=\"n\">" + std::to_string(In) + "</td><td class=\"n\">" +
         std::to_string(In - std::min(In, Out)) + "</td><td class=\"n\">" + std::to_string(Out) +
         "</td></tr>\n";
  }
  S += "</table>\n<table class=\"stages\"><tr><th>stage</th><th>outcome</th><th>candidates</th>"
       "</tr>\n";
  for (const auto &[Key, Count] : ByStage) {
    const auto &[Stage, Shown, Outcome] = Key;
    S += "<tr class=\"gate\" data-stage=\"" + escape(Stage) + "\" data-outcome=\"" +
         escape(Outcome) + "\" data-count=\"" + std::to_string(Count) + "\"><td>" + escape(Stage) +
         "</td><td>" + escape(Shown) + "</td><td class=\"n\">" + std::to_string(Count) +
         "</td></tr>\n";
  }
  S += "</table>\n";
  if (!R.Faults.empty()) {
    S += "<h3>Proposals refused before a candidate existed (journal)</h3>\n<table><tr><th>fault"
         "</th><th>proposals</th></tr>\n";
    for (const auto &[F, C] : R.Faults)
      S += "<tr class=\"fault\" data-fault=\"" + escape(F) + "\"><td>" + escape(F) +
           "</td><td class=\"n\">" + std::to_string(C) + "</td></tr>\n";
    S += "</table>\n";
  }
  std::vector<std::pair<std::string, uint64_t>> Sig(Signatures.begin(), Signatures.end());
  std::stable_sort(Sig.begin(), Sig.end(),
                   [](const auto &A, const auto &B) { return A.second > B.second; });
  S += "<h3 id=\"" + Anchor + "signatures\">Failure signatures</h3>\n";
  if (Sig.empty())
    return S + "<p>None.</p>\n</section>\n";
  S += "<table class=\"signatures\"><tr><th>signature</th><th>candidates</th></tr>\n";
  for (const auto &[Name, Count] : Sig)
    S += "<tr class=\"signature\" data-count=\"" + std::to_string(Count) + "\"><td>" +
         escape(Name) + "</td><td class=\"n\">" + std::to_string(Count) + "</td></tr>\n";
  return S + "</table>\n</section>\n";
}

std::string nodeTable(const SearchRun &R, const std::string &Anchor) {
  std::string S = "<section id=\"" + Anchor + "nodes\">\n<h2>Nodes</h2>\n<details><summary>" +
                  countOf(R.Nodes.size(), "node") +
                  "</summary>\n<table><tr><th>node</th><th>parent</th><th>driver</th>"
                  "<th>stage</th><th>outcome</th><th>speedup</th><th>eval s</th>"
                  "<th>message</th></tr>\n";
  for (const NodeRecord &N : R.Nodes)
    S += "<tr><td>" + escape(N.Id) + (N.Committed ? " &#9733;" : "") + "</td><td>" +
         escape(N.Parent) + "</td><td>" + escape(N.Driver) + "</td><td>" + escape(N.Stage) +
         "</td><td>" + escape(shownOutcome(R, N)) + "</td><td class=\"n\">" +
         (N.Verified ? num(N.Speedup, 4) + nodeInterval(N) + kindLabel(N.Kind, N.Backend) : "") +
         "</td><td class=\"n\">" + num(N.Seconds, 2) + "</td><td>" + escape(N.Message) +
         "</td></tr>\n";
  return S + "</table>\n</details>\n</section>\n";
}

} // namespace

const NodeRecord *bestNode(const SearchRun &R) {
  const NodeRecord *B = nullptr;
  for (const NodeRecord &N : R.Nodes)
    if (N.Committed && (!B || N.Speedup > B->Speedup))
      B = &N;
  return B;
}

std::string missingSection(const std::vector<std::string> &Missing, const std::string &Anchor) {
  std::string S = "<section id=\"" + Anchor + "missing\" class=\"missing\">\n<h2>Missing</h2>\n";
  if (Missing.empty())
    return S + "<p>Nothing is missing.</p>\n</section>\n";
  S += "<ul>\n";
  for (const std::string &M : Missing)
    S += "<li>" + escape(M) + "</li>\n";
  return S + "</ul>\n</section>\n";
}

std::string searchSection(const SearchRun &R, const std::string &Anchor) {
  std::string S = overview(R, Anchor) + tree(R, Anchor) + plots(R, Anchor) + gateStats(R, Anchor);
  S += "<section id=\"" + Anchor + "commits\">\n<h2>Commits</h2>\n";
  if (R.Commits.empty())
    S += "<p>No candidate was committed: the best is K0.</p>\n";
  for (const CommitRecord &C : R.Commits)
    S += commitEvidence(R, C, Anchor);
  return S + "</section>\n" + nodeTable(R, Anchor);
}

} // namespace asmevo::report
