// Walking a tree of code objects and hashing the candidates for a K0.
#include "install/Tree.h"

#include "install/Manifest.h"
#include "support/Error.h"
#include "support/FileIO.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace asmevo::install {

bool isInstallerFile(llvm::StringRef Rel) {
  return Rel == kManifestFile || Rel == "asmevo-install.txt" || Rel == kBackupDir ||
         Rel.starts_with(std::string(kBackupDir) + "/");
}

std::string absolutePath(llvm::StringRef Path) {
  llvm::SmallString<256> Abs(Path);
  (void)llvm::sys::fs::make_absolute(Abs);
  // The longest part that exists, resolved; the rest (not there yet) appended as written.
  llvm::SmallString<256> Head(Abs);
  std::vector<std::string> Tail;
  llvm::SmallString<256> Real;
  while (llvm::sys::fs::real_path(Head, Real)) {
    llvm::StringRef Name = llvm::sys::path::filename(Head);
    llvm::StringRef Parent = llvm::sys::path::parent_path(Head);
    if (Parent.empty() || Parent == Head) {
      Real = Abs; // nothing of it exists (cannot happen under "/")
      Tail.clear();
      break;
    }
    Tail.push_back(Name.str());
    Head = Parent;
  }
  for (auto It = Tail.rbegin(); It != Tail.rend(); ++It)
    llvm::sys::path::append(Real, *It);
  llvm::sys::path::remove_dots(Real, /*remove_dot_dot=*/true);
  return Real.str().str();
}

bool isWithin(llvm::StringRef Path, llvm::StringRef Dir) {
  return Path == Dir || (Path.size() > Dir.size() && Path.starts_with(Dir) &&
                         (Dir.ends_with("/") || Path[Dir.size()] == '/'));
}

namespace {

bool formatIs(const std::string &File, const char *Format) {
  if (!llvm::sys::fs::is_regular_file(File))
    return false;
  auto B = readFile(File);
  if (!B) {
    llvm::consumeError(B.takeError());
    return false;
  }
  nlohmann::json J = nlohmann::json::parse((*B)->getBuffer(), nullptr, false);
  return J.is_object() && J.contains("format") && J["format"] == Format;
}

// Why a directory of a source is never searched, or "" when it is searched.
std::string protectedWhy(const std::string &Dir, llvm::StringRef Name, llvm::StringRef RunAbs) {
  namespace fs = llvm::sys::fs;
  if (Name == kBackupDir)
    return "another install's backups";
  if ((!RunAbs.empty() && absolutePath(Dir) == RunAbs) ||
      formatIs(Dir + "/summary.json", "asmevo-workflow-summary"))
    return "a workflow run directory";
  if (fs::exists(Dir + "/k0.hsaco") &&
      (fs::is_directory(Dir + "/search") || fs::exists(Dir + "/k0.s") ||
       fs::exists(Dir + "/gate.json")))
    return "a kernel's directory of a workflow run";
  if (formatIs(Dir + "/run.json", "asmevo-run"))
    return "a search run directory (asmevo-agent)";
  return "";
}

} // namespace

llvm::Expected<std::vector<TreeFile>> listTree(llvm::StringRef Root, llvm::StringRef RunDir,
                                               std::vector<ProtectedDir> *Protected) {
  if (!llvm::sys::fs::is_directory(Root))
    return llvm::make_error<ToolError>("not a directory", Root.str());
  std::vector<TreeFile> Files;
  std::string RunAbs = RunDir.empty() ? "" : absolutePath(RunDir);
  std::error_code EC;
  llvm::sys::fs::recursive_directory_iterator It(Root, EC, /*follow_symlinks=*/false), End;
  for (; It != End && !EC; It.increment(EC)) {
    llvm::StringRef P = It->path();
    std::string Rel = P.drop_front(Root.size()).ltrim('/').str();
    llvm::sys::fs::file_status Own;
    if (!llvm::sys::fs::status(P, Own, /*follow=*/false) && llvm::sys::fs::is_directory(Own)) {
      std::string Why = protectedWhy(P.str(), llvm::sys::path::filename(P), RunAbs);
      if (!Why.empty()) {
        It.no_push();
        if (Protected && Rel != kBackupDir) // the target's own backups are no news
          Protected->push_back({Rel, Why});
      }
      continue;
    }
    if (isInstallerFile(Rel))
      continue;
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
  if (Protected)
    std::sort(Protected->begin(), Protected->end(),
              [](const ProtectedDir &A, const ProtectedDir &B) { return A.Rel < B.Rel; });
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
