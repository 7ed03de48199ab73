#include "support/FileLock.h"

#include "support/Error.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace asmevo {

std::string lockHolderName() {
  char Host[256] = {0};
  if (::gethostname(Host, sizeof Host - 1) != 0)
    std::strcpy(Host, "?");
  return "host " + std::string(Host) + ", pid " + std::to_string(::getpid());
}

FileLock &FileLock::operator=(FileLock &&O) noexcept {
  if (this != &O) {
    if (Fd >= 0)
      ::close(Fd);
    Fd = O.Fd;
    Path = std::move(O.Path);
    O.Fd = -1;
  }
  return *this;
}

FileLock::~FileLock() {
  if (Fd >= 0)
    ::close(Fd); // releases the record lock
}

llvm::Expected<FileLock> FileLock::acquire(const std::string &Path, const std::string &What,
                                           bool Shared) {
  int Fd = ::open(Path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (Fd < 0)
    return makeError("'" + Path + "': cannot open the lock file: " + std::strerror(errno));
  struct flock L;
  std::memset(&L, 0, sizeof L);
  L.l_type = Shared ? F_RDLCK : F_WRLCK;
  L.l_whence = SEEK_SET;
  L.l_start = 0;
  L.l_len = 0; // the whole file
  if (::fcntl(Fd, F_SETLK, &L) != 0) {
    int Err = errno;
    std::string Holder;
    if (Err == EAGAIN || Err == EACCES) {
      char B[256] = {0};
      ssize_t N = ::pread(Fd, B, sizeof B - 1, 0);
      Holder = N > 0 ? std::string(B, size_t(N)) : std::string();
      while (!Holder.empty() && (Holder.back() == '\n' || Holder.back() == '\0'))
        Holder.pop_back();
    }
    ::close(Fd);
    if (Err == EAGAIN || Err == EACCES)
      return makeError("'" + Path + "' is in use by " +
                       (Holder.empty() ? std::string("another process") : Holder) + ": " + What);
    return makeError("'" + Path + "': cannot lock: " + std::strerror(Err));
  }
  std::string Me = lockHolderName() + "\n";
  if (!Shared &&
      (::ftruncate(Fd, 0) != 0 || ::pwrite(Fd, Me.data(), Me.size(), 0) != ssize_t(Me.size()))) {
    int Err = errno;
    ::close(Fd);
    return makeError("'" + Path + "': cannot write the lock holder: " + std::strerror(Err));
  }
  FileLock F;
  F.Fd = Fd;
  F.Path = Path;
  return F;
}

llvm::Expected<FileLock> FileLock::acquireExistingShared(const std::string &Path,
                                                         const std::string &What) {
  struct stat St;
  if (::stat(Path.c_str(), &St) != 0 && errno == ENOENT)
    return FileLock();
  return acquire(Path, What, /*Shared=*/true);
}

llvm::Error FileLock::upgrade(const std::string &What) {
  if (Fd < 0)
    return makeError("'" + Path + "': no lock to upgrade");
  struct flock L;
  std::memset(&L, 0, sizeof L);
  L.l_type = F_WRLCK;
  L.l_whence = SEEK_SET;
  if (::fcntl(Fd, F_SETLK, &L) != 0) {
    int Err = errno;
    if (Err != EAGAIN && Err != EACCES)
      return makeError("'" + Path + "': cannot lock: " + std::strerror(Err));
    // Another reader (a team start or merge reading this run): it wrote no name, but the
    // kernel knows its pid.
    struct flock Q;
    std::memset(&Q, 0, sizeof Q);
    Q.l_type = F_WRLCK;
    Q.l_whence = SEEK_SET;
    std::string Who = "another process";
    if (::fcntl(Fd, F_GETLK, &Q) == 0 && Q.l_type != F_UNLCK)
      Who = "pid " + std::to_string(Q.l_pid) + " (reading it)";
    return makeError("'" + Path + "' is in use by " + Who + ": " + What);
  }
  std::string Me = lockHolderName() + "\n";
  if (::ftruncate(Fd, 0) != 0 || ::pwrite(Fd, Me.data(), Me.size(), 0) != ssize_t(Me.size()))
    return makeError("'" + Path + "': cannot write the lock holder: " + std::strerror(errno));
  return llvm::Error::success();
}

} // namespace asmevo
