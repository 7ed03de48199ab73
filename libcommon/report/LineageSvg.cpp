// The lineage tree of a search as inline SVG (report/LineageSvg.h).
#include "report/LineageSvg.h"

#include "report/Html.h"

#include <algorithm>
#include <functional>

namespace asmevo::report {

namespace {

constexpr double ColW = 128, RowH = 20, Margin = 16, Radius = 5;

bool isLeaf(const std::map<std::string, std::vector<const TreeItem *>> &Kids,
            const std::string &Id) {
  auto It = Kids.find(Id);
  return It == Kids.end() || It->second.empty();
}

// A node's label: its id, and its speedup when verified; a folded box's count and kind.
std::string labelOf(const PlacedNode &N) {
  if (N.What != PlacedNode::Single)
    return std::to_string(N.Count) + " " + N.Outcome;
  return N.Id + (N.Verified ? " " + num(N.Speedup, 3) + "\xc3\x97" : "");
}

} // namespace

TreeLayout layoutLineage(const std::vector<TreeItem> &Items, size_t CollapseAbove) {
  std::map<std::string, const TreeItem *> ById;
  for (const TreeItem &I : Items)
    ById[I.Id] = &I;
  std::map<std::string, std::vector<const TreeItem *>> Kids;
  std::vector<const TreeItem *> Roots;
  for (const auto &[Id, I] : ById) {
    if (!I->Parent.empty() && ById.count(I->Parent) && I->Parent != Id)
      Kids[I->Parent].push_back(I);
    else
      Roots.push_back(I);
  }
  // Which leaves fold: first the failed ones, then (if still too many) the verified ones.
  bool FoldFailed = Items.size() > CollapseAbove, FoldVerified = false;
  if (FoldFailed) {
    size_t Shown = 0;
    for (const auto &[Id, I] : ById)
      Shown += I->Verified || !isLeaf(Kids, Id) || I->Parent.empty() || !ById.count(I->Parent);
    std::map<std::string, bool> HasFailedLeaf;
    for (const auto &[Id, I] : ById)
      if (!I->Verified && isLeaf(Kids, Id) && ById.count(I->Parent))
        HasFailedLeaf[I->Parent] = true;
    FoldVerified = Shown + HasFailedLeaf.size() > CollapseAbove;
  }
  TreeLayout L;
  double NextRow = 0;
  std::map<std::string, bool> Placed;
  std::function<double(const TreeItem &, unsigned)> Place = [&](const TreeItem &I,
                                                                unsigned Depth) -> double {
    Placed[I.Id] = true;
    size_t Me = L.Nodes.size();
    PlacedNode P;
    P.Id = I.Id;
    P.Parent = I.Parent;
    P.Outcome = I.Outcome;
    P.Verified = I.Verified;
    P.Committed = I.Committed;
    P.Speedup = I.Speedup;
    P.Depth = Depth;
    L.Nodes.push_back(P);
    L.Columns = std::max(L.Columns, Depth + 1);
    std::vector<double> Rows;
    PlacedNode Failed, Verified;
    for (const TreeItem *K : Kids[I.Id]) {
      if (Placed.count(K->Id))
        continue; // a cycle of parents comes back here
      bool Leaf = isLeaf(Kids, K->Id);
      PlacedNode *Fold = nullptr;
      if (Leaf && FoldFailed && !K->Verified)
        Fold = &Failed;
      else if (Leaf && FoldVerified && K->Verified && !K->Committed)
        Fold = &Verified;
      if (Fold) {
        Placed[K->Id] = true;
        ++Fold->Folded[K->Outcome];
        continue;
      }
      Rows.push_back(Place(*K, Depth + 1));
    }
    for (auto [Fold, Shape, Tag, What] :
         {std::tuple{&Failed, PlacedNode::FoldedFailed, "failed", "failed"},
          std::tuple{&Verified, PlacedNode::FoldedVerified, "verified", "not committed"}}) {
      if (Fold->Folded.empty())
        continue;
      Fold->What = Shape;
      Fold->Id = I.Id + "+" + Tag;
      Fold->Parent = I.Id;
      Fold->Outcome = What;
      Fold->Verified = Shape == PlacedNode::FoldedVerified;
      Fold->Depth = Depth + 1;
      Fold->Count = 0;
      for (const auto &[O, C] : Fold->Folded)
        Fold->Count += C;
      (Shape == PlacedNode::FoldedFailed ? L.FoldedFailed : L.FoldedVerified) += Fold->Count;
      Fold->Row = NextRow++;
      Rows.push_back(Fold->Row);
      L.Nodes.push_back(*Fold);
      L.Columns = std::max(L.Columns, Depth + 2);
    }
    double Row = Rows.empty() ? NextRow++ : Rows.front();
    L.Nodes[Me].Row = Row;
    return Row;
  };
  for (const TreeItem *R : Roots)
    Place(*R, 0);
  for (const auto &[Id, I] : ById)
    if (!Placed.count(Id))
      Place(*I, 0);
  L.Rows = unsigned(NextRow);
  return L;
}

std::string outcomeColour(const std::string &Outcome, bool Verified, bool Committed) {
  if (Committed)
    return "#2e7d32";
  if (Outcome == "not faster enough")
    return "#aed581";
  if (Verified || Outcome == "slower")
    return "#90a4ae";
  static const std::map<std::string, std::string> Colours = {
      {"divergent", "#d32f2f"},   {"unsafe", "#f57c00"},        {"asm_invalid", "#7b1fa2"},
      {"abi_invalid", "#c2185b"}, {"runtime_error", "#5d4037"}, {"roundtrip_differs", "#0097a7"},
      {"input_error", "#616161"}, {"refused", "#fbc02d"},       {"not_covered", "#00796b"},
      {"interrupted", "#455a64"}, {"failed", "#e57373"}};
  auto It = Colours.find(Outcome);
  return It == Colours.end() ? "#9e9e9e" : It->second;
}

std::string lineageSvg(const TreeLayout &L) {
  double W = 2 * Margin + std::max(1u, L.Columns) * ColW + 40;
  double H = 2 * Margin + std::max(1u, L.Rows) * RowH;
  auto X = [&](const PlacedNode &N) { return Margin + N.Depth * ColW; };
  auto Y = [&](const PlacedNode &N) { return Margin + N.Row * RowH + RowH / 2; };
  std::map<std::string, const PlacedNode *> ById;
  for (const PlacedNode &N : L.Nodes)
    ById[N.Id] = &N;
  std::string S = "<svg class=\"lineage\" width=\"" + num(W, 0) + "\" height=\"" + num(H, 0) +
                  "\" viewBox=\"0 0 " + num(W, 0) + " " + num(H, 0) +
                  "\" role=\"img\" aria-label=\"lineage tree\">\n";
  // Edges first, under the nodes: right from the parent, down (or up) to the child's row.
  S += "<g class=\"edges\" fill=\"none\" stroke=\"#78909c\" stroke-width=\"1\">\n";
  for (const PlacedNode &N : L.Nodes) {
    auto It = ById.find(N.Parent);
    if (N.Parent.empty() || It == ById.end())
      continue;
    const PlacedNode &P = *It->second;
    // From the end of the parent's label (about 6.6 pixels a character at 11px monospace), so
    // that no edge runs through a label.
    double Mid = X(P) + ColW - 14;
    double From = std::min(Mid, X(P) + Radius + 6 + 6.6 * (labelOf(P).size() - 1));
    S += "<path d=\"M" + num(From, 1) + " " + num(Y(P), 1) + " H" + num(Mid, 1) + " V" +
         num(Y(N), 1) + " H" + num(X(N) - Radius, 1) + "\"" +
         (N.Committed ? " stroke=\"#2e7d32\" stroke-width=\"2\"" : "") + "/>\n";
  }
  S += "</g>\n";
  for (const PlacedNode &N : L.Nodes) {
    std::string Fill = outcomeColour(N.Outcome, N.Verified, N.Committed);
    std::string Title, Label = labelOf(N);
    if (N.What == PlacedNode::Single) {
      Title = N.Id + ": " + (N.Committed ? "committed" : N.Outcome);
      if (N.Verified)
        Title += ", " + num(N.Speedup, 4) + "x over K0";
    } else {
      Title = labelOf(N) + " (children of " + N.Parent + "):";
      for (const auto &[O, C] : N.Folded)
        Title += " " + O + " " + std::to_string(C) + ",";
      Title.pop_back();
    }
    S += "<g class=\"node" + std::string(N.Committed ? " committed" : "") +
         (N.What != PlacedNode::Single ? " folded" : "") + "\" data-id=\"" + escape(N.Id) +
         "\" data-outcome=\"" + escape(N.Outcome) + "\"><title>" + escape(Title) + "</title>";
    if (N.What == PlacedNode::Single) {
      S += "<circle cx=\"" + num(X(N), 1) + "\" cy=\"" + num(Y(N), 1) + "\" r=\"" +
           num(N.Committed ? Radius + 1 : Radius, 0) + "\" fill=\"" + Fill + "\"" +
           (N.Committed ? " stroke=\"#000\" stroke-width=\"2\"" : "") + "/>";
    } else {
      S += "<rect x=\"" + num(X(N) - Radius, 1) + "\" y=\"" + num(Y(N) - Radius, 1) +
           "\" width=\"" + num(2 * Radius, 0) + "\" height=\"" + num(2 * Radius, 0) +
           "\" rx=\"2\" fill=\"" + Fill + "\" stroke=\"#555\" stroke-dasharray=\"2 1\"/>";
    }
    S += "<text x=\"" + num(X(N) + Radius + 4, 1) + "\" y=\"" + num(Y(N) + 4, 1) + "\"" +
         (N.Committed ? " font-weight=\"bold\"" : "") + ">" + escape(Label) + "</text></g>\n";
  }
  S += "</svg>";
  return S;
}

} // namespace asmevo::report
