// The lineage tree of a search as inline SVG: one node per candidate, an edge from each parent
// to its child, committed nodes ringed and green, failed nodes coloured by their outcome, every
// node labelled with its id (and its speedup when verified).
//
// Readability: up to CollapseAbove nodes every candidate is drawn. Beyond that, each parent's
// failed leaves (candidates that did not verify: they never have children) become one box
// "N failed" with the counts per outcome in its tooltip; if the tree is still larger, each
// parent's verified leaves that were not committed ("slower") are folded the same way.
// Committed nodes and every node with children are always drawn.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace asmevo::report {

struct TreeItem {
  std::string Id, Parent, Outcome;
  bool Verified = false, Committed = false;
  double Speedup = 0;
};

struct PlacedNode {
  enum Shape { Single, FoldedFailed, FoldedSlower };
  Shape What = Single;
  std::string Id, Parent; // a folded box's Id is "<parent>+failed" or "<parent>+slower"
  std::string Outcome;
  bool Verified = false, Committed = false;
  double Speedup = 0;
  unsigned Depth = 0;                     // the column: the root is 0
  double Row = 0;                         // leaves on rows 0, 1, 2...; a parent between its first
                                          // and last child
  std::map<std::string, unsigned> Folded; // a folded box: outcome -> candidates
  unsigned Count = 1;                     // candidates this shape stands for
};

struct TreeLayout {
  std::vector<PlacedNode> Nodes; // parents before their children, children by id
  unsigned Rows = 0, Columns = 0;
  unsigned FoldedFailed = 0, FoldedSlower = 0; // candidates drawn inside folded boxes
};

// Place Items (a node whose parent is not among them starts a tree of its own, below).
TreeLayout layoutLineage(const std::vector<TreeItem> &Items, size_t CollapseAbove = 150);

// The fill colour of an outcome ("ok" verified, "slower", "divergent", ...).
std::string outcomeColour(const std::string &Outcome, bool Verified, bool Committed);

// The SVG element (class "lineage"; each node a <g class="node">), sized to the layout.
std::string lineageSvg(const TreeLayout &L);

} // namespace asmevo::report
