// Changing a target, one recorded step at a time: the directories an install creates, K* with
// the backup of what it replaces, the mirror's links and the generated note. Each function
// records in the manifest what it made, so that --uninstall can take it away again.
#pragma once

#include "install/Manifest.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace asmevo::install {

// Create Target if it is not there (recorded as ".").
llvm::Error makeTarget(const std::string &Target, Manifest &M);

// Write Bytes at Target/Rel atomically, creating its directories; with Backup (K0's bytes),
// first keep them at Target/.asmevo-backup/Rel. Mode: the replaced file's permissions (0: new).
llvm::Error placeFile(const std::string &Target, const std::string &Rel, llvm::StringRef Bytes,
                      llvm::StringRef Backup, unsigned Mode, Manifest &M);

// A symbolic link Target/Rel -> To, unless something is there already. True when made.
llvm::Expected<bool> linkInto(const std::string &Target, const std::string &Rel,
                              const std::string &To, Manifest &M);

// Refuse to write over a file at Target/Rel that the install did not generate as it is.
llvm::Error checkGenerated(const std::string &Target, const std::string &Rel, const Manifest &M);
// Write a generated file and record its SHA-256.
llvm::Error writeGenerated(const std::string &Target, const std::string &Rel, llvm::StringRef Text,
                           Manifest &M);

} // namespace asmevo::install
