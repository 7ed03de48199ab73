// File input/output helpers: whole-file reads, atomic writes, scoped temporary directories.
#include "support/FileIO.h"
#include "support/Error.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <filesystem>
#include <system_error>
#include <unistd.h>

namespace asmevo {

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> readFile(llvm::StringRef Path) {
  auto B = Path == "-" ? llvm::MemoryBuffer::getSTDIN()
                       : llvm::MemoryBuffer::getFile(Path, /*IsText=*/false,
                                                     /*RequiresNullTerminator=*/false);
  if (!B)
    return llvm::make_error<ToolError>("cannot read: " + B.getError().message(), Path.str());
  return std::move(*B);
}

llvm::Error writeFileAtomic(llvm::StringRef Path, llvm::StringRef Data, unsigned Mode) {
  if (Path == "-") {
    llvm::outs() << Data;
    llvm::outs().flush();
    return llvm::Error::success();
  }
  // A device, FIFO or socket (/dev/null, /dev/stdout, a pipe) is written in place: renaming a
  // temporary file over it would replace the device node with a regular file.
  llvm::sys::fs::file_status St;
  if (!llvm::sys::fs::status(Path, St) && llvm::sys::fs::exists(St) &&
      !llvm::sys::fs::is_regular_file(St) && !llvm::sys::fs::is_directory(St)) {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Path, EC, llvm::sys::fs::OF_None);
    if (EC)
      return llvm::make_error<ToolError>("cannot open output: " + EC.message(), Path.str());
    OS << Data;
    OS.flush();
    if (OS.has_error()) {
      std::string Msg = OS.error().message();
      OS.clear_error();
      return llvm::make_error<ToolError>("cannot write output: " + Msg, Path.str());
    }
    return llvm::Error::success();
  }
  llvm::SmallString<256> Tmp;
  llvm::SmallString<256> Dir(Path);
  llvm::sys::path::remove_filename(Dir);
  if (Dir.empty())
    Dir = ".";
  std::string Model = (Dir + "/." + llvm::sys::path::filename(Path) + ".tmp%%%%%%").str();
  int FD;
  if (auto EC = llvm::sys::fs::createUniqueFile(Model, FD, Tmp, llvm::sys::fs::OF_None, Mode))
    return llvm::make_error<ToolError>("cannot create output: " + EC.message(), Path.str());
  {
    llvm::raw_fd_ostream OS(FD, /*shouldClose=*/true);
    OS << Data;
    OS.flush();
    if (OS.has_error()) {
      std::string Msg = OS.error().message();
      OS.clear_error();
      llvm::sys::fs::remove(Tmp);
      return llvm::make_error<ToolError>("cannot write output: " + Msg, Path.str());
    }
  }
  if (auto EC = llvm::sys::fs::rename(Tmp, Path)) {
    llvm::sys::fs::remove(Tmp);
    return llvm::make_error<ToolError>("cannot write output: " + EC.message(), Path.str());
  }
  return llvm::Error::success();
}

llvm::Expected<TempDir> TempDir::create(llvm::StringRef Prefix) {
  llvm::SmallString<256> P;
  if (auto EC = llvm::sys::fs::createUniqueDirectory(Prefix, P))
    return makeError("cannot create a temporary directory: " + EC.message());
  return TempDir(std::string(P));
}

TempDir::~TempDir() {
  // std::filesystem, not llvm::sys::fs::remove_directories: LLVM's remove refuses anything but
  // regular files, directories and links, so a FIFO inside kept the directory alive.
  std::error_code Ec;
  if (!Path.empty())
    std::filesystem::remove_all(Path, Ec);
}

std::string TempDir::file(llvm::StringRef Name) const { return (Path + "/" + Name).str(); }

std::string sha256Hex(llvm::StringRef Data) {
  auto H = llvm::SHA256::hash(llvm::arrayRefFromStringRef(Data));
  return llvm::toHex(H, /*LowerCase=*/true);
}

} // namespace asmevo
