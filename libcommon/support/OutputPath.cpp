// Output-path checks made before a tool does any work.
#include "support/OutputPath.h"

#include "support/Error.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <unistd.h>

namespace asmevo {

namespace fs = llvm::sys::fs;

std::string inputFilePath(llvm::StringRef Spec) {
  if (!Spec.starts_with("file://"))
    return Spec.str();
  return Spec.drop_front(7).split('#').first.str();
}

namespace {

llvm::Error outputError(llvm::StringRef Output, const std::string &Why) {
  return llvm::make_error<ToolError>(Why, Output.str());
}

// The absolute, dot-free spelling of Path (for comparing paths that do not exist yet).
std::string normalPath(llvm::StringRef Path) {
  llvm::SmallString<256> P(Path);
  (void)fs::make_absolute(P);
  llvm::sys::path::remove_dots(P, /*remove_dot_dot=*/true);
  return std::string(P);
}

bool sameFile(llvm::StringRef A, llvm::StringRef B) {
  bool Same = false;
  if (!fs::equivalent(A, B, Same))
    return Same;
  return normalPath(A) == normalPath(B); // one of them does not exist (yet)
}

} // namespace

llvm::Error checkOutputPath(llvm::StringRef Output) {
  if (Output == "-")
    return llvm::Error::success();
  if (Output.empty())
    return outputError(Output, "an empty output path");
  fs::file_status St;
  bool Exists = !fs::status(Output, St) && fs::exists(St);
  if (Exists && fs::is_directory(St))
    return outputError(Output, "is a directory; give a file name for the output");
  if (Output.ends_with("/"))
    return outputError(Output, "ends in '/', a directory name; give a file name for the output");
  if (Exists && !fs::is_regular_file(St))
    return llvm::Error::success(); // a device or FIFO is written in place
  llvm::SmallString<256> Dir(Output);
  llvm::sys::path::remove_filename(Dir);
  if (Dir.empty())
    Dir = ".";
  fs::file_status DirSt;
  if (fs::status(Dir, DirSt) || !fs::exists(DirSt))
    return outputError(Output, "its directory '" + std::string(Dir) + "' does not exist");
  if (!fs::is_directory(DirSt))
    return outputError(Output, "'" + std::string(Dir) + "' is not a directory");
  // The atomic write creates a temporary file beside the output: make sure the directory takes
  // one (permissions alone do not say so: root, read-only mounts, /proc).
  llvm::SmallString<256> Probe;
  int FD;
  std::string Model = std::string(Dir) + "/.asmevo-probe%%%%%%";
  if (std::error_code EC = fs::createUniqueFile(Model, FD, Probe))
    return outputError(Output, "cannot create a file in directory '" + std::string(Dir) + "' (" +
                                   EC.message() +
                                   "); outputs are written through a temporary file beside "
                                   "the target, then renamed");
  ::close(FD);
  (void)fs::remove(Probe);
  return llvm::Error::success();
}

llvm::Error checkOutputNotInput(llvm::StringRef Output, llvm::ArrayRef<std::string> Inputs) {
  if (Output == "-")
    return llvm::Error::success();
  for (const std::string &In : Inputs) {
    std::string Path = inputFilePath(In);
    if (Path == "-" || Path.empty())
      continue;
    bool Same = false;
    if (fs::equivalent(Output, Path, Same) || !Same)
      continue;
    return outputError(Output, "is the input '" + In +
                                   "'; writing it would destroy the input (choose another "
                                   "output)");
  }
  return llvm::Error::success();
}

llvm::Error checkOutput(llvm::StringRef Output, llvm::ArrayRef<std::string> Inputs) {
  if (llvm::Error E = checkOutputNotInput(Output, Inputs))
    return E;
  return checkOutputPath(Output);
}

llvm::Error checkDistinctOutputs(llvm::ArrayRef<std::pair<std::string, std::string>> Outputs) {
  for (size_t I = 0; I < Outputs.size(); ++I)
    for (size_t J = I + 1; J < Outputs.size(); ++J)
      if (Outputs[I].second != "-" && sameFile(Outputs[I].second, Outputs[J].second))
        return outputError(Outputs[J].second, "is given twice as an output (" + Outputs[I].first +
                                                  " and " + Outputs[J].first +
                                                  "); the second would overwrite the first");
  return llvm::Error::success();
}

} // namespace asmevo
