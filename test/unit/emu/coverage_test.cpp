// Every instruction of the corpus (Triton objects for three targets, the compiled corpus built
// by corpus.build-clang) decodes and is implemented by the emulator, with one documented
// exception: gfx950's ds_read_b64_tr_b16 (see triton_kernels_test.cpp).
#include "emu/Coverage.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>

using namespace asmevo::emu;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> objectsUnder(const std::string &Dir, const std::string &Ext) {
  std::vector<std::string> R;
  if (!fs::exists(Dir))
    return R;
  for (const auto &E : fs::recursive_directory_iterator(Dir))
    if (E.is_regular_file() && E.path().extension() == Ext)
      R.push_back(E.path().string());
  std::sort(R.begin(), R.end());
  return R;
}

void expectCovered(const std::vector<std::string> &Objs, const std::set<std::string> &Allowed,
                   uint64_t MinInstructions) {
  auto R = scanCoverage(Objs);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(R->Undecodable, 0u);
  EXPECT_GE(R->Instructions, MinInstructions);
  for (const auto &[M, C] : R->Ops) {
    if (!C.implemented()) {
      EXPECT_TRUE(Allowed.count(M))
          << M << " (" << C.Count << "x, first at " << C.FirstSeen << ") is not implemented";
    }
  }
  std::printf("coverage: %llu objects, %llu instructions, %llu/%zu mnemonics implemented\n",
              (unsigned long long)R->Objects, (unsigned long long)R->Instructions,
              (unsigned long long)R->implementedOps(), R->Ops.size());
}

TEST(Coverage, TritonCorpus) {
  std::string Dir = std::string(ASMEVO_SOURCE_DIR) + "/test/corpus/triton";
  expectCovered(objectsUnder(Dir + "/gfx90a", ".hsaco"), {}, 4000);
  expectCovered(objectsUnder(Dir + "/gfx942", ".hsaco"), {}, 4000);
  expectCovered(objectsUnder(Dir + "/gfx950", ".hsaco"), {"ds_read_b64_tr_b16"}, 4000);
}

TEST(Coverage, CompiledCorpus) {
  auto Objs = objectsUnder(std::string(ASMEVO_CORPUS_DIR) + "/clang", ".hsaco");
  ASSERT_FALSE(Objs.empty()) << "no compiled corpus under " << ASMEVO_CORPUS_DIR
                             << "/clang: run the corpus.build-clang test first";
  expectCovered(Objs, {}, 5000);
}

} // namespace
