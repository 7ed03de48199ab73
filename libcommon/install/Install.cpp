// Installing: read the run, plan, check every file the install would touch (refusing what is
// neither K0 nor a K* of this run), and only then back up, write, link and record.
#include "install/Install.h"

#include "install/HipNote.h"
#include "install/Plan.h"
#include "install/Refusal.h"
#include "install/TargetFiles.h"
#include "install/Tree.h"
#include "support/Error.h"
#include "support/FileIO.h"

#include "llvm/Support/FileSystem.h"

#include <algorithm>

namespace asmevo::install {

namespace {

// What the install does with one placement, decided before anything is written.
struct Step {
  const Placement *Q = nullptr;
  bool Write = false;  // write K* (else it is there already)
  std::string Backup;  // K0's bytes to keep ("" when nothing is replaced)
  unsigned Mode = 0;   // the replaced file's permissions
  ManifestEntry Entry; // as the manifest will record it
};

llvm::Expected<Step> checkPlacement(const Placement &Q, const RunKernel &K, const Run &R,
                                    const std::string &Target, const Manifest &M) {
  Step S;
  S.Q = &Q;
  const ManifestEntry *Old = M.entry(Q.Rel);
  S.Entry =
      Old ? *Old : ManifestEntry{K.Name, R.AbsDir, Q.Rel, Q.Found, K.K0Sha256, "", "", "", ""};
  S.Entry.KStarSha256 = K.KStarSha256;
  S.Entry.Target = K.Target;
  S.Entry.VerifiedOn = K.VerifiedOn;
  std::string F = Target + "/" + Q.Rel;
  llvm::sys::fs::file_status St;
  bool Ours = false; // one of the install's own mirror links
  if (!llvm::sys::fs::status(F, St, /*follow=*/false) && llvm::sys::fs::is_symlink_file(St))
    for (const ManifestFile &L : M.Links)
      Ours |= L.Path == Q.Rel;
  if (Ours || !llvm::sys::fs::exists(F)) {
    S.Write = true;
    S.Entry.Action = "added";
    return S;
  }
  auto B = readFile(F);
  if (!B)
    return B.takeError();
  std::string Sha = sha256Hex((*B)->getBuffer());
  if (Sha == K.KStarSha256) {
    if (!Old)
      S.Entry.Action = "present";
    return S;
  }
  S.Write = true;
  if (Sha == K.K0Sha256) {
    S.Backup = (*B)->getBuffer().str();
    if (!llvm::sys::fs::status(F, St))
      S.Mode = St.permissions();
    S.Entry.Action = "replaced";
    S.Entry.Backup = std::string(kBackupDir) + "/" + Q.Rel;
    return S;
  }
  if (Old && Old->Run == R.AbsDir && Sha == Old->KStarSha256 && Old->Action != "present")
    return S; // an earlier K* of this run: its backup (if any) still holds K0
  return llvm::make_error<InstallRefusal>(
      "its SHA-256 " + Sha + " is neither K0 (" + K.K0Sha256.substr(0, 12) + ", " + K.Name +
          ") nor a K* of run '" + R.Dir + "': not overwritten; nothing was changed",
      F);
}

// Triton's override directory is keyed by the kernel's source hash, not by the GPU: a compile
// for any target finds the file there. So one directory holds K* of one target only.
llvm::Error checkOneTarget(const InstallOptions &O, const Run &R, const Plan &P,
                           const Manifest &M) {
  std::string Have, Where; // the first target seen, and what has it
  for (const Placement &Q : P.Places) {
    const RunKernel &K = R.Kernels[Q.Kernel];
    std::string What = K.Name + ", " + Q.Rel;
    if (Have.empty())
      Have = K.Target, Where = What;
    else if (K.Target != Have)
      return llvm::make_error<InstallRefusal>(
          "the override directory would hold K* for " + Have + " (" + Where + ") and for " +
              K.Target + " (" + What +
              "): Triton's override directory is keyed by the kernel's source hash only, not "
              "by the GPU, so a compile for either target would load the other's code object; "
              "give each target its own directory (--to); nothing was changed",
          O.Target);
  }
  for (const ManifestEntry &E : M.Entries) {
    bool Replaced = false;
    for (const Placement &Q : P.Places)
      Replaced |= Q.Rel == E.Path;
    std::string T = Replaced ? "" : entryTarget(O.Target, E);
    if (T.empty() || Have.empty() || T == Have)
      continue;
    return llvm::make_error<InstallRefusal>(
        "it holds K* for " + T + " (" + E.Kernel + ", " + E.Path + "), and K* for " + Have + " (" +
            Where +
            ") would join it: Triton's override directory is keyed by the kernel's source hash "
            "only, not by the GPU, so a compile for either target would load the other's code "
            "object; give each target its own directory (--to); nothing was changed",
        O.Target);
  }
  return llvm::Error::success();
}

KernelResult kernelResult(const RunKernel &K) {
  KernelResult KR;
  KR.Name = K.Name;
  KR.K0Sha256 = K.K0Sha256;
  KR.KStarSha256 = K.KStarSha256;
  KR.Speedup = K.Speedup;
  KR.VerifiedOn = K.VerifiedOn;
  return KR;
}

} // namespace

const char *layoutName(Layout L) {
  return L == Layout::Triton ? "triton" : L == Layout::Aiter ? "aiter" : "hip";
}

llvm::Expected<InstallResult> install(const InstallOptions &O) {
  auto R = readRun(O.RunDir);
  if (!R)
    return R.takeError();
  InstallResult Res;
  std::vector<bool> Eligible;
  for (const RunKernel &K : R->Kernels) {
    Res.Kernels.push_back(kernelResult(K));
    Res.Kernels.back().Reason = K.skipReason(O.All);
    Res.Kernels.back().Status = Res.Kernels.back().Reason.empty() ? "unchanged" : "skipped";
    Eligible.push_back(Res.Kernels.back().Reason.empty());
  }
  std::optional<Manifest> Old;
  if (llvm::sys::fs::is_directory(O.Target)) {
    auto M = readManifest(O.Target);
    if (!M)
      return M.takeError();
    Old = std::move(*M);
    if (Old)
      if (llvm::Error E = checkContained(O.Target, *Old, "installed"))
        return std::move(E);
  }
  std::string ManifestPath = O.Target + "/" + kManifestFile;
  if (Old && Old->Layout != layoutName(O.Kind))
    return llvm::make_error<ToolError>("the target holds an install of layout " + Old->Layout +
                                           ", not " + layoutName(O.Kind),
                                       ManifestPath);
  auto P = planInstall(O, *R, Eligible, Old);
  if (!P)
    return P.takeError();
  Res.Target = P->TargetAbs;
  Res.InPlace = P->InPlace;
  for (const ProtectedDir &D : P->Protected)
    Res.Protected.push_back({D.Rel, D.Why});
  Manifest M = Old ? *Old : Manifest{layoutName(O.Kind), P->SourceAbs, {}, {}, {}, {}};
  if (!P->SourceAbs.empty())
    M.Source = P->SourceAbs;
  size_t Wanted = 0, Missing = 0;
  for (size_t I = 0; I < R->Kernels.size(); ++I) {
    Wanted += Eligible[I];
    if (P->NotFound[I]) {
      ++Missing;
      Res.Kernels[I].Status = "not_found";
      Res.Kernels[I].Reason = "no file under '" + O.Source + "' has K0's SHA-256";
    }
  }
  if (Wanted && Missing == Wanted)
    return llvm::make_error<ToolError>(
        std::string("no file has the SHA-256 of K0 of any kernel of run '") + O.RunDir +
            "' to install" + (O.Kind == Layout::Triton ? " (is it the dump of K0's compile?)" : ""),
        O.Source);
  // Check everything first: a refusal leaves the target as it was.
  if (O.Kind == Layout::Triton) {
    if (llvm::Error E = checkOneTarget(O, *R, *P, M))
      return std::move(E);
    if (!P->Places.empty())
      Res.KStarTarget = R->Kernels[P->Places.front().Kernel].Target;
    for (const ManifestEntry &E : M.Entries)
      if (Res.KStarTarget.empty())
        Res.KStarTarget = entryTarget(O.Target, E);
  }
  std::vector<Step> Steps;
  for (const Placement &Q : P->Places) {
    auto S = checkPlacement(Q, R->Kernels[Q.Kernel], *R, O.Target, M);
    if (!S)
      return S.takeError();
    Steps.push_back(std::move(*S));
  }
  std::string Note;
  if (O.Kind == Layout::Hip && !P->Places.empty()) {
    Note = hipNote(*R, *P);
    if (llvm::Error E = checkGenerated(O.Target, kHipNoteFile, M))
      return E;
  }
  if (Steps.empty() && P->Mirror.empty() && !Old)
    return Res; // nothing to install: the target is left as it is (not even created)
  // Now act.
  if (llvm::Error E = makeTarget(O.Target, M))
    return E;
  for (Step &S : Steps) {
    KernelResult &KR = Res.Kernels[S.Q->Kernel];
    KR.Paths.push_back(S.Q->Rel);
    if (S.Write) {
      KR.Status = "installed";
      if (llvm::Error E =
              placeFile(O.Target, S.Q->Rel, R->Kernels[S.Q->Kernel].KStar, S.Backup, S.Mode, M))
        return E;
      ++Res.Written;
      Res.Backups += !S.Backup.empty();
    }
    M.Links.erase(std::remove_if(M.Links.begin(), M.Links.end(),
                                 [&](const ManifestFile &L) { return L.Path == S.Q->Rel; }),
                  M.Links.end());
    M.Entries.erase(std::remove_if(M.Entries.begin(), M.Entries.end(),
                                   [&](const ManifestEntry &E) { return E.Path == S.Q->Rel; }),
                    M.Entries.end());
    M.Entries.push_back(S.Entry);
  }
  for (const std::string &Rel : P->Mirror) {
    auto Made = linkInto(O.Target, Rel, P->SourceAbs + "/" + Rel, M);
    if (!Made)
      return Made.takeError();
    Res.Links += *Made;
  }
  if (!Note.empty()) {
    if (llvm::Error E = writeGenerated(O.Target, kHipNoteFile, Note, M))
      return E;
    Res.Note = kHipNoteFile;
  }
  if (llvm::Error E = writeManifest(O.Target, M))
    return E;
  return Res;
}

} // namespace asmevo::install
