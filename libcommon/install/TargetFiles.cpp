// The target's files as the install changes them, each change recorded in the manifest.
#include "install/TargetFiles.h"

#include "install/Refusal.h"
#include "support/Error.h"
#include "support/FileIO.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>

namespace asmevo::install {

namespace {

llvm::Error dirError(const std::string &Path, std::error_code EC) {
  return llvm::make_error<ToolError>("cannot create the directory: " + EC.message(), Path);
}

// Create the directories of Rel's parent under Target, recording those that were not there.
llvm::Error makeParents(const std::string &Target, llvm::StringRef Rel, Manifest &M) {
  llvm::StringRef Parent = llvm::sys::path::parent_path(Rel, llvm::sys::path::Style::posix);
  std::string Prefix;
  for (auto It = llvm::sys::path::begin(Parent, llvm::sys::path::Style::posix),
            End = llvm::sys::path::end(Parent);
       It != End; ++It) {
    Prefix += (Prefix.empty() ? "" : "/") + It->str();
    std::string D = Target + "/" + Prefix;
    if (llvm::sys::fs::is_directory(D))
      continue;
    if (auto EC = llvm::sys::fs::create_directory(D))
      return dirError(D, EC);
    if (std::find(M.Dirs.begin(), M.Dirs.end(), Prefix) == M.Dirs.end())
      M.Dirs.push_back(Prefix);
  }
  return llvm::Error::success();
}

llvm::Error writeWithMode(const std::string &Path, llvm::StringRef Bytes, unsigned Mode) {
  if (llvm::Error E = writeFileAtomic(Path, Bytes))
    return E;
  if (Mode)
    (void)llvm::sys::fs::setPermissions(Path, static_cast<llvm::sys::fs::perms>(Mode));
  return llvm::Error::success();
}

} // namespace

llvm::Error makeTarget(const std::string &Target, Manifest &M) {
  if (llvm::sys::fs::is_directory(Target))
    return llvm::Error::success();
  if (auto EC = llvm::sys::fs::create_directories(Target))
    return dirError(Target, EC);
  if (std::find(M.Dirs.begin(), M.Dirs.end(), ".") == M.Dirs.end())
    M.Dirs.insert(M.Dirs.begin(), ".");
  return llvm::Error::success();
}

llvm::Error placeFile(const std::string &Target, const std::string &Rel, llvm::StringRef Bytes,
                      llvm::StringRef Backup, unsigned Mode, Manifest &M) {
  if (!Backup.empty()) {
    std::string BRel = std::string(kBackupDir) + "/" + Rel;
    if (llvm::Error E = makeParents(Target, BRel, M))
      return E;
    if (llvm::Error E = writeWithMode(Target + "/" + BRel, Backup, Mode))
      return E;
  }
  if (llvm::Error E = makeParents(Target, Rel, M))
    return E;
  // An atomic write over one of the mirror's links replaces the link, not the original.
  return writeWithMode(Target + "/" + Rel, Bytes, Mode);
}

llvm::Expected<bool> linkInto(const std::string &Target, const std::string &Rel,
                              const std::string &To, Manifest &M) {
  std::string F = Target + "/" + Rel;
  llvm::sys::fs::file_status St;
  if (!llvm::sys::fs::status(F, St, /*follow=*/false) && llvm::sys::fs::exists(St))
    return false; // ours from an earlier install, or the user's: left as it is
  if (llvm::Error E = makeParents(Target, Rel, M))
    return std::move(E);
  if (auto EC = llvm::sys::fs::create_link(To, F))
    return llvm::make_error<ToolError>("cannot create a link: " + EC.message(), F);
  M.Links.push_back({Rel, "", To});
  return true;
}

llvm::Error checkGenerated(const std::string &Target, const std::string &Rel, const Manifest &M) {
  std::string F = Target + "/" + Rel;
  if (!llvm::sys::fs::exists(F))
    return llvm::Error::success();
  auto B = readFile(F);
  if (!B)
    return B.takeError();
  std::string Sha = sha256Hex((*B)->getBuffer());
  for (const ManifestFile &G : M.Generated)
    if (G.Path == Rel && G.Sha256 == Sha)
      return llvm::Error::success();
  return llvm::make_error<InstallRefusal>("its SHA-256 " + Sha +
                                              " is not the note an install wrote: not "
                                              "overwritten; nothing was changed",
                                          F);
}

llvm::Error writeGenerated(const std::string &Target, const std::string &Rel, llvm::StringRef Text,
                           Manifest &M) {
  if (llvm::Error E = writeFileAtomic(Target + "/" + Rel, Text))
    return E;
  M.Generated.erase(std::remove_if(M.Generated.begin(), M.Generated.end(),
                                   [&](const ManifestFile &G) { return G.Path == Rel; }),
                    M.Generated.end());
  M.Generated.push_back({Rel, sha256Hex(Text), ""});
  return llvm::Error::success();
}

} // namespace asmevo::install
