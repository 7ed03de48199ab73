#include "report/CommitEvidence.h"

#include "report/AsmDiff.h"
#include "report/Html.h"

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

std::string diffHtml(const std::vector<DiffHunk> &Hunks) {
  std::string S = "<pre class=\"diff\">";
  for (const DiffHunk &H : Hunks) {
    S += "<span class=\"hunk\">@@ -" + std::to_string(H.OldStart) + "," +
         std::to_string(H.OldCount) + " +" + std::to_string(H.NewStart) + "," +
         std::to_string(H.NewCount) + " @@</span>";
    for (const DiffLine &L : H.Lines) {
      const char *Cls = L.Kind == '+' ? "add" : L.Kind == '-' ? "del" : "ctx";
      S += "<span class=\"" + std::string(Cls) + "\">" + escape(std::string(1, L.Kind) + L.Text) +
           "</span>";
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

} // namespace

std::string commitEvidence(const SearchRun &R, const CommitRecord &C, const std::string &Anchor) {
  const NodeRecord *N = R.node(C.Id);
  std::string Kind = N ? N->Kind : "", Backend = N ? N->Backend : "";
  std::string S = "<section class=\"commit\" id=\"" + Anchor + "commit-" + C.Id + "\">\n<h3>" +
                  "Commit " + C.Id + (N ? " (from " + escape(N->Parent) + ")" : "") + ": " +
                  (N ? num(N->Speedup, 4) + "\xc3\x97 over K0" : "?") + kindLabel(Kind, Backend) +
                  "</h3>\n<table>\n";
  std::vector<nlohmann::json> Edits = editsOf(C, N);
  if (N) {
    S += "<tr><th>driver</th><td>" + escape(N->Driver) +
         (N->Sources.empty() ? ""
                             : " (composes " + escape(N->Sources.front()) + " and " +
                                   escape(N->Sources.back()) + ")") +
         "</td></tr>\n";
    S += "<tr><th>gate</th><td>speedup " + num(N->Speedup, 4) + " &ge; threshold " +
         num(N->Threshold, 4) + kindLabel(Kind, Backend) + "; " + escape(N->Message) +
         "</td></tr>\n";
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
         "</span>: " + escape(C.Check->Message) + kindLabel("", C.Check->Backend);
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
      if (!T.Interval.empty() || !T.Basis.empty())
        S += "<br><span class=\"note\">" + escape(T.Basis) +
             (T.Basis.empty() || T.Interval.empty() ? "" : "; ") + escape(T.Interval) + "</span>";
    }
  } else {
    S += "<span class=\"note\">time.json is missing</span>";
  }
  S += "</td></tr>\n</table>\n";
  // The assembly diff.
  std::string Parent = N ? N->Parent : "";
  if (C.Text && C.ParentText) {
    std::vector<DiffHunk> H = diffTexts(*C.ParentText, *C.Text);
    S += "<p class=\"note\">nodes/" + escape(Parent) + "/cand.s &rarr; nodes/" + C.Id + "/cand.s" +
         (Parent == "n000000" ? " (the root's text: K0's recovered assembly)" : "") + "</p>\n" +
         (H.empty() ? "<p>The texts are equal.</p>\n" : diffHtml(H));
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

} // namespace asmevo::report
