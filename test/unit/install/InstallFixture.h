// What the install tests share: a temporary directory per test (removed at its end), files
// read and written as bytes, a workflow run made from the bundled Triton code objects (K* is K0
// with one instruction byte changed, as asmevo-install.bats's gfx90a_run makes it), a snapshot
// of a tree (every file's SHA-256 and mode, every link's target) and an error as one line.
#pragma once

#include "install/Refusal.h"
#include "support/Error.h"
#include "support/FileIO.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace asmevo::test {

// A bundled code object: test/corpus/triton/<Rel>.
inline std::string corpus(const std::string &Rel) {
  return std::string(ASMEVO_SOURCE_DIR) + "/test/corpus/triton/" + Rel;
}

inline std::string readBytes(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  std::stringstream S;
  S << In.rdbuf();
  return S.str();
}

// Write Bytes at Path, creating its directories.
inline void writeBytes(const std::string &Path, const std::string &Bytes) {
  ASSERT_FALSE(llvm::sys::fs::create_directories(llvm::sys::path::parent_path(Path)));
  std::ofstream Out(Path, std::ios::binary | std::ios::trunc);
  Out << Bytes;
  ASSERT_TRUE(Out.good()) << Path;
}

// K0 with the byte at .text + 4 flipped: the same target, kernel symbols and size, other bytes.
inline std::string changedText(const std::string &K0) {
  auto U16 = [&](size_t At) {
    uint16_t V;
    std::memcpy(&V, K0.data() + At, 2);
    return V;
  };
  auto U32 = [&](size_t At) {
    uint32_t V;
    std::memcpy(&V, K0.data() + At, 4);
    return V;
  };
  auto U64 = [&](size_t At) {
    uint64_t V;
    std::memcpy(&V, K0.data() + At, 8);
    return V;
  };
  uint64_t ShOff = U64(0x28);
  uint16_t ShNum = U16(0x3C), ShStrNdx = U16(0x3E);
  uint64_t Names = U64(ShOff + ShStrNdx * 64 + 24);
  std::string KS = K0;
  for (uint16_t I = 0; I < ShNum; ++I) {
    uint64_t H = ShOff + I * 64;
    if (std::strcmp(K0.c_str() + Names + U32(H), ".text") == 0) {
      KS[U64(H + 24) + 4] ^= 1;
      return KS;
    }
  }
  ADD_FAILURE() << "no .text section";
  return KS;
}

struct RunKernelSpec {
  std::string Name;
  std::string K0;    // bytes
  std::string KStar; // bytes ("": no search/best.hsaco)
  double Speedup;
};

// A workflow run directory: summary.json (asmevo-workflow-summary v1) and each kernel's
// <name>/k0.hsaco and <name>/search/best.hsaco.
inline void makeRun(const std::string &Dir, const std::vector<RunKernelSpec> &Kernels) {
  std::string S = "{\"format\": \"asmevo-workflow-summary\", \"format_version\": 1, \"kernels\": [";
  for (size_t I = 0; I < Kernels.size(); ++I) {
    const RunKernelSpec &K = Kernels[I];
    std::ostringstream Sp;
    Sp << K.Speedup;
    S += (I ? ", " : "") + std::string("{\"name\": \"") + K.Name + "\", \"speedup\": " + Sp.str() +
         ", \"kind\": \"modeled\"}";
    writeBytes(Dir + "/" + K.Name + "/k0.hsaco", K.K0);
    if (!K.KStar.empty())
      writeBytes(Dir + "/" + K.Name + "/search/best.hsaco", K.KStar);
  }
  writeBytes(Dir + "/summary.json", S + "]}\n");
}

// Every entry under Root, by relative path: "dir", "link -> <target>" or "<sha256> <mode>".
inline std::map<std::string, std::string> snapshot(const std::string &Root) {
  std::map<std::string, std::string> Out;
  std::error_code EC;
  for (llvm::sys::fs::recursive_directory_iterator It(Root, EC, /*follow_symlinks=*/false), End;
       It != End && !EC; It.increment(EC)) {
    std::string Rel = It->path().substr(Root.size() + 1);
    llvm::sys::fs::file_status St;
    EXPECT_FALSE(llvm::sys::fs::status(It->path(), St, /*follow=*/false));
    if (llvm::sys::fs::is_symlink_file(St)) {
      char Buf[4096];
      ssize_t N = ::readlink(It->path().c_str(), Buf, sizeof Buf);
      Out[Rel] = "link -> " + std::string(Buf, N > 0 ? size_t(N) : 0);
    } else if (llvm::sys::fs::is_directory(St)) {
      Out[Rel] = "dir";
    } else {
      char Mode[8];
      std::snprintf(Mode, sizeof Mode, "%o", unsigned(St.permissions()));
      Out[Rel] = sha256Hex(readBytes(It->path())) + " " + Mode;
    }
  }
  EXPECT_FALSE(EC) << EC.message();
  return Out;
}

// An error as the tool would print it after its name: "refused: '<file>': <message>",
// "error: '<file>': <message>", or "success".
inline std::string failure(llvm::Error E) {
  std::string Out = "success";
  llvm::handleAllErrors(
      std::move(E),
      [&](const install::InstallRefusal &R) { Out = "refused: '" + R.File + "': " + R.Message; },
      [&](const ToolError &T) { Out = "error: '" + T.File + "': " + T.Message; },
      [&](const llvm::ErrorInfoBase &B) { Out = "other: " + B.message(); });
  return Out;
}

template <typename T> std::string failure(llvm::Expected<T> &X) {
  return X ? "success" : failure(X.takeError());
}
template <typename T> std::string failure(llvm::Expected<T> &&X) { return failure(X); }

// A fresh directory for each test (its real path: no link in it), removed with all it holds.
class TempDirTest : public ::testing::Test {
protected:
  void SetUp() override {
    llvm::SmallString<256> D, Real;
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("asmevo-install-test", D));
    ASSERT_FALSE(llvm::sys::fs::real_path(D, Real));
    Tmp = Real.str().str();
  }
  void TearDown() override {
    if (!Tmp.empty()) {
      EXPECT_FALSE(llvm::sys::fs::remove_directories(Tmp));
    }
  }
  std::string at(const std::string &Rel) const { return Tmp + "/" + Rel; }

  std::string Tmp;
};

} // namespace asmevo::test
