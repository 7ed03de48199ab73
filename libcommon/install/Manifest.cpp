// The install manifest as JSON: written atomically after every install, read before every
// install and uninstall. Self-describing: format name and version first. A manifest is read
// strictly (every field's type, every SHA-256, every path), because an uninstall acts on it:
// it restores and removes the files it names.
#include "install/Manifest.h"

#include "codeobj/CodeObject.h"
#include "install/Refusal.h"
#include "install/Run.h"
#include "support/Error.h"
#include "support/FileIO.h"
#include "support/JsonText.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

namespace asmevo::install {

namespace {

nlohmann::ordered_json fileJson(const ManifestFile &F) {
  nlohmann::ordered_json J = {{"path", F.Path}};
  if (!F.Link.empty())
    J["link"] = F.Link;
  else
    J["sha256"] = F.Sha256;
  return J;
}

// The fields of one object of the manifest, each checked; the first problem is kept, named by
// its place ("entries[2].kstar_sha256").
class Reader {
public:
  explicit Reader(std::string File) : File(std::move(File)) {}

  // Key of J as a string; Required: it must be there (else absent or null gives "").
  std::string str(const nlohmann::json &J, const std::string &Where, const char *Key,
                  bool Required) {
    auto It = J.find(Key);
    if (It == J.end() || It->is_null()) {
      if (Required)
        fail(Where + Key, "is missing");
      return "";
    }
    if (!It->is_string()) {
      fail(Where + Key, "is " + jsonShown(*It) + " (" + jsonTypeName(*It) + "), not a string");
      return "";
    }
    std::string S = It->get<std::string>();
    if (S.size() > 4096)
      fail(Where + Key, "is a string of " + std::to_string(S.size()) + " bytes, not a path");
    return S;
  }

  std::string sha(const nlohmann::json &J, const std::string &Where, const char *Key) {
    std::string S = str(J, Where, Key, true);
    bool Hex = S.size() == 64;
    for (char C : S)
      Hex = Hex && ((C >= '0' && C <= '9') || (C >= 'a' && C <= 'f'));
    if (!Hex && ok())
      fail(Where + Key, "is \"" + S.substr(0, 70) + "\", not a SHA-256 (64 hex digits)");
    return S;
  }

  // A path relative to the target: not absolute, not empty (the checks against the file
  // system come later, in checkContained).
  std::string path(const nlohmann::json &J, const std::string &Where, const char *Key,
                   bool Required = true) {
    std::string S = str(J, Where, Key, Required);
    if (ok() && (Required || !S.empty()) &&
        (S.empty() || llvm::sys::path::is_absolute(S, llvm::sys::path::Style::posix)))
      fail(Where + Key, "is \"" + S + "\", not a path relative to the target");
    return S;
  }

  const nlohmann::json &array(const nlohmann::json &J, const char *Key) {
    static const nlohmann::json None = nlohmann::json::array();
    auto It = J.find(Key);
    if (It == J.end() || !It->is_array()) {
      fail(Key, It == J.end() ? "is missing" : "is not an array");
      return None;
    }
    return *It;
  }

  bool object(const nlohmann::json &J, const std::string &Where) {
    if (!J.is_object())
      fail(Where.substr(0, Where.size() - 1), "is " + jsonShown(J) + ", not an object");
    return J.is_object();
  }

  void fail(const std::string &Field, const std::string &Why) {
    if (Err.empty())
      Err = "\"" + Field + "\" " + Why;
  }
  bool ok() const { return Err.empty(); }
  llvm::Error error() const {
    return llvm::make_error<ToolError>("a malformed install manifest: " + Err, File);
  }

private:
  std::string File, Err;
};

ManifestEntry parseEntry(Reader &In, const nlohmann::json &J, const std::string &Where) {
  ManifestEntry E;
  if (!In.object(J, Where))
    return E;
  E.Kernel = In.str(J, Where, "kernel", true);
  E.Run = In.str(J, Where, "run", true);
  E.Path = In.path(J, Where, "path");
  E.Source = In.str(J, Where, "source", false);
  E.K0Sha256 = In.sha(J, Where, "k0_sha256");
  E.KStarSha256 = In.sha(J, Where, "kstar_sha256");
  E.Action = In.str(J, Where, "action", true);
  E.Backup = In.path(J, Where, "backup", false);
  E.Target = In.str(J, Where, "target", false);
  if (J.contains("verified_on") && (J["verified_on"].is_array() || J["verified_on"].is_null()))
    E.VerifiedOn = J["verified_on"];
  if (!In.ok())
    return E;
  if (E.Action != "replaced" && E.Action != "added" && E.Action != "present")
    In.fail(Where + "action", "is \"" + E.Action + "\", not replaced, added or present");
  else if (E.Action == "replaced" && E.Backup != std::string(kBackupDir) + "/" + E.Path)
    In.fail(Where + "backup", "is \"" + E.Backup + "\", not \"" + kBackupDir + "/" + E.Path +
                                  "\" (where the install keeps the file it replaced)");
  else if (E.Action != "replaced" && !E.Backup.empty())
    In.fail(Where + "backup", "is \"" + E.Backup + "\" for an entry that replaced nothing");
  else if (E.Path == kManifestFile || E.Path == kBackupDir ||
           llvm::StringRef(E.Path).starts_with(std::string(kBackupDir) + "/"))
    In.fail(Where + "path", "is \"" + E.Path + "\", one of the installer's own files");
  return E;
}

ManifestFile parseFile(Reader &In, const nlohmann::json &J, const std::string &Where, bool Link) {
  ManifestFile F;
  if (!In.object(J, Where))
    return F;
  F.Path = In.path(J, Where, "path");
  if (Link)
    F.Link = In.str(J, Where, "link", true);
  else
    F.Sha256 = In.sha(J, Where, "sha256");
  return F;
}

// Where Rel leads from Base (resolved): ".." and symbolic links as the system would follow
// them, the last component's link too unless Own (a link the manifest names as such). A
// component that does not exist is taken as written.
std::string resolveUnder(const std::string &Base, llvm::StringRef Rel, bool Own) {
  namespace path = llvm::sys::path;
  std::string Cur = Base;
  llvm::SmallVector<llvm::StringRef, 8> Parts;
  Rel.split(Parts, '/', -1, /*KeepEmpty=*/false);
  for (size_t I = 0; I < Parts.size(); ++I) {
    llvm::StringRef C = Parts[I];
    if (C == ".")
      continue;
    if (C == "..") {
      llvm::StringRef Up = path::parent_path(Cur, path::Style::posix);
      Cur = Up.empty() ? "/" : Up.str();
      continue;
    }
    std::string Next = (Cur == "/" ? "" : Cur) + "/" + C.str();
    llvm::sys::fs::file_status St;
    bool Last = I + 1 == Parts.size();
    llvm::SmallString<256> Real;
    if (!(Last && Own) && !llvm::sys::fs::status(Next, St, /*follow=*/false) &&
        llvm::sys::fs::is_symlink_file(St) && !llvm::sys::fs::real_path(Next, Real))
      Cur = Real.str().str();
    else
      Cur = Next;
  }
  return Cur;
}

} // namespace

const ManifestEntry *Manifest::entry(llvm::StringRef Path) const {
  for (const ManifestEntry &E : Entries)
    if (E.Path == Path)
      return &E;
  return nullptr;
}

nlohmann::ordered_json Manifest::json() const {
  using OJ = nlohmann::ordered_json;
  OJ J = {{"format", kManifestFormat}, {"format_version", kManifestVersion},
          {"layout", Layout},          {"source", Source.empty() ? OJ() : OJ(Source)},
          {"entries", OJ::array()},    {"generated", OJ::array()},
          {"links", OJ::array()},      {"dirs", Dirs}};
  for (const ManifestEntry &E : Entries)
    J["entries"].push_back({{"kernel", E.Kernel},
                            {"run", E.Run},
                            {"path", E.Path},
                            {"source", E.Source.empty() ? OJ() : OJ(E.Source)},
                            {"k0_sha256", E.K0Sha256},
                            {"kstar_sha256", E.KStarSha256},
                            {"action", E.Action},
                            {"backup", E.Backup.empty() ? OJ() : OJ(E.Backup)},
                            {"target", E.Target.empty() ? OJ() : OJ(E.Target)},
                            {"verified_on", OJ::parse(E.VerifiedOn.dump())}});
  for (const ManifestFile &F : Generated)
    J["generated"].push_back(fileJson(F));
  for (const ManifestFile &F : Links)
    J["links"].push_back(fileJson(F));
  return J;
}

llvm::Expected<std::optional<Manifest>> readManifest(llvm::StringRef Target) {
  std::string Path = (Target + "/" + kManifestFile).str();
  llvm::sys::fs::file_status St;
  if (llvm::sys::fs::status(Path, St, /*follow=*/false))
    return std::nullopt;
  if (!llvm::sys::fs::is_regular_file(St))
    return llvm::make_error<ToolError>("not a regular file (an install manifest is one)", Path);
  if (St.getSize() > (uint64_t(64) << 20))
    return llvm::make_error<ToolError>(
        "a file of " + std::to_string(St.getSize()) + " bytes, not an install manifest", Path);
  auto B = readFile(Path);
  if (!B)
    return B.takeError();
  llvm::StringRef Text = (*B)->getBuffer();
  if (llvm::Error E = checkUtf8Text(Path, Text))
    return std::move(E);
  auto Parsed = parseJsonText(Path, Text);
  if (!Parsed)
    return Parsed.takeError();
  const nlohmann::json &J = *Parsed;
  if (!J.is_object() || !J.contains("format") || J["format"] != kManifestFormat)
    return llvm::make_error<ToolError>(
        std::string("not an install manifest (format ") + kManifestFormat + ")", Path);
  const nlohmann::json &V = J.contains("format_version") ? J["format_version"] : nlohmann::json();
  if (V != kManifestVersion)
    return llvm::make_error<ToolError>(
        "install manifest version " + jsonShown(V) + " (this installer reads version 1)", Path);
  Reader In(Path);
  Manifest M;
  M.Layout = In.str(J, "", "layout", true);
  if (In.ok() && M.Layout != "triton" && M.Layout != "aiter" && M.Layout != "hip")
    In.fail("layout", "is \"" + M.Layout + "\", not triton, aiter or hip");
  M.Source = In.str(J, "", "source", false);
  const nlohmann::json &Entries = In.array(J, "entries");
  for (size_t I = 0; I < Entries.size() && In.ok(); ++I)
    M.Entries.push_back(parseEntry(In, Entries[I], "entries[" + std::to_string(I) + "]."));
  for (bool IsLink : {false, true}) {
    const char *Key = IsLink ? "links" : "generated";
    const nlohmann::json &Files = In.ok() ? In.array(J, Key) : Entries;
    for (size_t I = 0; In.ok() && I < Files.size(); ++I)
      (IsLink ? M.Links : M.Generated)
          .push_back(parseFile(In, Files[I], Key + ("[" + std::to_string(I) + "]."), IsLink));
  }
  const nlohmann::json &Dirs = In.ok() ? In.array(J, "dirs") : Entries;
  for (size_t I = 0; In.ok() && I < Dirs.size(); ++I) {
    if (!Dirs[I].is_string() || Dirs[I].get<std::string>().empty() ||
        llvm::sys::path::is_absolute(Dirs[I].get<std::string>(), llvm::sys::path::Style::posix))
      In.fail("dirs[" + std::to_string(I) + "]",
              "is " + jsonShown(Dirs[I]) + ", not a directory relative to the target");
    else
      M.Dirs.push_back(Dirs[I].get<std::string>());
  }
  if (!In.ok())
    return In.error();
  return M;
}

llvm::Error writeManifest(llvm::StringRef Target, const Manifest &M) {
  return writeFileAtomic((Target + "/" + kManifestFile).str(), M.json().dump(2) + "\n");
}

llvm::Error checkContained(llvm::StringRef Target, const Manifest &M, const std::string &Doing) {
  llvm::SmallString<256> Real;
  if (llvm::sys::fs::real_path(Target, Real))
    return llvm::Error::success(); // no target yet: nothing to act on
  std::string Base = Real.str().str();
  auto Check = [&](const std::string &Field, const std::string &Rel, bool Own) -> llvm::Error {
    std::string At = resolveUnder(Base, Rel, Own);
    if (At.size() > Base.size() && llvm::StringRef(At).starts_with(Base) && At[Base.size()] == '/')
      return llvm::Error::success();
    if (At == Base && llvm::StringRef(Field).starts_with("dirs"))
      return llvm::Error::success(); // "." is the target itself, which an install may create
    return llvm::make_error<InstallRefusal>(
        "\"" + Field + "\" is \"" + Rel + "\", which leads outside '" + Target.str() + "' (to '" +
            At + "'): not " + Doing + "; nothing was changed",
        (Target + "/" + kManifestFile).str());
  };
  for (size_t I = 0; I < M.Entries.size(); ++I) {
    std::string W = "entries[" + std::to_string(I) + "].";
    if (llvm::Error E = Check(W + "path", M.Entries[I].Path, false))
      return E;
    if (!M.Entries[I].Backup.empty())
      if (llvm::Error E = Check(W + "backup", M.Entries[I].Backup, false))
        return E;
  }
  for (size_t I = 0; I < M.Generated.size(); ++I)
    if (llvm::Error E =
            Check("generated[" + std::to_string(I) + "].path", M.Generated[I].Path, false))
      return E;
  for (size_t I = 0; I < M.Links.size(); ++I)
    if (llvm::Error E = Check("links[" + std::to_string(I) + "].path", M.Links[I].Path, true))
      return E;
  for (size_t I = 0; I < M.Dirs.size(); ++I)
    if (llvm::Error E = Check("dirs[" + std::to_string(I) + "]", M.Dirs[I], false))
      return E;
  return llvm::Error::success();
}

std::string entryTarget(llvm::StringRef Target, const ManifestEntry &E) {
  if (!E.Target.empty())
    return E.Target;
  auto B = readFile((Target + "/" + E.Path).str());
  if (!B) {
    llvm::consumeError(B.takeError());
    return "";
  }
  auto C = CodeObject::read((*B)->getBuffer().str(), E.Path);
  if (!C) {
    llvm::consumeError(C.takeError());
    return "";
  }
  return shortTargetId(C->Target);
}

} // namespace asmevo::install
