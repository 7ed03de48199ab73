// The capture bundle (launch/CaptureBundle.h) and pointer discovery (launch/CaptureReach.h):
// the bytes checked with msgpack-c directly, every prefix of a bundle refused as truncated,
// exact messages for the other bad bundles, 0600 files, and reachability through a pointer table.
#include "TestHelpers.h"
#include "launch/CaptureBundle.h"
#include "launch/CaptureLaunch.h"
#include "launch/CaptureReach.h"
#include "support/Error.h"
#include "support/FileIO.h"

#include "llvm/ADT/StringExtras.h"

#include <gtest/gtest.h>
#include <msgpack.hpp>

#include <cstring>
#include <map>
#include <sys/stat.h>
#include <tuple>

using namespace asmevo;
using namespace asmevo::launch;
using asmevo::test::failure;

namespace {

CaptureBundle sample() {
  CaptureBundle B;
  B.Runtime = "asmevo-hip (emulated) 0.1";
  B.Device = "AsmEvo emulated gfx942";
  B.CodeObject = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0x40};
  B.Kernel = "paged_attn";
  B.Nth = 2;
  B.GridWorkgroups = {4, 2, 1};
  B.Block = {256, 1, 1};
  B.DynamicLds = 1024;
  B.Stream = 0x5000;
  B.Kernarg = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  B.Regions.push_back({0x10000, "kernarg+0x0", {1, 2, 3, 4}, {5, 6, 7, 8}});
  B.Regions.push_back({0x20000, "0x10000+0x8", {9, 9}, {9, 10}});
  B.Globals.push_back({"scale", {0, 0, 0x40, 0x40}, {0, 0, 0x80, 0x40}});
  return B;
}

std::string encode(const CaptureBundle &B) {
  auto S = encodeCaptureBundle(B);
  EXPECT_TRUE(bool(S)) << (S ? "" : failure(S.takeError()).Message);
  return S ? *S : std::string();
}

// The failure message of decoding Bytes as file "b.bundle".
test::Failure decodeFailure(const std::string &Bytes) {
  auto B = decodeCaptureBundle(Bytes, "b.bundle");
  return failure(B);
}

// A bundle with one top-level field replaced (or removed when Value is null), through
// msgpack-c, not through the encoder under test.
std::string withField(const std::string &Bytes, const std::string &Key,
                      const msgpack::object *Value) {
  msgpack::object_handle H = msgpack::unpack(Bytes.data(), Bytes.size());
  msgpack::sbuffer Buf;
  msgpack::packer<msgpack::sbuffer> P(Buf);
  const auto &M = H.get().via.map;
  uint32_t N = 0;
  for (uint32_t I = 0; I < M.size; ++I)
    N += !(M.ptr[I].key.as<std::string>() == Key && !Value);
  P.pack_map(N);
  for (uint32_t I = 0; I < M.size; ++I) {
    bool Hit = M.ptr[I].key.as<std::string>() == Key;
    if (Hit && !Value)
      continue;
    P.pack(M.ptr[I].key);
    P.pack(Hit ? *Value : M.ptr[I].val);
  }
  return std::string(Buf.data(), Buf.size());
}

// A MessagePack map's fields by key, read with msgpack-c.
std::map<std::string, msgpack::object> fieldsOf(const msgpack::object &Map) {
  std::map<std::string, msgpack::object> F;
  for (uint32_t I = 0; I < Map.via.map.size; ++I)
    F[Map.via.map.ptr[I].key.as<std::string>()] = Map.via.map.ptr[I].val;
  return F;
}

TEST(CaptureBundle, EncodesTheDocumentedFields) {
  std::string S = encode(sample());
  msgpack::object_handle H = msgpack::unpack(S.data(), S.size());
  std::map<std::string, msgpack::object> F = fieldsOf(H.get());
  EXPECT_EQ(F.size(), 14u);
  EXPECT_EQ(F["format"].as<std::string>(), "asmevo-capture-bundle");
  EXPECT_EQ(F["format_version"].as<unsigned>(), 1u);
  EXPECT_EQ(F["kernel"].as<std::string>(), "paged_attn");
  EXPECT_EQ(F["grid_workgroups"].as<std::vector<uint32_t>>(), (std::vector<uint32_t>{4, 2, 1}));
  EXPECT_EQ(F["block"].as<std::vector<uint32_t>>(), (std::vector<uint32_t>{256, 1, 1}));
  EXPECT_EQ(F["dynamic_lds"].as<unsigned>(), 1024u);
  EXPECT_EQ(F["stream"].as<uint64_t>(), 0x5000u);
  ASSERT_EQ(F["kernarg"].type, msgpack::type::BIN);
  EXPECT_EQ(F["kernarg"].via.bin.size, 9u);
  ASSERT_EQ(F["regions"].type, msgpack::type::ARRAY);
  ASSERT_EQ(F["regions"].via.array.size, 2u);
  std::map<std::string, msgpack::object> R = fieldsOf(F["regions"].via.array.ptr[1]);
  EXPECT_EQ(R["base"].as<uint64_t>(), 0x20000u);
  EXPECT_EQ(R["reached_from"].as<std::string>(), "0x10000+0x8");
  EXPECT_EQ(std::string(R["post"].via.bin.ptr, R["post"].via.bin.size), std::string("\x09\x0a"));
  ASSERT_EQ(F["globals"].type, msgpack::type::ARRAY);
  ASSERT_EQ(F["globals"].via.array.size, 1u);
  std::map<std::string, msgpack::object> G = fieldsOf(F["globals"].via.array.ptr[0]);
  EXPECT_EQ(G.size(), 3u);
  EXPECT_EQ(G["name"].as<std::string>(), "scale");
  EXPECT_EQ(std::string(G["pre"].via.bin.ptr, G["pre"].via.bin.size),
            std::string("\0\0\x40\x40", 4));
}

TEST(CaptureBundle, GlobalsAreOptionalUniqueAndSized) {
  // Without the key: no globals (a code object without global variables).
  auto B = decodeCaptureBundle(withField(encode(sample()), "globals", nullptr), "b.bundle");
  ASSERT_TRUE(bool(B)) << failure(B.takeError()).Message;
  EXPECT_TRUE(B->Globals.empty());
  CaptureBundle Twice = sample();
  Twice.Globals.push_back(Twice.Globals[0]);
  auto T = encodeCaptureBundle(Twice);
  EXPECT_EQ(failure(T).Message, "not a valid capture bundle: globals[1]: 'scale' appears twice");
  CaptureBundle Short = sample();
  Short.Globals[0].Post.pop_back();
  auto S = encodeCaptureBundle(Short);
  EXPECT_EQ(failure(S).Message,
            "not a valid capture bundle: globals[0].post: 3 bytes, but pre has 4");
}

TEST(CaptureBundle, RoundTrips) {
  CaptureBundle A = sample();
  auto B = decodeCaptureBundle(encode(A), "b.bundle");
  ASSERT_TRUE(bool(B)) << failure(B.takeError()).Message;
  EXPECT_EQ(B->Runtime, A.Runtime);
  EXPECT_EQ(B->Device, A.Device);
  EXPECT_EQ(B->CodeObject, A.CodeObject);
  EXPECT_EQ(B->Kernel, A.Kernel);
  EXPECT_EQ(B->Nth, 2u);
  EXPECT_EQ(B->GridWorkgroups, A.GridWorkgroups);
  EXPECT_EQ(B->Block, A.Block);
  EXPECT_EQ(B->DynamicLds, 1024u);
  EXPECT_EQ(B->Stream, 0x5000u);
  EXPECT_EQ(B->Kernarg, A.Kernarg);
  ASSERT_EQ(B->Regions.size(), 2u);
  for (size_t I = 0; I < 2; ++I) {
    EXPECT_EQ(B->Regions[I].Base, A.Regions[I].Base);
    EXPECT_EQ(B->Regions[I].ReachedFrom, A.Regions[I].ReachedFrom);
    EXPECT_EQ(B->Regions[I].Pre, A.Regions[I].Pre);
    EXPECT_EQ(B->Regions[I].Post, A.Regions[I].Post);
  }
  EXPECT_EQ(B->regionAt(0x10003), &B->Regions[0]);
  EXPECT_EQ(B->regionAt(0x10004), nullptr);
  EXPECT_EQ(B->regionAt(0xffff), nullptr);
  EXPECT_EQ(B->regionAt(0x20001), &B->Regions[1]);
  ASSERT_EQ(B->Globals.size(), 1u);
  EXPECT_EQ(B->Globals[0].Name, "scale");
  EXPECT_EQ(B->Globals[0].Pre, A.Globals[0].Pre);
  EXPECT_EQ(B->Globals[0].Post, A.Globals[0].Post);
}

TEST(CaptureBundle, EveryPrefixIsTruncatedAndTrailingBytesAreNamed) {
  std::string S = encode(sample());
  for (size_t N = 0; N < S.size(); ++N) {
    auto F = decodeFailure(S.substr(0, N));
    ASSERT_EQ(F.Exit, 2) << N;
    std::string At = "'b.bundle'@0x" + llvm::utohexstr(N, /*LowerCase=*/true) + ": ";
    // A prefix either ends inside a value or cuts a container short of the elements it declares.
    ASSERT_TRUE(F.Message == At + "truncated capture bundle: the MessagePack document ends past "
                                  "the file's last byte" ||
                F.Message == At +
                                 "truncated or corrupt capture bundle: a MessagePack container "
                                 "declares more elements than the file's " +
                                 std::to_string(N) + " bytes can hold")
        << N << ": " << F.Message;
  }
  auto F = decodeFailure(S + "xy");
  EXPECT_EQ(F.Message, "'b.bundle'@0x" + llvm::utohexstr(S.size(), true) +
                           ": capture bundle has 2 trailing bytes after its MessagePack document");
  // 0xc1 is the one byte MessagePack never uses.
  F = decodeFailure(std::string("\xc1", 1) + S);
  EXPECT_EQ(F.Exit, 2);
  EXPECT_EQ(F.Message.rfind("'b.bundle'@0x0: corrupt capture bundle (MessagePack): ", 0), 0u)
      << F.Message;
}

TEST(CaptureBundle, OtherFormatsVersionsAndFieldsAreRefusedByName) {
  std::string S = encode(sample());
  msgpack::zone Z;
  msgpack::object V2(2u), Str(std::string("x"), Z), Neg(-1), Bad(std::string("other"), Z);
  EXPECT_EQ(decodeFailure(withField(S, "format_version", &V2)).Message,
            "'b.bundle': capture bundle format_version 2 is not supported (this tool reads "
            "version 1)");
  EXPECT_EQ(decodeFailure(withField(S, "format", &Bad)).Message,
            "'b.bundle': not a capture bundle: no \"format\": \"asmevo-capture-bundle\" field");
  EXPECT_EQ(decodeFailure(withField(S, "kernarg", nullptr)).Message,
            "'b.bundle': field kernarg is missing");
  EXPECT_EQ(decodeFailure(withField(S, "kernarg", &Str)).Message,
            "'b.bundle': field kernarg is not binary bytes");
  EXPECT_EQ(decodeFailure(withField(S, "stream", &Neg)).Message,
            "'b.bundle': field stream is out of range (0 to 18446744073709551615)");
  std::vector<uint32_t> Zero{4, 0, 1};
  msgpack::object G(Zero, Z);
  EXPECT_EQ(decodeFailure(withField(S, "grid_workgroups", &G)).Message,
            "'b.bundle': field grid_workgroups[1] is not an integer from 1 to 4294967295");
  EXPECT_EQ(decodeFailure("\x93\x01\x02\x03").Message,
            "'b.bundle': not a capture bundle: the document is not a MessagePack map");

  CaptureBundle B = sample();
  B.Regions[1].Post.push_back(0);
  EXPECT_EQ(failure(encodeCaptureBundle(B).takeError()).Message,
            "not a valid capture bundle: regions[1].post: 3 bytes, but pre has 2");
  B = sample();
  B.Regions[1].Base = 0x10002;
  EXPECT_EQ(failure(encodeCaptureBundle(B).takeError()).Message,
            "not a valid capture bundle: regions[1] at 0x10002 overlaps or precedes regions[0] at "
            "0x10000 (regions are sorted by base and disjoint)");
  B = sample();
  B.GridWorkgroups = {1u << 24, 1, 1};
  EXPECT_EQ(failure(encodeCaptureBundle(B).takeError()).Exit, 2);
}

TEST(CaptureBundle, FilesAreWrittenOwnerOnlyAndNeverHalfWay) {
  auto D = TempDir::create("capture-test");
  ASSERT_TRUE(bool(D));
  std::string P = D->file("k.bundle");
  ASSERT_FALSE(bool(writeCaptureBundle(sample(), P)));
  struct stat St;
  ASSERT_EQ(stat(P.c_str(), &St), 0);
  EXPECT_EQ(St.st_mode & 0777, 0600u);
  auto B = readCaptureBundle(P);
  ASSERT_TRUE(bool(B)) << failure(B.takeError()).Message;
  EXPECT_EQ(B->Kernel, "paged_attn");
  // An invalid bundle writes nothing, and leaves the earlier file as it was.
  CaptureBundle Bad = sample();
  Bad.Kernel.clear();
  std::string Q = D->file("bad.bundle");
  EXPECT_EQ(failure(writeCaptureBundle(Bad, Q)).Message,
            "'" + Q + "': not a valid capture bundle: kernel: the kernel name is empty");
  EXPECT_NE(stat(Q.c_str(), &St), 0);
  EXPECT_TRUE(bool(writeCaptureBundle(Bad, P)));
  EXPECT_TRUE(bool(readCaptureBundle(P)));
}

// Device memory for the reachability tests: allocations and their bytes.
struct Memory {
  std::map<uint64_t, std::vector<uint8_t>> Bytes;
  std::vector<DeviceAllocation> Allocs;
  std::vector<uint64_t> ReadOrder;
  void add(uint64_t Base, size_t Size) {
    Bytes[Base].assign(Size, 0);
    Allocs.push_back({Base, Size});
  }
  void put64(uint64_t Base, size_t Off, uint64_t V) {
    std::memcpy(Bytes[Base].data() + Off, &V, 8);
  }
  llvm::Expected<std::vector<ReachedAllocation>> reach(const std::vector<uint8_t> &Kernarg,
                                                       uint64_t Max = UINT64_MAX) {
    return reachableAllocations(
        Kernarg, Allocs,
        [&](uint64_t B, uint64_t S, std::vector<uint8_t> &Out) -> llvm::Error {
          ReadOrder.push_back(B);
          Out = Bytes.at(B);
          EXPECT_EQ(Out.size(), S);
          return llvm::Error::success();
        },
        Max);
  }
};

std::vector<uint8_t> kernarg(std::initializer_list<uint64_t> Words) {
  std::vector<uint8_t> K(Words.size() * 8);
  size_t I = 0;
  for (uint64_t W : Words)
    std::memcpy(K.data() + 8 * I++, &W, 8);
  return K;
}

TEST(CaptureReach, FollowsPointerTablesTransitively) {
  Memory M;
  M.add(0x100000, 64); // out: reached from the kernargs
  M.add(0x200000, 32); // a pointer table, reached through an interior pointer
  M.add(0x300000, 16); // page 0, reached from the table; points at itself
  M.add(0x400000, 16); // page 1, reached from the table
  M.add(0x500000, 16); // never reached: only a one-past-the-end pointer names it
  M.add(0x600000, 16); // never reached: nothing points to it
  M.put64(0x200000, 0, 0x300000);
  M.put64(0x200000, 8, 0x400008);
  M.put64(0x200000, 16, 0x500010);
  M.put64(0x300000, 8, 0x300000);
  M.Bytes[0x200000][28] = 0x42; // not a pointer: no allocation there
  auto R = M.reach(kernarg({0x100000, 7, 0x200010, 0x4ff000}));
  ASSERT_TRUE(bool(R)) << failure(R.takeError()).Message;
  ASSERT_EQ(R->size(), 4u);
  EXPECT_EQ((*R)[0].Base, 0x100000u);
  EXPECT_EQ((*R)[0].From, "kernarg+0x0");
  EXPECT_EQ((*R)[1].Base, 0x200000u);
  EXPECT_EQ((*R)[1].From, "kernarg+0x10");
  EXPECT_EQ((*R)[2].Base, 0x300000u);
  EXPECT_EQ((*R)[2].From, "0x200000+0x0");
  EXPECT_EQ((*R)[3].Base, 0x400000u);
  EXPECT_EQ((*R)[3].From, "0x200000+0x8");
  EXPECT_EQ((*R)[1].Bytes, M.Bytes[0x200000]);
  EXPECT_EQ(M.ReadOrder.size(), 4u); // each allocation read once, the cycle included
}

TEST(CaptureReach, RefusesOverTheByteLimitAndOverlappingAllocations) {
  Memory M;
  M.add(0x100000, 64);
  M.add(0x200000, 32);
  M.put64(0x100000, 0, 0x200000);
  auto R = M.reach(kernarg({0x100000}), 95);
  auto F = failure(R);
  EXPECT_EQ(F.Message, "allocation 0x200000 of 32 bytes (reached from 0x100000+0x0) "
                       "takes the capture to 96 bytes, over the limit of 95 "
                       "(--max-bytes)");
  EXPECT_EQ(F.Exit, 2);
  EXPECT_TRUE(bool(M.reach(kernarg({0x100000}), 96)));
  M.add(0x100020, 8);
  EXPECT_EQ(failure(M.reach(kernarg({0x100000})).takeError()).Message,
            "device allocations at 0x100000 and 0x100020 overlap");
}

TEST(CaptureReach, AReadErrorComesBack) {
  std::vector<DeviceAllocation> A{{0x1000, 8}};
  auto R = reachableAllocations(
      kernarg({0x1000}), A,
      [](uint64_t, uint64_t, std::vector<uint8_t> &) -> llvm::Error {
        return runtimeError("hipMemcpy failed");
      },
      UINT64_MAX);
  auto F = failure(R);
  EXPECT_EQ(F.Message, "hipMemcpy failed");
  EXPECT_EQ(F.Exit, 3);
}

// A kernel k(float *a, float *b, int n) and a bundle of it whose kernarg points a into its one
// region (0x10000, 16 bytes) and b nowhere.
struct KernargFixture {
  KernelSignature Sig;
  CaptureBundle B;
  KernargFixture() {
    Sig.Symbol = "k";
    Sig.KernargSize = 280; // 20 explicit bytes, then hidden arguments
    for (auto [Name, Kind, Off, Size] : {std::tuple{"a", "global_buffer", 0u, 8u},
                                         {"b", "global_buffer", 8u, 8u},
                                         {"n", "by_value", 16u, 4u},
                                         {"", "hidden_block_count_x", 24u, 4u}}) {
      KernelArg A;
      A.Name = Name;
      A.ValueKind = Kind;
      A.Offset = Off;
      A.Size = Size;
      Sig.Args.push_back(A);
    }
    B.Kernel = "k";
    B.Kernarg.assign(20, 0);
    uint64_t A = 0x10000, Bp = 0x30000;
    std::memcpy(B.Kernarg.data(), &A, 8);
    std::memcpy(B.Kernarg.data() + 8, &Bp, 8);
    B.Regions.push_back({0x10000, "kernarg+0x0", std::vector<uint8_t>(16), {}});
  }
  std::string kernargError() const {
    return failure(checkCaptureKernarg(B, Sig, "b.bundle")).Message;
  }
  std::string faultError(uint64_t Address) const {
    return failure(blameCaptureFault(llvm::make_error<MemoryFaultError>(
                                         "memory fault: ...", Address, "global_store_dword"),
                                     B, Sig, "b.bundle"))
        .Message;
  }
};

TEST(CaptureLaunch, TheKernargMustHoldEveryExplicitArgumentAndNoMoreThanTheSegment) {
  KernargFixture F;
  EXPECT_TRUE(F.kernargError().empty()) << F.kernargError();
  F.B.Kernarg.resize(12);
  EXPECT_EQ(F.kernargError(),
            "'b.bundle': the capture's kernarg is 12 bytes, but kernel 'k' takes 20 bytes of "
            "explicit arguments: it ends before the end of argument b (offset 8, 8 bytes); the "
            "bundle is cut short or not this kernel's");
  F.B.Kernarg.resize(281);
  EXPECT_EQ(F.kernargError(), "'b.bundle': the capture's kernarg is 281 bytes, more than kernel "
                              "'k''s 280-byte kernarg segment");
  // The whole segment, hidden arguments included, is a kernarg too.
  F.B.Kernarg.resize(280);
  EXPECT_TRUE(F.kernargError().empty()) << F.kernargError();
}

TEST(CaptureLaunch, K0FaultingIsTheBundlesFaultNamedByArgumentOrRegion) {
  KernargFixture F;
  // b points into no region.
  EXPECT_EQ(F.faultError(0x30040),
            "'b.bundle': K0, the code object the capture recorded, faults on memory the bundle "
            "does not hold (global_store_dword at 0x30040): argument b (kernarg+0x8) points to "
            "0x30000, which no region holds; capture the dispatch again");
  // Past a's region: cut short.
  EXPECT_EQ(F.faultError(0x10010),
            "'b.bundle': K0, the code object the capture recorded, faults on memory the bundle "
            "does not hold (global_store_dword at 0x10010): it lies 0 bytes past the end of region "
            "0x10000 (reached from kernarg+0x0, 16 bytes), which is cut short or lacks a "
            "neighbour; capture the dispatch again");
  EXPECT_EQ(F.faultError(0x100),
            "'b.bundle': K0, the code object the capture recorded, faults on memory the bundle "
            "does not hold (global_store_dword at 0x100): no region holds it; capture the dispatch "
            "again");
  // An input error naming no file is the bundle's (what the launch refuses); others pass.
  EXPECT_EQ(failure(blameCaptureFault(makeError("x"), F.B, F.Sig, "b.bundle")).Message,
            "'b.bundle': x");
  EXPECT_EQ(
      failure(blameCaptureFault(fileError("k.hsaco", 4, "y"), F.B, F.Sig, "b.bundle")).Message,
      "'k.hsaco'@0x4: y");
  auto R = failure(blameCaptureFault(runtimeError("z"), F.B, F.Sig, "b.bundle"));
  EXPECT_EQ(R.Message, "z");
  EXPECT_EQ(R.Exit, 3);
}

} // namespace
