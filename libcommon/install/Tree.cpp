// Walking a tree of code objects and hashing the candidates for a K0.
#include "install/Tree.h"

#include "install/Manifest.h"
#include "support/Error.h"
#include "support/FileIO.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>

namespace asmevo::install {

bool isInstallerFile(llvm::StringRef Rel) {
  return Rel == kManifestFile || Rel == "asmevo-install.txt" || Rel == kBackupDir ||
         Rel.starts_with(std::string(kBackupDir) + "/");
}

std::string absolutePath(llvm::StringRef Path) {
  llvm::SmallString<256> Real;
  if (!llvm::sys::fs::real_path(Path, Real))
    return Real.str().str();
  llvm::SmallString<256> Abs(Path);
  (void)llvm::sys::fs::make_absolute(Abs);
  llvm::sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
  return Abs.str().str();
}

llvm::Expected<std::vector<TreeFile>> listTree(llvm::StringRef Root) {
  if (!llvm::sys::fs::is_directory(Root))
    return llvm::make_error<ToolError>("not a directory", Root.str());
  std::vector<TreeFile> Files;
  std::error_code EC;
  llvm::sys::fs::recursive_directory_iterator It(Root, EC, /*follow_symlinks=*/false), End;
  for (; It != End && !EC; It.increment(EC)) {
    llvm::StringRef P = It->path();
    std::string Rel = P.drop_front(Root.size()).ltrim('/').str();
    if (isInstallerFile(Rel)) {
      if (Rel == kBackupDir)
        It.no_push();
      continue;
    }
    llvm::sys::fs::file_status St;
    if (llvm::sys::fs::status(P, St, /*follow=*/true))
      continue; // a dangling link
    if (!llvm::sys::fs::is_regular_file(St))
      continue;
    Files.push_back({Rel, St.getSize()});
  }
  if (EC)
    return llvm::make_error<ToolError>("cannot read the directory: " + EC.message(), Root.str());
  std::sort(Files.begin(), Files.end(),
            [](const TreeFile &A, const TreeFile &B) { return A.Rel < B.Rel; });
  return Files;
}

llvm::Expected<std::map<std::string, std::vector<std::string>>>
hashTree(llvm::StringRef Root, const std::vector<TreeFile> &Files,
         const std::set<uint64_t> &Sizes) {
  std::map<std::string, std::vector<std::string>> BySha;
  for (const TreeFile &F : Files) {
    if (!Sizes.count(F.Size))
      continue;
    auto B = readFile((Root + "/" + F.Rel).str());
    if (!B)
      return B.takeError();
    BySha[sha256Hex((*B)->getBuffer())].push_back(F.Rel);
  }
  return BySha;
}

} // namespace asmevo::install
