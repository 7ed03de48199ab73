// asmevo-install's library on a workflow run made of bundled Triton code objects: reading the
// run, the plan for each kind of target (Triton's override directory, an AITer tree beside its
// original or in place, a HIP directory), installs recorded in the manifest and idempotent,
// refusals with their exact messages that change nothing, and uninstalls that restore the
// target's files byte for byte.
#include "install/HipNote.h"
#include "install/Install.h"
#include "install/Manifest.h"
#include "install/Plan.h"
#include "install/Run.h"

#include "install/InstallFixture.h"

#include <gtest/gtest.h>

using namespace asmevo;
using namespace asmevo::install;
using namespace asmevo::test;

namespace {

const std::string H = "XR6UAHBR2VQFNB2UGQX5NAO2QP6Z2QN3ZQMD4DIBQ4PSBKXTUQNA";
const std::string VAdd = "gfx942-vector_add_fp32", Softmax = "gfx942-softmax_fp32";

// A run of two kernels: the vector add, improved (K* is K0 with one byte changed, speedup
// 1.25), and the softmax, not (K* is K0); and dump/, a Triton dump of K0's compile.
class InstallTest : public TempDirTest {
protected:
  void SetUp() override {
    TempDirTest::SetUp();
    K0 = readBytes(corpus("gfx942/vector_add_fp32.hsaco"));
    ASSERT_GT(K0.size(), 1000u);
    KS = changedText(K0);
    SM = readBytes(corpus("gfx942/softmax_fp32.hsaco"));
    Other = readBytes(corpus("gfx942/matmul_fp16.hsaco"));
    WF = at("wf");
    makeRun(WF, {{VAdd, K0, KS, 1.25}, {Softmax, SM, SM, 1.0}});
    Dump = at("dump");
    writeBytes(Dump + "/" + H + "/add_kernel.hsaco", K0);
    writeBytes(Dump + "/" + H + "/add_kernel.json", "{\"name\": \"add_kernel\", \"shared\": 0}\n");
    writeBytes(Dump + "/" + H + "/add_kernel.co", K0); // K0's bytes, but not a stage file
    writeBytes(Dump + "/OTHERHASH/matmul_kernel.hsaco", Other);
  }

  static InstallOptions opts(Layout Kind, const std::string &Run, const std::string &Source,
                             const std::string &Target) {
    InstallOptions O;
    O.Kind = Kind;
    O.RunDir = Run;
    O.Source = Source;
    O.Target = Target;
    return O;
  }

  // The plan of an install of WF (the vector add only is eligible).
  llvm::Expected<Plan> plan(const InstallOptions &O, const std::optional<Manifest> &Old = {}) {
    auto R = readRun(O.RunDir);
    if (!R)
      return R.takeError();
    return planInstall(O, *R, {true, false}, Old);
  }

  std::string K0, KS, SM, Other, WF, Dump;
};

std::vector<std::string> places(const Plan &P) {
  std::vector<std::string> Out;
  for (const Placement &Q : P.Places)
    Out.push_back(std::to_string(Q.Kernel) + " " + Q.Rel + " <- " + Q.Found);
  return Out;
}

TEST_F(InstallTest, ReadRunReadsTheKernelsOfTheSummary) {
  auto R = readRun(WF);
  ASSERT_TRUE(bool(R)) << failure(R.takeError());
  EXPECT_EQ(R->Dir, WF);
  EXPECT_EQ(R->AbsDir, WF);
  ASSERT_EQ(R->Kernels.size(), 2u);
  const RunKernel &A = R->Kernels[0], &B = R->Kernels[1];
  EXPECT_EQ(A.Name, VAdd);
  EXPECT_EQ(A.K0Path, WF + "/" + VAdd + "/k0.hsaco");
  EXPECT_EQ(A.KStarPath, WF + "/" + VAdd + "/search/best.hsaco");
  EXPECT_EQ(A.K0, K0);
  EXPECT_EQ(A.KStar, KS);
  EXPECT_EQ(A.K0Sha256, sha256Hex(K0));
  EXPECT_EQ(A.KStarSha256, sha256Hex(KS));
  EXPECT_NE(A.K0Sha256, A.KStarSha256);
  EXPECT_DOUBLE_EQ(A.Speedup, 1.25);
  EXPECT_EQ(A.Kind, "modeled");
  EXPECT_EQ(A.Symbols, (std::vector<std::string>{"add_kernel"}));
  EXPECT_EQ(A.Processor, "gfx942");
  EXPECT_EQ(A.Target, "gfx942");
  EXPECT_TRUE(A.VerifiedOn.is_null()); // no search summary with "launches"
  EXPECT_EQ(A.skipReason(false), "");
  EXPECT_EQ(B.Name, Softmax);
  EXPECT_EQ(B.skipReason(false), "no improvement (K* is K0)");
  EXPECT_EQ(B.skipReason(true), "no improvement (K* is K0)");
  RunKernel Slow = A;
  Slow.Speedup = 0.9876;
  EXPECT_EQ(Slow.skipReason(false), "no improvement (speedup 0.9876x; --all installs it)");
  EXPECT_EQ(Slow.skipReason(true), "");
  Slow.KStar.clear();
  EXPECT_EQ(Slow.skipReason(true), "the search wrote no K*");
}

TEST_F(InstallTest, ReadRunRefusesWhatIsNotARun) {
  EXPECT_EQ(failure(readRun(at("nope"))),
            "error: '" + at("nope") +
                "': not a workflow run directory (make -f Makefile.workflow writes one)");
  ASSERT_FALSE(llvm::sys::fs::create_directory(at("half")));
  EXPECT_EQ(failure(readRun(at("half"))),
            "error: '" + at("half/summary.json") +
                "': cannot read the run's summary (is the workflow run finished?)");
  writeBytes(at("half/summary.json"), "{\"format\": \"something-else\"}");
  EXPECT_EQ(failure(readRun(at("half"))),
            "error: '" + at("half/summary.json") +
                "': not a workflow summary (format asmevo-workflow-summary)");
  writeBytes(at("half/summary.json"),
             R"({"format": "asmevo-workflow-summary", "format_version": 2, "kernels": []})");
  EXPECT_EQ(failure(readRun(at("half"))),
            "error: '" + at("half/summary.json") +
                "': workflow summary format version 2 (this installer reads version 1)");
  // A K* with other kernel symbols than K0's.
  makeRun(at("bad"), {{VAdd, K0, Other, 2.0}});
  EXPECT_EQ(failure(readRun(at("bad"))),
            "error: '" + at("bad/" + VAdd + "/search/best.hsaco") +
                "': K* does not keep K0's target and kernel symbols ('" +
                at("bad/" + VAdd + "/k0.hsaco") + "')");
}

TEST_F(InstallTest, PlanTritonTakesOnlyTheDumpsHsacoFilesWithK0sBytes) {
  auto P = plan(opts(Layout::Triton, WF, Dump, at("ovr")));
  ASSERT_TRUE(bool(P)) << failure(P.takeError());
  EXPECT_EQ(P->SourceAbs, Dump);
  EXPECT_EQ(P->TargetAbs, at("ovr"));
  EXPECT_FALSE(P->InPlace);
  EXPECT_EQ(places(*P), (std::vector<std::string>{"0 " + H + "/add_kernel.hsaco <- " + Dump + "/" +
                                                  H + "/add_kernel.hsaco"}));
  EXPECT_EQ(P->NotFound, (std::vector<bool>{false, false}));
  EXPECT_TRUE(P->Mirror.empty());
  EXPECT_TRUE(P->Protected.empty());
}

TEST_F(InstallTest, PlanAiterBesideTheOriginalMirrorsTheRestAndInPlaceDoesNot) {
  std::string Hsa = at("hsa");
  writeBytes(Hsa + "/gfx942/fmoe/bf16/fmoe_add.co", K0);
  writeBytes(Hsa + "/gfx942/fmoe/other.co", Other);
  writeBytes(Hsa + "/gfx942/fmoe/table.csv", "kernel,co\n");
  auto P = plan(opts(Layout::Aiter, WF, Hsa, at("asm")));
  ASSERT_TRUE(bool(P)) << failure(P.takeError());
  EXPECT_FALSE(P->InPlace);
  EXPECT_EQ(places(*P), (std::vector<std::string>{"0 gfx942/fmoe/bf16/fmoe_add.co <- " + Hsa +
                                                  "/gfx942/fmoe/bf16/fmoe_add.co"}));
  EXPECT_EQ(P->Mirror, (std::vector<std::string>{"gfx942/fmoe/other.co", "gfx942/fmoe/table.csv"}));
  auto Q = plan(opts(Layout::Aiter, WF, Hsa, Hsa));
  ASSERT_TRUE(bool(Q)) << failure(Q.takeError());
  EXPECT_TRUE(Q->InPlace);
  EXPECT_EQ(places(*Q), places(*P));
  EXPECT_TRUE(Q->Mirror.empty());
}

TEST_F(InstallTest, PlanHipNamesKStarAfterTheKernelOrTheApplicationsFile) {
  auto P = plan(opts(Layout::Hip, WF, "", at("cos")));
  ASSERT_TRUE(bool(P)) << failure(P.takeError());
  EXPECT_EQ(P->SourceAbs, "");
  EXPECT_EQ(places(*P), (std::vector<std::string>{"0 " + VAdd + ".hsaco <- "}));
  writeBytes(at("app/kernels/vadd.co"), K0);
  writeBytes(at("app/kernels/softmax.co"), SM);
  auto Q = plan(opts(Layout::Hip, WF, at("app"), at("app")));
  ASSERT_TRUE(bool(Q)) << failure(Q.takeError());
  EXPECT_TRUE(Q->InPlace);
  EXPECT_EQ(places(*Q),
            (std::vector<std::string>{"0 kernels/vadd.co <- " + at("app/kernels/vadd.co")}));
}

TEST_F(InstallTest, PlanAddsThePathsAnEarlierInstallOfTheRunRecorded) {
  Manifest Old;
  Old.Layout = "triton";
  Old.Entries = {{VAdd, WF, "moved/add_kernel.hsaco", "/old/src", sha256Hex(K0), sha256Hex(KS),
                  "added", "", "gfx942", nullptr},
                 {VAdd, at("otherrun"), "theirs.hsaco", "", sha256Hex(K0), sha256Hex(KS), "added",
                  "", "gfx942", nullptr}};
  auto P = plan(opts(Layout::Triton, WF, Dump, at("ovr")), Old);
  ASSERT_TRUE(bool(P)) << failure(P.takeError());
  EXPECT_EQ(places(*P), (std::vector<std::string>{"0 " + H + "/add_kernel.hsaco <- " + Dump + "/" +
                                                      H + "/add_kernel.hsaco",
                                                  "0 moved/add_kernel.hsaco <- /old/src"}));
}

TEST_F(InstallTest, PlanRefusesATargetInsideTheSourceOrTheRun) {
  EXPECT_EQ(failure(plan(opts(Layout::Aiter, WF, Dump, Dump + "/new"))),
            "error: '" + Dump + "/new': the target and the source ('" + Dump +
                "') are inside one another: give another directory, or the source itself to "
                "install in place");
  EXPECT_EQ(failure(plan(opts(Layout::Triton, WF, Dump, WF + "/" + VAdd))),
            "error: '" + WF + "/" + VAdd + "': the target is inside the run directory ('" + WF +
                "'), whose files are the run's own: give another directory");
  writeBytes(at("afile"), "x");
  EXPECT_EQ(failure(plan(opts(Layout::Triton, WF, Dump, at("afile")))),
            "error: '" + at("afile") + "': the target is not a directory");
  // Two kernels with the same K0 cannot both go to its file.
  makeRun(at("twice"), {{"a", K0, KS, 1.5}, {"b", K0, KS, 1.5}});
  auto R = readRun(at("twice"));
  ASSERT_TRUE(bool(R)) << failure(R.takeError());
  EXPECT_EQ(failure(planInstall(opts(Layout::Triton, at("twice"), Dump, at("ovr")), *R,
                                {true, true}, std::nullopt)),
            "error: '" + at("ovr") + "': two kernels of the run go to one file '" + H +
                "/add_kernel.hsaco' (their K0 are the same bytes)");
  // A dump without K0: the kernel is not found.
  writeBytes(at("otherdump/HASH/add_kernel.hsaco"), Other);
  auto P = plan(opts(Layout::Triton, WF, at("otherdump"), at("ovr")));
  ASSERT_TRUE(bool(P)) << failure(P.takeError());
  EXPECT_EQ(P->NotFound, (std::vector<bool>{true, false}));
  EXPECT_TRUE(P->Places.empty());
}

TEST_F(InstallTest, TritonInstallIsRecordedIdempotentAndUninstalled) {
  std::string T = at("fresh/ovr");
  auto R = install::install(opts(Layout::Triton, WF, Dump, T));
  ASSERT_TRUE(bool(R)) << failure(R.takeError());
  EXPECT_EQ(R->Target, T);
  EXPECT_FALSE(R->InPlace);
  EXPECT_EQ(R->Written, 1u);
  EXPECT_EQ(R->Backups, 0u);
  EXPECT_EQ(R->Links, 0u);
  EXPECT_EQ(R->Note, "");
  EXPECT_EQ(R->KStarTarget, "gfx942");
  ASSERT_EQ(R->Kernels.size(), 2u);
  EXPECT_EQ(R->Kernels[0].Status, "installed");
  EXPECT_EQ(R->Kernels[0].Paths, (std::vector<std::string>{H + "/add_kernel.hsaco"}));
  EXPECT_EQ(R->Kernels[1].Status, "skipped");
  EXPECT_EQ(R->Kernels[1].Reason, "no improvement (K* is K0)");
  EXPECT_EQ(readBytes(T + "/" + H + "/add_kernel.hsaco"), KS);
  auto S = snapshot(T);
  EXPECT_EQ(S.size(), 3u); // H/, H/add_kernel.hsaco, the manifest: only that stage

  auto M = readManifest(T);
  ASSERT_TRUE(bool(M)) << failure(M.takeError());
  ASSERT_TRUE(M->has_value());
  EXPECT_EQ((*M)->Layout, "triton");
  EXPECT_EQ((*M)->Source, Dump);
  EXPECT_EQ((*M)->Dirs, (std::vector<std::string>{".", H}));
  ASSERT_EQ((*M)->Entries.size(), 1u);
  const ManifestEntry &E = (*M)->Entries[0];
  EXPECT_EQ(E.Kernel, VAdd);
  EXPECT_EQ(E.Run, WF);
  EXPECT_EQ(E.Path, H + "/add_kernel.hsaco");
  EXPECT_EQ(E.Source, Dump + "/" + H + "/add_kernel.hsaco");
  EXPECT_EQ(E.K0Sha256, sha256Hex(K0));
  EXPECT_EQ(E.KStarSha256, sha256Hex(KS));
  EXPECT_EQ(E.Action, "added");
  EXPECT_EQ(E.Backup, "");
  EXPECT_EQ(E.Target, "gfx942");

  // A second install changes nothing.
  auto Again = install::install(opts(Layout::Triton, WF, Dump, T));
  ASSERT_TRUE(bool(Again)) << failure(Again.takeError());
  EXPECT_EQ(Again->Written, 0u);
  EXPECT_EQ(Again->Kernels[0].Status, "unchanged");
  EXPECT_EQ(snapshot(T), S);

  auto U = uninstall(T);
  ASSERT_TRUE(bool(U)) << failure(U.takeError());
  EXPECT_EQ(U->Restored, 0u);
  EXPECT_EQ(U->Removed, 1u);
  EXPECT_EQ(U->Links, 0u);
  EXPECT_FALSE(llvm::sys::fs::exists(T));
  EXPECT_TRUE(llvm::sys::fs::is_directory(at("fresh")));
  EXPECT_EQ(failure(uninstall(at("fresh"))), "error: '" + at("fresh/asmevo-install.json") +
                                                 "': no install here (asmevo-install writes one)");
}

TEST_F(InstallTest, UninstallRestoresTheReplacedFilesByteForByte) {
  // An override directory that already held K0 (the dump copied over) and another file.
  std::string T = at("ovr");
  for (const char *F : {"add_kernel.hsaco", "add_kernel.json", "add_kernel.co"})
    writeBytes(T + "/" + H + "/" + F, readBytes(Dump + "/" + H + "/" + F));
  writeBytes(T + "/README", "keep\n");
  ASSERT_FALSE(llvm::sys::fs::setPermissions(T + "/" + H + "/add_kernel.hsaco",
                                             llvm::sys::fs::perms(llvm::sys::fs::owner_read |
                                                                  llvm::sys::fs::owner_write |
                                                                  llvm::sys::fs::group_read)));
  auto Before = snapshot(T);
  ASSERT_EQ(Before.size(), 5u);

  auto R = install::install(opts(Layout::Triton, WF, Dump, T));
  ASSERT_TRUE(bool(R)) << failure(R.takeError());
  EXPECT_EQ(R->Written, 1u);
  EXPECT_EQ(R->Backups, 1u);
  auto After = snapshot(T);
  EXPECT_EQ(After[H + "/add_kernel.hsaco"], sha256Hex(KS) + " 640");
  EXPECT_EQ(After[".asmevo-backup/" + H + "/add_kernel.hsaco"], sha256Hex(K0) + " 640");
  EXPECT_EQ(readBytes(T + "/" + H + "/add_kernel.co"), K0); // not a stage file: left alone
  auto M = readManifest(T);
  ASSERT_TRUE(M && M->has_value());
  ASSERT_EQ((*M)->Entries.size(), 1u);
  EXPECT_EQ((*M)->Entries[0].Action, "replaced");
  EXPECT_EQ((*M)->Entries[0].Backup, ".asmevo-backup/" + H + "/add_kernel.hsaco");
  EXPECT_EQ((*M)->Dirs, (std::vector<std::string>{".asmevo-backup", ".asmevo-backup/" + H}));

  auto U = uninstall(T);
  ASSERT_TRUE(bool(U)) << failure(U.takeError());
  EXPECT_EQ(U->Restored, 1u);
  EXPECT_EQ(U->Removed, 0u);
  EXPECT_EQ(snapshot(T), Before);
  EXPECT_EQ(readBytes(T + "/" + H + "/add_kernel.hsaco"), K0);
}

TEST_F(InstallTest, AFileThatIsNeitherK0NorKStarIsRefusedAndNothingChanges) {
  std::string T = at("ovr");
  writeBytes(T + "/" + H + "/add_kernel.hsaco", Other);
  auto Before = snapshot(T);
  EXPECT_EQ(failure(install::install(opts(Layout::Triton, WF, Dump, T))),
            "refused: '" + T + "/" + H + "/add_kernel.hsaco': its SHA-256 " + sha256Hex(Other) +
                " is neither K0 (" + sha256Hex(K0).substr(0, 12) + ", " + VAdd +
                ") nor a K* of run '" + WF + "': not overwritten; nothing was changed");
  EXPECT_EQ(snapshot(T), Before);
}

TEST_F(InstallTest, UninstallRefusesAChangedKStarAndChangesNothing) {
  std::string T = at("ovr");
  ASSERT_EQ(failure(install::install(opts(Layout::Triton, WF, Dump, T))), "success");
  std::string F = T + "/" + H + "/add_kernel.hsaco";
  writeBytes(F, KS + "x");
  auto Before = snapshot(T);
  EXPECT_EQ(failure(uninstall(T)),
            "refused: '" + F + "': its SHA-256 " + sha256Hex(KS + "x") +
                " is not the K* installed here (" + sha256Hex(KS).substr(0, 12) +
                "): it was changed since the install: not restored; nothing was changed");
  EXPECT_EQ(snapshot(T), Before);
  writeBytes(F, KS);
  auto U = uninstall(T);
  ASSERT_TRUE(bool(U)) << failure(U.takeError());
  EXPECT_EQ(U->Removed, 1u);
  EXPECT_FALSE(llvm::sys::fs::exists(T));
}

TEST_F(InstallTest, AiterBesideTheOriginalLinksTheRestAndInPlaceKeepsABackup) {
  std::string Hsa = at("hsa"), T = at("asm");
  writeBytes(Hsa + "/gfx942/fmoe/bf16/fmoe_add.co", K0);
  writeBytes(Hsa + "/gfx942/fmoe/other.co", Other);
  writeBytes(Hsa + "/gfx942/fmoe/table.csv", "kernel,co\n");
  writeBytes(Hsa + "/gfx950/fmoe/x.co", readBytes(corpus("gfx950/matmul_fp16.hsaco")));
  auto Original = snapshot(Hsa);

  auto R = install::install(opts(Layout::Aiter, WF, Hsa, T));
  ASSERT_TRUE(bool(R)) << failure(R.takeError());
  EXPECT_EQ(R->Written, 1u);
  EXPECT_EQ(R->Links, 3u);
  auto S = snapshot(T);
  EXPECT_EQ(S["gfx942/fmoe/bf16/fmoe_add.co"].substr(0, 64), sha256Hex(KS));
  EXPECT_EQ(S["gfx942/fmoe/other.co"], "link -> " + Hsa + "/gfx942/fmoe/other.co");
  EXPECT_EQ(S["gfx942/fmoe/table.csv"], "link -> " + Hsa + "/gfx942/fmoe/table.csv");
  EXPECT_EQ(S["gfx950/fmoe/x.co"], "link -> " + Hsa + "/gfx950/fmoe/x.co");
  auto M = readManifest(T);
  ASSERT_TRUE(M && M->has_value());
  EXPECT_EQ((*M)->Layout, "aiter");
  EXPECT_EQ((*M)->Links.size(), 3u);
  EXPECT_EQ((*M)->Dirs, (std::vector<std::string>{".", "gfx942", "gfx942/fmoe", "gfx942/fmoe/bf16",
                                                  "gfx950", "gfx950/fmoe"}));
  EXPECT_EQ(snapshot(Hsa), Original);
  auto Again = install::install(opts(Layout::Aiter, WF, Hsa, T));
  ASSERT_TRUE(bool(Again)) << failure(Again.takeError());
  EXPECT_EQ(Again->Links, 0u);
  EXPECT_EQ(snapshot(T), S);
  auto U = uninstall(T);
  ASSERT_TRUE(bool(U)) << failure(U.takeError());
  EXPECT_EQ(U->Removed, 1u);
  EXPECT_EQ(U->Links, 3u);
  EXPECT_FALSE(llvm::sys::fs::exists(T));

  // In place: the original root itself, with a backup, and back.
  auto P = install::install(opts(Layout::Aiter, WF, Hsa, Hsa));
  ASSERT_TRUE(bool(P)) << failure(P.takeError());
  EXPECT_TRUE(P->InPlace);
  EXPECT_EQ(P->Backups, 1u);
  EXPECT_EQ(P->Links, 0u);
  EXPECT_EQ(readBytes(Hsa + "/gfx942/fmoe/bf16/fmoe_add.co"), KS);
  EXPECT_EQ(readBytes(Hsa + "/.asmevo-backup/gfx942/fmoe/bf16/fmoe_add.co"), K0);
  auto PU = uninstall(Hsa);
  ASSERT_TRUE(bool(PU)) << failure(PU.takeError());
  EXPECT_EQ(PU->Restored, 1u);
  EXPECT_EQ(snapshot(Hsa), Original);
}

TEST_F(InstallTest, HipInstallWritesTheNoteAndUninstallRemovesIt) {
  std::string T = at("cos");
  auto Run = readRun(WF);
  ASSERT_TRUE(bool(Run)) << failure(Run.takeError());
  auto P = planInstall(opts(Layout::Hip, WF, "", T), *Run, {true, false}, std::nullopt);
  ASSERT_TRUE(bool(P)) << failure(P.takeError());
  std::string Want = hipNote(*Run, *P);

  auto R = install::install(opts(Layout::Hip, WF, "", T));
  ASSERT_TRUE(bool(R)) << failure(R.takeError());
  EXPECT_EQ(R->Note, "asmevo-install.txt");
  EXPECT_EQ(R->Kernels[0].Paths, (std::vector<std::string>{VAdd + ".hsaco"}));
  EXPECT_EQ(readBytes(T + "/" + VAdd + ".hsaco"), KS);
  std::string Note = readBytes(T + "/asmevo-install.txt");
  EXPECT_EQ(Note, Want);
  EXPECT_EQ(Note.substr(0, Note.find('\n')),
            "asmevo-install note v1: code objects for a HIP application");
  EXPECT_NE(Note.find("\n" + VAdd + ".hsaco: K* of " + VAdd + " (gfx942), 1.2500x (modeled)\n" +
                      "  replaces K0, SHA-256 " + sha256Hex(K0) + "\n  K* SHA-256 " +
                      sha256Hex(KS) + "\n  kernels: add_kernel\n"),
            std::string::npos)
      << Note;
  EXPECT_NE(Note.find("hipModuleLoad(&module, \"" + T + "/" + VAdd + ".hsaco\");"),
            std::string::npos);
  EXPECT_NE(Note.find("hipModuleGetFunction(&function, module, \"add_kernel\");"),
            std::string::npos);
  auto M = readManifest(T);
  ASSERT_TRUE(M && M->has_value());
  ASSERT_EQ((*M)->Generated.size(), 1u);
  EXPECT_EQ((*M)->Generated[0].Path, "asmevo-install.txt");
  EXPECT_EQ((*M)->Generated[0].Sha256, sha256Hex(Note));
  EXPECT_EQ((*M)->Source, "");

  // Another layout over it is an error; the note changed by someone is refused.
  EXPECT_EQ(failure(install::install(opts(Layout::Triton, WF, Dump, T))),
            "error: '" + T +
                "/asmevo-install.json': the target holds an install of layout hip, "
                "not triton");
  writeBytes(T + "/asmevo-install.txt", "mine\n");
  EXPECT_EQ(failure(install::install(opts(Layout::Hip, WF, "", T))),
            "refused: '" + T + "/asmevo-install.txt': its SHA-256 " + sha256Hex("mine\n") +
                " is not the note an install wrote: not overwritten; nothing was changed");
  writeBytes(T + "/asmevo-install.txt", Note);

  auto U = uninstall(T);
  ASSERT_TRUE(bool(U)) << failure(U.takeError());
  EXPECT_EQ(U->Removed, 1u);
  EXPECT_FALSE(llvm::sys::fs::exists(T));
}

TEST_F(InstallTest, NothingToInstallLeavesNoTarget) {
  EXPECT_EQ(failure(install::install(opts(Layout::Triton, WF, at("nodump"), at("ovr")))),
            "error: '" + at("nodump") + "': not a directory");
  writeBytes(at("otherdump/HASH/add_kernel.hsaco"), Other);
  EXPECT_EQ(failure(install::install(opts(Layout::Triton, WF, at("otherdump"), at("ovr")))),
            "error: '" + at("otherdump") +
                "': no file has the SHA-256 of K0 of any kernel of run '" + WF +
                "' to install (is it the dump of K0's compile?)");
  EXPECT_FALSE(llvm::sys::fs::exists(at("ovr")));
  // A speedup of at most 1 is skipped, unless --all.
  makeRun(at("slow"), {{VAdd, K0, KS, 0.9876}});
  auto R = install::install(opts(Layout::Triton, at("slow"), Dump, at("ovr")));
  ASSERT_TRUE(bool(R)) << failure(R.takeError());
  EXPECT_EQ(R->Written, 0u);
  EXPECT_EQ(R->Kernels[0].Status, "skipped");
  EXPECT_EQ(R->Kernels[0].Reason, "no improvement (speedup 0.9876x; --all installs it)");
  EXPECT_FALSE(llvm::sys::fs::exists(at("ovr")));
  InstallOptions All = opts(Layout::Triton, at("slow"), Dump, at("ovr"));
  All.All = true;
  auto A = install::install(All);
  ASSERT_TRUE(bool(A)) << failure(A.takeError());
  EXPECT_EQ(A->Written, 1u);
  EXPECT_EQ(A->Kernels[0].Status, "installed");
  EXPECT_EQ(readBytes(at("ovr/" + H + "/add_kernel.hsaco")), KS);
}

TEST_F(InstallTest, OneOverrideDirectoryNeverMixesTwoTargets) {
  std::string T = at("ovr");
  ASSERT_EQ(failure(install::install(opts(Layout::Triton, WF, Dump, T))), "success");
  std::string K90 = readBytes(corpus("gfx90a/vector_add_fp32.hsaco"));
  makeRun(at("r90"), {{"k90-add", K90, changedText(K90), 1.5}});
  writeBytes(at("dump90/B/add_kernel.hsaco"), K90);
  auto Before = snapshot(T);
  const std::string Refusal =
      "refused: '" + T + "': it holds K* for gfx942 (" + VAdd + ", " + H +
      "/add_kernel.hsaco), and K* for gfx90a (k90-add, B/add_kernel.hsaco) would join it: "
      "Triton's override directory is keyed by the kernel's source hash only, not by the GPU, so "
      "a compile for either target would load the other's code object; give each target its own "
      "directory (--to); nothing was changed";
  EXPECT_EQ(failure(install::install(opts(Layout::Triton, at("r90"), at("dump90"), T))), Refusal);
  EXPECT_EQ(snapshot(T), Before);
  // A manifest from before the "target" field: the K* installed tells.
  auto M = readManifest(T);
  ASSERT_TRUE(M && M->has_value());
  Manifest Old = **M;
  Old.Entries[0].Target = "";
  ASSERT_EQ(failure(writeManifest(T, Old)), "success");
  Before = snapshot(T);
  EXPECT_EQ(failure(install::install(opts(Layout::Triton, at("r90"), at("dump90"), T))), Refusal);
  EXPECT_EQ(snapshot(T), Before);
  // Its own directory is fine.
  auto R = install::install(opts(Layout::Triton, at("r90"), at("dump90"), at("ovr90")));
  ASSERT_TRUE(bool(R)) << failure(R.takeError());
  EXPECT_EQ(R->KStarTarget, "gfx90a");
}

TEST_F(InstallTest, UninstallRefusesAManifestPathLeadingOutsideTheTarget) {
  std::string T = at("ovr");
  ASSERT_EQ(failure(install::install(opts(Layout::Triton, WF, Dump, T))), "success");
  writeBytes(at("victim.hsaco"), KS); // K*'s bytes: an uninstall that went there would remove it
  auto M = readManifest(T);
  ASSERT_TRUE(M && M->has_value());
  Manifest Bad = **M;
  Bad.Entries.push_back(Bad.Entries[0]);
  Bad.Entries[1].Path = "../victim.hsaco";
  ASSERT_EQ(failure(writeManifest(T, Bad)), "success");
  auto Before = snapshot(Tmp);
  EXPECT_EQ(failure(uninstall(T)), "refused: '" + T +
                                       "/asmevo-install.json': \"entries[1].path\" is "
                                       "\"../victim.hsaco\", which leads outside '" +
                                       T + "' (to '" + at("victim.hsaco") +
                                       "'): not uninstalled; nothing was changed");
  EXPECT_EQ(snapshot(Tmp), Before);
  EXPECT_EQ(readBytes(at("victim.hsaco")), KS);
}

} // namespace
