// Installing a workflow run's K* where a runtime loads it (Triton's override directory, an
// AITer asm tree, a HIP application's code-object directory), and undoing it. Every install
// records itself in the target's manifest (install/Manifest.h), keeps a backup of what it
// replaces and refuses (install/Refusal.h) to overwrite a file that is neither K0 nor a K* of
// the run; nothing is written before every file has been checked.
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

namespace asmevo::install {

enum class Layout { Triton, Aiter, Hip };
const char *layoutName(Layout L); // "triton", "aiter", "hip"

struct InstallOptions {
  Layout Kind = Layout::Triton;
  std::string RunDir;
  // Triton: the dump directory of the original compile; AITer: the original asm root; HIP: the
  // application's code-object directory, or empty (K* is then named <kernel name>.hsaco).
  std::string Source;
  std::string Target;
  bool All = false; // install K* also when its speedup is at most 1 (never when K* is K0)
};

struct KernelResult {
  std::string Name;
  // "installed" (written now), "unchanged" (already there), "skipped" (nothing to install),
  // "not_found" (K0 is nowhere in the source)
  std::string Status;
  std::string Reason; // why skipped or not found
  std::string K0Sha256, KStarSha256;
  double Speedup = 0;
  std::vector<std::string> Paths; // where K* is, relative to the target
  nlohmann::json VerifiedOn;      // install/Run.h's verifiedLaunches
};

struct InstallResult {
  std::string Target;   // absolute
  bool InPlace = false; // the target is the source itself
  std::vector<KernelResult> Kernels;
  unsigned Written = 0; // files written (K* and backups not counted twice: K* only)
  unsigned Backups = 0; // files backed up now
  unsigned Links = 0;   // mirror links made now
  std::string Note;     // the HIP note, relative to the target ("" otherwise)
  // Directories of the source never searched (install/Tree.h: runs, other installs' backups).
  std::vector<std::pair<std::string, std::string>> Protected; // (relative path, why)
  std::string KStarTarget; // Triton: the one target of the K* in the target ("" otherwise)
};

// Install. Errors: ToolError (input: a bad run, source or target; exit 2), InstallRefusal.
llvm::Expected<InstallResult> install(const InstallOptions &O);

struct UninstallResult {
  std::string Target;
  unsigned Restored = 0, Removed = 0, Links = 0;
  std::vector<std::string> Kept; // K* that was there before the install ("present"), kept
};

// Undo what the manifest of Target records. Refuses when a file it wrote has changed since.
llvm::Expected<UninstallResult> uninstall(llvm::StringRef Target);

} // namespace asmevo::install
