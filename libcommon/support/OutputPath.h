// Checking where a tool will write, before it does any work: an output path that names a
// directory, lies in a directory that cannot take a new file, is one of the tool's inputs (the
// same file, also through a symlink or another spelling) or is given twice is refused with the
// real reason. Outputs are written atomically (support/FileIO.h), so a symlinked output path is
// replaced by a regular file and the link's target is left as it was.
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <utility>

namespace asmevo {

// The file a user-named input reads: Spec itself, or the PATH of "file://PATH#offset=..".
std::string inputFilePath(llvm::StringRef Spec);

// Whether Output can be written: not a directory (nor a name ending in '/'), and in an existing
// directory that accepts new files (the atomic write puts a temporary file beside it). A device
// or FIFO (/dev/null) is written in place and accepted. "-" (stdout) is always accepted.
llvm::Error checkOutputPath(llvm::StringRef Output);

// Refuses Output when it is the same file as one of Inputs (paths or file:// URIs): "'OUT': is
// the input 'IN'; writing it would destroy the input (choose another output)". Inputs that do
// not exist are skipped; "-" is never an input file here.
llvm::Error checkOutputNotInput(llvm::StringRef Output, llvm::ArrayRef<std::string> Inputs);

// Both checks above.
llvm::Error checkOutput(llvm::StringRef Output, llvm::ArrayRef<std::string> Inputs);

// Refuses two outputs that are the same file: each entry is (how the user gave it, path), for
// example ("--out '#2=y.bin'", "y.bin"). The last one would silently win.
llvm::Error checkDistinctOutputs(llvm::ArrayRef<std::pair<std::string, std::string>> Outputs);

} // namespace asmevo
