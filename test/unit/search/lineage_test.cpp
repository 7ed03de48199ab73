// The run directory: nodes written atomically, the append-only journal, and --resume after a
// kill at any moment (a torn journal line, a node directory without node.json, a node the
// journal lacks), what it never does (remove a node the journal names or a verified object,
// copy an object that is not the verified one), its refusals (another K0, an existing run
// without --resume, a missing or empty directory, files that are not what it writes), each
// changing nothing, and the sentences that say what it repaired.
#include "search/Lineage.h"
#include "support/FileIO.h"

#include "llvm/Support/FileSystem.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>

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
  // A node with its candidate files, recorded (with its object's SHA-256 when Sha).
  void add(Lineage &L, double Speedup, bool Committed, bool Sha = false) {
    auto Id = L.newNode();
    ASSERT_TRUE(bool(Id));
    ASSERT_FALSE(writeFileAtomic(L.nodeDir(*Id) + "/cand.s", "text of " + *Id));
    ASSERT_FALSE(writeFileAtomic(L.nodeDir(*Id) + "/cand.hsaco", "object of " + *Id));
    Node N;
    if (Sha)
      N.ObjectSha256 = sha256Hex("object of " + *Id);
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
  // Each repair said, naming the file.
  EXPECT_EQ(L->repairs(),
            (std::vector<std::string>{
                "'" + R.Dir +
                    "/journal.jsonl': cut a torn last line (27 bytes: an append that a "
                    "kill interrupted)",
                "removed 1 candidate directory that a kill interrupted (no node.json, never in "
                "the journal, no verified object): '" +
                    R.Dir + "/nodes/n000002'",
                "'" + R.Dir +
                    "/journal.jsonl': journaled 1 node recorded just before a kill: "
                    "n000001",
                "'" + R.Dir + "/best.s', '" + R.Dir +
                    "/best.hsaco': written again from node n000001, the best (1.2000x; a kill "
                    "came before they were)"}));
  EXPECT_TRUE(L->warnings().empty());
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

namespace {

// A run of a root and two commits (n000002 the best), objects with their SHA-256; closed.
void threeNodes(RunDir &R) {
  auto L = Lineage::open(R.Dir, R.Id, false, {});
  ASSERT_TRUE(bool(L)) << llvm::toString(L.takeError());
  R.add(*L, 1.0, true, true);
  R.add(*L, 1.1, true, true);
  R.add(*L, 1.2, true, true);
}

// Every file under Dir with its bytes, to show that nothing changed.
std::map<std::string, std::string> tree(const std::string &Dir) {
  std::map<std::string, std::string> T;
  std::error_code EC;
  for (llvm::sys::fs::recursive_directory_iterator It(Dir, EC), E; It != E && !EC; It.increment(EC))
    if (llvm::sys::fs::is_regular_file(It->path()))
      T[It->path()] = readAll(It->path());
  return T;
}

} // namespace

TEST(Lineage, ALostNodeJsonIsRebuiltExactlyFromTheJournal) {
  RunDir R;
  threeNodes(R);
  std::string P = R.Dir + "/nodes/n000002/node.json";
  std::string Before = readAll(P);
  ASSERT_FALSE(llvm::sys::fs::remove(P));
  auto L = Lineage::open(R.Dir, R.Id, true, {});
  ASSERT_TRUE(bool(L)) << llvm::toString(L.takeError());
  EXPECT_EQ(readAll(P), Before);
  EXPECT_EQ(L->best()->Id, "n000002");
  EXPECT_EQ(L->repairs(), std::vector<std::string>{"'" + P +
                                                   "': rebuilt exactly from the journal's record "
                                                   "of it (it was missing)"});
  EXPECT_EQ(L->removedIncomplete(), 0u);
}

TEST(Lineage, ADirectoryHoldingAVerifiedObjectIsKeptNotRemoved) {
  RunDir R;
  threeNodes(R);
  ASSERT_FALSE(llvm::sys::fs::create_directories(R.Dir + "/nodes/n000007"));
  ASSERT_FALSE(writeFileAtomic(R.Dir + "/nodes/n000007/cand.hsaco", "object of n000002"));
  // A candidate the kill interrupted after kernel-diffcheck said ok: kept too.
  ASSERT_FALSE(llvm::sys::fs::create_directories(R.Dir + "/nodes/n000008"));
  ASSERT_FALSE(writeFileAtomic(R.Dir + "/nodes/n000008/cand.hsaco", "another object"));
  ASSERT_FALSE(writeFileAtomic(R.Dir + "/nodes/n000008/diffcheck.json", "{\"outcome\": \"ok\"}"));
  // Not a node directory at all: left alone.
  ASSERT_FALSE(writeFileAtomic(R.Dir + "/nodes/README", "mine"));
  auto L = Lineage::open(R.Dir, R.Id, true, {});
  ASSERT_TRUE(bool(L)) << llvm::toString(L.takeError());
  EXPECT_TRUE(llvm::sys::fs::exists(R.Dir + "/nodes/n000007/cand.hsaco"));
  EXPECT_TRUE(llvm::sys::fs::exists(R.Dir + "/nodes/n000008/diffcheck.json"));
  EXPECT_EQ(readAll(R.Dir + "/nodes/README"), "mine");
  ASSERT_EQ(L->warnings().size(), 2u);
  EXPECT_EQ(L->warnings()[0], "'" + R.Dir +
                                  "/nodes/n000007': kept as it is, outside the lineage: it has "
                                  "no node.json and the journal never names it, but it holds the "
                                  "same object as best.hsaco; remove it yourself if it is not "
                                  "needed");
  EXPECT_NE(L->warnings()[1].find("an object that passed kernel-diffcheck"), std::string::npos);
  EXPECT_EQ(L->nodes().size(), 3u);
  auto Id = L->newNode();
  ASSERT_TRUE(bool(Id));
  EXPECT_EQ(*Id, "n000009");
}

TEST(Lineage, ABestWhoseObjectChangedIsRefusedAndNothingIsWritten) {
  RunDir R;
  threeNodes(R);
  ASSERT_FALSE(writeFileAtomic(R.Dir + "/nodes/n000002/cand.hsaco", "tampered"));
  ASSERT_FALSE(writeFileAtomic(R.Dir + "/best.hsaco", "object of n000001"));
  // A torn line too: it is not cut either, since the resume refuses.
  std::ofstream(R.Dir + "/journal.jsonl", std::ios::app) << "{\"ev";
  auto Before = tree(R.Dir);
  auto L = Lineage::open(R.Dir, R.Id, true, {});
  ASSERT_FALSE(bool(L));
  std::string Msg = llvm::toString(L.takeError());
  EXPECT_EQ(Msg, "'" + R.Dir + "/nodes/n000002/cand.hsaco': SHA-256 " +
                     sha256Hex("tampered").substr(0, 12) + "..., not the " +
                     sha256Hex("object of n000002").substr(0, 12) +
                     "... that node n000002, the best (1.2000x), recorded when it was verified: "
                     "the object changed since, and is never copied; restore it from a copy to "
                     "continue this run (nothing was changed)");
  EXPECT_EQ(tree(R.Dir), Before);
  // Said where the verified object still is.
  ASSERT_FALSE(writeFileAtomic(R.Dir + "/best.hsaco", "object of n000002"));
  auto L2 = Lineage::open(R.Dir, R.Id, true, {});
  ASSERT_FALSE(bool(L2));
  EXPECT_NE(llvm::toString(L2.takeError())
                .find("'" + R.Dir +
                      "/best.hsaco' still holds the verified object: copy it back "
                      "and --resume again"),
            std::string::npos);
}

TEST(Lineage, AnObjectThatIsNotTheVerifiedOneIsNeverImported) {
  RunDir R;
  threeNodes(R);
  RunDir Other;
  auto L = Lineage::open(Other.Dir, Other.Id, false, {});
  ASSERT_TRUE(bool(L));
  Other.add(*L, 1.0, true, true);
  auto Snap = Lineage::read(R.Dir, false);
  ASSERT_TRUE(bool(Snap)) << llvm::toString(Snap.takeError());
  ASSERT_FALSE(writeFileAtomic(R.Dir + "/nodes/n000001/cand.hsaco", "tampered"));
  auto Id = L->import(Snap->Nodes.at("n000001"), R.Dir + "/nodes/n000001");
  ASSERT_FALSE(bool(Id));
  EXPECT_NE(llvm::toString(Id.takeError()).find("not the"), std::string::npos);
  EXPECT_FALSE(llvm::sys::fs::exists(Other.Dir + "/nodes/n000001"));
}

TEST(Lineage, ResumeRefusesWhatIsNotARunAndFilesItDidNotWrite) {
  RunDir R;
  auto Missing = Lineage::open(R.Dir, R.Id, true, {});
  ASSERT_FALSE(bool(Missing));
  EXPECT_EQ(llvm::toString(Missing.takeError()),
            "run directory '" + R.Dir +
                "' does not exist: there is no search to --resume (leave --resume out to start "
                "one)");
  EXPECT_FALSE(llvm::sys::fs::exists(R.Dir));
  ASSERT_FALSE(llvm::sys::fs::create_directories(R.Dir));
  auto Empty = Lineage::open(R.Dir, R.Id, true, {});
  ASSERT_FALSE(bool(Empty));
  EXPECT_NE(llvm::toString(Empty.takeError()).find("is empty"), std::string::npos);
  ASSERT_FALSE(llvm::sys::fs::remove(R.Dir));
  threeNodes(R);
  auto Refused = [&](const std::string &File, const std::string &Text, const std::string &Want) {
    std::string Keep = readAll(R.Dir + "/" + File);
    std::ofstream(R.Dir + "/" + File, std::ios::trunc) << Text;
    auto Before = tree(R.Dir);
    auto L = Lineage::open(R.Dir, R.Id, true, {});
    ASSERT_FALSE(bool(L)) << File;
    EXPECT_EQ(llvm::toString(L.takeError()), Want);
    EXPECT_EQ(tree(R.Dir), Before) << File;
    std::ofstream(R.Dir + "/" + File, std::ios::trunc) << Keep;
  };
  std::string J = readAll(R.Dir + "/journal.jsonl");
  Refused("journal.jsonl", "[1]\n" + J,
          "'" + R.Dir +
              "/journal.jsonl':1: not a journal event (a JSON object with a string "
              "\"event\")");
  Refused("journal.jsonl", J + "{\"event\": \"node\", \"id\": 7}\n",
          "'" + R.Dir + "/journal.jsonl':4: a node event without a node id (\"id\": \"nNNNNNN\")");
  Refused("journal.jsonl", "\xEF\xBB\xBF" + J,
          "'" + R.Dir +
              "/journal.jsonl':1: starts with a UTF-8 byte-order mark, which "
              "asmevo-agent never writes (was it edited?)");
  Refused("journal.jsonl", J + "{\"event\": \"x\xff\"}\n",
          "'" + R.Dir + "/journal.jsonl':4: not valid UTF-8 (byte 13 of the line)");
  Refused("run.json", "{\"format\": \"asmevo-run\", \"k0\": 1}",
          "'" + R.Dir + "/run.json': \"k0\" must be a string");
  Refused("run.json", "\xEF\xBB\xBF{}",
          "'" + R.Dir +
              "/run.json'@0x0: starts with a UTF-8 byte-order mark, which "
              "asmevo-agent never writes (was it edited?)");
  Refused("nodes/n000001/node.json", "{\"format\": \"asmevo-node\", \"id\": \"n000001\"}",
          "'" + R.Dir + "/nodes/n000001/node.json': malformed lineage node: " +
              "[json.exception.out_of_range.403] key 'parent' not found; move it away and "
              "--resume rebuilds it from the journal");
  Refused("nodes/n000001/node.json", "{\n\"format\": tru",
          "'" + R.Dir +
              "/nodes/n000001/node.json':2: not valid JSON: syntax error while "
              "parsing value - invalid literal; last read: '\"format\": tru'; move it away and "
              "--resume rebuilds it from the journal");
  // Intact again: it resumes.
  auto L = Lineage::open(R.Dir, R.Id, true, {});
  ASSERT_TRUE(bool(L)) << llvm::toString(L.takeError());
  EXPECT_TRUE(L->repairs().empty());
}
