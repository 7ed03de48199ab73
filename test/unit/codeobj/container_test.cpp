// Finding code objects in containers, and code-object URIs.
#include "codeobj/Container.h"

#include "llvm/Support/Endian.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

using namespace asmevo;

namespace {
// The first 64 bytes of an AMDGPU ELF header (gfx90a), enough for the container scan.
std::string fakeElf(uint32_t Mach) {
  std::string E(64, '\0');
  E.replace(0, 4,
            "\x7f"
            "ELF");
  E[4] = 2; // 64-bit
  E[5] = 1; // little endian
  E[7] = 64;
  llvm::support::endian::write16le(&E[18], 224);
  llvm::support::endian::write32le(&E[48], Mach);
  llvm::support::endian::write16le(&E[52], 64);
  return E;
}

void put64(std::string &S, uint64_t V) {
  char B[8];
  llvm::support::endian::write64le(B, V);
  S.append(B, 8);
}
} // namespace

TEST(Container, FindsEveryBundleEntryInConcatenatedBundles) {
  std::string File = "host-prefix-bytes";
  for (uint32_t Mach : {0x3fu, 0x30u}) {
    while (File.size() % 64)
      File += '\0';
    uint64_t Base = File.size();
    std::string B = "__CLANG_OFFLOAD_BUNDLE__";
    put64(B, 2);
    std::string Host = "host-x86_64-unknown-linux-gnu-", Dev = "hipv4-amdgcn-amd-amdhsa--gfx";
    uint64_t Hdr = B.size() + 2 * 24 + Host.size() + Dev.size();
    put64(B, Hdr);
    put64(B, 0);
    put64(B, Host.size());
    B += Host;
    put64(B, Hdr);
    put64(B, 64);
    put64(B, Dev.size());
    B += Dev;
    B += fakeElf(Mach);
    File += B;
    (void)Base;
  }
  auto R = findCodeObjects(File, "lib.so");
  ASSERT_TRUE(bool(R));
  ASSERT_EQ(R->size(), 2u);
  EXPECT_EQ((*R)[0].Processor, "gfx90a");
  EXPECT_EQ((*R)[1].Processor, "gfx908");
  EXPECT_EQ((*R)[0].Triple, "hipv4-amdgcn-amd-amdhsa--gfx");
  EXPECT_EQ((*R)[0].uri("/x/lib.so"),
            "file:///x/lib.so#offset=" + std::to_string((*R)[0].Offset) + "&size=64");
}

TEST(Container, TruncatedBundleIsAnErrorWithOffset) {
  std::string B = "__CLANG_OFFLOAD_BUNDLE__";
  put64(B, 1);
  put64(B, 1000);
  put64(B, 64);
  put64(B, 4);
  B += "abcd";
  auto R = findCodeObjects(B, "lib.so");
  ASSERT_FALSE(bool(R));
  EXPECT_EQ(llvm::toString(R.takeError()),
            "'lib.so'@0x20: offload bundle entry abcd extends past the end of the file");
}

TEST(Container, Uris) {
  CodeObjectUri U;
  auto R = parseCodeObjectUri("file:///a/b.so#offset=4096&size=100", U);
  ASSERT_TRUE(bool(R));
  EXPECT_TRUE(*R);
  EXPECT_EQ(U.Path, "/a/b.so");
  EXPECT_EQ(U.Offset, 4096u);
  EXPECT_EQ(U.Size, 100u);
  auto N = parseCodeObjectUri("/plain/path.hsaco", U);
  ASSERT_TRUE(bool(N));
  EXPECT_FALSE(*N);
  auto Bad = parseCodeObjectUri("file:///a#offset=x", U);
  ASSERT_FALSE(bool(Bad));
  EXPECT_EQ(llvm::toString(Bad.takeError()), "bad number 'x' in code object URI");
}

// imageSizeInMemory reads a code object's extent from its own headers (hipModuleLoadData and
// __hipRegisterFatBinary get a pointer, no size): a real code object's is its file size.
TEST(ImageSizeInMemory, RealCodeObjectIsItsFileSize) {
  for (const char *Rel : {"/test/corpus/triton/gfx942/vector_add_fp32.hsaco",
                          "/test/corpus/triton/gfx90a/vector_add_fp32.hsaco"}) {
    std::string Path = std::string(ASMEVO_SOURCE_DIR) + Rel;
    auto Buf = llvm::MemoryBuffer::getFile(Path);
    ASSERT_TRUE(bool(Buf)) << Path;
    // A copy in a larger buffer: nothing past the image may count.
    std::string Bytes = (*Buf)->getBuffer().str() + std::string(4096, '\x55');
    auto Size = imageSizeInMemory(Bytes.data(), Path);
    ASSERT_TRUE(bool(Size)) << llvm::toString(Size.takeError());
    EXPECT_EQ(*Size, (*Buf)->getBufferSize()) << Path;
  }
}

TEST(ImageSizeInMemory, BundleExtentIsItsFurthestEntry) {
  std::string B = "__CLANG_OFFLOAD_BUNDLE__";
  put64(B, 2);
  std::string Host = "host-x86_64-unknown-linux-gnu-", Dev = "hipv4-amdgcn-amd-amdhsa--gfx942";
  put64(B, 0x1000);
  put64(B, 0);
  put64(B, Host.size());
  B += Host;
  put64(B, 0x1000);
  put64(B, 0x2345);
  put64(B, Dev.size());
  B += Dev;
  auto Size = imageSizeInMemory(B.data(), "fatbin");
  ASSERT_TRUE(bool(Size)) << llvm::toString(Size.takeError());
  EXPECT_EQ(*Size, 0x3345u);
}

TEST(ImageSizeInMemory, RefusesWhatIsNeitherWithItsName) {
  std::string Junk(128, 'x');
  auto Size = imageSizeInMemory(Junk.data(), "the image at 0x1000");
  ASSERT_FALSE(bool(Size));
  EXPECT_EQ(llvm::toString(Size.takeError()),
            "the image at 0x1000: not an AMDGPU code object or an offload bundle");
  std::string B = "__CLANG_OFFLOAD_BUNDLE__";
  put64(B, 1);
  put64(B, 0);
  put64(B, 16);
  put64(B, 1u << 20); // an id of 1 MiB
  B += std::string(64, '\0');
  Size = imageSizeInMemory(B.data(), "fatbin");
  ASSERT_FALSE(bool(Size));
  EXPECT_EQ(llvm::toString(Size.takeError()),
            "fatbin: offload bundle entry 0 at offset 32 is corrupt");
  std::string C = "CCOB" + std::string(60, '\0');
  Size = imageSizeInMemory(C.data(), "fatbin");
  ASSERT_FALSE(bool(Size));
  EXPECT_EQ(llvm::toString(Size.takeError()),
            "fatbin: compressed offload bundles are not supported");
}
