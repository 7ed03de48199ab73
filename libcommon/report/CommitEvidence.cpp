// One commit's evidence in the report (report/CommitEvidence.h): edit, diff, verdict, figures.
#include "report/CommitEvidence.h"

#include "report/AsmDiff.h"
#include "report/Html.h"
#include "support/Plural.h"

#include <map>

namespace asmevo::report {

namespace {

std::string str(const nlohmann::json &J, const char *Key) {
  auto It = J.find(Key);
  return It != J.end() && It->is_string() ? It->get<std::string>() : "";
}

// "lines 12-14 of add_kernel", "offsets [0x40, 0x48) of k", "the block after .LBB0_3 of k".
std::string windowText(const nlohmann::json &W) {
  if (!W.is_object())
    return "?";
  std::string Fn = str(W, "function");
  if (W.contains("first_line"))
    return "lines " + W["first_line"].dump() + "-" + W.value("last_line", nlohmann::json()).dump() +
           " of " + Fn;
  if (W.contains("offsets"))
    return "offsets " + W["offsets"].dump() + " of " + Fn;
  return "the block after " + str(W, "label") + " of " + Fn;
}

std::vector<nlohmann::json> editsOf(const CommitRecord &C, const NodeRecord *N) {
  const nlohmann::json &E = !C.Edit.is_null() ? C.Edit : N ? N->Edits : nlohmann::json();
  if (E.is_array())
    return std::vector<nlohmann::json>(E.begin(), E.end());
  if (E.is_object())
    return {E};
  return {};
}

// Against: "K0" or "parent" (the test of the page tells the two diffs apart by it).
std::string diffHtml(const std::vector<DiffHunk> &Hunks, const char *Against) {
  std::string S = "<pre class=\"diff\" data-against=\"" + std::string(Against) + "\">";
  for (const DiffHunk &H : Hunks) {
    S += "<span class=\"hunk\">@@ -" + std::to_string(H.OldStart) + "," +
         std::to_string(H.OldCount) + " +" + std::to_string(H.NewStart) + "," +
         std::to_string(H.NewCount) + " @@</span>";
    for (const DiffLine &L : H.Lines) {
      const char *Cls = L.Kind == '+'   ? "add"
                        : L.Deleted     ? "del deleted"
                        : L.Kind == '-' ? "del"
                                        : "ctx";
      S += "<span class=\"" + std::string(Cls) + "\">" + escape(std::string(1, L.Kind) + L.Text) +
           (L.Deleted ? "<b class=\"deleted\">deleted</b>" : "") + "</span>";
    }
  }
  return S + "</pre>\n";
}

// Without both texts: the edit as proposed, in the diff's notation.
std::string editAsDiff(const std::vector<nlohmann::json> &Edits) {
  std::string S = "<pre class=\"diff\">";
  for (const nlohmann::json &E : Edits) {
    S += "<span class=\"hunk\">@@ " + escape(windowText(E.value("window", nlohmann::json()))) +
         " @@</span>";
    for (const std::string &L : splitLines(str(E, "original")))
      S += "<span class=\"del\">" + escape("-" + L) + "</span>";
    for (const std::string &L : splitLines(str(E, "replacement")))
      S += "<span class=\"add\">" + escape("+" + L) + "</span>";
  }
  return S + "</pre>\n";
}

std::string verdictClass(const std::string &Outcome) {
  return Outcome == "ok" ? "verdict-ok" : "verdict-bad";
}

// A tool's message without its outcome in front ("ok: 3 seeds..." after the outcome "ok").
std::string withoutOutcome(const std::string &Message, const std::string &Outcome) {
  llvm::StringRef M(Message);
  if (!Outcome.empty() && M.consume_front(Outcome + ":"))
    return M.ltrim().str();
  return Message;
}

// The diff against K0: every edit since K0, also those of ancestors that were not committed,
// and the instructions of K0 that are gone.
std::string diffAgainstK0(const SearchRun &R, const CommitRecord &C) {
  std::string S = "<h4>Against K0</h4>\n";
  if (!R.RootText)
    return S + "<p class=\"note\">K0's text (nodes/n000000/cand.s) is missing: no diff against "
               "K0 can be shown</p>\n";
  if (!C.Text)
    return S + "<p class=\"note\">this node's text (nodes/" + C.Id +
           "/cand.s) is missing: no diff against K0 can be shown</p>\n";
  std::vector<DiffHunk> H = diffTexts(*R.RootText, *C.Text);
  std::map<std::string, size_t> Deleted = markDeleted(*R.RootText, *C.Text, H);
  S += "<p class=\"note\">nodes/n000000/cand.s (K0's recovered assembly) &rarr; nodes/" + C.Id +
       "/cand.s: every edit since K0, also those of ancestors that were not committed</p>\n";
  if (!Deleted.empty()) {
    size_t Total = 0;
    std::string List;
    for (const auto &[Mn, Count] : Deleted) {
      Total += Count;
      List += (List.empty() ? "" : ", ") + escape(Mn) +
              (Count > 1 ? " &times;" + std::to_string(Count) : "");
    }
    S += "<p class=\"deleted-summary\" data-deleted=\"" + std::to_string(Total) + "\">" +
         countOf(Total, "instruction") + " of K0 deleted (not in this commit; marked " +
         "<b class=\"deleted\">deleted</b> below): " + List + "</p>\n";
  }
  return S + (H.empty() ? "<p>The texts are equal.</p>\n" : diffHtml(H, "K0"));
}

} // namespace

std::string commitEvidence(const SearchRun &R, const CommitRecord &C, const std::string &Anchor) {
  const NodeRecord *N = R.node(C.Id);
  std::string Kind = N ? N->Kind : "", Backend = N ? N->Backend : "";
  std::string S = "<section class=\"commit\" id=\"" + Anchor + "commit-" + C.Id + "\">\n<h3>" +
                  "Commit " + C.Id + (N ? " (from " + escape(N->Parent) + ")" : "") + ": " +
                  (N ? num(N->Speedup, 4) + "\xc3\x97" + nodeInterval(*N) + " over K0" : "?") +
                  kindLabel(Kind, Backend) + "</h3>\n<table>\n";
  std::vector<nlohmann::json> Edits = editsOf(C, N);
  if (N) {
    S += "<tr><th>driver</th><td>" + escape(N->Driver) +
         (N->Sources.empty() ? ""
                             : " (composes " + escape(N->Sources.front()) + " and " +
                                   escape(N->Sources.back()) + ")") +
         "</td></tr>\n";
    S += "<tr><th>gate</th><td>speedup " + num(N->Speedup, 4) + nodeInterval(*N) +
         " &ge; threshold " + num(N->Threshold, 4) + kindLabel(Kind, Backend) + "; " +
         escape(N->Message) + "</td></tr>\n";
  }
  for (const nlohmann::json &E : Edits) {
    S += "<tr><th>edit</th><td>" + escape(windowText(E.value("window", nlohmann::json())));
    if (!str(E, "rationale").empty())
      S += ": " + escape(str(E, "rationale"));
    S += "</td></tr>\n";
  }
  // kernel-diffcheck's verdict.
  S += "<tr><th>diffcheck</th><td>";
  if (C.Check)
    S += "<span class=\"" + verdictClass(C.Check->Outcome) + "\">" + escape(C.Check->Outcome) +
         "</span>: " + escape(withoutOutcome(C.Check->Message, C.Check->Outcome)) +
         backendLabel(C.Check->Backend);
  else
    S += "<span class=\"note\">diffcheck.json is missing</span>";
  S += "</td></tr>\n<tr><th>timing</th><td>";
  if (C.Time) {
    const TimeEvidence &T = *C.Time;
    std::string K = kindLabel(T.Kind, T.Backend);
    std::string What = T.HasMedian ? " &micro;s median" : " &micro;s";
    S += "K0 " + num(T.K0Us, 3) + What + " (CV " + num(T.K0Cv, 4) + ")" + K + "; candidate " +
         num(T.Us, 3) + What + " (CV " + num(T.Cv, 4) + ")" + K;
    if (T.Ratio) {
      S += "<br>t(K1)/t(K0) = " + num(*T.Ratio, 4);
      if (T.Low && T.High)
        S += " [" + num(*T.Low, 4) + ", " + num(*T.High, 4) + "]" +
             (T.Level ? " (" + num(100 * *T.Level, 0) + "% interval)" : "");
      S += K;
      if (T.Speedup && T.Ensemble)
        S += "<br>speedup T(K0)/T(K1) = " + num(*T.Speedup, 4) +
             intervalLabel(T.Ensemble->Min, T.Ensemble->Max, T.Ensemble->Members,
                           T.Ensemble->Faster) +
             ", median " + num(T.Ensemble->Median, 4) + ", K1 faster under " +
             std::to_string(T.Ensemble->Faster) + " of " + std::to_string(T.Ensemble->Members) +
             " parameter sets" + K;
      if (!T.Interval.empty() || !T.Basis.empty())
        S += "<br><span class=\"note\">" + escape(T.Basis) +
             (T.Basis.empty() || T.Interval.empty() ? "" : "; ") + escape(T.Interval) + "</span>";
    }
  } else {
    S += "<span class=\"note\">time.json is missing</span>";
  }
  S += "</td></tr>\n</table>\n";
  // The assembly diffs: against K0, then against the parent when that is not K0.
  S += diffAgainstK0(R, C);
  std::string Parent = N ? N->Parent : "";
  if (Parent == "n000000" && C.Text && R.RootText)
    return S + "</section>\n";
  const NodeRecord *P = R.node(Parent);
  S += "<h4>Against its parent " + escape(Parent) + "</h4>\n";
  if (P && !P->Committed && Parent != "n000000")
    S += "<p class=\"note\">" + escape(Parent) +
         " was not committed (a step of the search that the gate did not keep): its edits are "
         "in the diff against K0 above, not in this one</p>\n";
  if (C.Text && C.ParentText) {
    std::vector<DiffHunk> H = diffTexts(*C.ParentText, *C.Text);
    S += "<p class=\"note\">nodes/" + escape(Parent) + "/cand.s &rarr; nodes/" + C.Id +
         "/cand.s</p>\n" + (H.empty() ? "<p>The texts are equal.</p>\n" : diffHtml(H, "parent"));
  } else {
    S += "<p class=\"note\">" +
         std::string(!C.ParentText ? "the parent's text (nodes/" + escape(Parent) + "/cand.s)"
                                   : "this node's text (nodes/" + C.Id + "/cand.s)") +
         " is missing: " +
         (Edits.empty() ? "no diff can be shown</p>\n"
                        : "below is the edit as proposed (edit.json), not a diff of texts</p>\n" +
                              editAsDiff(Edits));
  }
  return S + "</section>\n";
}

std::string nodeInterval(const NodeRecord &N) {
  return N.Interval ? intervalLabel(N.Interval->Min, N.Interval->Max, N.Interval->Members,
                                    N.Interval->Faster)
                    : "";
}

} // namespace asmevo::report
