// The lineage tree of a search as inline SVG: one node per candidate, an edge from each parent
// to its child, committed nodes ringed and green, failed nodes coloured by their outcome, every
// node labelled with its id (and its speedup when verified).
//
// Each parent is drawn on the row of its first child, so the root is on the first row: the top
// left corner of the drawing, which is what a reader sees first of a tree of thousands of
// candidates, always holds the root and the start of its first branch.
//
// Readability: up to CollapseAbove nodes every candidate is drawn. Beyond that, each parent's
// failed leaves (candidates that did not verify: they never have children) become one box
// "N failed" with the counts per outcome in its tooltip; if the tree is still larger, each
// parent's verified leaves that were not committed become one box "N not committed" the same
// way. Committed nodes and every node with children are always drawn.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace asmevo::report {

struct TreeItem {
  // Outcome: node.json's, except for a verified node that was not committed: "slower" (than the
  // best at the time) or "not faster enough" (faster, but short of the commit gate's margin).
  std::string Id, Parent, Outcome;
  bool Verified = false, Committed = false;
  double Speedup = 0;
};

struct PlacedNode {
  enum Shape { Single, FoldedFailed, FoldedVerified };
  Shape What = Single;
  std::string Id, Parent; // a folded box's Id is "<parent>+failed" or "<parent>+verified"
  std::string Outcome;    // a folded box's: "failed" or "not committed"
  bool Verified = false, Committed = false;
  double Speedup = 0;
  unsigned Depth = 0;                     // the column: the root is 0
  double Row = 0;                         // leaves on rows 0, 1, 2...; a parent on its first
                                          // child's
  std::map<std::string, unsigned> Folded; // a folded box: outcome -> candidates
  unsigned Count = 1;                     // candidates this shape stands for
};

struct TreeLayout {
  std::vector<PlacedNode> Nodes; // parents before their children, children by id
  unsigned Rows = 0, Columns = 0;
  unsigned FoldedFailed = 0, FoldedVerified = 0; // candidates drawn inside folded boxes
};

// Place Items (a node whose parent is not among them starts a tree of its own, below; so do
// the nodes of a cycle of parents, which a damaged run could hold).
TreeLayout layoutLineage(const std::vector<TreeItem> &Items, size_t CollapseAbove = 150);

// The fill colour of an outcome ("ok" verified, "slower", "not faster enough", "divergent"...).
std::string outcomeColour(const std::string &Outcome, bool Verified, bool Committed);

// The SVG element (class "lineage"; each node a <g class="node">), sized to the layout.
std::string lineageSvg(const TreeLayout &L);

} // namespace asmevo::report
