// writeFileAtomic: regular files are replaced atomically; device nodes and FIFOs are written in
// place, never replaced by a regular file (an -o /dev/null once turned /dev/null into a file).
#include "support/FileIO.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

using namespace asmevo;

TEST(FileIO, RegularFileReplacedAtomically) {
  auto D = llvm::cantFail(TempDir::create("asmevo-fileio"));
  std::string P = D.file("out.bin");
  ASSERT_FALSE(bool(writeFileAtomic(P, "first")));
  ASSERT_FALSE(bool(writeFileAtomic(P, "second")));
  std::ifstream In(P);
  std::stringstream S;
  S << In.rdbuf();
  EXPECT_EQ(S.str(), "second");
}

static void fifoWrittenInPlace(const TempDir &D) {
  std::string P = D.file("pipe");
  ASSERT_EQ(mkfifo(P.c_str(), 0600), 0);
  // Hold the FIFO open for reading (O_RDWR never blocks on Linux), so the write cannot block
  // and a failure shows as missing data instead of a hang.
  int Fd = open(P.c_str(), O_RDWR | O_NONBLOCK);
  ASSERT_GE(Fd, 0);
  llvm::Error E = writeFileAtomic(P, "through the pipe");
  ASSERT_FALSE(bool(E)) << llvm::toString(std::move(E));
  char Buf[64];
  ssize_t N = read(Fd, Buf, sizeof Buf);
  close(Fd);
  std::string Got = N > 0 ? std::string(Buf, size_t(N)) : "";
  EXPECT_EQ(Got, "through the pipe");
  struct stat St;
  ASSERT_EQ(stat(P.c_str(), &St), 0);
  EXPECT_TRUE(S_ISFIFO(St.st_mode)) << "the FIFO was replaced";
}

TEST(FileIO, FifoIsWrittenInPlace) {
  std::string Dir;
  {
    auto D = llvm::cantFail(TempDir::create("asmevo-fileio"));
    Dir = D.path();
    fifoWrittenInPlace(D);
  }
  // The temporary directory goes, FIFO and all (it once stayed behind in /tmp).
  struct stat St;
  EXPECT_NE(stat(Dir.c_str(), &St), 0) << Dir << " is still there";
}
