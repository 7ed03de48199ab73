// The install manifest, <target>/asmevo-install.json (format asmevo-install-manifest v1): what
// an install put into its target, so that a second install is idempotent and --uninstall can
// restore the target exactly. Paths in it are relative to the target and must stay inside it
// (checkContained); "run" is absolute. Each entry's "target" (K*'s target id, "gfx942") was
// added compatibly within version 1: an entry written before it has none, and its K* file
// tells (entryTarget).
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace asmevo::install {

constexpr const char *kManifestFile = "asmevo-install.json";
constexpr const char *kManifestFormat = "asmevo-install-manifest";
constexpr int kManifestVersion = 1;
// Backups of replaced files: <target>/<kBackupDir>/<path>.
constexpr const char *kBackupDir = ".asmevo-backup";

// One K* placed in the target.
struct ManifestEntry {
  std::string Kernel;      // the run's kernel name
  std::string Run;         // the run directory (absolute)
  std::string Path;        // where K* is, relative to the target
  std::string Source;      // where K0 was found (absolute; empty for HIP without --from)
  std::string K0Sha256;    // K0, as found where K* now is (or in the source)
  std::string KStarSha256; // K*, as written
  // "replaced" (K0 was there: Backup holds it), "added" (nothing of anyone's was there) or
  // "present" (K* was already there when the install came: left alone by --uninstall).
  std::string Action;
  std::string Backup; // relative to the target; empty unless replaced
  std::string Target; // K*'s target id ("gfx942"); empty in manifests from before the field
  // The launches K* was verified on (install/Run.h's verifiedLaunches; null: not recorded).
  nlohmann::json VerifiedOn;
};

// A file the install generated (the HIP note) or a symbolic link it made (the AITer mirror).
struct ManifestFile {
  std::string Path;   // relative to the target
  std::string Sha256; // a generated file's bytes; a link: empty
  std::string Link;   // a link: where it points
};

struct Manifest {
  std::string Layout; // "triton", "aiter" or "hip"
  std::string Source; // the dump, asm root or application directory (absolute; may be empty)
  std::vector<ManifestEntry> Entries;
  std::vector<ManifestFile> Generated; // notes
  std::vector<ManifestFile> Links;     // the mirror's links
  std::vector<std::string> Dirs;       // directories the install created, parents first

  const ManifestEntry *entry(llvm::StringRef Path) const;
  nlohmann::ordered_json json() const;
};

// The manifest of Target, if there is one. A manifest that is not one is an error (exit 2) that
// names the file and the field: not UTF-8 or JSON, another format or version, a field of the
// wrong type, a SHA-256 that is not 64 hex digits, an absolute path, a backup that is not
// .asmevo-backup/<path>.
llvm::Expected<std::optional<Manifest>> readManifest(llvm::StringRef Target);

// Every path M names (entries, backups, the note, links, directories) resolves, after ".." and
// symbolic links (a link's own name is the manifest's: only its directory is resolved), inside
// Target; else an InstallRefusal naming the manifest, the entry and where it leads. Doing: what
// is refused ("uninstalled", "installed").
llvm::Error checkContained(llvm::StringRef Target, const Manifest &M, const std::string &Doing);

// K*'s target id of an entry: its "target", else read from the K* file at Target/E.Path (empty
// when that is not a code object).
std::string entryTarget(llvm::StringRef Target, const ManifestEntry &E);
// Write it atomically.
llvm::Error writeManifest(llvm::StringRef Target, const Manifest &M);

} // namespace asmevo::install
