// The run directory: nodes written atomically, the append-only journal, and --resume after a
// kill at any moment (a torn journal line, a node directory without node.json, a node the
// journal lacks), and the refusals (another K0, an existing run without --resume).
#include "search/Lineage.h"
#include "support/FileIO.h"

#include "llvm/Support/FileSystem.h"

#include <gtest/gtest.h>

#include <fstream>

using namespace asmevo;
using namespace asmevo::search;

namespace {

std::string readAll(const std::string &P) {
  std::ifstream F(P);
  return std::string(std::istreambuf_iterator<char>(F), {});
}

struct RunDir {
  std::optional<TempDir> T;
  std::string Dir;
  RunIdentity Id{"k0.hsaco", std::string(64, 'a'), "k", std::string(64, 'b'), "gfx942"};
  RunDir() {
    auto D = TempDir::create("lineage-test");
    EXPECT_TRUE(bool(D));
    T.emplace(std::move(*D));
    Dir = T->file("run");
  }
  // A node with its candidate files, recorded.
  void add(Lineage &L, double Speedup, bool Committed) {
    auto Id = L.newNode();
    ASSERT_TRUE(bool(Id));
    ASSERT_FALSE(writeFileAtomic(L.nodeDir(*Id) + "/cand.s", "text of " + *Id));
    ASSERT_FALSE(writeFileAtomic(L.nodeDir(*Id) + "/cand.hsaco", "object of " + *Id));
    Node N;
    N.Id = *Id;
    N.Parent = *Id == "n000000" ? "" : "n000000";
    N.Verified = true;
    N.Committed = Committed;
    N.Speedup = Speedup;
    N.Outcome = Committed ? "ok" : "slower";
    ASSERT_FALSE(L.record(N));
  }
};

size_t lines(const std::string &S) { return size_t(std::count(S.begin(), S.end(), '\n')); }

} // namespace

TEST(Lineage, RecordsNodesJournalAndBest) {
  RunDir R;
  auto L = Lineage::open(R.Dir, R.Id, false, {});
  ASSERT_TRUE(bool(L)) << llvm::toString(L.takeError());
  R.add(*L, 1.0, true);
  R.add(*L, 1.1, true);
  R.add(*L, 1.05, false);
  EXPECT_EQ(L->best()->Id, "n000001");
  EXPECT_EQ(readAll(R.Dir + "/best.s"), "text of n000001");
  EXPECT_EQ(lines(readAll(R.Dir + "/journal.jsonl")), 3u);
  // Reopened: the same nodes and best.
  auto L2 = Lineage::open(R.Dir, R.Id, true, {});
  ASSERT_TRUE(bool(L2));
  EXPECT_EQ(L2->nodes().size(), 3u);
  EXPECT_EQ(L2->best()->Id, "n000001");
  EXPECT_TRUE(L2->recovered().empty());
}

TEST(Lineage, ResumeRepairsWhatAKillLeaves) {
  RunDir R;
  {
    auto L = Lineage::open(R.Dir, R.Id, false, {});
    ASSERT_TRUE(bool(L));
    R.add(*L, 1.0, true);
    R.add(*L, 1.2, true);
    // A candidate being evaluated when the kill came: a directory without node.json.
    auto Id = L->newNode();
    ASSERT_TRUE(bool(Id));
    ASSERT_FALSE(writeFileAtomic(L->nodeDir(*Id) + "/cand.s", "half"));
  }
  // A committed node whose journal line never came, and a torn last line.
  std::string J = readAll(R.Dir + "/journal.jsonl");
  std::string Lost = J.substr(J.rfind('\n', J.size() - 2) + 1);
  std::ofstream(R.Dir + "/journal.jsonl", std::ios::trunc)
      << J.substr(0, J.size() - Lost.size()) << "{\"event\": \"node\", \"id\": \"n0";
  // best.s from before the last commit.
  ASSERT_FALSE(writeFileAtomic(R.Dir + "/best.s", "text of n000000"));
  auto L = Lineage::open(R.Dir, R.Id, true, {});
  ASSERT_TRUE(bool(L)) << llvm::toString(L.takeError());
  EXPECT_EQ(L->removedIncomplete(), 1u);
  EXPECT_FALSE(llvm::sys::fs::exists(R.Dir + "/nodes/n000002"));
  ASSERT_EQ(L->recovered(), std::vector<std::string>{"n000001"});
  EXPECT_EQ(L->best()->Id, "n000001");
  EXPECT_EQ(readAll(R.Dir + "/best.s"), "text of n000001");
  // The journal: whole lines only, every node once.
  std::string J2 = readAll(R.Dir + "/journal.jsonl");
  EXPECT_EQ(J2.back(), '\n');
  EXPECT_EQ(lines(J2), 2u);
  EXPECT_NE(J2.find("\"recovered\":true"), std::string::npos);
  // The next node takes a fresh id, not the removed one's.
  auto Id = L->newNode();
  ASSERT_TRUE(bool(Id));
  EXPECT_EQ(*Id, "n000003");
}

TEST(Lineage, RefusesAnotherK0AndAnExistingRunWithoutResume) {
  RunDir R;
  {
    auto L = Lineage::open(R.Dir, R.Id, false, {});
    ASSERT_TRUE(bool(L));
  }
  auto Again = Lineage::open(R.Dir, R.Id, false, {});
  ASSERT_FALSE(bool(Again));
  EXPECT_EQ(llvm::toString(Again.takeError()),
            "run directory '" + R.Dir +
                "' already holds a search of this K0: continue it with --resume, or use another "
                "--run-dir");
  RunIdentity Other = R.Id;
  Other.K0Path = "other.hsaco";
  Other.K0Sha256 = std::string(64, 'c');
  auto O = Lineage::open(R.Dir, Other, true, {});
  ASSERT_FALSE(bool(O));
  EXPECT_EQ(llvm::toString(O.takeError()),
            "run directory '" + R.Dir +
                "' is a search of another K0 (k0.hsaco, SHA-256 aaaaaaaaaaaa...), not of "
                "'other.hsaco' (cccccccccccc...): use another --run-dir");
  ASSERT_FALSE(llvm::sys::fs::create_directories(R.T->file("junk")));
  ASSERT_FALSE(writeFileAtomic(R.T->file("junk/file"), "x"));
  auto J = Lineage::open(R.T->file("junk"), R.Id, false, {});
  ASSERT_FALSE(bool(J));
  EXPECT_EQ(llvm::toString(J.takeError()),
            "run directory '" + R.T->file("junk") +
                "' exists and is not a search run (no run.json): use an empty or new directory");
}
