// The install manifest as JSON: written atomically after every install, read before every
// install and uninstall. Self-describing: format name and version first.
#include "install/Manifest.h"

#include "install/JsonField.h"
#include "support/Error.h"
#include "support/FileIO.h"

#include "llvm/Support/FileSystem.h"

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

bool parseFile(const nlohmann::json &J, ManifestFile &F) {
  if (!J.is_object() || !J.contains("path") || !J["path"].is_string())
    return false;
  F.Path = J["path"].get<std::string>();
  for (auto [Key, Field] : {std::pair{"sha256", &F.Sha256}, std::pair{"link", &F.Link}})
    if (J.contains(Key) && J[Key].is_string())
      *Field = J[Key].get<std::string>();
  return true;
}

bool parseEntry(const nlohmann::json &J, ManifestEntry &E) {
  if (!J.is_object())
    return false;
  for (const char *Key : {"kernel", "run", "path", "k0_sha256", "kstar_sha256", "action"})
    if (!J.contains(Key) || !J[Key].is_string())
      return false;
  E.Kernel = J["kernel"].get<std::string>();
  E.Run = J["run"].get<std::string>();
  E.Path = J["path"].get<std::string>();
  if (J.contains("source") && J["source"].is_string())
    E.Source = J["source"].get<std::string>();
  E.K0Sha256 = J["k0_sha256"].get<std::string>();
  E.KStarSha256 = J["kstar_sha256"].get<std::string>();
  E.Action = J["action"].get<std::string>();
  if (J.contains("backup") && J["backup"].is_string())
    E.Backup = J["backup"].get<std::string>();
  return E.Action == "replaced" || E.Action == "added" || E.Action == "present";
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
                            {"backup", E.Backup.empty() ? OJ() : OJ(E.Backup)}});
  for (const ManifestFile &F : Generated)
    J["generated"].push_back(fileJson(F));
  for (const ManifestFile &F : Links)
    J["links"].push_back(fileJson(F));
  return J;
}

llvm::Expected<std::optional<Manifest>> readManifest(llvm::StringRef Target) {
  std::string Path = (Target + "/" + kManifestFile).str();
  if (!llvm::sys::fs::exists(Path))
    return std::nullopt;
  auto B = readFile(Path);
  if (!B)
    return B.takeError();
  nlohmann::json J = nlohmann::json::parse((*B)->getBuffer(), nullptr, false);
  if (J.is_discarded() || !J.is_object() || textOf(J, "format") != kManifestFormat)
    return llvm::make_error<ToolError>(
        std::string("not an install manifest (format ") + kManifestFormat + ")", Path);
  if (intOf(J, "format_version") != kManifestVersion)
    return llvm::make_error<ToolError>("install manifest version " +
                                           std::to_string(intOf(J, "format_version")) +
                                           " (this installer reads version 1)",
                                       Path);
  Manifest M;
  if (J.contains("layout") && J["layout"].is_string())
    M.Layout = J["layout"].get<std::string>();
  if (J.contains("source") && J["source"].is_string())
    M.Source = J["source"].get<std::string>();
  bool Ok = M.Layout == "triton" || M.Layout == "aiter" || M.Layout == "hip";
  for (const char *Key : {"entries", "generated", "links", "dirs"})
    Ok = Ok && J.contains(Key) && J[Key].is_array();
  if (Ok) {
    for (const nlohmann::json &E : J["entries"]) {
      ManifestEntry X;
      Ok = Ok && parseEntry(E, X);
      M.Entries.push_back(X);
    }
    for (const char *Key : {"generated", "links"})
      for (const nlohmann::json &E : J[Key]) {
        ManifestFile F;
        Ok = Ok && parseFile(E, F);
        (std::string(Key) == "links" ? M.Links : M.Generated).push_back(F);
      }
    for (const nlohmann::json &D : J["dirs"]) {
      Ok = Ok && D.is_string();
      if (D.is_string())
        M.Dirs.push_back(D.get<std::string>());
    }
  }
  if (!Ok)
    return llvm::make_error<ToolError>("a malformed install manifest", Path);
  return M;
}

llvm::Error writeManifest(llvm::StringRef Target, const Manifest &M) {
  return writeFileAtomic((Target + "/" + kManifestFile).str(), M.json().dump(2) + "\n");
}

} // namespace asmevo::install
