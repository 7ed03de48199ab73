// Metadata: msgpack-c parsing, semantic comparison, and YAML that LLVM's own reader turns back
// into the same document (checked with llvm::msgpack::Document, independent of our code).
#include "codeobj/Metadata.h"

#include "llvm/BinaryFormat/MsgPackDocument.h"

#include <gtest/gtest.h>

using namespace asmevo;

namespace {
std::string sampleNote() {
  msgpack::sbuffer B;
  msgpack::packer<msgpack::sbuffer> P(B);
  P.pack_map(3);
  P.pack("amdhsa.kernels");
  P.pack_array(1);
  P.pack_map(6);
  P.pack(".name");
  P.pack("add");
  P.pack(".symbol");
  P.pack("add.kd");
  P.pack(".vgpr_count");
  P.pack(6);
  P.pack(".odd_string");
  P.pack("0x10"); // would read back as a number without a tag
  P.pack(".flag");
  P.pack(true);
  P.pack(".neg");
  P.pack(-3);
  P.pack("amdhsa.target");
  P.pack("amdgcn-amd-amdhsa--gfx942");
  P.pack("amdhsa.version");
  P.pack_array(2);
  P.pack(1);
  P.pack(2);
  return std::string(B.data(), B.size());
}
} // namespace

TEST(Metadata, ParsesAndFindsKernels) {
  auto M = Metadata::parse(sampleNote());
  ASSERT_TRUE(bool(M));
  ASSERT_EQ(M->kernels().size(), 1u);
  const auto *K = M->kernelBySymbol("add.kd");
  ASSERT_NE(K, nullptr);
  EXPECT_EQ(Metadata::getString(*K, ".name"), std::string("add"));
  EXPECT_EQ(Metadata::getUInt(*K, ".vgpr_count"), 6u);
}

TEST(Metadata, RejectsCorruptBytes) {
  std::string Note = sampleNote();
  auto Bad = Metadata::parse(Note.substr(0, Note.size() / 2));
  ASSERT_FALSE(bool(Bad));
  EXPECT_NE(llvm::toString(Bad.takeError()).find("corrupt metadata note"), std::string::npos);
  auto Trailing = Metadata::parse(Note + "xy");
  ASSERT_FALSE(bool(Trailing));
  EXPECT_EQ(llvm::toString(Trailing.takeError()),
            "metadata note has 2 trailing bytes after the MessagePack document");
}

TEST(Metadata, SemanticDifference) {
  auto A = Metadata::parse(sampleNote());
  ASSERT_TRUE(bool(A));
  EXPECT_EQ(metadataDifference(A->root(), A->root()), "");
  std::string Other = sampleNote();
  size_t P = Other.find(".vgpr_count");
  Other[P + std::string(".vgpr_count").size()] = 8; // fixint 6 -> 8
  auto B = Metadata::parse(Other);
  ASSERT_TRUE(bool(B));
  EXPECT_EQ(metadataDifference(A->root(), B->root()), "amdhsa.kernels[0].vgpr_count: 6 vs 8");
}

TEST(Metadata, YamlReadsBackThroughLlvm) {
  auto A = Metadata::parse(sampleNote());
  ASSERT_TRUE(bool(A));
  std::string Yaml = A->toYaml();
  EXPECT_NE(Yaml.find("!str '0x10'"), std::string::npos);
  llvm::msgpack::Document Doc;
  ASSERT_TRUE(Doc.fromYAML(Yaml)) << Yaml;
  std::string Blob;
  Doc.writeToBlob(Blob);
  auto B = Metadata::parse(Blob);
  ASSERT_TRUE(bool(B));
  EXPECT_EQ(metadataDifference(A->root(), B->root()), "");
}
