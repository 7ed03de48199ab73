// An exclusive lock on a file, held for the lifetime of the value: a POSIX record lock
// (fcntl F_SETLK, F_WRLCK) on the whole file. That is the lock a run directory on a shared
// filesystem relies on: NFSv4 implements it in the protocol, NFSv3 through the lock manager
// (NLM), Lustre and GPFS natively, and the kernel drops it when the holder dies (kill -9, a
// cancelled Slurm step), so a stale lock never outlives its process. The holder writes who it
// is (host and pid) into the file, so that a refusal can name it.
// Record locks belong to the process: one process must open a lock file once (a second open
// and close of the same file would release the lock).
#pragma once

#include "llvm/Support/Error.h"

#include <string>

namespace asmevo {

class FileLock {
public:
  FileLock() = default;
  FileLock(FileLock &&O) noexcept : Fd(O.Fd), Path(std::move(O.Path)) { O.Fd = -1; }
  FileLock &operator=(FileLock &&O) noexcept;
  FileLock(const FileLock &) = delete;
  FileLock &operator=(const FileLock &) = delete;
  ~FileLock();

  // Take the lock on Path (created if missing), without waiting: an error naming the holder
  // ("host H, pid P", as it wrote it) when another process holds it. What is the lock's
  // purpose, for the message: "'Path' is in use by <Holder>: <What>". Shared: a read lock
  // (F_RDLCK): readers exclude a holder of the exclusive lock, not each other, and write nothing.
  static llvm::Expected<FileLock> acquire(const std::string &Path, const std::string &What,
                                          bool Shared = false);
  // A read lock on Path only where the file exists (none where it does not: nothing is
  // created), so that a reader that may refuse what it reads writes nothing at all.
  static llvm::Expected<FileLock> acquireExistingShared(const std::string &Path,
                                                        const std::string &What);
  // Turn a held read lock into the exclusive one and write the holder: refused, naming the
  // process, while another holds a read lock too.
  llvm::Error upgrade(const std::string &What);
  bool held() const { return Fd >= 0; }

private:
  int Fd = -1;
  std::string Path;
};

// "host H, pid P": who this process is, as a lock holder writes it.
std::string lockHolderName();

} // namespace asmevo
