// The report's pure parts: the assembly diff (hunks, line numbers, Myers' script for a middle
// too large for the table, the fallback for one too large for both, the instructions a text
// deleted), the lineage tree's layout (rows, columns, folding of failed and verified leaves,
// orphans, cycles), the plots' tick values and the label every figure carries. The expectations
// are worked out by hand.
#include "report/AsmDiff.h"
#include "report/Html.h"
#include "report/LineageSvg.h"
#include "report/Plot.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace asmevo::report;

namespace {

const char *Ten = "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n";
const char *TenEdited = "a\nb\nc\nd\nE\nf\ng\nh\nX\ni\nj\n";

TEST(AsmDiff, TwoHunksWithOneLineOfContext) {
  auto H = diffTexts(Ten, TenEdited, 1);
  EXPECT_EQ(unifiedText(H), "@@ -4,3 +4,3 @@\n d\n-e\n+E\n f\n"
                            "@@ -8,2 +8,3 @@\n h\n+X\n i\n");
  ASSERT_EQ(H.size(), 2u);
  EXPECT_EQ(H[0].Lines[1].OldNo, 5u);
  EXPECT_EQ(H[0].Lines[1].NewNo, 0u);
  EXPECT_EQ(H[0].Lines[2].NewNo, 5u);
  EXPECT_EQ(H[1].Lines[1].NewNo, 9u);
}

TEST(AsmDiff, NearbyChangesShareOneHunk) {
  // f, g and h (3 lines) are within 2 x 3 lines of context: one hunk from b through j.
  EXPECT_EQ(unifiedText(diffTexts(Ten, TenEdited, 3)),
            "@@ -2,9 +2,10 @@\n b\n c\n d\n-e\n+E\n f\n g\n h\n+X\n i\n j\n");
}

TEST(AsmDiff, EqualEmptyAndAddedTexts) {
  EXPECT_TRUE(diffTexts(Ten, Ten).empty());
  EXPECT_EQ(unifiedText(diffTexts("", "x\n")), "@@ -0,0 +1,1 @@\n+x\n");
  EXPECT_EQ(unifiedText(diffTexts("x\ny", "x\n")), "@@ -1,2 +1,1 @@\n x\n-y\n");
}

TEST(AsmDiff, TooLargeAMiddleIsRemovedAndAdded) {
  // b,q,c -> q,x: the matching would keep q; with no cells to spare the middle is replaced.
  const char *Old = "a\nb\nq\nc\nz\n", *New = "a\nq\nx\nz\n";
  EXPECT_EQ(unifiedText(diffTexts(Old, New, 3)), "@@ -1,5 +1,4 @@\n a\n-b\n q\n-c\n+x\n z\n");
  EXPECT_EQ(unifiedText(diffTexts(Old, New, 3, 1)),
            "@@ -1,5 +1,4 @@\n a\n-b\n-q\n-c\n+q\n+x\n z\n");
}

TEST(AsmDiff, MyersGivesTheSameScriptWhenTheTableIsTooLarge) {
  // The middle (e f g h against E f g h X) needs 5 x 6 cells for the table, Myers 1+3+5 for D=2.
  EXPECT_EQ(unifiedText(diffTexts(Ten, TenEdited, 1, 20)), "@@ -4,3 +4,3 @@\n d\n-e\n+E\n f\n"
                                                           "@@ -8,2 +8,3 @@\n h\n+X\n i\n");
}

TEST(AsmDiff, AFewEditsFarApartInALongTextStayFewLines) {
  // 3000 lines edited near both ends: the middle is ~9 million table cells, Myers needs 16.
  std::string Old, New;
  for (int I = 0; I < 3000; ++I) {
    std::string L = "\tv_mov_b32 v" + std::to_string(I % 200) + ", " + std::to_string(I) + "\n";
    Old += L;
    New += I == 5 ? "\ts_nop 0\n" : I == 2990 ? "" : L;
  }
  auto H = diffTexts(Old, New, 0);
  EXPECT_EQ(unifiedText(H), "@@ -6,1 +6,1 @@\n-\tv_mov_b32 v5, 5\n+\ts_nop 0\n"
                            "@@ -2991,1 +2990,0 @@\n-\tv_mov_b32 v190, 2990\n");
}

TEST(AsmDiff, MnemonicsOfInstructionsOnly) {
  EXPECT_EQ(mnemonicOf("\ts_waitcnt vmcnt(0) ; wait"), "s_waitcnt");
  EXPECT_EQ(mnemonicOf("  v_add_f32_e32 v1, v2, v3"), "v_add_f32_e32");
  for (const char *Other :
       {".LBB0_1:", "add_kernel:", "\t.p2align 8", "; a comment", "// a comment", "", "\t"})
    EXPECT_EQ(mnemonicOf(Other), "") << Other;
}

TEST(AsmDiff, DeletedInstructionsAreCountedAndMarked) {
  const char *K0 = "k:\n\ts_waitcnt vmcnt(0)\n\tv_add_f32 v1, v2, v3\n\ts_waitcnt vmcnt(0)\n"
                   "\ts_endpgm\n";
  // The first wait deleted, the add replaced by a sub; the second wait kept.
  const char *K = "k:\n\tv_sub_f32 v1, v2, v3\n\ts_waitcnt vmcnt(0)\n\ts_endpgm\n";
  auto H = diffTexts(K0, K, 3);
  auto D = markDeleted(K0, K, H);
  EXPECT_EQ(D, (std::map<std::string, size_t>{{"s_waitcnt", 1}, {"v_add_f32", 1}}));
  std::vector<std::string> Marked;
  for (const DiffHunk &Hk : H)
    for (const DiffLine &L : Hk.Lines)
      if (L.Deleted)
        Marked.push_back(L.Text);
  EXPECT_EQ(Marked, (std::vector<std::string>{"\ts_waitcnt vmcnt(0)", "\tv_add_f32 v1, v2, v3"}));
  // A moved instruction is no deletion.
  auto M = diffTexts("\ta\n\tb\n", "\tb\n\ta\n");
  EXPECT_TRUE(markDeleted("\ta\n\tb\n", "\tb\n\ta\n", M).empty());
}

TreeItem item(const char *Id, const char *Parent, const char *Outcome, bool Verified = false,
              bool Committed = false) {
  return TreeItem{Id, Parent, Outcome, Verified, Committed, 1.0};
}

struct Pos {
  std::string Id;
  unsigned Depth;
  double Row;
};

std::vector<Pos> positions(const TreeLayout &L) {
  std::vector<Pos> P;
  for (const PlacedNode &N : L.Nodes)
    P.push_back({N.Id, N.Depth, N.Row});
  return P;
}

void expectPositions(const TreeLayout &L, const std::vector<Pos> &Want) {
  auto Got = positions(L);
  ASSERT_EQ(Got.size(), Want.size());
  for (size_t I = 0; I < Want.size(); ++I) {
    EXPECT_EQ(Got[I].Id, Want[I].Id) << I;
    EXPECT_EQ(Got[I].Depth, Want[I].Depth) << Want[I].Id;
    EXPECT_DOUBLE_EQ(Got[I].Row, Want[I].Row) << Want[I].Id;
  }
}

TEST(LineageLayout, LeavesOnRowsParentsOnTheirFirstChildsRow) {
  // n0 -> n1 (committed) -> n3 (divergent), n4 (verified); n0 -> n2 (unsafe). The root is on the
  // first row, where a reader looks first.
  std::vector<TreeItem> Items = {item("n4", "n1", "slower", true), item("n0", "", "ok", true, true),
                                 item("n2", "n0", "unsafe"), item("n1", "n0", "ok", true, true),
                                 item("n3", "n1", "divergent")};
  TreeLayout L = layoutLineage(Items);
  expectPositions(L, {{"n0", 0, 0}, {"n1", 1, 0}, {"n3", 2, 0}, {"n4", 2, 1}, {"n2", 1, 2}});
  EXPECT_EQ(L.Rows, 3u);
  EXPECT_EQ(L.Columns, 3u);
  EXPECT_EQ(L.FoldedFailed, 0u);
}

std::vector<TreeItem> fanOut() {
  return {item("n0", "", "ok", true, true), item("n1", "n0", "divergent"),
          item("n2", "n0", "unsafe"),       item("n3", "n0", "divergent"),
          item("n4", "n0", "unsafe"),       item("n5", "n0", "divergent"),
          item("n6", "n0", "slower", true)};
}

TEST(LineageLayout, FailedLeavesFoldIntoOneBoxPerParent) {
  TreeLayout L = layoutLineage(fanOut(), 3);
  expectPositions(L, {{"n0", 0, 0}, {"n6", 1, 0}, {"n0+failed", 1, 1}});
  EXPECT_EQ(L.FoldedFailed, 5u);
  EXPECT_EQ(L.FoldedVerified, 0u);
  const PlacedNode &F = L.Nodes[2];
  EXPECT_EQ(F.What, PlacedNode::FoldedFailed);
  EXPECT_EQ(F.Count, 5u);
  EXPECT_EQ(F.Parent, "n0");
  EXPECT_EQ(F.Folded, (std::map<std::string, unsigned>{{"divergent", 3}, {"unsafe", 2}}));
  // Below the limit nothing folds.
  EXPECT_EQ(layoutLineage(fanOut(), 7).Nodes.size(), 7u);
}

TEST(LineageLayout, VerifiedLeavesFoldWhenFailedOnesAreNotEnough) {
  TreeLayout L = layoutLineage(fanOut(), 2);
  expectPositions(L, {{"n0", 0, 0}, {"n0+failed", 1, 0}, {"n0+verified", 1, 1}});
  EXPECT_EQ(L.FoldedVerified, 1u);
  EXPECT_EQ(L.Nodes[2].Outcome, "not committed");
  EXPECT_EQ(L.Nodes[2].Folded, (std::map<std::string, unsigned>{{"slower", 1}}));
}

TEST(LineageLayout, ACycleOfParentsIsDrawnOnce) {
  // A damaged run: n1 and n2 name each other as parent. Every node is drawn once, and the
  // layout ends.
  TreeLayout L = layoutLineage({item("n0", "", "ok", true, true), item("n1", "n2", "divergent"),
                                item("n2", "n1", "unsafe")});
  expectPositions(L, {{"n0", 0, 0}, {"n1", 0, 1}, {"n2", 1, 1}});
}

TEST(LineageLayout, AnOrphanStartsATreeBelow) {
  TreeLayout L = layoutLineage({item("n0", "", "ok", true, true), item("n7", "n5", "divergent")});
  expectPositions(L, {{"n0", 0, 0}, {"n7", 0, 1}});
}

TEST(Plot, TicksEndWhereTheStepIsBelowThePrecision) {
  // Speedups a damaged node.json could hold: 1e6 and the next double (a step of a fifth of that
  // cannot move 1e6), and a range too wide for a double.
  double Next = std::nextafter(1e6, 2e6);
  EXPECT_EQ(niceTicks(1e6, Next), (std::vector<double>{1e6, Next}));
  EXPECT_EQ(niceTicks(-1e308, 1e308).size(), 2u);
}

TEST(Plot, TicksAreRoundSteps) {
  EXPECT_EQ(niceTicks(0, 2.3), (std::vector<double>{0, 0.5, 1, 1.5, 2}));
  EXPECT_EQ(niceTicks(0, 80), (std::vector<double>{0, 20, 40, 60, 80}));
  std::vector<double> T = niceTicks(0.95, 1.27);
  ASSERT_EQ(T.size(), 3u); // a step of 0.1: 1.0, 1.1, 1.2
  EXPECT_NEAR(T[0], 1.0, 1e-12);
  EXPECT_NEAR(T[2], 1.2, 1e-9);
}

TEST(Plot, AxesTitlesAndTickLabelsAreDrawn) {
  PlotSpec P{"T", "candidates evaluated", "speedup", {{"best", "#000", {{0, 1}, {4, 1.2}}, true}}};
  std::string S = plotSvg(P);
  EXPECT_NE(S.find("<text class=\"axis-title\""), std::string::npos);
  EXPECT_NE(S.find(">candidates evaluated</text>"), std::string::npos);
  EXPECT_NE(S.find("<text class=\"tick\""), std::string::npos);
  EXPECT_NE(S.find("d=\"M"), std::string::npos);
}

// Every figure says what produced it: modeled on the emulator, measured on a GPU; a node that
// names neither its kind nor a known backend is "unknown", never passed off as measured.
TEST(FigureKind, ModeledOnEmuMeasuredOnHip) {
  EXPECT_EQ(figureKind("modeled", "emu"), "modeled");
  EXPECT_EQ(figureKind("measured", "hip"), "measured");
  EXPECT_EQ(figureKind("", "emu"), "modeled");
  EXPECT_EQ(figureKind("", "hip"), "measured");
  EXPECT_EQ(figureKind("", ""), "unknown");
  EXPECT_EQ(kindLabel("measured", "hip"), "<span class=\"kind measured\">measured, hip</span>");
  EXPECT_EQ(kindLabel("", "emu"), "<span class=\"kind modeled\">modeled, emu</span>");
}

} // namespace
