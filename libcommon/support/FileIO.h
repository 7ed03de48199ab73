// Reading inputs and writing outputs atomically (write to a temporary file beside the target,
// then rename), so that a failed run never leaves a partly written output.
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <string>

namespace asmevo {

// Read a whole file ("-" = stdin). Errors name the file.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> readFile(llvm::StringRef Path);

// Write Data to Path atomically ("-" = stdout). Errors name the file. A new file gets Mode less
// the umask (0666 by default; 0600 for outputs that hold an application's data).
llvm::Error writeFileAtomic(llvm::StringRef Path, llvm::StringRef Data, unsigned Mode = 0666);

// A temporary directory removed (with its contents) when this object dies.
class TempDir {
public:
  static llvm::Expected<TempDir> create(llvm::StringRef Prefix);
  TempDir(TempDir &&O) noexcept : Path(std::move(O.Path)) { O.Path.clear(); }
  TempDir &operator=(TempDir &&) = delete;
  ~TempDir();
  const std::string &path() const { return Path; }
  std::string file(llvm::StringRef Name) const;

private:
  explicit TempDir(std::string P) : Path(std::move(P)) {}
  std::string Path;
};

// Hex SHA-256 of a byte string.
std::string sha256Hex(llvm::StringRef Data);

} // namespace asmevo
