// A directory tree of code objects (a Triton dump, an AITer asm root, an application's
// directory): its files by relative path, and which of them hold given bytes (by SHA-256).
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace asmevo::install {

struct TreeFile {
  std::string Rel; // relative to the root, '/'-separated
  uint64_t Size = 0;
};

// A directory under a source that the installer never searches nor replaces anything in.
struct ProtectedDir {
  std::string Rel; // relative to the root, '/'-separated
  std::string Why; // "a workflow run directory", "another install's backups", ...
};

// Every regular file under Root (a symbolic link to one counts; linked directories are not
// entered), sorted by path, without the installer's own files (its manifest, note and backups)
// and without what is under a protected directory, which Protected lists: any .asmevo-backup/
// (another install's backups, at any depth), a workflow run directory (its summary.json is an
// asmevo-workflow-summary, or it is RunDir itself) or a kernel's directory of one (k0.hsaco
// beside search/, k0.s or gate.json), and a search run directory (its run.json is an
// asmevo-run): K0's bytes there are the run's own files, never an install's target.
llvm::Expected<std::vector<TreeFile>> listTree(llvm::StringRef Root, llvm::StringRef RunDir = "",
                                               std::vector<ProtectedDir> *Protected = nullptr);

// SHA-256 -> relative paths, for the files whose size is one of Sizes (the others cannot match).
llvm::Expected<std::map<std::string, std::vector<std::string>>>
hashTree(llvm::StringRef Root, const std::vector<TreeFile> &Files, const std::set<uint64_t> &Sizes);

// Whether Rel is one of the installer's own files in a target.
bool isInstallerFile(llvm::StringRef Rel);

// Path made absolute and normalised, with symbolic links resolved in the part of it that exists
// (a target that is still to be created, under a linked directory, is where the link leads).
std::string absolutePath(llvm::StringRef Path);

// Whether Path (absolute, normalised) is Dir or below it.
bool isWithin(llvm::StringRef Path, llvm::StringRef Dir);

} // namespace asmevo::install
