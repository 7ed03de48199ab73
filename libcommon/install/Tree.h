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

// Every regular file under Root (a symbolic link to one counts; linked directories are not
// entered), sorted by path, without the installer's own files (its manifest, note and backups).
llvm::Expected<std::vector<TreeFile>> listTree(llvm::StringRef Root);

// SHA-256 -> relative paths, for the files whose size is one of Sizes (the others cannot match).
llvm::Expected<std::map<std::string, std::vector<std::string>>>
hashTree(llvm::StringRef Root, const std::vector<TreeFile> &Files, const std::set<uint64_t> &Sizes);

// Whether Rel is one of the installer's own files in a target.
bool isInstallerFile(llvm::StringRef Rel);

// Path made absolute and normalised (symbolic links resolved when it exists).
std::string absolutePath(llvm::StringRef Path);

} // namespace asmevo::install
