// Uninstalling: check that every path the manifest names stays inside the target and that every
// file it records is still as the install left it (refusing otherwise, before anything is
// touched), then restore the backups, remove what was
// added (K*, links, the note, backups, directories left empty) and the manifest itself.
#include "install/Install.h"

#include "install/Manifest.h"
#include "install/Refusal.h"
#include "support/Error.h"
#include "support/FileIO.h"

#include "llvm/Support/FileSystem.h"

namespace asmevo::install {

namespace {

llvm::Error changed(const std::string &F, const std::string &What) {
  return llvm::make_error<InstallRefusal>(What + " since the install: not restored; nothing "
                                                 "was changed",
                                          F);
}

// The SHA-256 of a regular file (a link is followed), or "" when there is none.
llvm::Expected<std::string> shaOf(const std::string &F) {
  if (!llvm::sys::fs::exists(F))
    return "";
  auto B = readFile(F);
  if (!B)
    return B.takeError();
  return sha256Hex((*B)->getBuffer());
}

llvm::Error check(const std::string &Target, const Manifest &M) {
  for (const ManifestEntry &E : M.Entries) {
    if (E.Action == "present")
      continue;
    std::string F = Target + "/" + E.Path;
    auto Sha = shaOf(F);
    if (!Sha)
      return Sha.takeError();
    if (Sha->empty())
      return changed(F, "K* (" + E.KStarSha256.substr(0, 12) + ") was removed");
    if (*Sha != E.KStarSha256)
      return changed(F, "its SHA-256 " + *Sha + " is not the K* installed here (" +
                            E.KStarSha256.substr(0, 12) + "): it was changed");
    if (E.Action != "replaced")
      continue;
    std::string B = Target + "/" + E.Backup;
    auto BSha = shaOf(B);
    if (!BSha)
      return BSha.takeError();
    if (*BSha != E.K0Sha256)
      return llvm::make_error<ToolError>(
          "the backup of '" + E.Path + "' is " + (BSha->empty() ? "missing" : "not K0"), B);
  }
  for (const ManifestFile &G : M.Generated) {
    std::string F = Target + "/" + G.Path;
    auto Sha = shaOf(F);
    if (!Sha)
      return Sha.takeError();
    if (!Sha->empty() && *Sha != G.Sha256)
      return changed(F, "its SHA-256 " + *Sha + " is not the note written here: it was changed");
  }
  for (const ManifestFile &L : M.Links) {
    std::string F = Target + "/" + L.Path;
    llvm::sys::fs::file_status St;
    if (!llvm::sys::fs::status(F, St, /*follow=*/false) && llvm::sys::fs::exists(St) &&
        !llvm::sys::fs::is_symlink_file(St))
      return changed(F, "the link to '" + L.Link + "' was replaced by a file");
  }
  return llvm::Error::success();
}

} // namespace

llvm::Expected<UninstallResult> uninstall(llvm::StringRef TargetRef) {
  std::string Target = TargetRef.str();
  if (!llvm::sys::fs::is_directory(Target))
    return llvm::make_error<ToolError>("not a directory", Target);
  auto MM = readManifest(Target);
  if (!MM)
    return MM.takeError();
  if (!*MM)
    return llvm::make_error<ToolError>("no install here (asmevo-install writes one)",
                                       Target + "/" + kManifestFile);
  const Manifest &M = **MM;
  // Every path first, then every file: nothing is touched before the whole manifest is checked.
  if (llvm::Error E = checkContained(Target, M, "uninstalled"))
    return std::move(E);
  if (llvm::Error E = check(Target, M))
    return std::move(E);
  UninstallResult Res;
  Res.Target = Target;
  for (const ManifestEntry &E : M.Entries) {
    std::string F = Target + "/" + E.Path;
    if (E.Action == "present") {
      Res.Kept.push_back(E.Path);
      continue;
    }
    if (E.Action == "replaced") {
      std::string B = Target + "/" + E.Backup;
      llvm::sys::fs::file_status St;
      auto Bytes = readFile(B);
      if (!Bytes)
        return Bytes.takeError();
      if (llvm::Error Err = writeFileAtomic(F, (*Bytes)->getBuffer()))
        return std::move(Err);
      if (!llvm::sys::fs::status(B, St))
        (void)llvm::sys::fs::setPermissions(F, St.permissions());
      (void)llvm::sys::fs::remove(B);
      ++Res.Restored;
    } else {
      if (auto EC = llvm::sys::fs::remove(F))
        return llvm::make_error<ToolError>("cannot remove: " + EC.message(), F);
      ++Res.Removed;
    }
  }
  for (const ManifestFile &L : M.Links) {
    std::string F = Target + "/" + L.Path;
    llvm::sys::fs::file_status St;
    if (!llvm::sys::fs::status(F, St, /*follow=*/false) && llvm::sys::fs::is_symlink_file(St)) {
      (void)llvm::sys::fs::remove(F);
      ++Res.Links;
    }
  }
  for (const ManifestFile &G : M.Generated)
    (void)llvm::sys::fs::remove(Target + "/" + G.Path);
  if (auto EC = llvm::sys::fs::remove(Target + "/" + kManifestFile))
    return llvm::make_error<ToolError>("cannot remove: " + EC.message(),
                                       Target + "/" + kManifestFile);
  // Directories the install created, deepest first; one that holds someone's files stays.
  for (auto It = M.Dirs.rbegin(); It != M.Dirs.rend(); ++It)
    if (*It != ".")
      (void)llvm::sys::fs::remove(Target + "/" + *It, /*IgnoreNonExisting=*/true);
  (void)llvm::sys::fs::remove(Target + "/" + kBackupDir, true);
  if (!M.Dirs.empty() && M.Dirs.front() == ".")
    (void)llvm::sys::fs::remove(Target, true);
  return Res;
}

} // namespace asmevo::install
