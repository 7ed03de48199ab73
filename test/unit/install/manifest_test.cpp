// The install manifest (format asmevo-install-manifest v1): written and read back field for
// field, refused with its exact message when it is of another format or version or has a
// malformed field, and its paths checked to stay inside the target; the tree walk that finds K0
// (the installer's own files and protected directories left out) and the recorded changes to a
// target (directories, backups, the generated note).
#include "install/Manifest.h"
#include "install/TargetFiles.h"
#include "install/Tree.h"

#include "install/InstallFixture.h"

#include <gtest/gtest.h>

#include <functional>

using namespace asmevo;
using namespace asmevo::install;
using namespace asmevo::test;

namespace {

const std::string ShaA(64, 'a'), ShaB(64, 'b'), ShaC(64, 'c'), ShaD(64, 'd'), ShaE(64, 'e');

// A manifest with one entry of each kind of action that records something, a note, a link and
// the directories the install made.
Manifest sampleManifest(const std::string &Tmp) {
  Manifest M;
  M.Layout = "aiter";
  M.Source = Tmp + "/hsa";
  ManifestEntry Replaced{"gfx942-vector_add_fp32",
                         Tmp + "/wf",
                         "gfx942/fmoe/a.co",
                         Tmp + "/hsa/gfx942/fmoe/a.co",
                         ShaA,
                         ShaB,
                         "replaced",
                         ".asmevo-backup/gfx942/fmoe/a.co",
                         "gfx942",
                         nlohmann::json::parse(R"([{"spec": "k/spec.json", "seeds": [1, 2]}])")};
  ManifestEntry Present{"k2", Tmp + "/wf", "b.co", "", ShaC, ShaD, "present", "", "", nullptr};
  M.Entries = {Replaced, Present};
  M.Generated = {{"asmevo-install.txt", ShaE, ""}};
  M.Links = {{"gfx950/x.co", "", Tmp + "/hsa/gfx950/x.co"}};
  M.Dirs = {".", "gfx950"};
  return M;
}

class ManifestTest : public TempDirTest {
protected:
  // Write J as the manifest of Tmp and read it back.
  std::string readBack(const nlohmann::ordered_json &J) {
    writeBytes(at(kManifestFile), J.dump(2));
    auto M = readManifest(Tmp);
    return failure(M);
  }
  std::string manifestPath() const { return at(kManifestFile); }
};

TEST_F(ManifestTest, WriteThenReadBackKeepsEveryField) {
  Manifest M = sampleManifest(Tmp);
  ASSERT_EQ(failure(writeManifest(Tmp, M)), "success");
  // Self-describing: format and version come first; empty fields are null.
  std::string Text = readBytes(manifestPath());
  const std::string Head =
      "{\n  \"format\": \"asmevo-install-manifest\",\n  \"format_version\": 1,\n";
  EXPECT_EQ(Text.substr(0, Head.size()), Head);
  EXPECT_EQ(Text.back(), '\n');
  nlohmann::json J = nlohmann::json::parse(Text);
  EXPECT_EQ(J["entries"][1]["source"], nullptr);
  EXPECT_EQ(J["entries"][1]["backup"], nullptr);
  EXPECT_EQ(J["entries"][1]["target"], nullptr);
  EXPECT_EQ(J["links"][0], nlohmann::json::parse("{\"path\": \"gfx950/x.co\", \"link\": \"" + Tmp +
                                                 "/hsa/gfx950/x.co\"}"));

  auto R = readManifest(Tmp);
  ASSERT_TRUE(bool(R)) << failure(R.takeError());
  ASSERT_TRUE(R->has_value());
  const Manifest &B = **R;
  EXPECT_EQ(B.Layout, "aiter");
  EXPECT_EQ(B.Source, Tmp + "/hsa");
  ASSERT_EQ(B.Entries.size(), 2u);
  for (size_t I = 0; I < 2; ++I) {
    const ManifestEntry &W = M.Entries[I], &G = B.Entries[I];
    EXPECT_EQ(G.Kernel, W.Kernel);
    EXPECT_EQ(G.Run, W.Run);
    EXPECT_EQ(G.Path, W.Path);
    EXPECT_EQ(G.Source, W.Source);
    EXPECT_EQ(G.K0Sha256, W.K0Sha256);
    EXPECT_EQ(G.KStarSha256, W.KStarSha256);
    EXPECT_EQ(G.Action, W.Action);
    EXPECT_EQ(G.Backup, W.Backup);
    EXPECT_EQ(G.Target, W.Target);
    EXPECT_EQ(G.VerifiedOn, W.VerifiedOn);
  }
  EXPECT_EQ(B.Entries[0].VerifiedOn.dump(), R"([{"seeds":[1,2],"spec":"k/spec.json"}])");
  EXPECT_TRUE(B.Entries[1].VerifiedOn.is_null());
  ASSERT_EQ(B.Generated.size(), 1u);
  EXPECT_EQ(B.Generated[0].Path, "asmevo-install.txt");
  EXPECT_EQ(B.Generated[0].Sha256, ShaE);
  EXPECT_EQ(B.Generated[0].Link, "");
  ASSERT_EQ(B.Links.size(), 1u);
  EXPECT_EQ(B.Links[0].Path, "gfx950/x.co");
  EXPECT_EQ(B.Links[0].Link, Tmp + "/hsa/gfx950/x.co");
  EXPECT_EQ(B.Links[0].Sha256, "");
  EXPECT_EQ(B.Dirs, (std::vector<std::string>{".", "gfx950"}));
  EXPECT_EQ(B.entry("b.co"), &B.Entries[1]);
  EXPECT_EQ(B.entry("c.co"), nullptr);
  // Written again, the same bytes.
  ASSERT_EQ(failure(writeManifest(Tmp, B)), "success");
  EXPECT_EQ(readBytes(manifestPath()), Text);
}

TEST_F(ManifestTest, NoManifestIsNoInstall) {
  auto R = readManifest(Tmp);
  ASSERT_TRUE(bool(R)) << failure(R.takeError());
  EXPECT_FALSE(R->has_value());
}

TEST_F(ManifestTest, AnotherFormatIsRefused) {
  nlohmann::ordered_json J = sampleManifest(Tmp).json();
  J["format"] = "asmevo-workflow-summary";
  EXPECT_EQ(readBack(J), "error: '" + manifestPath() +
                             "': not an install manifest (format asmevo-install-manifest)");
  EXPECT_EQ(readBack(nlohmann::ordered_json::array()),
            "error: '" + manifestPath() +
                "': not an install manifest (format asmevo-install-manifest)");
}

TEST_F(ManifestTest, AnotherFormatVersionIsRefused) {
  nlohmann::ordered_json J = sampleManifest(Tmp).json();
  J["format_version"] = 2;
  EXPECT_EQ(readBack(J), "error: '" + manifestPath() +
                             "': install manifest version 2 (this installer reads version 1)");
  J["format_version"] = "1";
  EXPECT_EQ(readBack(J), "error: '" + manifestPath() +
                             "': install manifest version \"1\" (this installer reads version 1)");
  J.erase("format_version");
  EXPECT_EQ(readBack(J), "error: '" + manifestPath() +
                             "': install manifest version null (this installer reads version 1)");
}

TEST_F(ManifestTest, AMalformedFieldIsNamedWithItsPlace) {
  const std::string Pre = "error: '" + manifestPath() + "': a malformed install manifest: ";
  struct Case {
    std::function<void(nlohmann::ordered_json &)> Change;
    std::string Message;
  };
  std::vector<Case> Cases = {
      {[](auto &J) { J["entries"][0]["kstar_sha256"] = "12ab"; },
       R"("entries[0].kstar_sha256" is "12ab", not a SHA-256 (64 hex digits))"},
      {[](auto &J) { J["entries"][0]["k0_sha256"] = std::string(64, 'A'); },
       "\"entries[0].k0_sha256\" is \"" + std::string(64, 'A') +
           "\", not a SHA-256 (64 hex digits)"},
      {[](auto &J) { J["entries"][0]["path"] = "/etc/passwd"; },
       R"("entries[0].path" is "/etc/passwd", not a path relative to the target)"},
      {[](auto &J) { J["entries"][0]["backup"] = ".asmevo-backup/other.co"; },
       R"("entries[0].backup" is ".asmevo-backup/other.co", not )"
       R"(".asmevo-backup/gfx942/fmoe/a.co" (where the install keeps the file it replaced))"},
      {[](auto &J) { J["entries"][1]["backup"] = ".asmevo-backup/b.co"; },
       R"("entries[1].backup" is ".asmevo-backup/b.co" for an entry that replaced nothing)"},
      {[](auto &J) { J["entries"][1]["action"] = "moved"; },
       R"("entries[1].action" is "moved", not replaced, added or present)"},
      {[](auto &J) { J["entries"][1]["path"] = "asmevo-install.json"; },
       R"("entries[1].path" is "asmevo-install.json", one of the installer's own files)"},
      {[](auto &J) { J["entries"][1]["kernel"] = 7; },
       R"("entries[1].kernel" is 7 (a number), not a string)"},
      {[](auto &J) { J["entries"][1].erase("run"); }, R"("entries[1].run" is missing)"},
      {[](auto &J) { J["entries"][1] = "b.co"; }, R"("entries[1]" is "b.co", not an object)"},
      {[](auto &J) { J["layout"] = "rocm"; }, R"("layout" is "rocm", not triton, aiter or hip)"},
      {[](auto &J) { J["links"] = nullptr; }, R"("links" is not an array)"},
      {[](auto &J) { J["generated"][0]["sha256"] = "x"; },
       R"("generated[0].sha256" is "x", not a SHA-256 (64 hex digits))"},
      {[](auto &J) { J["dirs"][1] = ""; },
       R"("dirs[1]" is "", not a directory relative to the target)"},
      {[](auto &J) { J.erase("dirs"); }, R"("dirs" is missing)"},
  };
  for (const Case &C : Cases) {
    nlohmann::ordered_json J = sampleManifest(Tmp).json();
    C.Change(J);
    EXPECT_EQ(readBack(J), Pre + C.Message);
  }
  // The sample itself is well-formed.
  EXPECT_EQ(readBack(sampleManifest(Tmp).json()), "success");
}

TEST_F(ManifestTest, APathLeadingOutsideTheTargetIsRefused) {
  std::string T = at("ovr");
  ASSERT_FALSE(llvm::sys::fs::create_directories(T + "/sub"));
  ASSERT_FALSE(llvm::sys::fs::create_link("..", T + "/up"));
  Manifest M = sampleManifest(Tmp);
  EXPECT_EQ(failure(checkContained(T, M, "uninstalled")), "success");
  for (const char *Bad : {"../victim.hsaco", "up/victim.hsaco", "sub/../../victim.hsaco"}) {
    Manifest Out = M;
    Out.Entries[1].Path = Bad;
    EXPECT_EQ(failure(checkContained(T, Out, "uninstalled")),
              "refused: '" + T + "/asmevo-install.json': \"entries[1].path\" is \"" + Bad +
                  "\", which leads outside '" + T + "' (to '" + Tmp +
                  "/victim.hsaco'): not uninstalled; nothing was changed");
  }
  // A link the manifest names is the link itself, not where it leads; a directory may be ".".
  Manifest Link = M;
  Link.Links[0].Path = "up";
  EXPECT_EQ(failure(checkContained(T, Link, "installed")), "success");
  Manifest Dir = M;
  Dir.Dirs = {"up"};
  EXPECT_EQ(failure(checkContained(T, Dir, "installed")),
            "refused: '" + T +
                "/asmevo-install.json': \"dirs[0]\" is \"up\", which leads outside '" + T +
                "' (to '" + Tmp + "'): not installed; nothing was changed");
}

TEST_F(ManifestTest, EntryTargetIsTheFieldElseReadFromKStar) {
  ManifestEntry E = sampleManifest(Tmp).Entries[0];
  EXPECT_EQ(entryTarget(Tmp, E), "gfx942");
  E.Target = "";
  EXPECT_EQ(entryTarget(Tmp, E), ""); // no file there
  writeBytes(at(E.Path), readBytes(corpus("gfx90a/vector_add_fp32.hsaco")));
  EXPECT_EQ(entryTarget(Tmp, E), "gfx90a");
  writeBytes(at(E.Path), "not a code object");
  EXPECT_EQ(entryTarget(Tmp, E), "");
}

using TreeTest = TempDirTest;

TEST_F(TreeTest, ListTreeLeavesOutInstallerFilesAndProtectedDirectories) {
  std::string R = at("src");
  writeBytes(R + "/a.co", "AAAA");
  writeBytes(R + "/sub/b.hsaco", "BBBBBB");
  writeBytes(R + "/sub/c.hsaco", "AAAA");
  writeBytes(R + "/asmevo-install.json", "{}");
  writeBytes(R + "/asmevo-install.txt", "note");
  writeBytes(R + "/.asmevo-backup/a.co", "AAAA");
  writeBytes(R + "/sub/.asmevo-backup/x.co", "AAAA");
  writeBytes(R + "/runs/summary.json", R"({"format": "asmevo-workflow-summary"})");
  writeBytes(R + "/runs/k/k0.hsaco", "AAAA");
  writeBytes(R + "/kdir/k0.hsaco", "AAAA");
  writeBytes(R + "/kdir/k0.s", "; k0");
  writeBytes(R + "/agent/run.json", R"({"format": "asmevo-run"})");
  writeBytes(R + "/agent/best.hsaco", "AAAA");
  writeBytes(R + "/notrun/run.json", R"({"format": "something"})");
  writeBytes(R + "/notrun/k.co", "AAAA");
  ASSERT_FALSE(llvm::sys::fs::create_link("a.co", R + "/link.co"));
  ASSERT_FALSE(llvm::sys::fs::create_link("nowhere", R + "/dangling.co"));
  ASSERT_FALSE(llvm::sys::fs::create_link("sub", R + "/linkdir"));

  std::vector<ProtectedDir> Protected;
  auto F = listTree(R, "", &Protected);
  ASSERT_TRUE(bool(F)) << failure(F.takeError());
  std::vector<std::string> Rels;
  for (const TreeFile &T : *F)
    Rels.push_back(T.Rel + " " + std::to_string(T.Size));
  EXPECT_EQ(Rels,
            (std::vector<std::string>{"a.co 4", "link.co 4", "notrun/k.co 4", "notrun/run.json 23",
                                      "sub/b.hsaco 6", "sub/c.hsaco 4"}));
  std::vector<std::string> Why;
  for (const ProtectedDir &D : Protected)
    Why.push_back(D.Rel + ": " + D.Why);
  EXPECT_EQ(Why, (std::vector<std::string>{"agent: a search run directory (asmevo-agent)",
                                           "kdir: a kernel's directory of a workflow run",
                                           "runs: a workflow run directory",
                                           "sub/.asmevo-backup: another install's backups"}));

  // The run directory itself is protected, whatever its summary says.
  Protected.clear();
  auto G = listTree(R, R + "/notrun", &Protected);
  ASSERT_TRUE(bool(G)) << failure(G.takeError());
  EXPECT_EQ(G->size(), 4u);
  ASSERT_EQ(Protected.size(), 5u);
  EXPECT_EQ(Protected[2].Rel, "notrun");
  EXPECT_EQ(Protected[2].Why, "a workflow run directory");

  // Only files of a wanted size are hashed.
  auto H = hashTree(R, *F, {4});
  ASSERT_TRUE(bool(H)) << failure(H.takeError());
  std::map<std::string, std::vector<std::string>> Want = {
      {sha256Hex("AAAA"), {"a.co", "link.co", "notrun/k.co", "sub/c.hsaco"}}};
  EXPECT_EQ(*H, Want);

  EXPECT_EQ(failure(listTree(at("nope"))), "error: '" + at("nope") + "': not a directory");
}

TEST(Tree, IsWithinAndIsInstallerFile) {
  EXPECT_TRUE(isWithin("/a/b", "/a"));
  EXPECT_TRUE(isWithin("/a", "/a"));
  EXPECT_TRUE(isWithin("/a/b", "/"));
  EXPECT_FALSE(isWithin("/ab", "/a"));
  EXPECT_FALSE(isWithin("/a", "/a/b"));
  EXPECT_TRUE(isInstallerFile("asmevo-install.json"));
  EXPECT_TRUE(isInstallerFile("asmevo-install.txt"));
  EXPECT_TRUE(isInstallerFile(".asmevo-backup"));
  EXPECT_TRUE(isInstallerFile(".asmevo-backup/a/k.co"));
  EXPECT_FALSE(isInstallerFile("sub/asmevo-install.json"));
  EXPECT_FALSE(isInstallerFile(".asmevo-backupx/k.co"));
}

TEST_F(TreeTest, AbsolutePathResolvesTheExistingPartOnly) {
  ASSERT_FALSE(llvm::sys::fs::create_directories(at("real/dir")));
  ASSERT_FALSE(llvm::sys::fs::create_link(at("real"), at("linked")));
  EXPECT_EQ(absolutePath(at("linked/dir")), at("real/dir"));
  EXPECT_EQ(absolutePath(at("linked/new/../x/y")), at("real/x/y"));
}

using TargetFilesTest = TempDirTest;

TEST_F(TargetFilesTest, PlaceFileKeepsTheBackupAndRecordsTheDirectories) {
  std::string T = at("new/ovr");
  Manifest M;
  ASSERT_EQ(failure(makeTarget(T, M)), "success");
  EXPECT_EQ(M.Dirs, (std::vector<std::string>{"."}));
  ASSERT_EQ(failure(placeFile(T, "a/b/k.co", "KSTAR", "K0", 0640, M)), "success");
  ASSERT_EQ(failure(placeFile(T, "a/n.co", "NEW", "", 0, M)), "success");
  EXPECT_EQ(M.Dirs, (std::vector<std::string>{".", ".asmevo-backup", ".asmevo-backup/a",
                                              ".asmevo-backup/a/b", "a", "a/b"}));
  auto S = snapshot(T);
  EXPECT_EQ(S[".asmevo-backup/a/b/k.co"], sha256Hex("K0") + " 640");
  EXPECT_EQ(S["a/b/k.co"], sha256Hex("KSTAR") + " 640");
  EXPECT_EQ(S["a/n.co"].substr(0, 64), sha256Hex("NEW"));
  EXPECT_EQ(S.size(), 8u);
  // A link is made once; an existing file is left alone.
  auto L = linkInto(T, "c/x.co", "/elsewhere/x.co", M);
  ASSERT_TRUE(bool(L)) << failure(L.takeError());
  EXPECT_TRUE(*L);
  auto L2 = linkInto(T, "a/n.co", "/elsewhere/n.co", M);
  ASSERT_TRUE(bool(L2)) << failure(L2.takeError());
  EXPECT_FALSE(*L2);
  ASSERT_EQ(M.Links.size(), 1u);
  EXPECT_EQ(M.Links[0].Path, "c/x.co");
  EXPECT_EQ(M.Links[0].Link, "/elsewhere/x.co");
  EXPECT_EQ(snapshot(T)["c/x.co"], "link -> /elsewhere/x.co");
  EXPECT_EQ(M.Dirs.back(), "c");
}

TEST_F(TargetFilesTest, AGeneratedNoteIsOverwrittenOnlyAsItWasWritten) {
  Manifest M;
  EXPECT_EQ(failure(checkGenerated(Tmp, "asmevo-install.txt", M)), "success"); // nothing there
  writeBytes(at("asmevo-install.txt"), "someone's notes");
  EXPECT_EQ(failure(checkGenerated(Tmp, "asmevo-install.txt", M)),
            "refused: '" + at("asmevo-install.txt") + "': its SHA-256 " +
                sha256Hex("someone's notes") +
                " is not the note an install wrote: not overwritten; nothing was changed");
  ASSERT_EQ(failure(writeGenerated(Tmp, "asmevo-install.txt", "note 1", M)), "success");
  ASSERT_EQ(failure(writeGenerated(Tmp, "asmevo-install.txt", "note 2", M)), "success");
  ASSERT_EQ(M.Generated.size(), 1u);
  EXPECT_EQ(M.Generated[0].Path, "asmevo-install.txt");
  EXPECT_EQ(M.Generated[0].Sha256, sha256Hex("note 2"));
  EXPECT_EQ(readBytes(at("asmevo-install.txt")), "note 2");
  EXPECT_EQ(failure(checkGenerated(Tmp, "asmevo-install.txt", M)), "success");
}

} // namespace
